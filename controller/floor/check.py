"""``dicetable floor check``: is every table's copy an unbroken chain, does no alert stand, and is
no table silent?

Why walk the copy again when each row was checked on arrival: the floor's database is a file
too. Walking it proves that what it holds now is what was received (each row still hashes right
and chains to the one before, from row 1 on), and the alerts say where a table's journal left
its copy.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from controller.floor.judge import RowError, parse_row
from controller.floor.store import Alert
from controller.journal.chain import GENESIS


@dataclass(frozen=True)
class Problem:
    """Where a copy is not whole, or an alert stands: the table, the journal, the row and why."""

    table: str
    journal: str | None
    seq: int | None
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"table": self.table, "journal": self.journal, "seq": self.seq, "reason": self.reason}

    def __str__(self) -> str:
        where = f", row {self.seq}" if self.seq is not None else ""
        journal = f" (journal {self.journal[:12]})" if self.journal else ""
        return f"table {self.table}{where}{journal}: {self.reason}"


def chain_problems(rows: Iterable[tuple[str, str, int, str, str, str]]) -> list[Problem]:
    """The first break of each copied journal among ``rows`` (table, journal, seq, hash,
    prev_hash, line; ordered by table, journal and seq)."""
    found: list[Problem] = []
    key: tuple[str, str] | None = None
    expected, prev, broken = 1, GENESIS, False
    for table, journal, seq, digest, prev_hash, line in rows:
        if (table, journal) != key:
            key, expected, prev, broken = (table, journal), 1, GENESIS, False
        if broken:
            continue
        reason = _fault(journal, expected, prev, seq, digest, prev_hash, line)
        if reason:
            found.append(Problem(table, journal, seq, reason))
            broken = True
            continue
        expected, prev = seq + 1, digest
    return found


def _fault(journal: str, expected: int, prev: str, seq: int, digest: str, prev_hash: str, line: str) -> str | None:
    if seq != expected:
        return f"the floor's copy lacks row {expected} (next row held is {seq})"
    try:
        row = parse_row(line)
    except RowError as exc:
        return f"the floor's copy was changed: {exc}"
    if (row.seq, row.hash, row.prev_hash) != (seq, digest, prev_hash):
        return "the floor's copy was changed: the row's columns disagree with its line"
    if prev_hash != prev:
        return f"the floor's copy was changed: row {seq} does not chain to row {seq - 1}"
    if seq == 1 and digest != journal:
        return "the floor's copy was changed: row 1 is not the first row of its journal"
    return None


def silent_problems(silent: dict[str, str], after_s: float) -> list[Problem]:
    """Each table silent now (``silent``: the table and when it was last heard)."""
    return [Problem(table, None, None, f"silent: not heard since {heard} (over {after_s:g} s), and its last word was "
                                       "not its clean stop") for table, heard in sorted(silent.items())]


def alert_problems(alerts: Iterable[Alert]) -> list[Problem]:
    return [Problem(a.table, a.journal, a.seq, f"alert {a.id} ({a.kind}, {a.raised_at}): {a.message}") for a in alerts]
