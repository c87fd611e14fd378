"""The pit's inputs, read once into typed values (pure): a shift opened and closed with its bank
counted by chip denomination, chips sold for cash, fills and credits each countersigned by a second
user, and the dice changed.

Each is a table input like a bet (docs/events.md, "The pit's inputs"): journaled with its ``user``
before it takes effect, accepted or refused by the table flow (:mod:`controller.table.flow`, which
asks :mod:`controller.pit.shift` whether it fits the shift), and read back from the journal by the
report. An accepted one has no effect row, so it changes nothing the rules engine or an earlier
journal's replay sees.

    >>> parse_pit_event({"event": "fill", "slip": "F-12", "amount": 50000, "user": "pat"})
    Slip(kind='fill', slip='F-12', amount=50000, user='pat')
    >>> bank_total(parse_pit_event({"event": "shift_open", "bank": {"2500": 40, "500": 100}}).bank)
    150000
"""
from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeGuard

#: Each input of the pit and the fields it takes besides ``event`` (and ``user``, ``via``).
FIELDS: dict[str, tuple[str, ...]] = {
    "shift_open": ("bank",),
    "shift_close": ("bank",),
    "buy_in": ("amount", "seat"),
    "fill": ("slip", "amount"),
    "credit": ("slip", "amount"),
    "countersign": ("slip",),
    "dice_set": ("set",),
}
PIT_EVENTS = tuple(FIELDS)
#: How long a field's value may be written as JSON, where it may be longer than a bet's: a bank of
#: :data:`MAX_DENOMINATIONS` denominations.
LONG_VALUES = {"bank": 400}
MAX_DENOMINATIONS = 16
#: The longest slip number and dice set name taken (characters).
MAX_SLIP = 32
MAX_SET = 64
#: The largest count or amount taken: a billion dollars in cents, far past any table's bank, and a
#: bound that keeps every sum an exact integer everywhere it is read (JSON readers that hold
#: numbers as doubles included).
MAX_CENTS = 10 ** 11

#: A bank counted by chip denomination: (denomination in cents, chips), denominations ascending.
Bank = tuple[tuple[int, int], ...]


class PitRefused(ValueError):
    """A pit input that is not one (a field missing or of the wrong kind), or does not fit the
    shift now; the message says why."""


@dataclass(frozen=True, slots=True)
class ShiftOpen:
    """A shift begins at the table with the chips in its tray, counted by denomination."""

    bank: Bank
    user: str | None


@dataclass(frozen=True, slots=True)
class ShiftClose:
    """The shift ends with the closing count of the tray, by denomination."""

    bank: Bank
    user: str | None


@dataclass(frozen=True, slots=True)
class BuyIn:
    """Chips sold for cash at the table (the cash goes to the drop box): ``seat`` when known."""

    amount: int
    seat: str | None
    user: str | None


@dataclass(frozen=True, slots=True)
class Slip:
    """A ``fill`` (chips brought to the tray) or a ``credit`` (chips taken from it), entered by
    ``user`` on slip ``slip``; it counts once a second user countersigns it."""

    kind: str
    slip: str
    amount: int
    user: str | None


@dataclass(frozen=True, slots=True)
class Countersign:
    """A second user signs slip ``slip``."""

    slip: str
    user: str | None


@dataclass(frozen=True, slots=True)
class DiceSet:
    """New dice at the table: their honesty is watched from here over the set's life."""

    name: str
    user: str | None


PitEvent = ShiftOpen | ShiftClose | BuyIn | Slip | Countersign | DiceSet


def bank_total(bank: Bank) -> int:
    """What a bank counted by denomination holds, in cents."""
    return sum(denomination * count for denomination, count in bank)


def bank_json(bank: Bank) -> dict[str, int]:
    """A bank as its input spells it: denomination (cents, as text: a JSON key) to chips."""
    return {str(denomination): count for denomination, count in bank}


def parse_pit_event(data: Mapping[str, Any]) -> PitEvent:
    """The pit input ``data`` (its ``event`` one of :data:`PIT_EVENTS`) as a typed value;
    :class:`PitRefused` naming the field that is wrong."""
    name = data.get("event")
    user = data.get("user") if isinstance(data.get("user"), str) and data.get("user") else None
    if name in ("shift_open", "shift_close"):
        bank = _bank(data.get("bank"), str(name))
        return ShiftOpen(bank, user) if name == "shift_open" else ShiftClose(bank, user)
    if name == "buy_in":
        seat = data.get("seat")
        if seat is not None and not (isinstance(seat, str) and seat):
            raise PitRefused(f"buy_in: seat must be a seat's name, got {_shown(seat)}")
        return BuyIn(_cents(data.get("amount"), "buy_in: amount"), seat, user)
    if name in ("fill", "credit"):
        return Slip(str(name), _text(data.get("slip"), f"{name}: slip", MAX_SLIP),
                    _cents(data.get("amount"), f"{name}: amount"), user)
    if name == "countersign":
        return Countersign(_text(data.get("slip"), "countersign: slip", MAX_SLIP), user)
    if name == "dice_set":
        return DiceSet(_text(data.get("set"), "dice_set: set", MAX_SET), user)
    raise PitRefused(f"not an input of the pit: {_shown(name)}")


def whole(value: Any) -> TypeGuard[int]:
    """An int that is not a bool, as every amount a table journals is."""
    return isinstance(value, int) and not isinstance(value, bool)


def _cents(value: Any, what: str) -> int:
    if not whole(value) or not 0 < value <= MAX_CENTS:
        raise PitRefused(f"{what} must be a whole number of cents above 0, got {_shown(value)}")
    return int(value)


def _text(value: Any, what: str, longest: int) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > longest:
        raise PitRefused(f"{what} must be text of 1 to {longest} characters, got {_shown(value)}")
    return value.strip()


def _bank(value: Any, what: str) -> Bank:
    """A count by denomination: ``{"2500": 40, "500": 100}`` (cents as JSON keys, chips as values)."""
    if not isinstance(value, Mapping) or not 0 < len(value) <= MAX_DENOMINATIONS:
        raise PitRefused(f"{what}: bank must be an object of 1 to {MAX_DENOMINATIONS} chip denominations "
                         f'(cents) and their counts, such as {{"2500": 40, "500": 100}}, got {_shown(value)}')
    found: dict[int, int] = {}
    for key, count in value.items():
        denomination = int(key) if isinstance(key, str) and key.isascii() and key.isdigit() else 0
        if not 0 < denomination <= MAX_CENTS or str(denomination) != key:
            raise PitRefused(f"{what}: a denomination is a whole number of cents above 0, such as \"2500\", "
                             f"got {_shown(key)}")
        if not whole(count) or not 0 <= count <= MAX_CENTS // denomination:
            raise PitRefused(f"{what}: the count of {key}-cent chips must be a whole number of chips, got {_shown(count)}")
        found[denomination] = count
    return tuple(sorted(found.items()))


def _shown(value: Any) -> str:
    """``value`` as a refusal quotes it: as JSON, cut short."""
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
