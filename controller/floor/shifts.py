"""Each table's shift on the floor, computed from the floor's copy of its journal: the floor list's
win and hold, a table's shift report, the accountants' CSV.

Why a book of tallies and not a table of numbers: the pit's numbers are computed from journals,
never kept beside them (:mod:`controller.pit.report` says why), so the floor reads its copy of
each table's current journal with :class:`controller.pit.Tally`, the same reading ``dicetable
floor report`` and the table's ``journal report`` make. The floor's rows never change once stored, so a table's tally
reads only the rows that came since the last look, and the page asks again every second at the
cost of one indexed query a table. The book lives in memory, in the page's event loop; a floor
started again reads each journal once more.

The floor list reads at most :data:`LIST_ROWS` rows at one look, so that a page just started over
long journals answers at once, and says of a table it has not caught up with that it is reading
its journal; a table's page and the CSV read what they need.

The last row of a copy may be an input whose verdict (its ``rejected`` row, or none) has not come
yet: it counts as taken, as ``floor report`` counts it, on a copy of the tally, so that a refusal
that follows is still read right.
"""
from __future__ import annotations

import copy
import csv
import io
from typing import Any

from controller.floor.store import FloorStore
from controller.pit import Tally, rows_of_lines
from controller.pit.events import bank_total
from controller.pit.report import ShiftSpan, ratio

#: The rows the floor list reads at one look, of every table together (some tens of microseconds
#: each): a look stays within a fraction of a second, and a page started over a floor of long
#: journals catches up over its first looks, a second apart.
LIST_ROWS = 5_000
#: The columns of the accountants' CSV: one line a shift, money in cents.
CSV_COLUMNS = ("table", "game", "journal", "opened_seq", "opened_at", "opened_by", "closed_seq", "closed_at",
               "closed_by", "rolls", "decisions", "handle_cents", "drop_cents", "win_cents", "hold", "opening_cents",
               "fills_cents", "credits_cents", "expected_cents", "closing_cents", "variance_cents", "overrides",
               "dice_p_value", "dice_alarm_seq")
#: What a spreadsheet would take for a formula at the start of a cell (OWASP, "CSV Injection").
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


class ShiftBook:
    """The tally of each table's current journal, kept up to date with the floor's copy."""

    def __init__(self) -> None:
        self._tallies: dict[tuple[str, str], Tally] = {}

    def read(self, store: FloorStore, table: str, journal: str, limit: int = -1) -> int:
        """Read ``table``'s journal ``journal`` on from where the last look stopped, at most ``limit``
        rows (all when negative); how many were read."""
        tally = self._tallies.setdefault((table, journal), Tally())
        read = 0
        for row in rows_of_lines(store.lines(table, journal, since=tally.last[0] if tally.last else 0, limit=limit)):
            tally.add(row)
            read += 1
        return read

    def read_up_to(self, table: str, journal: str) -> int:
        """The last row of ``journal`` read so far (0 for none)."""
        tally = self._tallies.get((table, journal))
        return tally.last[0] if tally is not None and tally.last else 0

    def settled(self, table: str, journal: str) -> Tally:
        """The tally of the rows read, its last input counted (on a copy, until its verdict comes)."""
        tally = self._tallies.get((table, journal)) or Tally()
        if not tally.waiting:
            return tally
        settled = copy.deepcopy(tally)
        settled.judge(None)
        return settled

    def tally(self, store: FloorStore, table: str, journal: str) -> Tally:
        """``table``'s journal ``journal`` read up to the copy's last row, its last input counted."""
        self.read(store, table, journal)
        return self.settled(table, journal)

    def forget_except(self, current: dict[str, str]) -> None:
        """Drop the tallies of journals no longer current (a table archived, another line chosen)."""
        for key in [k for k in self._tallies if current.get(k[0]) != k[1]]:
            del self._tallies[key]


def summary(tally: Tally) -> dict[str, Any] | None:
    """The floor list's line of a table's last shift (None before its first): open or closed, and
    its win, handle, hold, drop and variance; and whether the dice of the shift or the set are flagged."""
    span = tally.shift
    if span is None:
        return None
    numbers = span.numbers
    closing = span.shift.closing
    expected = span.shift.expected(numbers.win)
    return {"open": span.closed is None, "opened_at": span.opened["ts"],
            "closed_at": span.closed["ts"] if span.closed else None, "win_cents": numbers.win,
            "handle_cents": numbers.handle, "hold": ratio(numbers.win, numbers.handle), "drop_cents": numbers.drop,
            "rolls": numbers.rolls, "expected_cents": expected,
            "variance_cents": None if closing is None else bank_total(closing) - expected,
            "dice_alarm": bool(numbers.dice.alarm or (tally.dice_set is not None and tally.dice_set.alarm))}


def shift_report(tally: Tally) -> dict[str, Any]:
    """A table's page: its last shift's report and the dice set's honesty."""
    span = tally.shift
    return {"shift": span.to_json() if span is not None else None,
            "dice_set": tally.dice_set.to_json() if tally.dice_set is not None else None}


def shifts_csv(store: FloorStore, book: ShiftBook) -> str:
    """Every shift of every table's current journal, one line each, for accounting."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    for table, journal in sorted(store.current_journals().items()):
        tally = book.tally(store, table, journal)
        game = tally.header.get("game") if tally.header is not None else None
        for span in tally.shifts:
            writer.writerow([_cell(value) for value in _line(table, game, journal, span)])
    return out.getvalue()


def _line(table: str, game: Any, journal: str, span: ShiftSpan) -> list[Any]:
    found = span.to_json()
    opened, closed = found["opened"], found["closed"] or {}
    return [table, game, journal, opened["seq"], opened["ts"], opened["by"], closed.get("seq"), closed.get("ts"),
            closed.get("by"), found["rolls"], found["decisions"], found["handle_cents"], found["drop_cents"],
            found["win_cents"], found["hold"], found["opening_cents"], found["fills_cents"], found["credits_cents"],
            found["expected_cents"], found["closing_cents"], found["variance_cents"], len(found["overrides"]),
            found["dice"]["p_value"], (found["dice"]["alarm"] or {}).get("seq")]


def _cell(value: Any) -> Any:
    """A value as a cell: None empty; text that a spreadsheet would run as a formula quoted."""
    if value is None:
        return ""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value
