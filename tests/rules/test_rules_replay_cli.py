"""`dicetable replay` through controller.cli.main: JSON lines in, effect lines out."""
from __future__ import annotations

import io
import json

from controller.cli import main

SESSION = [
    '{"event": "bet", "seat": "A", "bet": "pass", "amount": 500}',
    '{"event": "bet", "seat": "B", "bet": "come", "amount": 500}',  # refused: no point yet
    "not json at all",
    '{"event": "roll", "dice": [2, 2]}',
    '{"event": "bet", "seat": "A", "bet": "odds", "number": 4, "amount": 500}',
    '{"event": "bet", "seat": "B", "bet": "hard", "number": 6, "amount": 500}',
    '{"event": "bet", "seat": "C", "bet": "place", "number": 6, "amount": 600}',
    '{"event": "remove", "seat": "C", "bet": "place", "number": 6}',
    "",
    '{"event": "roll", "dice": [3, 3]}',
    '{"event": "roll", "dice": [1, 3], "confidence": 0.99}',
]


def test_replay_of_a_file(tmp_path, capsys):
    path = tmp_path / "session.jsonl"
    path.write_text("\n".join(SESSION) + "\n", encoding="utf-8")
    assert main(["replay", "--game", "craps", str(path)]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert lines == [
        {"event": "rejected", "refused": "bet", "seat": "B", "bet": "come", "amount": 500,
         "reason": "come bets are made only once a point is established", "rule": "§4620.3(e)(5)(i)"},
        {"event": "rejected", "line": "not json at all", "reason": lines[1]["reason"], "rule": None},
        {"event": "returned", "seat": "C", "bet": "place", "number": 6, "amount": 600},
        {"event": "settle", "seat": "B", "bet": "hard", "number": 6, "amount": 500, "result": "win", "paid": 5000},
        {"event": "settle", "seat": "A", "bet": "pass", "number": None, "amount": 500, "result": "win", "paid": 1000},
        {"event": "settle", "seat": "A", "bet": "odds", "number": 4, "amount": 500, "result": "win", "paid": 1500},
    ]
    assert lines[1]["reason"].startswith("not JSON")


def test_replay_of_stdin(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO(
        '{"event": "bet", "seat": "A", "bet": "raffle", "number": 2, "amount": 200}\n'
        '{"event": "bet", "seat": "A", "bet": "raffle", "number": 2, "amount": 150}\n'
        '[1, 2]\n'
        '{"event": "roll", "dice": [2, 2, 2]}\n'))
    assert main(["replay", "--game", "hazard", "-"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(x["event"], x["rule"]) for x in lines[:2]] == [("rejected", "§4620.12(c)(1)"), ("rejected", None)]
    assert lines[2] == {"event": "settle", "seat": "A", "bet": "raffle", "number": 2, "amount": 150,
                        "result": "win", "paid": 27150}


def test_replay_of_a_missing_file(tmp_path, capsys):
    assert main(["replay", "--game", "bang", str(tmp_path / "nope.jsonl")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_replay_with_the_tables_configuration(tmp_path, capsys):
    config = tmp_path / "table.toml"
    config.write_text("[rules]\nfield_2_12_pays_2_to_1 = true\n[rules.limits]\ndefault = 1000\n", encoding="utf-8")
    events = tmp_path / "events.jsonl"
    events.write_text('{"event": "bet", "seat": "A", "bet": "field", "amount": 1000}\n'
                      '{"event": "roll", "dice": [6, 6]}\n', encoding="utf-8")
    assert main(["replay", "--game", "craps", "--config", str(config), str(events)]) == 0
    assert json.loads(capsys.readouterr().out)["paid"] == 3000  # 2 to 1 on the 12
    assert main(["replay", "--game", "craps", str(events)]) == 0  # defaults: $10 is over the limit
    assert json.loads(capsys.readouterr().out)["rule"] == "§4620.3(e)(6)"


def test_replay_with_a_bad_configuration(tmp_path, capsys):
    config = tmp_path / "table.toml"
    config.write_text("[rules.limits]\nplace = { 7 = 500 }\n", encoding="utf-8")
    assert main(["replay", "--game", "craps", "--config", str(config), "-"]) == 2
    assert "rules.limits.place.7" in capsys.readouterr().err


def test_replay_reads_only_the_rules_of_the_configuration_and_skips_comments(tmp_path, capsys):
    """An auditor can recompute settlements while the rest of the file is being mended (a misspelt
    camera key, a calibration not made yet); replay skips `#` lines, as `run --events` does."""
    config = tmp_path / "table.toml"
    config.write_text('[rules]\nfield_2_12_pays_2_to_1 = true\n[camera]\nexposure = 4\n'
                      '[calibration]\nfile = "not-made-yet.toml"\n', encoding="utf-8")
    events = tmp_path / "events.jsonl"
    events.write_text('# a comment\n{"event": "bet", "seat": "A", "bet": "field", "amount": 500}\n'
                      '{"event": "roll", "dice": [6, 6]}\n', encoding="utf-8")
    assert main(["replay", "--game", "craps", "--config", str(config), str(events)]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    assert json.loads(line)["paid"] == 1500
