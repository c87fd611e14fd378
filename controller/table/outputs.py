"""What the lamps and the display should show, derived from the table's state.

Why derived: outputs are never remembered, only recomputed, so after a
restart (or a display that was unplugged) they are simply drawn again from
the replayed state, and drawing twice is harmless.
"""
from __future__ import annotations

from dataclasses import dataclass

from controller.table import rules_port
from controller.table.flow import Phase, TableState
from messages.devices import LightsState


def lights_for(state: TableState) -> LightsState:
    """The bet-lock lamps: lit whenever bets cannot be made.

    Bang: the inside section is locked while the dice are thrown; the
    outside section (Beat the Dealer Hi Dice) also stays locked between the
    dealer's roll and the shooter's roll, since outside bets may only be
    made before the dealer's roll (§4620.15(d)(8)).
    """
    locked = state.phase is not Phase.BETTING
    if state.game == "bang":
        outside = locked or rules_port.bang_next_roller(state.rules) == "shooter"
        return LightsState.bang(inside_locked=locked, outside_locked=outside)
    if state.game == "hazard":
        return LightsState.hazard(locked)
    return LightsState.craps(locked)


@dataclass(frozen=True)
class TableView:
    """The display's content, independent of how the display encodes it.

    ``dice`` is what the digits show: the last settled roll while betting is
    open (none after a VOID reopened it), nothing while the dice are out, the
    read waiting for the dealer when CONFIRM can settle it, or the dice being
    entered by hand. ``status`` is a short
    word for the phase (``BETS``, ``LOCK``, ``SPIN``, ``CHECK``, ``HAND``).
    """

    game: str
    dice: tuple[int, ...]
    point: int | None
    status: str
    history: tuple[tuple[int, ...], ...]
    rolls: int
    shooter: str | None
    roller: str | None

    @property
    def total(self) -> int | None:
        return sum(self.dice) if self.dice else None


_STATUS = {
    Phase.BETTING: "BETS",
    Phase.SPINNING: "SPIN",
    Phase.LOCKED: "LOCK",
    Phase.PENDING: "CHECK",
    Phase.MANUAL: "HAND",
}


def view_for(state: TableState) -> TableView:
    if state.phase is Phase.MANUAL and state.entry is not None:
        dice = state.entry.values
    elif state.phase is Phase.PENDING and state.pending is not None and state.pending.confirmable(state.dice_count):
        dice = state.pending.dice
    elif state.phase is Phase.BETTING and not state.unlocked_by_void:
        dice = state.last_roll
    else:
        # Locked or spinning: the new roll is not known yet, the last one is history. A read CONFIRM
        # cannot settle shows no dice (its guess beside "enter them" would look like a read), and
        # neither does betting reopened by VOID (the last roll would look like the voided throw's).
        dice = ()
    return TableView(
        game=state.game,
        dice=tuple(dice),
        point=rules_port.point(state.rules),
        status=_STATUS[state.phase],
        history=state.history,
        rolls=state.rolls,
        shooter=rules_port.shooter(state.rules),
        roller=rules_port.bang_next_roller(state.rules) if state.game == "bang" else None,
    )


def motor_should_spin(before: TableState | None, after: TableState) -> bool:
    """Start the cage when the table enters ``spinning`` (or is found there after a restart)."""
    return after.phase is Phase.SPINNING and (before is None or before.phase is not Phase.SPINNING)


def expects_roll(before: TableState | None, after: TableState) -> bool:
    """Dice are about to land: bets were just locked (Hazard: the cage has stopped), or a read was
    voided for a rethrow. Not on cancelling a hand entry, which brings no new throw.

    With ``before=None`` (the table found so at a start) also in a hand entry begun at ``locked``:
    the camera of the last run may have been waiting for the dice, and a cancel must find it so."""
    if before is None:
        return after.phase is Phase.LOCKED or (after.phase is Phase.MANUAL and after.entry_from is Phase.LOCKED)
    return after.phase is Phase.LOCKED and before.phase not in (Phase.LOCKED, Phase.MANUAL)


def dice_thrown(before: TableState | None, after: TableState) -> bool:
    """Whether the roll :func:`expects_roll` waits for is thrown anew, rather than lying as it was.

    On the rail the shooter throws after every lock and every voided read. In the Hazard cage only a
    spin throws: dice whose read was voided lie in the cage until LOCK turns it again. Only the
    generated camera acts on this (it throws the dice itself); a real one just watches."""
    if after.game == "hazard":
        return before is not None and before.phase is Phase.SPINNING
    return True
