"""The table's inputs as typed values, parsed once from the JSON object each arrives as.

An input comes as a decoded JSON object (docs/events.md, "Table events"), and the journal keeps it
so. :func:`parse_table_event` reads it once into one of the values below, and the game flow works
on those: the rules engine's own events for the game events (``bet``, ``remove``,
``next_shooter``: :mod:`controller.rules.events`), the pit's for its entries (a shift, chips sold,
fills and credits, the dice changed: :mod:`controller.pit.events`), and the table's for the
dealer's buttons, the cage and the camera. An object that is no table event raises :class:`Refused` with the reason.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from controller.pit import PIT_EVENTS, PitEvent, PitRefused, parse_pit_event
from controller.rules import Bet, NextShooter, Remove, parse_event
from controller.rules.dice import is_face
from messages.devices import ButtonEvent

GAME_EVENTS = ("bet", "remove", "next_shooter")
BUTTON_EVENTS = ("lock", "confirm", "void", "manual", "unclear")
TABLE_EVENTS = GAME_EVENTS + BUTTON_EVENTS + ("spin_done", "read") + PIT_EVENTS
READ_STATUSES = ("ok", "uncertain", "no_read")


class Refused(Exception):
    """An input the table refuses at this moment (the rules engine refuses with ``BetRejected``)."""

    def __init__(self, reason: str, rule: str | None = None):
        super().__init__(reason)
        self.reason = reason
        self.rule = rule


@dataclass(frozen=True, slots=True)
class Press:
    """A dealer's button that says nothing more: ``lock``, ``confirm``, ``void`` or ``unclear``."""

    button: ButtonEvent


@dataclass(frozen=True, slots=True)
class Manual:
    """Enter the dice by hand: ``dice`` at once, or None to begin entering them with the buttons."""

    dice: tuple[int, ...] | None


@dataclass(frozen=True, slots=True)
class SpinDone:
    """The hazard cage's motor has stopped."""


@dataclass(frozen=True, slots=True)
class Read:
    """The camera's verdict on the still frame of a roll.

    ``dice`` holds the game's number of faces, except for a ``no_read``, whose half-seen dice
    are kept only when they make a whole roll (otherwise it is empty)."""

    status: str
    dice: tuple[int, ...]
    confidence: float
    frame: str | None
    reason: str | None


TableEvent = Bet | Remove | NextShooter | Press | Manual | SpinDone | Read | PitEvent


def parse_table_event(data: Any, dice_count: int) -> TableEvent:
    """The input ``data`` as a typed event of a table whose game throws ``dice_count`` dice.

    Raises :class:`Refused` (or the rules engine's ``MalformedEvent`` for a game event) naming what
    is wrong with it."""
    if not isinstance(data, Mapping):
        raise Refused(f"an event is a JSON object, not {type(data).__name__}")
    name = data.get("event")
    if name == "malformed":  # a line or an input the journal could not keep as it came: why, and its start
        problem = data.get("problem")
        raise Refused(f"{problem}: {data.get('line')!r}" if isinstance(problem, str)
                      else f"not a JSON event object: {data.get('line')!r}")
    if name not in TABLE_EVENTS:
        raise Refused(f"unknown event {name!r} (expected one of {', '.join(TABLE_EVENTS)})")
    if name in GAME_EVENTS:
        game_event = parse_event(dict(data))
        assert isinstance(game_event, (Bet, Remove, NextShooter))  # parsed by its own name
        return game_event
    if name == "manual":
        dice = data.get("dice")
        return Manual(None if dice is None else _dice(dice, dice_count, "manual"))
    if name == "spin_done":
        return SpinDone()
    if name == "read":
        return _read(data, dice_count)
    if name in PIT_EVENTS:
        try:
            return parse_pit_event(data)
        except PitRefused as exc:
            raise Refused(str(exc)) from None
    return Press(ButtonEvent(name))


def _dice(value: Any, count: int, what: str) -> tuple[int, ...]:
    if not isinstance(value, (list, tuple)) or not all(is_face(d) for d in value):
        raise Refused(f"{what}: dice must be a list of values 1 to 6, got {value!r}")
    if len(value) != count:
        raise Refused(f"{what}: this game throws {count} dice, got {len(value)}")
    return tuple(value)


def _read(data: Mapping[str, Any], dice_count: int) -> Read:
    status = data.get("status")
    if status not in READ_STATUSES:
        raise Refused(f"read: status must be one of {', '.join(READ_STATUSES)}, got {status!r}")
    raw_dice = data.get("dice") or []
    if not isinstance(raw_dice, (list, tuple)):
        raise Refused(f"read: dice must be a list, got {raw_dice!r}")
    if status == "no_read":
        # What the camera half-saw is kept as the hand entry's starting point only when it is a whole
        # roll; a wrong count (dice stacked, a hand in view) is no suggestion at all.
        seen = tuple(d for d in raw_dice if is_face(d))
        dice: tuple[int, ...] = seen if len(seen) == dice_count else ()
    else:
        dice = _dice(raw_dice, dice_count, "read")
    confidence = data.get("confidence", 0.0)
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not 0 <= confidence <= 1:
        raise Refused(f"read: confidence must be a number from 0 to 1, got {confidence!r}")
    return Read(status, dice, float(confidence), data.get("frame"), data.get("reason"))
