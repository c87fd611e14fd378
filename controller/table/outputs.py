"""What the lamps, the display and the floor's status should show, derived from the table's state.

Why derived: outputs are never remembered, only recomputed, so after a
restart (or a display that was unplugged) they are simply drawn again from
the replayed state, and drawing twice is harmless.

- :func:`lights_for` -- the bet-lock lamps; :func:`motor_should_spin` -- the hazard cage.
- :func:`view_for` -- what the display and the console show, however it is encoded;
  :func:`display_state` the LED display's picture of it, :func:`display_phase` its status word.
- :func:`floor_status` -- the table's retained status on the floor.
- :func:`expects_roll`, :func:`dice_thrown` -- when the camera should expect dice.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from controller.table import rules_port
from controller.table.flow import Phase, TableState
from firmware.messages import DisplayState
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
    entered by hand.
    """

    game: str
    dice: tuple[int, ...]
    point: int | None
    history: tuple[tuple[int, ...], ...]
    rolls: int
    shooter: str | None
    roller: str | None

    @property
    def total(self) -> int | None:
        return sum(self.dice) if self.dice else None


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


_PHASE_ON_DISPLAY = {
    Phase.BETTING: "open",
    Phase.LOCKED: "locked",
    Phase.SPINNING: "rolling",
    Phase.MANUAL: "manual",
}


def display_phase(state: TableState, camera_lost: bool = False, *, refused: bool = False,
                  motor_failed: bool = False) -> str:
    """The display's word for what the table waits for (``DisplayState.phase``).

    The dealer has only the buttons and this word, so it tells apart what the buttons do: a waiting
    read shows ``confirm`` (``ConF``) only when CONFIRM would settle it (``PendingRead.confirmable``,
    the test ``_confirm`` makes), otherwise ``enter`` (``Entr``: hold CONFIRM to enter the dice by
    hand, or VOID); a hand entry shows ``manual`` (``HAnd``), where LOCK steps the die shown. Bets
    locked with the camera lost show ``enter`` too: no read will come, and a hand entry is the way on.

    ``void`` (``UOId``) says the dealer's VOID was the last thing done: the read was voided and the
    bets stay locked for the rethrow (Hazard: until LOCK turns the cage again; ``locked`` would look
    like the camera still reading), or the lock was voided and betting is open again with no roll
    since (``settled`` would show the last roll as the voided throw's).

    Two words answer the dealer rather than the state: ``refused`` (``-no-``), for a moment after a
    press the table refused, which otherwise changes nothing to be seen; and ``fault`` (``Err``)
    while the cage should turn but its motor did not start (VOID, then LOCK, tries again).
    """
    if refused:
        return "refused"
    if state.phase is Phase.SPINNING and motor_failed:
        return "fault"
    if state.phase is Phase.LOCKED and camera_lost:
        return "enter"
    if (state.phase is Phase.LOCKED and state.voided) or (state.phase is Phase.BETTING and state.unlocked_by_void):
        return "void"  # bets locked for the rethrow of a voided read (Hazard: LOCK turns the cage), or reopened
    if state.phase is Phase.PENDING:
        pending = state.pending
        return "confirm" if pending is not None and pending.confirmable(state.dice_count) else "enter"
    if state.phase is Phase.BETTING and state.rolls:
        return "settled"  # the last roll's result stays up, marked final, until the next lock
    return _PHASE_ON_DISPLAY[state.phase]


def display_state(state: TableState, camera_lost: bool = False, *, refused: bool = False,
                  motor_failed: bool = False) -> DisplayState:
    """What the LED display shows for ``state`` (a pure function: redraw = call again); the
    flags are :func:`display_phase`'s."""
    view = view_for(state)
    phase = display_phase(state, camera_lost, refused=refused, motor_failed=motor_failed)
    return DisplayState(
        game=state.game,
        phase=phase,
        dice=view.dice,
        point=view.point,
        recent=view.history[1:] if view.dice and view.dice == state.last_roll and state.phase is Phase.BETTING
        else view.history,  # the last roll is on the result row: not again among the recent ones
        roll_id=state.rolls % 0x10000,
    )


def floor_status(state: TableState, problems: Mapping[str, str]) -> dict[str, Any]:
    """What the table's retained status topic on the floor says (``controller.floor``): the game,
    the phase, the point, the last roll, the rolls so far, and the camera's and display's health
    (``problems``: each failing device and what is wrong with it)."""
    view = view_for(state)
    return {"game": state.game, "phase": state.phase.value, "point": view.point, "last_roll": list(state.last_roll),
            "rolls": state.rolls, "shooter": view.shooter,
            "camera": problems.get("camera", "ok"), "display": problems.get("display", "ok")}
