"""Game events: the engine's only input, and their JSON-lines form.

Every event is a small frozen value. :func:`parse_event` turns one decoded
JSON object into an event or raises :class:`MalformedEvent` with a reason that
names the field; ``event.to_json()`` gives the canonical object back, so
``parse_event(e.to_json()) == e``. Fields the rules do not know (a table layer
may add ``confidence`` or ``frame`` to a roll) are ignored here, so a journal
row can be replayed as it was written. The full format is in docs/events.md.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from controller.rules.dice import is_whole
from controller.rules.records import MalformedEvent

ROLLERS = ("dealer", "shooter")


@dataclass(frozen=True, slots=True)
class Bet:
    """A player puts ``amount`` cents on a bet (adding to it if already there).

    ``on`` says which line or come bet an ``odds`` bet backs (``pass``,
    ``dont_pass``, ``come``, ``dont_come``); it may be left out when only one
    of the seat's bets fits.
    """

    seat: str
    bet: str
    amount: int
    number: int | None = None
    on: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"event": "bet", "seat": self.seat, "bet": self.bet}
        if self.number is not None:
            out["number"] = self.number
        if self.on is not None:
            out["on"] = self.on
        out["amount"] = self.amount
        return out


@dataclass(frozen=True, slots=True)
class Remove:
    """A player takes a bet down; the whole stake comes back (a ``returned`` effect)."""

    seat: str
    bet: str
    number: int | None = None
    on: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"event": "remove", "seat": self.seat, "bet": self.bet}
        if self.number is not None:
            out["number"] = self.number
        if self.on is not None:
            out["on"] = self.on
        return out


@dataclass(frozen=True, slots=True)
class Roll:
    """The dice at rest. ``by`` (Bang only, optional) asserts whose roll it is."""

    dice: tuple[int, ...]
    by: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"event": "roll", "dice": list(self.dice)}
        if self.by is not None:
            out["by"] = self.by
        return out


@dataclass(frozen=True, slots=True)
class NextShooter:
    """The dice go to the next seat without a seven-out: the shooter passes them
    after a decision (§4620.3(c)(5)) or the player in turn refuses to shoot
    (§4620.3(c)(6)). ``seat`` optionally names who shoots next."""

    seat: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"event": "next_shooter"}
        if self.seat is not None:
            out["seat"] = self.seat
        return out


Event = Bet | Remove | Roll | NextShooter


def _field(data: Mapping[str, Any], key: str, kind: type, required: bool = True) -> Any:
    if key not in data or data[key] is None:
        if required:
            raise MalformedEvent(f"field {key!r} is missing")
        return None
    value = data[key]
    # bool is an int in Python; a true/false amount is a mistake, not one cent.
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise MalformedEvent(f"field {key!r} must be {kind.__name__}, got {value!r}")
    if kind is str and not value:
        raise MalformedEvent(f"field {key!r} is empty")
    return value


def parse_event(data: Any) -> Event:
    """One decoded JSON object to an event; :class:`MalformedEvent` if it is not one."""
    if not isinstance(data, Mapping):
        raise MalformedEvent(f"an event is a JSON object, got {type(data).__name__}")
    kind = _field(data, "event", str)
    if kind == "bet":
        return Bet(
            seat=_field(data, "seat", str),
            bet=_field(data, "bet", str),
            amount=_field(data, "amount", int),
            number=_field(data, "number", int, required=False),
            on=_field(data, "on", str, required=False),
        )
    if kind == "remove":
        return Remove(
            seat=_field(data, "seat", str),
            bet=_field(data, "bet", str),
            number=_field(data, "number", int, required=False),
            on=_field(data, "on", str, required=False),
        )
    if kind == "roll":
        dice = _field(data, "dice", list)
        if not all(is_whole(d) for d in dice):
            raise MalformedEvent(f"field 'dice' must be a list of integers, got {dice!r}")
        by = _field(data, "by", str, required=False)
        if by is not None and by not in ROLLERS:
            raise MalformedEvent(f"field 'by' must be one of {', '.join(ROLLERS)}, got {by!r}")
        return Roll(dice=tuple(dice), by=by)
    if kind == "next_shooter":
        return NextShooter(seat=_field(data, "seat", str, required=False))
    raise MalformedEvent(f"unknown event {kind!r} (expected bet, remove, roll or next_shooter)")
