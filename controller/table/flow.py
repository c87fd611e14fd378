"""The game flow of a physical table: one pure step per input.

``step(state, event) -> Step(state, effects, accepted)``. No clock, no I/O,
no randomness: the same inputs in the same order give the same table, which
is what makes the journal's replay the table's recovery.

Inputs are the table events of ``docs/events.md``, each read once into a typed
value (:mod:`controller.table.events`) before it is judged:

- game events for the rules engine: ``bet``, ``remove``, ``next_shooter``;
- the dealer's buttons: ``lock`` (lock bets / roll; in Hazard it starts the
  cage), ``confirm`` (accept an uncertain read), ``void`` (void the read or
  the throw), ``manual`` (enter the dice by hand: with ``dice`` at once, or
  without to start entering them with the buttons), ``unclear`` (CONFIRM let go
  between a push and a hold: always refused, so the journal keeps the press);
- ``spin_done``: the hazard cage's motor has stopped;
- ``read``: the vision pipeline's verdict on the still frame of a roll
  (``status``, ``dice``, ``confidence``, ``frame``, ``reason``);
- the pit's entries (``shift_open``, ``shift_close``, ``buy_in``, ``fill``, ``credit``,
  ``countersign``, ``dice_set``), taken in any phase when they fit the shift
  (:mod:`controller.pit.shift`); they change nothing else.

The phases, and what each accepts (anything else is refused with a reason,
journaled as ``rejected``, and changes nothing):

- ``betting``: bets, removals, next shooter, ``lock``.
- ``spinning`` (Hazard): ``spin_done``; ``void`` stops the cage and unlocks;
  ``manual`` stops the cage for a hand entry (a cage motor that will not
  start leaves the dealer turning the cage by hand, and no ``spin_done``
  will come); cancelling the entry spins the cage again. A ``read`` is
  refused here, and in an entry begun here: it shows a spin cut short.
- ``locked`` (dice in the air / in the cage): ``read`` -- an ``ok`` read
  settles at once, any other waits for the dealer; ``manual``; ``void``
  unlocks the bets (no throw happened); in Hazard ``lock`` spins the cage
  again, bets still locked (after a voided read the dice are thrown again).
- ``pending`` (a read waits for the dealer): ``confirm`` (a read with the
  right number of dice that is not ``no_read``), ``manual``, ``void``
  (discard the read; bets stay locked for the rethrow), or a new ``read``
  of the same roll, which replaces it. The camera mostly sends none by
  itself here (its settle detector is disarmed once it has handed out the
  roll's frame; on the rail, a read of dice found lying after a restart
  leaves it armed, so a throw then replaces that read); after ``void`` it
  is armed again, so a die the dealer straightens then is read when it is
  still.
- ``manual`` (entering dice by hand): ``lock`` steps the die, ``confirm``
  accepts it, ``void`` cancels. A ``read`` that arrives meanwhile (the dealer
  began the entry before the camera had the still frame) settles nothing and
  leaves the entry as it is: it is kept, and cancelling the entry brings it
  up as ``pending``. Cancelling with no read kept goes back to where the
  entry began (``locked``, ``pending`` or ``spinning``). Refusing that read
  instead would leave the table at ``locked`` for good after the cancel:
  the camera hands out one frame per roll and had done so.

A roll that is settled appears as a ``roll`` effect (with its ``source``:
``read``, ``confirm`` or ``manual``) followed by the engine's settlements.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any

from controller.pit import PitRefused, Shift, apply as apply_to_shift
from controller.pit.events import BuyIn, Countersign, DiceSet, ShiftClose, ShiftOpen, Slip
from controller.rules import Bet, BetRejected, NextShooter, Remove, Roll, TableConfig
from controller.table import rules_port
from controller.table.events import Manual, Press, Read, Refused, SpinDone, TableEvent, parse_table_event
from controller.table.manual_entry import EntryStatus, ManualEntry, ManualEntryError
from messages.devices import ButtonEvent

log = logging.getLogger(__name__)

HISTORY = 8
"""How many recent rolls the table remembers for the display."""

ENTRY_BUTTONS = (ButtonEvent.LOCK, ButtonEvent.CONFIRM, ButtonEvent.VOID)
"""The buttons a hand entry reads (the other presses are refused there by their own rules)."""


class Phase(str, Enum):
    """Where the table is in a roll (the module docstring says what each phase accepts)."""

    BETTING = "betting"
    SPINNING = "spinning"
    LOCKED = "locked"
    PENDING = "pending"
    MANUAL = "manual"


@dataclass(frozen=True)
class PendingRead:
    """A read the dealer must rule on."""

    status: str
    dice: tuple[int, ...]
    confidence: float
    frame: str | None
    reason: str | None

    def confirmable(self, dice_count: int) -> bool:
        """Whether CONFIRM settles this read: the camera was not blind (``no_read``) and saw the
        game's number of dice. Otherwise only a hand entry or VOID will do.

        Such a read is ``uncertain``, or ``ok`` when it arrived during a hand entry that was then
        cancelled: it did not settle then, so the dealer confirms it now."""
        return self.status in ("ok", "uncertain") and len(self.dice) == dice_count


@dataclass(frozen=True)
class TableState:
    """Everything the table knows; equal states mean equal tables."""

    game: str
    rules: Any
    phase: Phase = Phase.BETTING
    pending: PendingRead | None = None
    entry: ManualEntry | None = None
    entry_from: Phase | None = None
    last_roll: tuple[int, ...] = ()
    history: tuple[tuple[int, ...], ...] = ()
    rolls: int = 0
    voided: bool = False
    """Bets are locked for a rethrow: the dealer voided the read of the dice that may still lie in
    view (in the cage they do until LOCK). A start finding the table so must not offer them again."""
    unlocked_by_void: bool = False
    """Betting was reopened by VOID with no roll since: the last roll shown would look like the
    voided throw's result, paid, so the display says the lock was voided instead."""
    shift: Shift | None = None
    """The pit's last shift at this table (open, or closed if none opened since): what its next
    entry must fit (:mod:`controller.pit.shift`). Nothing the game does depends on it."""

    @property
    def dice_count(self) -> int:
        return rules_port.DICE_PER_GAME[self.game]


