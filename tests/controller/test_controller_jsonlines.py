"""Every JSON-lines input (`run --events`, `run --bets`, `replay`) is read by one reader: a bad line
is refused on its own, with the reason, and the lines after it are read as usual."""
from __future__ import annotations

import hashlib
import io
import json
import subprocess
import sys

import pytest

from controller.cli import main
from controller.journal import INPUT, Journal
from controller.jsonlines import KEPT_CHARS, MAX_LINE_BYTES, json_line, read_lines

PASS = {"event": "bet", "seat": "A", "bet": "pass", "amount": 500}

#: Lines no JSON-lines input may take, each with what its refusal says (bytes, as in a file).
BAD_LINES = {
    "deep-nesting": (b"[" * 30_000, "nested too deeply"),
    "deep-nesting-in-an-object": (b'{"event": "bet", "seat": ' + b"[" * 20_000 + b"]" * 20_000 + b"}", "nested too deeply"),
    "integer-of-5000-digits": (b'{"event": "bet", "seat": "A", "bet": "pass", "amount": ' + b"9" * 5000 + b"}",
                               "4300 digits"),
    "lone-surrogate-escape": (b'{"event": "bet", "seat": "\\ud800", "bet": "pass", "amount": 500}', "UTF-16 pair"),
    "byte-not-utf8": (b'{"event": "bet", "seat": "\xff", "bet": "pass", "amount": 500}', "not UTF-8 text: byte 0xff"),
    "nan": (b'{"event": "bet", "seat": "A", "bet": "pass", "amount": NaN}', "NaN is not a JSON number"),
    "infinity": (b'{"event": "read", "confidence": -Infinity}', "-Infinity is not a JSON number"),
    "float-too-large": (b'{"event": "read", "confidence": 1e999}', "1e999 is too large"),
    "not-an-object": (b"[1, 2]", "not a JSON object but an array"),
    "not-json": (b"not json", "not JSON: Expecting value"),
}


def _lines(raw: bytes) -> list:
    return list(read_lines(io.TextIOWrapper(io.BytesIO(raw), encoding="utf-8", errors="surrogateescape")))


@pytest.mark.parametrize("name", BAD_LINES)
def test_the_reader_refuses_a_bad_line_and_reads_on(name):
    bad, why = BAD_LINES[name]
    lines = _lines(b'{"event": "lock"}\n' + bad + b"\n\n# a comment\n" + json.dumps(PASS).encode() + b"\n")
    assert [line.number for line in lines] == [1, 2, 5]
    assert lines[0].event == {"event": "lock"} and lines[2].event == PASS
    refusal = lines[1].refusal
    assert lines[1].event is None and why in refusal.reason
    assert len(refusal.text) <= KEPT_CHARS and json_line(refusal.fields())  # printable anywhere


@pytest.mark.parametrize("name", BAD_LINES)
def test_replay_answers_a_bad_line_in_a_file_and_replays_the_rest(name, tmp_path, capsys):
    bad, why = BAD_LINES[name]
    events = tmp_path / "events.jsonl"
    events.write_bytes(bad + b"\n" + b"\n".join(json.dumps(e).encode() for e in (
        PASS, {"event": "roll", "dice": [3, 4]})) + b"\n")
    assert main(["replay", "--game", "craps", str(events)]) == 0
    out = capsys.readouterr().out
    rejected, settled = [json.loads(line) for line in out.splitlines()]
    assert rejected["event"] == "rejected" and why in rejected["reason"] and rejected["rule"] is None
    assert settled == {"event": "settle", "seat": "A", "bet": "pass", "number": None, "amount": 500,
                       "result": "win", "paid": 1000}
    assert out.isascii()


