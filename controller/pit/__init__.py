"""The pit's numbers and shifts, from a table's journal rows alone (pure): table games management.

Data in: journal rows (:mod:`controller.journal`'s, or the lines the floor keeps of them) and the
pit's inputs (docs/events.md, "The pit's inputs"). Data out: the report of a range of rows
(:func:`report`: win, handle, hold, drop, per seat, payouts, overrides, the camera, each shift's
bank and variance, the dice's honesty), the readable lines of it (:mod:`controller.pit.text`),
and the shift rules the table flow applies to the pit's inputs (:func:`controller.pit.shift.apply`).

It sits below the table flow and the floor and above the journal, and imports neither the rules
engine nor the table flow (an import contract in pyproject.toml): the floor runs it over its copy
of a journal and the table over its own, and both print the same report.
"""
from controller.pit.events import PIT_EVENTS, PitEvent, PitRefused, parse_pit_event
from controller.pit.honesty import DiceWatch, chi_square_tail, gamma_q
from controller.pit.report import Row, Tally, parse_time, report, rows_of_entries, rows_of_lines
from controller.pit.shift import Shift, apply

__all__ = [
    "PIT_EVENTS",
    "DiceWatch",
    "PitEvent",
    "PitRefused",
    "Row",
    "Shift",
    "Tally",
    "apply",
    "chi_square_tail",
    "gamma_q",
    "parse_pit_event",
    "parse_time",
    "report",
    "rows_of_entries",
    "rows_of_lines",
]
