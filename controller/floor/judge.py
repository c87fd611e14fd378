"""What the floor makes of each row and status a table sends, against the copy it holds (pure).

Why pure: these few rules are the floor's whole case against a table that rewrote, cut or rolled
back its journal, so they are small functions of the row and the copy's last row, tested alone.

A row is taken only as the next link of its journal's chain: its seq follows the copy's last,
its ``prev_hash`` is that row's hash, and it hashes right. A row the copy holds already is a
duplicate when it is the same row (the publisher sends again after any doubt), and the evidence
of a rewrite when it is not. A row past a gap is not kept: the floor asks for the rows between.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from enum import Enum
from typing import Any

from controller.journal.chain import GENESIS, canonical_json, entry_hash


class Verdict(Enum):
    STORE = "store"
    DUPLICATE = "duplicate"
    GAP = "gap"
    BREAK = "break"


class RowError(ValueError):
    """A message on a row topic that is not a journal row as ``journal export`` prints one."""


@dataclass(frozen=True)
class Row:
    """One journal row as received: its fields and the line itself (kept and printed as it came)."""

    seq: int
    ts: str
    kind: str
    prev_hash: str
    hash: str
    line: str


@dataclass(frozen=True)
class Judgement:
    """What to do with a row: ``reason`` says what a :attr:`Verdict.BREAK` (or a gap) is."""

    verdict: Verdict
    reason: str | None = None


def parse_row(payload: bytes | str) -> Row:
    """The row in ``payload``, checked to be a whole journal row in ``journal export``'s spelling
    that hashes right; :class:`RowError` says what it is not."""
    try:
        line = payload.decode("utf-8") if isinstance(payload, bytes) else payload
        body = json.loads(line)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise RowError(f"not JSON: {exc}") from None
    if not isinstance(body, dict) or set(body) != {"seq", "ts", "kind", "event", "prev_hash", "hash"}:
        raise RowError("not a journal row (seq, ts, kind, event, prev_hash, hash)")
    seq, ts, kind, event, prev, digest = (body[k] for k in ("seq", "ts", "kind", "event", "prev_hash", "hash"))
    if not (isinstance(seq, int) and not isinstance(seq, bool) and seq >= 1 and isinstance(ts, str)
            and kind in ("input", "effect") and isinstance(event, dict) and isinstance(prev, str)
            and isinstance(digest, str)):
        raise RowError("a journal row's field of the wrong kind")
    if json.dumps(body, sort_keys=True, separators=(",", ":")) != line:
        raise RowError(f"row {seq} is not spelt as `journal export` spells it")
    try:
        text = canonical_json(event)
    except ValueError:  # NaN or Infinity: no journal keeps them now, and JSON has none
        raise RowError(f"row {seq} holds a number that is not finite, which no journal row does now") from None
    if entry_hash(prev, seq, ts, kind, text) != digest:
        raise RowError(f"row {seq} does not hash right: it is not the row the table's journal wrote")
    return Row(seq, ts, kind, prev, digest, line)


def judge(journal: str, tail: tuple[int, str] | None, row: Row, held: str | None) -> Judgement:
    """The verdict on ``row`` of ``journal`` when the copy ends at ``tail`` (seq, hash; None: no row
    yet) and holds a row of hash ``held`` at ``row.seq`` (None when it holds none there)."""
    if held is not None:
        if held == row.hash:
            return Judgement(Verdict.DUPLICATE)
        return Judgement(Verdict.BREAK, f"row {row.seq} differs from the row {row.seq} the floor received before: "
                                        "the table's journal was rewritten")
    last_seq, last_hash = tail if tail is not None else (0, GENESIS)
    if row.seq > last_seq + 1:
        return Judgement(Verdict.GAP, f"row {row.seq} came after row {last_seq}: rows {last_seq + 1} to "
                                      f"{row.seq - 1} are missing")
    if row.seq <= last_seq:  # a row the copy should hold and does not: only a damaged copy does that
        return Judgement(Verdict.BREAK, f"row {row.seq} is not in the floor's copy, which ends at {last_seq}")
    if row.prev_hash != last_hash:
        if row.seq == 1:
            return Judgement(Verdict.BREAK, "row 1 does not begin a journal (its prev_hash is not the genesis)")
        return Judgement(Verdict.BREAK, f"row {row.seq} does not chain to the row {row.seq - 1} the floor holds: "
                                        "the table's journal was rewritten or rolled back")
    if row.seq == 1 and row.hash != journal:
        return Judgement(Verdict.BREAK, "row 1 is not the first row of the journal its topic names")
    return Judgement(Verdict.STORE)


def status_fault(status: dict[str, Any], tail: tuple[int, str] | None, held: str | None) -> str | None:
    """What a table's live status says against the copy of its journal, or None: the journal now
    ends before the copy's last row (rows cut off its end, or an older copy put back), or its last
    row is not the row the copy holds there (``held``: the copy's hash at the status's ``seq``)."""
    seq, head = status.get("seq"), status.get("head")
    if tail is None or not isinstance(seq, int) or isinstance(seq, bool) or not isinstance(head, str):
        return None
    if seq < tail[0]:
        return (f"the table's journal now ends at row {seq}, and the floor holds rows up to {tail[0]}: rows were cut "
                "off its end, or an older copy was put back")
    if held is not None and held != head:
        return f"row {seq} of the table's journal differs from the row {seq} the floor holds: the journal was rewritten"
    return None
