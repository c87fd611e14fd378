"""Check a journal's hash chain and say which row broke it.

Why: the journal is the evidence in a dispute and the source of the table's
state; an operator must be able to prove it has not been edited. What the
chain proves: no row was changed, inserted or removed *before* the last row.
What it cannot prove on its own: that rows were not cut off the end (the
last row has no successor to vouch for it) -- compare the row count with an
earlier ``verify`` or an export kept elsewhere.
"""
from __future__ import annotations

import json
from dataclasses import dataclass

from controller.journal.chain import GENESIS, entry_hash
from controller.journal.store import Journal, JournalError


@dataclass(frozen=True)
class VerifyReport:
    """``ok`` when every row hashes right; otherwise ``broken_seq`` names the first bad row."""

    ok: bool
    rows: int
    broken_seq: int | None = None
    reason: str | None = None
    head: str = GENESIS

    def to_json(self) -> dict:
        out = {"ok": self.ok, "rows": self.rows, "head": self.head}
        if not self.ok:
            out.update(broken_seq=self.broken_seq, reason=self.reason)
        return out


def verify(journal: Journal) -> VerifyReport:
    """Walk the chain from the first row; stop at the first row that does not fit."""
    expected_seq, prev, count = 1, GENESIS, 0
    try:
        for seq, ts, kind, text, prev_hash, digest in journal.raw_rows():
            if seq != expected_seq:
                return VerifyReport(False, count, seq, f"row {expected_seq} is missing (next row found is {seq})", prev)
            if prev_hash != prev:
                return VerifyReport(False, count, seq, f"row {seq} does not chain to row {seq - 1}", prev)
            if entry_hash(prev_hash, seq, ts, kind, text) != digest:
                return VerifyReport(False, count, seq, f"row {seq} was changed after it was written", prev)
            try:
                json.loads(text)
            except ValueError:
                return VerifyReport(False, count, seq, f"row {seq} holds no valid JSON", prev)
            expected_seq, prev, count = seq + 1, digest, count + 1
    except JournalError as exc:  # the file itself is damaged; the rows read before it were sound
        return VerifyReport(False, count, expected_seq, str(exc), prev)
    return VerifyReport(True, count, head=prev)
