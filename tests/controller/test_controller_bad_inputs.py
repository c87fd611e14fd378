"""Inputs that once could stop the table for good: each is journaled and refused, and the table
reopens from its journal to the same state (from an audit of the journal and the event stream)."""
from __future__ import annotations

import io
import json
import queue

import numpy as np
import pytest

from controller.event_stream import read_events
from controller.journal import EFFECT, INPUT, Journal
from controller.rules import TableConfig
from controller.table import JournaledTable, step
from controller.table.flow import new_table

CONFIG = TableConfig()
PASS = {"event": "bet", "seat": "A", "bet": "pass", "amount": 500}


def reopen(state_dir):
    with Journal.open(state_dir) as journal:
        return JournaledTable.open(journal, "craps", CONFIG).state


def submit_all(state_dir, *events):
    with Journal.open(state_dir) as journal:
        table = JournaledTable.open(journal, "craps", CONFIG)
        steps = [table.submit(e) for e in events]
        return table.state, steps


@pytest.mark.parametrize("refused_first", [True, False], ids=["refused-key-first", "event-key-first"])
def test_a_refused_input_with_a_field_named_refused_replays_the_same(tmp_path, refused_first):
    # The journal keeps an input's fields sorted; the rejection must not depend on their order.
    odd = {"refused": 1, "event": "shuffle"} if refused_first else {"event": "shuffle", "refused": 1}
    state, steps = submit_all(tmp_path, odd, PASS)
    assert not steps[0].accepted and steps[0].effects[0]["refused"] == "shuffle"
    assert steps[1].accepted
    assert reopen(tmp_path) == state


def test_a_rejection_keeps_the_input_fields_but_not_its_own_names():
    result = step(new_table("craps", CONFIG), {"event": "bet", "seat": "A", "bet": "pass", "amount": 99999,
                                               "reason": "mine", "rule": "mine", "refused": "mine"})
    (rejected,) = result.effects
    assert rejected["refused"] == "bet" and rejected["amount"] == 99999 and rejected["seat"] == "A"
    assert rejected["reason"] != "mine" and rejected["rule"] != "mine"


@pytest.mark.parametrize("line", [
    '{"event": "bet", "seat": "A\\ud800", "bet": "pass", "amount": 500}',  # half of a UTF-16 pair
    '{"event": "bet", "seat": ' + "[" * 100_000 + "]" * 100_000 + "}",     # too deep to parse
    '{"event": "bet", "seat": "A\udcff", "bet": "pass", "amount": 500}',   # a byte that was not UTF-8
    "[1, 2]",
    "not json",
], ids=["lone-surrogate-escape", "deep-nesting", "undecodable-byte", "not-an-object", "not-json"])
def test_a_line_the_journal_could_not_keep_is_a_malformed_input(tmp_path, line):
    inputs: queue.Queue = queue.Queue()
    read_events(io.StringIO(line + "\n"), inputs)
    event = inputs.get_nowait()
    assert event["event"] == "malformed"
    event["line"].encode("utf-8")  # the printable copy can be journaled
    state, steps = submit_all(tmp_path, event, PASS)
    assert not steps[0].accepted and steps[1].accepted
    assert reopen(tmp_path) == state


def test_a_stream_with_bytes_that_are_not_utf8_goes_on_past_them():
    raw = b'{"event": "lock"}\n{"event": "bet", "seat": "\xff"}\n{"event": "void"}\n'
    inputs: queue.Queue = queue.Queue()
    read_events(io.TextIOWrapper(io.BytesIO(raw), encoding="utf-8", errors="surrogateescape"), inputs)
    got = [inputs.get_nowait() for _ in range(3)]
    assert [e["event"] for e in got] == ["lock", "malformed", "void"]
    assert "\\udcff" in got[1]["line"]


def test_an_input_json_cannot_hold_is_journaled_as_malformed(tmp_path):
    state, steps = submit_all(tmp_path, {"event": "read", "status": "ok", "dice": [np.int64(3), 4]}, PASS)
    assert not steps[0].accepted and steps[1].accepted
    with Journal.open(tmp_path) as journal:
        kinds = [(e.kind, e.event["event"]) for e in journal.entries()][1:]
    assert kinds == [(INPUT, "malformed"), (EFFECT, "rejected"), (INPUT, "bet")]
    assert reopen(tmp_path) == state


def test_a_batch_that_fails_part_way_leaves_nothing_and_the_journal_usable(tmp_path):
    with Journal.open(tmp_path) as journal:
        journal.append({"event": "first"}, INPUT)
        with pytest.raises(UnicodeEncodeError):
            journal.append_many([{"event": "fine"}, {"event": "half \ud800"}], EFFECT)
        journal.append({"event": "after"}, INPUT)
        assert [e.event["event"] for e in journal.entries()] == ["first", "after"]


