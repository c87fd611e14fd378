"""`dicetable run`: options that would do nothing are refused, and --state-dir is honoured where it applies."""
from __future__ import annotations

import pytest

from controller.cli import main


def test_events_without_a_configuration_journal_in_the_state_dir_given(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "e.jsonl").write_text("")
    assert main(["run", "--events", "e.jsonl", "--exit-at-end", "--state-dir", "sd"]) == 0
    assert (tmp_path / "sd" / "journal.sqlite3").is_file()
    assert not (tmp_path / "var").exists()


@pytest.mark.parametrize("argv, message", [
    (["--events", "e.jsonl", "--rolls", "3"], "--rolls: only for the demo"),
    (["--events", "e.jsonl", "--seed", "3", "--bets", "e.jsonl"], "--seed, --bets: only for the demo"),
    (["--config", "t.toml", "--rolls", "3"], "--rolls: only for the demo"),
    (["--config", "t.toml", "--state-dir", "sd"], "--state-dir and --config"),
    (["--events", "missing.jsonl"], "--events missing.jsonl: no such file"),
    (["--bets", "missing.jsonl"], "--bets missing.jsonl: no such file"),
])
def test_options_that_would_do_nothing_or_files_that_are_not_there_are_refused(argv, message, tmp_path,
                                                                                monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "e.jsonl").write_text("")
    (tmp_path / "t.toml").write_text("")
    assert main(["run", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert not (tmp_path / "var").exists() and not (tmp_path / "sd").exists()


@pytest.mark.parametrize("rolls", ["0", "-1"])
def test_the_demo_refuses_a_roll_count_under_one(rolls, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as done:
        main(["run", "--rolls", rolls])
    assert done.value.code == 2
    assert "must be at least 1" in capsys.readouterr().err