@dataclass(frozen=True)
class Step:
    """The result of one input: the new state and the journal's effect rows."""

    state: TableState
    effects: tuple[dict[str, Any], ...] = field(default_factory=tuple)
    accepted: bool = True


def new_table(game: str, config: TableConfig) -> TableState:
    """A table with betting open and nothing on the layout."""
    if game not in rules_port.DICE_PER_GAME:
        raise ValueError(f"unknown game {game!r}")
    return TableState(game=game, rules=rules_port.new_game(game, config))


def step(state: TableState, event: Any) -> Step:
    """Apply one input (a decoded JSON object); a refusal is a ``rejected`` effect and the state is unchanged."""
    try:
        return _step(state, event)
    except BetRejected as exc:
        return Step(state, (rules_port.rejection(exc, event),), accepted=False)
    except Refused as exc:
        return Step(state, (rules_port.rejection(BetRejected(exc.reason, exc.rule), event),), accepted=False)
    except MemoryError:
        # Not a verdict on the input: a replay with memory to spare would accept what this run
        # refused, and recovery would then find the journal disagreeing with the rules. Stop instead;
        # the input is journaled, and the restart's recovery completes it.
        raise
    except Exception as exc:  # noqa: BLE001
        # A fault in the code, not in the input. The input is already journaled, so raising would fail
        # again at every replay and keep the table down; refusing it (the same way at every replay)
        # keeps the table up with the state unchanged, and the log has the traceback.
        log.exception("internal error on %r", event)
        reason = f"internal error ({type(exc).__name__}: {exc}); the event changed nothing"
        return Step(state, (rules_port.rejection(BetRejected(reason, None), event),), accepted=False)