def test_running_out_of_memory_is_not_taken_for_a_refusal(monkeypatch):
    from controller.table import flow

    def no_memory(state, event):
        raise MemoryError

    monkeypatch.setattr(flow, "_step", no_memory)
    with pytest.raises(MemoryError):
        step(new_table("craps", CONFIG), PASS)


def test_resume_skips_the_lines_the_stream_gave_not_the_inputs_the_cage_added(tmp_path):
    """At Hazard the cage's motor journals its own spin_done, which is no line of the stream: a
    resume skips only the stream's lines, so the LOCK after it is not lost after a restart."""
    from controller.event_stream import streamed_inputs

    lines = [{"event": "bet", "seat": "A", "bet": "high", "amount": 500}, {"event": "lock"},
             {"event": "read", "status": "ok", "dice": [4, 5, 6], "confidence": 0.99, "frame": None},
             {"event": "bet", "seat": "A", "bet": "high", "amount": 500}, {"event": "lock"}]
    stream = io.StringIO("".join(json.dumps(line) + "\n" for line in lines))
    taken: queue.Queue = queue.Queue()
    read_events(stream, taken)
    given = [taken.get_nowait() for _ in range(len(lines))]
    with Journal.open(tmp_path) as journal:
        table = JournaledTable.open(journal, "hazard", CONFIG)
        for event in given[:2]:
            table.submit(event)
        table.submit({"event": "spin_done"})  # the motor, not the stream
        table.submit(given[2])
        assert streamed_inputs(journal) == 3 and table.state.phase.value == "betting"
    rest: queue.Queue = queue.Queue()
    stream.seek(0)
    read_events(stream, rest, skip=3)
    assert [rest.get_nowait() for _ in range(2)] == given[3:] and rest.empty()
    assert all(event["via"] == "stream" for event in given)


@pytest.mark.parametrize("confidence", [7, -0.1, float("nan"), "high", True])
def test_a_read_whose_confidence_is_no_probability_is_refused(confidence):
    """A confidence is a probability: a read whose confidence is 7, below 0, not a number or a word
    is refused, and never shown to the dealer or in recall."""
    locked = step(new_table("craps", CONFIG), {"event": "lock"}).state
    done = step(locked, {"event": "read", "status": "uncertain", "dice": [3, 4], "confidence": confidence})
    assert not done.accepted and "confidence must be a number from 0 to 1" in done.effects[0]["reason"]


def test_an_event_nested_as_deep_as_the_parser_goes_neither_stops_the_table_nor_its_recovery(tmp_path):
    """How deep the parser went depended on the stack where it ran: an event parsed near its limit
    could stop the table where it was logged, and its every recovery after that."""
    deep = {"event": "bet", "seat": "A", "bet": "pass", "amount": 500, "x": json.loads("[" * 900 + "]" * 900)}
    _, (step_,) = submit_all(tmp_path, deep)
    assert not step_.accepted and "nested too deeply (more than 32 levels)" in step_.effects[0]["reason"]

    def recovered_from_deep_in_the_stack(frames: int):
        return recovered_from_deep_in_the_stack(frames - 1) if frames else reopen(tmp_path)

    assert recovered_from_deep_in_the_stack(200) == new_table("craps", CONFIG)
    with Journal.open(tmp_path, readonly=True) as journal:
        assert journal.last_entry() is not None
        (row,) = [e for e in journal.entries() if e.kind == INPUT and e.event.get("event") == "malformed"]
        assert "'seat': 'A'" in row.event["line"] and "[[...]]" in row.event["line"]  # a brief copy


def test_a_long_event_stream_is_read_only_as_far_ahead_of_the_table_as_a_bound(tmp_path):
    """The reader parses far faster than the table commits: unbounded, a file of a million lines
    waited whole in memory."""
    import threading
    import time

    from controller.event_stream import STREAM_AHEAD

    lines = [dict(PASS, n=n) for n in range(STREAM_AHEAD * 4)]
    inputs: queue.Queue = queue.Queue()
    stream = io.StringIO("".join(json.dumps(line) + "\n" for line in lines))
    reader = threading.Thread(target=read_events, args=(stream, inputs), kwargs={"end_with_none": True}, daemon=True)
    reader.start()
    deadline = time.monotonic() + 10
    while inputs.qsize() < STREAM_AHEAD and time.monotonic() < deadline:
        time.sleep(0.01)
    reader.join(0.2)
    assert reader.is_alive() and inputs.qsize() == STREAM_AHEAD  # waiting for the table
    taken = []
    while (item := inputs.get(timeout=10)) is not None:
        taken.append(item["n"])
    assert taken == list(range(len(lines)))  # every line, in order, once the table takes them