@pytest.mark.parametrize("name", BAD_LINES)
def test_run_events_journals_a_bad_line_as_malformed_with_the_reason_and_plays_on(name, tmp_path, capsys):
    bad, why = BAD_LINES[name]
    events = tmp_path / "events.jsonl"
    events.write_bytes(bad + b"\n" + json.dumps(PASS).encode() + b"\n")
    assert main(["run", "--events", str(events), "--exit-at-end", "--state-dir", str(tmp_path / "state")]) == 0
    out = capsys.readouterr().out
    (rejected,) = [json.loads(line) for line in out.splitlines()]
    assert rejected["refused"] == "malformed" and why in rejected["reason"]
    with Journal.open(tmp_path / "state", readonly=True) as journal:
        inputs = [e.event for e in journal.entries() if e.kind == INPUT][1:]
    assert inputs[0]["event"] == "malformed" and why in inputs[0]["problem"]
    assert inputs[1] == {**PASS, "via": "stream"}


def test_demo_bets_take_the_same_reader(tmp_path):
    from controller.demo import _extra_bets

    bets = tmp_path / "bets.jsonl"
    bets.write_bytes(BAD_LINES["byte-not-utf8"][0] + b"\n" + json.dumps({**PASS, "game": "hazard"}).encode() + b"\n")
    found = _extra_bets(str(bets), "craps")
    assert found["craps"][0]["event"] == "malformed" and "not UTF-8" in found["craps"][0]["problem"]
    assert found["hazard"] == [PASS]


def test_a_line_too_long_keeps_its_length_its_hash_and_its_start(tmp_path, capsys):
    long_line = json.dumps({"event": "bet", "seat": "A" * (3 * MAX_LINE_BYTES)}).encode()
    events = tmp_path / "events.jsonl"
    events.write_bytes(long_line + b"\n" + json.dumps(PASS).encode() + b"\n")
    assert main(["run", "--events", str(events), "--exit-at-end", "--state-dir", str(tmp_path / "state")]) == 0
    (rejected,) = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert f"a line of {len(long_line)} bytes, longer than the {MAX_LINE_BYTES}" in rejected["reason"]
    with Journal.open(tmp_path / "state", readonly=True) as journal:
        inputs = [e.event for e in journal.entries() if e.kind == INPUT][1:]
    kept = inputs[0]
    assert kept["bytes"] == len(long_line) and kept["sha256"] == hashlib.sha256(long_line).hexdigest()
    assert long_line.decode().startswith(kept["line"]) and len(kept["line"]) == KEPT_CHARS
    assert inputs[1] == {**PASS, "via": "stream"}


def test_a_line_just_at_the_limit_is_an_event():
    filler = "A" * (MAX_LINE_BYTES - len(json.dumps({"event": "bet", "seat": ""})))
    exact = json.dumps({"event": "bet", "seat": filler}).encode()
    assert len(exact) == MAX_LINE_BYTES
    (line,) = _lines(exact + b"\n")
    assert line.event is not None
    (line,) = _lines(exact[:-1] + b" }\n")  # one byte more
    assert line.refusal is not None and line.refusal.length == MAX_LINE_BYTES + 1


def test_a_line_too_long_of_characters_of_several_bytes_is_measured_in_bytes():
    wide = json.dumps({"event": "bet", "seat": "é" * MAX_LINE_BYTES}, ensure_ascii=False).encode()
    (line,) = _lines(wide + b"\n")
    assert line.refusal.length == len(wide) and line.refusal.sha256 == hashlib.sha256(wide).hexdigest()


MEASURE = """
import resource, sys
from controller.cli import main
main(["replay", "--game", "craps", sys.argv[1]])
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)
"""


def _peak_kib(path) -> int:
    done = subprocess.run([sys.executable, "-c", MEASURE, str(path)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return int(done.stderr.split()[-1])


def test_a_line_of_32_megabytes_costs_no_more_memory_than_a_short_one(tmp_path):
    short, huge = tmp_path / "short.jsonl", tmp_path / "huge.jsonl"
    short.write_text(json.dumps(PASS) + "\n")
    with open(huge, "w") as out:
        out.write('{"event": "bet", "seat": "')
        for _ in range(32):
            out.write("A" * (1 << 20))
        out.write('"}\n' + json.dumps(PASS) + "\n")
    assert _peak_kib(huge) - _peak_kib(short) < 8 * 1024  # a line held whole would take 32 MB and more