def malformed_event(text: str, problem: str | None = None, **kept: Any) -> dict[str, Any]:
    """The input that stands for something that is not a table event (a line that is not a JSON
    object, an event the journal could not keep): refused, with a printable copy of the start of
    the text, what was wrong with it (``problem``) and anything else ``kept`` of it (a line too
    long to keep: its length in ``bytes`` and its ``sha256``)."""
    event: dict[str, Any] = {"event": "malformed", "line": text[:200].encode("utf-8", "backslashreplace").decode("utf-8")}
    if problem is not None:
        event["problem"] = problem
    return {**event, **kept}


def _step(state: TableState, data: Any) -> Step:
    event = parse_table_event(data, state.dice_count)
    if state.phase is Phase.MANUAL and isinstance(event, Press) and event.button in ENTRY_BUTTONS:
        return _manual_button(state, event.button)
    return _handle(state, event)


def _handle(state: TableState, event: TableEvent) -> Step:
    match event:
        case Bet() | Remove() | NextShooter():
            return _game_event(state, event)
        case Manual():
            return _manual(state, event)
        case SpinDone():
            return _spin_done(state)
        case Read():
            return _read(state, event)
        case Press(button=ButtonEvent.LOCK):
            return _lock(state)
        case Press(button=ButtonEvent.CONFIRM):
            return _confirm(state)
        case Press(button=ButtonEvent.VOID):
            return _void(state)
        case Press(button=ButtonEvent.UNCLEAR):
            return _unclear(state)
        case ShiftOpen() | ShiftClose() | BuyIn() | Slip() | Countersign() | DiceSet():
            return _pit(state, event)
    raise AssertionError(f"no handler for {event!r}")


_WHY_NOT_NOW = {
    Phase.BETTING: "bets are not locked",
    Phase.SPINNING: "the cage is still spinning",
    Phase.MANUAL: "the dealer is entering the dice by hand",
    Phase.LOCKED: "the dice are not read yet",
    Phase.PENDING: "a read waits for the dealer",
}


def _game_event(state: TableState, event: Bet | Remove | NextShooter) -> Step:
    if state.phase is not Phase.BETTING:
        name = event.to_json()["event"]
        raise Refused(f"bets are locked ({state.phase.value}): {name} waits until the roll is settled")
    rules, effects = rules_port.apply(state.rules, event)
    return Step(replace(state, rules=rules), tuple(effects))


def _lock(state: TableState) -> Step:
    if state.game == "hazard" and state.phase is Phase.LOCKED:
        # The dice lie in the cage unread (a read voided, or a restart after the spin): the only
        # way to throw them again is another spin, with the bets still locked.
        return Step(replace(state, phase=Phase.SPINNING, voided=False))
    if state.phase is not Phase.BETTING:
        raise Refused(f"bets are already locked ({state.phase.value})")
    phase = Phase.SPINNING if state.game == "hazard" else Phase.LOCKED
    return Step(replace(state, phase=phase, unlocked_by_void=False))


def _spin_done(state: TableState) -> Step:
    if state.phase is not Phase.SPINNING:
        raise Refused("the cage is not spinning")
    return Step(replace(state, phase=Phase.LOCKED))


def _read(state: TableState, event: Read) -> Step:
    if state.phase not in (Phase.LOCKED, Phase.PENDING, Phase.MANUAL):
        raise Refused(f"a read arrived when no roll was expected: {_WHY_NOT_NOW[state.phase]}")
    if state.phase is Phase.MANUAL and state.entry_from is Phase.SPINNING:
        raise Refused("a read arrived when no roll was expected: the cage was stopped mid-spin for a hand entry")
    pending = PendingRead(event.status, event.dice, event.confidence, event.frame, event.reason)
    state = replace(state, voided=False)  # a read of the rethrow
    if state.phase is Phase.MANUAL:
        # The dealer's entry goes on untouched; the read waits for it to be cancelled.
        return Step(replace(state, pending=pending, entry_from=Phase.PENDING))
    if event.status == "ok":
        return _settle(replace(state, pending=None), event.dice, "read")
    return Step(replace(state, phase=Phase.PENDING, pending=pending))


