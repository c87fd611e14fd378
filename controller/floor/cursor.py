"""The publisher's cursor: the last row of which journal the floor has acknowledged, kept in the
table's state directory (``floor.cursor``).

Why a file of its own, beside the journal and never in it: the journal holds what happened at
the table; what the floor has taken is the floor's word, and it changes on every acknowledgement.
A cursor lost or older than the truth only means rows sent again (the floor knows a row it holds
by its seq and hash); a cursor ahead of the floor cannot happen, since it moves only on the
floor's acknowledgement. So it is written atomically (a new file renamed over the old) but not
synced: a power cut can cost a resend, never a row.
"""
from __future__ import annotations

import json
import os
from itertools import islice
from dataclasses import dataclass
from pathlib import Path

CURSOR_FILE = "floor.cursor"


@dataclass(frozen=True)
class Cursor:
    """The floor holds ``journal`` up to row ``seq``."""

    journal: str
    seq: int


def read_cursor(state_dir: Path) -> Cursor | None:
    """The cursor kept in ``state_dir``, or None when there is none or it cannot be read (which
    costs a resend from the floor's own acknowledgement, never a row)."""
    try:
        body = json.loads((state_dir / CURSOR_FILE).read_text(encoding="utf-8"))
        journal, seq = body["journal"], body["seq"]
    except (OSError, ValueError, TypeError, KeyError):
        return None
    if not isinstance(journal, str) or not isinstance(seq, int) or isinstance(seq, bool) or seq < 0:
        return None
    return Cursor(journal, seq)


def write_cursor(state_dir: Path, cursor: Cursor) -> None:
    """Replace the cursor in ``state_dir`` in one rename."""
    path = state_dir / CURSOR_FILE
    partial = path.with_name(f".{CURSOR_FILE}.part")
    partial.write_text(json.dumps({"journal": cursor.journal, "seq": cursor.seq}) + "\n", encoding="utf-8")
    os.replace(partial, path)


def unacknowledged(state_dir: Path, *, publishes: bool = False) -> tuple[int, int] | None:
    """For a table that publishes to a floor (its configuration names one, ``publishes``, or it
    keeps a cursor, which the publisher writes as it starts): the last row of its journal the floor
    acknowledged and the journal's last row, when they differ; None when the floor has every row,
    or the table has no floor, or no journal. ``journal archive`` asks it: rows archived before the
    floor took them would never reach the floor."""
    from controller.journal import Journal, JournalError

    cursor = read_cursor(state_dir)
    if cursor is None and not publishes:
        return None
    try:
        with Journal.open(state_dir, readonly=True) as journal:
            rows = len(journal)
            first = next(iter(list(islice(journal.entries(0), 1))), None)  # the reading ends before the journal
    except JournalError:
        return None
    if first is None:
        return None
    acked = cursor.seq if cursor is not None and cursor.journal == first.hash else 0
    return (acked, rows) if acked < rows else None
