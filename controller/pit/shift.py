"""A shift at a table: its bank, chips sold, fills and credits, and what the tray should hold (pure).

The table flow asks :func:`apply` whether a pit input fits the shift (a second shift opened over
an open one, a fill countersigned by the user who entered it, a close while a slip waits for its
second signature are refused); the report applies the same function to the inputs the journal
accepted, so the table and the floor count a shift alike.

The tray's arithmetic: chips sold for cash leave it, fills come in, credits go out, and every bet
settled moves the house's win into it (a lost stake in, a win paid out), so at the close

    expected closing bank = opening + fills - credits + win - chips sold

where ``win`` is the house's win over the shift's settlements (``amount - paid``). Only fills and
credits countersigned by a second user count. A closing count that differs from it is a variance,
an alert for the pit.

    >>> from controller.pit.events import ShiftOpen, Slip, Countersign
    >>> shift = apply(None, ShiftOpen(((2500, 40),), "pat"))
    >>> shift = apply(apply(shift, Slip("fill", "F-1", 50000, "pat")), Countersign("F-1", "sam"))
    >>> shift.fills, shift.expected(win=1200)
    (50000, 151200)
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from controller.pit.events import Bank, BuyIn, Countersign, DiceSet, PitEvent, PitRefused, ShiftClose, ShiftOpen, \
    Slip, bank_total


@dataclass(frozen=True, slots=True)
class SlipEntry:
    """A fill or credit of the shift, and who countersigned it (None while it waits)."""

    kind: str
    slip: str
    amount: int
    user: str | None
    countersigned_by: str | None = None


@dataclass(frozen=True, slots=True)
class Shift:
    """One shift: opened with ``opening``, closed once ``closing`` is counted."""

    opening: Bank
    opened_by: str | None
    slips: tuple[SlipEntry, ...] = ()
    drop: int = 0
    closing: Bank | None = None
    closed_by: str | None = None

    @property
    def open(self) -> bool:
        return self.closing is None

    def _signed(self, kind: str) -> int:
        return sum(s.amount for s in self.slips if s.kind == kind and s.countersigned_by is not None)

    @property
    def fills(self) -> int:
        """The fills countersigned, in cents."""
        return self._signed("fill")

    @property
    def credits(self) -> int:
        """The credits countersigned, in cents."""
        return self._signed("credit")

    @property
    def waiting(self) -> tuple[SlipEntry, ...]:
        """The slips that wait for their second signature."""
        return tuple(s for s in self.slips if s.countersigned_by is None)

    def expected(self, win: int) -> int:
        """What the tray should hold after the house's ``win`` (cents) over the shift's settlements."""
        return bank_total(self.opening) + self.fills - self.credits + win - self.drop

    def slip(self, name: str) -> SlipEntry | None:
        return next((s for s in self.slips if s.slip == name), None)


def apply(shift: Shift | None, event: PitEvent) -> Shift | None:
    """The shift after ``event`` (the table's shift before it: the last one opened, open or closed,
    or None); :class:`PitRefused` saying why it does not fit."""
    if isinstance(event, ShiftOpen):
        if shift is not None and shift.open:
            raise PitRefused("a shift is open at this table: close it (its closing count) before opening another")
        return Shift(event.bank, event.user)
    if isinstance(event, DiceSet):
        return shift
    if shift is None or not shift.open:
        raise PitRefused("no shift is open at this table: open one with its opening bank first")
    if isinstance(event, BuyIn):
        return replace(shift, drop=shift.drop + event.amount)
    if isinstance(event, Slip):
        if event.user is None:
            raise PitRefused(f"a {event.kind} is entered by a named user, whom the countersign must not be")
        if shift.slip(event.slip) is not None:
            raise PitRefused(f"slip {event.slip} is already entered in this shift")
        return replace(shift, slips=shift.slips + (SlipEntry(event.kind, event.slip, event.amount, event.user),))
    if isinstance(event, Countersign):
        entry = shift.slip(event.slip)
        if entry is None:
            raise PitRefused(f"no slip {event.slip} in this shift to countersign")
        if entry.countersigned_by is not None:
            raise PitRefused(f"slip {event.slip} is already countersigned by {entry.countersigned_by}")
        if event.user is None or event.user == entry.user:
            raise PitRefused(f"slip {event.slip} was entered by {entry.user}: a second, different user countersigns it")
        signed = replace(entry, countersigned_by=event.user)
        return replace(shift, slips=tuple(signed if s is entry else s for s in shift.slips))
    if isinstance(event, ShiftClose):
        if shift.waiting:
            names = ", ".join(s.slip for s in shift.waiting)
            raise PitRefused(f"{'slips' if len(shift.waiting) > 1 else 'slip'} {names} still to be countersigned: a "
                             "shift closes with every fill and credit signed by two users")
        return replace(shift, closing=event.bank, closed_by=event.user)
    raise AssertionError(f"no shift rule for {event!r}")
