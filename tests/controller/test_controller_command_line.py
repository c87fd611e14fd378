"""The command line as a new user meets it: `journal` without a location reads ./var, its location
after the action, `recall` saying when a row is not as written, money written one way,
`--version`."""
from __future__ import annotations

import json
import sqlite3
from typing import Any

import pytest

from controller.cli import main
from controller.journal import Journal
from controller.rules import TableConfig
from messages.money import dollars
from controller.table import JournaledTable

SESSION: list[dict[str, Any]] = [{"event": "bet", "seat": "A", "bet": "pass", "amount": 500},
           {"event": "bet", "seat": "B", "bet": "field", "amount": 125000},
           {"event": "lock"},
           {"event": "read", "status": "ok", "dice": [5, 6], "confidence": 0.99, "frame": "f.jpg"}]


def _table(state_dir) -> None:
    config = TableConfig.from_dict({"limits": {"default": 200000}})
    with Journal.open(state_dir) as journal:
        table = JournaledTable.open(journal, "craps", config)
        for event in SESSION:
            assert table.submit(event).accepted


def test_journal_without_a_location_reads_var_as_its_help_says(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    _table(tmp_path / "var")
    assert main(["journal", "verify"]) == 0
    assert json.loads(capsys.readouterr().out)["ok"] is True


@pytest.mark.parametrize("where", [["--state-dir", "var"], ["--config", "t.toml"], ["--file", "var/journal.sqlite3"]])
@pytest.mark.parametrize("action", [["verify"], ["audit"], ["export"], ["recall", "1"], ["frames"]])
def test_the_location_may_follow_the_action(tmp_path, monkeypatch, capsys, where, action):
    monkeypatch.chdir(tmp_path)
    _table(tmp_path / "var")
    (tmp_path / "t.toml").write_text('[table]\nstate_dir = "var"\n')
    assert main(["journal", *where, *action]) == 0
    before = capsys.readouterr().out
    assert main(["journal", *action, *where]) == 0
    assert capsys.readouterr().out == before


def test_two_locations_are_refused_wherever_they_stand(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    _table(tmp_path / "var")
    assert main(["journal", "--state-dir", "var", "verify", "--file", "var/journal.sqlite3"]) == 2
    assert "give only one of --config, --state-dir and --file" in capsys.readouterr().err


def test_recall_says_when_a_row_it_tells_is_not_as_written(tmp_path, capsys):
    _table(tmp_path)
    db = sqlite3.connect(tmp_path / "journal.sqlite3")
    settle = db.execute("SELECT seq FROM journal WHERE event LIKE '%\"settle\"%' AND event LIKE '%field%'").fetchone()[0]
    db.executescript("DROP TRIGGER journal_no_update;")
    db.execute("UPDATE journal SET event = replace(event, '\"paid\":250000', '\"paid\":999900') WHERE seq = ?",
               (settle,))
    db.commit()
    db.close()
    assert main(["journal", "--state-dir", str(tmp_path), "recall", "1"]) == 0
    text = capsys.readouterr().out
    assert f"NOT AS WRITTEN: row {settle} does not hash right" in text and "paid $9,999.00" in text
    assert main(["journal", "--state-dir", str(tmp_path), "recall", "1", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["faults"] == [f"row {settle} does not hash right: changed after it was written, or not written "
                                "by the table"]


def test_recall_of_an_intact_journal_names_no_fault(tmp_path, capsys):
    _table(tmp_path)
    assert main(["journal", "--state-dir", str(tmp_path), "recall", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["faults"] == []


def test_money_is_written_one_way_for_people(tmp_path, capsys):
    assert [dollars(c) for c in (0, 5, 500, 125000, -300, -123456789)] == [
        "$0.00", "$0.05", "$5.00", "$1,250.00", "-$3.00", "-$1,234,567.89"]
    _table(tmp_path)
    assert main(["journal", "--state-dir", str(tmp_path), "recall", "1"]) == 0
    text = capsys.readouterr().out
    assert "seat A pass $5.00 win paid $10.00" in text and "seat B field $1,250.00 win paid $2,500.00" in text
    assert "c " not in text.replace("confidence ", "")


def test_version(capsys):
    from importlib.metadata import version

    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0 and capsys.readouterr().out.strip() == f"dicetable {version('dicetable')}"


@pytest.mark.parametrize("table, spec", [
    ({"source": "usb", "device": 2}, {"type": "usb", "target": 2}),
    ({"source": "opencv", "device": 2}, {"type": "usb", "target": 2}),
    ({"source": "video", "path": "clip.mp4"}, {"type": "video"}),
    ({"source": "opencv", "path": "clip.mp4"}, {"type": "video"}),
    ({"source": "generated"}, {"type": "generated"}),
    ({"source": "scenes"}, {"type": "generated"}),
])
def test_camera_sources_are_named_in_the_configuration_as_on_the_command_line(tmp_path, table, spec):
    from controller.camera import source_spec
    from controller.config import validate
    from vision.sources.factory import parse_spec

    (tmp_path / "clip.mp4").write_bytes(b"")
    config = validate({"camera": table}, str(tmp_path / "t.toml"))
    assert spec.items() <= source_spec(config).items()
    named = {"usb": "usb:2", "video": "video:clip.mp4", "generated": "generated"}[spec["type"]]
    assert parse_spec(named)["type"] == spec["type"]  # the spelling `record --source` takes
    old = {"usb": "opencv:2", "video": "opencv:clip.mp4", "generated": "scenes"}[spec["type"]]
    assert parse_spec(old)["type"] == spec["type"]  # and the configuration's earlier one


def test_a_camera_source_that_is_none_lists_the_names_to_use(tmp_path):
    from controller.config import ConfigError, validate

    with pytest.raises(ConfigError, match="must be one of picamera2, usb, video, folder, generated, none"):
        validate({"camera": {"source": "webcam"}}, str(tmp_path / "t.toml"))


def test_record_without_a_camera_ends_with_the_reason(tmp_path, monkeypatch, capsys):
    """It retried the missing camera for ever."""
    import sys

    monkeypatch.setitem(sys.modules, "picamera2", None)  # as off the Pi
    assert main(["record", "--out", str(tmp_path / "rec"), "--wait", "1"]) == 2
    err = capsys.readouterr().err
    assert "nothing was saved: no frame from picamera2 for 1 s" in err and "Picamera2" in err


def test_record_interrupted_before_a_frame_was_saved_is_no_success(tmp_path, monkeypatch, capsys):
    from vision.sources import GeneratedSource

    def interrupted(self):
        raise KeyboardInterrupt

    monkeypatch.setattr(GeneratedSource, "read", interrupted)
    assert main(["record", "--source", "generated", "--out", str(tmp_path / "rec"), "--frames", "3"]) == 1
    assert "interrupted before a frame was saved" in capsys.readouterr().err


def test_run_events_keeps_standard_output_for_json_lines_and_prints_them_as_replay_does(tmp_path, capsys):
    """A text start line came first on standard output; run printed compact JSON, replay spaced."""
    events = tmp_path / "e.jsonl"
    events.write_text("".join(json.dumps(e) + "\n" for e in [
        {"event": "bet", "seat": "Ä", "bet": "pass", "amount": 500}, {"event": "lock"},
        {"event": "read", "status": "ok", "dice": [3, 4], "confidence": 0.99, "frame": None}]))
    assert main(["run", "--events", str(events), "--exit-at-end", "--state-dir", str(tmp_path / "s")]) == 0
    out, err = capsys.readouterr()
    assert "replayed 0 inputs" in err and "replayed" not in out
    run_lines = out.splitlines()
    assert [json.loads(line)["event"] for line in run_lines] == ["rejected", "roll"]
    assert all(line == json.dumps(json.loads(line), separators=(",", ":")) for line in run_lines)  # compact, ASCII
    game = tmp_path / "game.jsonl"
    game.write_text(json.dumps({"event": "bet", "seat": "Ä", "bet": "pass", "amount": 500}) + "\n")
    assert main(["replay", "--game", "craps", str(game)]) == 0
    (replayed,) = capsys.readouterr().out.splitlines()
    assert replayed == json.dumps(json.loads(replayed), separators=(",", ":")) and "\\u00c4" in replayed
