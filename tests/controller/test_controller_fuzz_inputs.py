"""Fuzzing every JSON-lines input (`run --events`, `run --bets`, `replay`) and every TOML input (the
configuration, a calibration file, a pin map) with a fixed budget: each answers with a clear
refusal or takes the input, and nothing raises, stops a stream or loses what came after."""
from __future__ import annotations

import io
import json
import queue
import string
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.event_stream import read_events
from controller.cli.commands.replay import replay_lines
from controller.journal import INPUT, Journal, verify
from controller.jsonlines import json_line, read_lines
from controller.rules import TableConfig
from controller.table import JournaledTable

#: The budget: enough kinds of trouble each run, and the suite stays fast.
BUDGET = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                           HealthCheck.too_slow])

PASS = b'{"event": "bet", "seat": "A", "bet": "pass", "amount": 500}'

scalars = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6), st.floats(allow_nan=False, allow_infinity=False),
                    st.text(max_size=12), st.sampled_from(["bet", "roll", "lock", "read", "pass", "A", "ok"]))
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner,
                                                                                             max_size=4), max_leaves=12)
events = st.fixed_dictionaries({"event": st.sampled_from(["bet", "remove", "roll", "lock", "confirm", "void", "read",
                                                          "manual", "next_shooter", "spin_done", "table", "x"])},
                               optional={"seat": values, "bet": values, "amount": values, "dice": values,
                                         "number": values, "status": values, "confidence": values, "game": values})
#: Lines no reader may stumble on: deep nesting, numbers JSON lacks or Python refuses, half of a
#: UTF-16 pair, bytes that are not UTF-8, and lines longer than a line may be.
hostile = st.sampled_from([
    b"[" * 5000, b'{"a": ' * 3000, b"9" * 5000, b'{"amount": ' + b"9" * 4400 + b"}", b'{"event": NaN}',
    b'{"event": "bet", "amount": Infinity}', b'{"x": -Infinity}', b'{"c": 1e999}', b'{"seat": "\\ud800"}',
    b'{"seat": "\xff\xfe"}', b"\xc3", b'{"event": "bet", "seat": "' + b"A" * 70_000 + b'"}', b"#comment", b"   ",
    b"\x00", b"null", b"[]", b'"lock"', b"{", b"}",
])
lines = st.lists(st.one_of(hostile, events.map(lambda e: json.dumps(e).encode()), st.binary(max_size=40)),
                 max_size=6)


def _stream(chunks: list[bytes]) -> io.TextIOWrapper:
    return io.TextIOWrapper(io.BytesIO(b"\n".join([*chunks, PASS]) + b"\n"), encoding="utf-8",
                            errors="surrogateescape")


@BUDGET
@given(lines)
def test_the_reader_answers_every_line_and_reads_on(chunks):
    read = list(read_lines(_stream(chunks)))
    assert read[-1].event == json.loads(PASS)  # the line after every kind of trouble is still read
    for line in read:
        assert (line.event is None) != (line.refusal is None)
        json_line(line.event if line.event is not None else line.refusal.fields())


@BUDGET
@given(lines, st.sampled_from(["craps", "hazard", "bang"]))
def test_replay_answers_every_line_with_json(chunks, game):
    out = [json_line(effect) for effect in replay_lines(game, _stream(chunks))]
    for text in out:
        assert text.isascii() and isinstance(json.loads(text), dict)


@BUDGET
@given(lines)
def test_run_events_journals_every_line_and_replays_to_the_same_table(tmp_path_factory, chunks):
    state_dir = tmp_path_factory.mktemp("state")
    inputs: queue.Queue = queue.Queue()
    count = read_events(_stream(chunks), inputs)
    with Journal.open(state_dir) as journal:
        table = JournaledTable.open(journal, "craps", TableConfig())
        for _ in range(count):
            table.submit(inputs.get_nowait())
        state = table.state
    with Journal.open(state_dir) as journal:
        assert verify(journal).ok and len([e for e in journal.entries() if e.kind == INPUT]) == count + 1
        assert JournaledTable.open(journal, "craps", TableConfig()).state == state


@BUDGET
@given(lines)
def test_demo_bets_take_every_line_or_name_the_one_they_refuse(tmp_path_factory, chunks):
    from controller.demo import _extra_bets

    bets = tmp_path_factory.mktemp("bets") / "bets.jsonl"
    bets.write_bytes(b"\n".join([*chunks, PASS]) + b"\n")
    try:
        found = _extra_bets(str(bets), "craps")
    except ValueError as exc:  # a line whose "game" is none: refused by its line number
        assert "--bets line" in str(exc)
    else:
        assert found["craps"][-1] == json.loads(PASS)


# ---- TOML ---------------------------------------------------------------------------------------

keys = st.sampled_from(["table", "rules", "camera", "display", "pins", "gpio", "hazard", "calibration", "console",
                        "game", "state_dir", "source", "path", "limits", "default", "fps", "file", "x"])
toml_values = st.recursive(
    st.one_of(st.integers(-10**20, 10**20).map(str), st.floats(allow_nan=True).map(lambda f: str(f).lower()),
              st.text(string.printable, max_size=10).map(json.dumps), st.sampled_from(["true", "false", "nan", "inf"])),
    lambda inner: st.lists(inner, max_size=3).map(lambda items: "[" + ", ".join(items) + "]"), max_leaves=6)
tables = st.lists(st.tuples(keys, st.lists(st.tuples(keys, toml_values), max_size=4)), max_size=4)
toml_texts = st.one_of(
    tables.map(lambda ts: "".join(f"[{name}]\n" + "".join(f"{k} = {v}\n" for k, v in pairs) for name, pairs in ts)),
    st.binary(max_size=60).map(lambda b: b.decode("latin-1")),
    st.sampled_from(["a = " + "[" * 3000 + "]" * 3000, "a = " + "{b = " * 1500 + "1" + "}" * 1500,
                     f'[table]\nstate_dir = "{"x" * 300}"\n', '[table]\nstate_dir = "t.toml/x"\n',
                     '[table]\nstate_dir = "a\\u0000b"\n', "\ufeff[camera]\nsource = 3\n"]),
)


def _write(folder: Path, text: str) -> Path:
    path = folder / "t.toml"
    path.write_bytes(text.encode("utf-8", "surrogateescape"))
    return path


@BUDGET
@given(toml_texts)
def test_every_configuration_is_taken_or_refused_with_its_key(tmp_path_factory, text):
    from controller.config import ConfigError, load, load_rules, load_state_dir

    path = _write(tmp_path_factory.mktemp("conf"), text)
    for reading in (lambda: load(path), lambda: load_state_dir(path), lambda: load_rules(path, "craps")):
        try:
            reading()
        except ConfigError as exc:
            assert str(exc).startswith(str(path)) and all(key and message for key, message in exc.problems)


@BUDGET
@given(toml_texts)
def test_every_calibration_file_is_taken_or_refused(tmp_path_factory, text):
    from messages import ConfigError
    from vision.calibrate import load_calibration

    path = _write(tmp_path_factory.mktemp("cal"), text)
    try:
        load_calibration(path)
    except ConfigError as exc:
        assert str(exc)


@BUDGET
@given(toml_texts)
def test_every_pin_map_is_taken_or_refused(tmp_path_factory, text):
    from hardware.gpio.pinmap import read_tables
    from messages import ConfigError

    path = _write(tmp_path_factory.mktemp("pins"), text)
    try:
        read_tables(path)
    except ConfigError as exc:
        assert str(exc)
