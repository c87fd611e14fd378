"""Check a journal's hash chain and say which row broke it.

Why: the journal is the evidence in a dispute and the source of the table's
state; an operator must be able to prove it has not been edited. What the
chain proves: no row was changed, inserted or removed *before* the last row.
What it cannot prove on its own: that rows were not cut off the end (the
last row has no successor to vouch for it). For that the writer keeps the
mark of its last committed row beside the journal (:mod:`controller.journal.mark`):
a journal that does not hold that row fails here, with the first missing row
named; elsewhere (an archive, a copy) compare with a head kept from an earlier
``verify`` (``verify --head``).

A file that is damaged (cut short, overwritten) fails the check at the row
where the damage begins. A file that cannot be read here at all (permissions,
the medium) is not a verdict on its rows: :func:`verify` raises
:class:`~controller.journal.errors.JournalUnreadable` instead.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, replace

from controller.journal.chain import GENESIS, entry_hash
from controller.journal.errors import JournalError, JournalUnreadable
from controller.journal.store import Journal


@dataclass(frozen=True)
class VerifyReport:
    """``ok`` when every row hashes right; otherwise ``broken_seq`` names the first bad row.
    ``triggers`` is False when the triggers refusing UPDATE and DELETE were dropped or altered:
    reported, but no failure on its own (the rows are what the chain vouches for)."""

    ok: bool
    rows: int
    broken_seq: int | None = None
    reason: str | None = None
    head: str = GENESIS
    triggers: bool = True

    def to_json(self) -> dict:
        out = {"ok": self.ok, "rows": self.rows, "head": self.head}
        if not self.ok:
            out.update(broken_seq=self.broken_seq, reason=self.reason)
        if not self.triggers:
            out["triggers"] = False
        return out


def verify(journal: Journal, *, against_mark: bool = True) -> VerifyReport:
    """Walk the chain from the first row; stop at the first row that does not fit; then, unless
    ``against_mark`` is False, check that the journal holds the last row its writer committed.

    Raises :class:`JournalUnreadable` when the file cannot be read here (rather than report a
    broken chain the rows may not have)."""
    expected_seq, prev, count = 1, GENESIS, 0
    broken: tuple[int, str] | None = None
    try:
        for seq, ts, kind, text, prev_hash, digest in journal.raw_rows():
            broken = row_fault(expected_seq, prev, seq, ts, kind, text, prev_hash, digest)
            if broken:
                break
            expected_seq, prev, count = seq + 1, digest, count + 1
    except JournalUnreadable:
        raise
    except JournalError as exc:  # the file itself is damaged; the rows read before it were sound
        return VerifyReport(False, count, expected_seq, str(exc), prev)
    if broken is None and against_mark:
        short = journal.cut_short()
        broken = (expected_seq, short) if short else None
    report = VerifyReport(True, count, head=prev) if broken is None else VerifyReport(False, count, *broken, head=prev)
    return report if journal.guarded() else replace(report, triggers=False)


def row_fault(expected_seq: int, prev: str, seq: int, ts: str, kind: str, text: str, prev_hash: str,
              digest: str) -> tuple[int, str] | None:
    """The row that breaks the chain here and why, or None when row ``seq`` fits after ``prev``."""
    if seq != expected_seq:
        return seq, f"row {expected_seq} is missing (next row found is {seq})"
    if prev_hash != prev:
        return seq, f"row {seq} does not chain to row {seq - 1}"
    if entry_hash(prev_hash, seq, ts, kind, text) != digest:
        return seq, f"row {seq} does not hash right: changed after it was written, or not written by the table"
    try:
        json.loads(text)
    except ValueError:
        return seq, f"row {seq} holds no valid JSON"
    return None
