"""The game flow of a physical table, its journal-backed recovery, and its outputs.

Data in: table events (``docs/events.md``: bets, the dealer's buttons, the
vision pipeline's reads, the cage's ``spin_done``). Data out: the new
:class:`TableState`, the journal rows of what happened (``roll``,
``settle``, ``returned``, ``rejected``), and what the lamps, the display and
the cage motor should do (:mod:`controller.table.outputs`).

- :func:`step` (state, event) -> :class:`Step` -- pure; a refusal is a
  ``rejected`` effect and leaves the state unchanged.
- :class:`JournaledTable` -- ``open(journal, game, config)`` recovers by
  replay, ``submit(event)`` journals then steps.
- :func:`lights_for`, :func:`view_for`, :func:`motor_should_spin`, :func:`display_state`,
  :func:`floor_status` -- outputs derived from the state, safe to redraw at any time.

The messages between the table and its devices (``ButtonEvent``, ``LightsState``) are in the
``messages`` package, below both.
"""
from controller.table.flow import Phase, PendingRead, Step, TableState, malformed_event, new_table, step
from controller.table.journaled import JournaledTable, JournalMismatch
from controller.table.outputs import (TableView, dice_thrown, display_phase, display_state, expects_roll, floor_status,
                                      lights_for, motor_should_spin, view_for)

__all__ = [
    "JournalMismatch",
    "JournaledTable",
    "PendingRead",
    "Phase",
    "Step",
    "TableState",
    "TableView",
    "dice_thrown",
    "display_phase",
    "display_state",
    "expects_roll",
    "floor_status",
    "lights_for",
    "malformed_event",
    "motor_should_spin",
    "new_table",
    "step",
    "view_for",
]
