"""Entering the dice by hand with the dealer's four buttons (no keyboard at the table).

When the camera cannot read a roll, the dealer holds CONFIRM (MANUAL event) and
enters the dice one at a time, left to right, as the display shows them:

* LOCK steps the current die to its next value: 1, 2, ... 6, 1, ...
* CONFIRM accepts the current die and moves to the next; after the last die the
  entry is DONE and ``dice`` holds the values.
* VOID cancels the whole entry (the roll goes back to waiting for a read).

Each die starts at the camera's suggestion when there is one (an uncertain read),
otherwise at 1, so correcting one wrong die of an uncertain read costs a few
presses. At most five presses per die, 2 or 3 dice per roll.

The state is an immutable value: ``apply`` returns a new one, so the controller
can journal each step and a replay gives the same entry. An event with no meaning
here (NEXT_SHOOTER, MANUAL, anything once finished) raises ``ManualEntryError``
and changes nothing.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum

from controller.rules.dice import FACES
from messages.devices import ButtonEvent


class EntryStatus(StrEnum):
    EDITING = "editing"
    DONE = "done"
    CANCELLED = "cancelled"


class ManualEntryError(ValueError):
    """A button that means nothing at this point of the manual entry."""


@dataclass(frozen=True)
class ManualEntry:
    """The dice entered so far, the die being edited and whether the entry is over."""

    dice_count: int
    accepted: tuple[int, ...] = ()
    current: int = 1
    suggestion: tuple[int, ...] = ()
    status: EntryStatus = EntryStatus.EDITING

    @classmethod
    def start(cls, dice_count: int, suggestion: Sequence[int] | None = None) -> ManualEntry:
        """Begin entering ``dice_count`` dice, starting each die at ``suggestion`` when given."""
        if dice_count < 1:
            raise ValueError(f"a roll has at least one die, not {dice_count}")
        hint = tuple(suggestion or ())
        if hint and (len(hint) != dice_count or any(value not in FACES for value in hint)):
            raise ValueError(f"suggestion {list(hint)} is not {dice_count} die values 1..6")
        return cls(dice_count=dice_count, current=hint[0] if hint else 1, suggestion=hint)

    @property
    def index(self) -> int:
        """Position (0-based) of the die being edited; equals ``dice_count`` once done."""
        return len(self.accepted)

    @property
    def values(self) -> tuple[int, ...]:
        """What the display should show: the accepted dice, then the one being edited."""
        if self.status is EntryStatus.EDITING:
            return self.accepted + (self.current,)
        return self.accepted

    @property
    def dice(self) -> tuple[int, ...]:
        """The entered dice; only once the entry is DONE."""
        if self.status is not EntryStatus.DONE:
            raise ManualEntryError(f"the manual entry is {self.status.value}, not done")
        return self.accepted

    def apply(self, event: ButtonEvent) -> ManualEntry:
        """The entry after the dealer's ``event``."""
        if self.status is not EntryStatus.EDITING:
            raise ManualEntryError(f"the manual entry is already {self.status.value}")
        if event is ButtonEvent.LOCK:
            return replace(self, current=self.current % 6 + 1)
        if event is ButtonEvent.CONFIRM:
            accepted = self.accepted + (self.current,)
            if len(accepted) == self.dice_count:
                return replace(self, accepted=accepted, status=EntryStatus.DONE)
            following = self.suggestion[len(accepted)] if self.suggestion else 1
            return replace(self, accepted=accepted, current=following)
        if event is ButtonEvent.VOID:
            return replace(self, status=EntryStatus.CANCELLED)
        raise ManualEntryError(
            f"{event.value} means nothing while entering dice "
            "(LOCK: next value, CONFIRM: accept die, VOID: cancel)"
        )
