"""The floor's rules for a row or a status against its copy (pure)."""
from __future__ import annotations

import json

import pytest

from controller.floor.judge import RowError, Verdict, judge, parse_row, status_fault
from controller.journal import Entry, GENESIS, entry_hash, export_line
from controller.journal.chain import canonical_json


def rows(count: int, *, first_event: dict | None = None, start_prev: str = GENESIS) -> list[Entry]:
    """A chain of ``count`` rows as a journal writes them."""
    out, prev = [], start_prev
    for seq in range(1, count + 1):
        event = first_event if seq == 1 and first_event else {"event": "bet", "seat": "A", "amount": 100 * seq}
        ts = f"2026-12-01T10:00:{seq:02d}.000+00:00"
        digest = entry_hash(prev, seq, ts, "input", canonical_json(event))
        out.append(Entry(seq, ts, "input", event, prev, digest))
        prev = digest
    return out


def test_a_row_as_journal_export_prints_it_is_parsed_whole():
    entry = rows(1)[0]
    row = parse_row(export_line(entry).encode())
    assert (row.seq, row.hash, row.prev_hash, row.line) == (1, entry.hash, GENESIS, export_line(entry))


@pytest.mark.parametrize("mangle, words", [
    (lambda line: line[:-1], "not JSON"),
    (lambda line: json.dumps({**json.loads(line), "extra": 1}, sort_keys=True, separators=(",", ":")), "not a journal row"),
    (lambda line: json.dumps(json.loads(line), sort_keys=True), "spelt"),
    (lambda line: line.replace('"amount":100', '"amount":900'), "does not hash right"),
    (lambda line: line.replace('"seq":1', '"seq":true'), "wrong kind"),
    (lambda line: line.replace('"amount":100', '"amount":NaN'), "not finite"),  # no journal row holds one
])
def test_what_is_not_a_journal_row_is_refused_with_the_reason(mangle, words):
    with pytest.raises(RowError, match=words):
        parse_row(mangle(export_line(rows(1)[0])))


def test_the_next_link_is_stored_a_repeat_is_a_duplicate_and_a_gap_asks_for_the_rows_between():
    chain = [parse_row(export_line(e)) for e in rows(4)]
    journal = chain[0].hash
    assert judge(journal, None, chain[0], None).verdict is Verdict.STORE
    assert judge(journal, (1, chain[0].hash), chain[1], None).verdict is Verdict.STORE
    assert judge(journal, (2, chain[1].hash), chain[1], chain[1].hash).verdict is Verdict.DUPLICATE
    gap = judge(journal, (2, chain[1].hash), chain[3], None)
    assert gap.verdict is Verdict.GAP and "rows 3 to 3 are missing" in gap.reason
    assert judge(journal, None, chain[2], None).verdict is Verdict.GAP


def test_a_row_that_differs_from_the_one_held_is_a_rewrite():
    honest = [parse_row(export_line(e)) for e in rows(3)]
    forged = [parse_row(export_line(e)) for e in rows(3, first_event={"event": "table", "game": "craps"})]
    verdict = judge(honest[0].hash, (3, honest[2].hash), forged[1], honest[1].hash)
    assert verdict.verdict is Verdict.BREAK and "row 2 differs" in verdict.reason and "rewritten" in verdict.reason


def test_a_row_that_does_not_chain_to_the_copy_is_a_break():
    honest = [parse_row(export_line(e)) for e in rows(3)]
    other = [parse_row(export_line(e)) for e in rows(3, start_prev="f" * 64)]
    verdict = judge(honest[0].hash, (2, honest[1].hash), other[2], None)
    assert verdict.verdict is Verdict.BREAK and "does not chain to the row 2" in verdict.reason


def test_row_one_must_begin_the_journal_its_topic_names():
    first = parse_row(export_line(rows(1)[0]))
    assert judge("a" * 64, None, first, None).verdict is Verdict.BREAK
    not_first = parse_row(export_line(rows(1, start_prev="e" * 64)[0]))
    assert "genesis" in judge(not_first.hash, None, not_first, None).reason


def test_a_live_status_that_ends_before_the_copy_says_rows_were_cut():
    tail = (10, "h10")
    assert "cut off its end" in status_fault({"seq": 7, "head": "h7"}, tail, "h7")
    assert "rewritten" in status_fault({"seq": 10, "head": "other"}, tail, "h10")
    assert status_fault({"seq": 12, "head": "h12"}, tail, None) is None
    assert status_fault({"seq": 10, "head": "h10"}, tail, "h10") is None
    assert status_fault({"seq": 7, "head": "h7"}, None, None) is None