def _confirm(state: TableState) -> Step:
    pending = state.pending
    if state.phase is not Phase.PENDING or pending is None:
        raise Refused("nothing to confirm: no read is waiting for the dealer")
    if not pending.confirmable(state.dice_count):
        raise Refused("nothing to confirm: the camera could not read these dice; enter them by hand or void")
    return _settle(state, pending.dice, "confirm")


def _void(state: TableState) -> Step:
    if state.phase is Phase.PENDING:
        return Step(replace(state, phase=Phase.LOCKED, pending=None, voided=True))
    if state.phase in (Phase.LOCKED, Phase.SPINNING):
        # No throw happened: unlock (and stop the cage).
        return Step(replace(state, phase=Phase.BETTING, voided=False, unlocked_by_void=True))
    raise Refused(f"nothing to void ({state.phase.value})")


def _manual(state: TableState, event: Manual) -> Step:
    if state.phase not in (Phase.LOCKED, Phase.PENDING, Phase.SPINNING):
        raise Refused(f"no roll to enter by hand: {_WHY_NOT_NOW[state.phase]}")
    if event.dice is not None:
        return _settle(state, event.dice, "manual")
    suggestion = state.pending.dice if state.pending and len(state.pending.dice) == state.dice_count else None
    entry = ManualEntry.start(state.dice_count, suggestion)
    return Step(replace(state, phase=Phase.MANUAL, entry=entry, entry_from=state.phase))


def _manual_button(state: TableState, button: ButtonEvent) -> Step:
    assert state.entry is not None and state.entry_from is not None
    try:
        entry = state.entry.apply(button)
    except ManualEntryError as exc:
        raise Refused(str(exc)) from None
    if entry.status is EntryStatus.CANCELLED:
        return Step(replace(state, phase=state.entry_from, entry=None, entry_from=None))
    if entry.status is EntryStatus.DONE:
        return _settle(replace(state, entry=None, entry_from=None), entry.dice, "manual")
    return Step(replace(state, entry=entry))


def _settle(state: TableState, dice: tuple[int, ...], source: str) -> Step:
    """The dice are final: hand them to the rules engine and open betting again."""
    roll = Roll(dice, rules_port.bang_next_roller(state.rules) if state.game == "bang" else None)
    rules, effects = rules_port.apply(state.rules, roll)
    record: dict[str, Any] = {"event": "roll", "game": state.game, "dice": list(dice), "source": source}
    if roll.by is not None:
        record["by"] = roll.by
    new_state = replace(
        state,
        rules=rules,
        phase=Phase.BETTING,
        pending=None,
        voided=False,
        unlocked_by_void=False,
        last_roll=dice,
        history=((dice,) + state.history)[:HISTORY],
        rolls=state.rolls + 1,
    )
    return Step(new_state, (record, *effects))


def _pit(state: TableState, event: ShiftOpen | ShiftClose | BuyIn | Slip | Countersign | DiceSet) -> Step:
    """A pit entry, whatever the game's phase: accepted with no effect row when it fits the shift
    (so no roll, settlement or refusal the table journals changes), refused otherwise."""
    if isinstance(event, BuyIn) and event.seat is not None and event.seat not in state.rules.config.seats:
        raise Refused(f"buy_in: no seat {event.seat!r} at this table (seats {', '.join(state.rules.config.seats)})")
    try:
        return Step(replace(state, shift=apply_to_shift(state.shift, event)))
    except PitRefused as exc:
        raise Refused(str(exc)) from None


def _unclear(state: TableState) -> Step:
    raise Refused("CONFIRM was held longer than a push and let go before a hold: nothing done "
                  "(push it to confirm, or hold it until the display shows HAnd)")
