"""The mark of the last committed row (journal.committed): a journal that lost rows off its end is
refused by `journal verify`, `journal audit`, `run` and `run --check`, never replayed as a whole one."""
from __future__ import annotations

import json
import logging
import shutil

import pytest

from controller.cli import main
from controller.journal import Journal, JournalError, verify
from controller.journal.mark import Mark, mark_path, read_mark

PASS = '{"event": "bet", "seat": "A", "bet": "pass", "amount": 500}\n'
ROLL = '{"event": "lock"}\n{"event": "read", "status": "ok", "dice": [3, 4], "confidence": 0.99, "frame": null}\n'


def _table(tmp_path) -> str:
    config = tmp_path / "t.toml"
    config.write_text(f'[table]\nstate_dir = "{tmp_path / "state"}"\n[camera]\nsource = "none"\n'
                      '[display]\nport = "none"\n')
    return str(config)


def _play(tmp_path, config: str, lines: str) -> None:
    (tmp_path / "e.jsonl").write_text(lines)
    assert main(["run", "--config", config, "--events", str(tmp_path / "e.jsonl"), "--exit-at-end"]) == 0


def test_a_journal_that_lost_its_last_rows_is_refused_everywhere(tmp_path, capsys):
    config, state = _table(tmp_path), tmp_path / "state"
    _play(tmp_path, config, PASS)
    shutil.copyfile(state / "journal.sqlite3", tmp_path / "older.sqlite3")
    _play(tmp_path, config, ROLL)  # the pass bet won: $10.00 paid
    capsys.readouterr()
    with Journal.open(state, readonly=True) as journal:
        rows = len(journal)
    shutil.copyfile(tmp_path / "older.sqlite3", state / "journal.sqlite3")  # an older copy put back

    assert main(["journal", "--state-dir", str(state), "verify"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is False and report["broken_seq"] == report["rows"] + 1 < rows
    assert f"journal.committed says row {rows} was committed" in report["reason"]
    assert main(["journal", "--state-dir", str(state), "audit"]) == 1
    audited = json.loads(capsys.readouterr().out)
    assert audited["ok"] is False and "rows were cut off its end" in audited["reason"]
    assert main(["run", "--config", config, "--check"]) == 2
    assert "rows were cut off its end" in capsys.readouterr().err
    (tmp_path / "e.jsonl").write_text("")
    assert main(["run", "--config", config, "--events", str(tmp_path / "e.jsonl"), "--exit-at-end"]) == 2
    assert "rows were cut off its end" in capsys.readouterr().err
    assert read_mark(state / "journal.sqlite3") == Mark(rows, read_mark(state / "journal.sqlite3").hash)


def test_another_journal_in_its_place_is_refused(tmp_path, capsys):
    config, state = _table(tmp_path), tmp_path / "state"
    _play(tmp_path, config, PASS + PASS)
    (state / "journal.sqlite3").unlink()
    with Journal.open(tmp_path / "other") as other:  # as many rows, other hashes
        for _ in range(read_mark(state / "journal.sqlite3").seq):
            other.append({"event": "void"})
    shutil.copyfile(tmp_path / "other" / "journal.sqlite3", state / "journal.sqlite3")
    with Journal.open(state, readonly=True) as journal:
        report = verify(journal)
    assert not report.ok and "this is another journal, or an older copy put back" in report.reason


def test_a_journal_moved_away_leaves_a_mark_that_keeps_a_new_one_from_starting(tmp_path):
    with Journal.open(tmp_path) as journal:
        journal.append_many([{"event": "lock"}, {"event": "void"}])
    (tmp_path / "journal.sqlite3").rename(tmp_path / "moved.sqlite3")
    with pytest.raises(JournalError, match="journal.committed beside it says a table committed 2 rows here"):
        Journal.open(tmp_path)
    assert not (tmp_path / "journal.sqlite3").exists()
    (tmp_path / "moved.sqlite3").rename(tmp_path / "journal.sqlite3")
    with Journal.open(tmp_path) as journal:
        assert verify(journal).ok and len(journal) == 2


def test_a_mark_that_cannot_be_read_is_logged_and_written_again(tmp_path, caplog):
    with Journal.open(tmp_path) as journal:
        journal.append({"event": "lock"})
    mark_path(tmp_path / "journal.sqlite3").write_bytes(b"\x00" * 40)  # a power cut mid-write
    with caplog.at_level(logging.WARNING), Journal.open(tmp_path, readonly=True) as journal:
        assert verify(journal).ok
    assert "is not a mark this program wrote" in caplog.text
    with Journal.open(tmp_path) as journal:
        journal.append({"event": "void"})
    assert read_mark(tmp_path / "journal.sqlite3").seq == 2


def test_a_writer_that_appends_to_a_journal_cut_short_never_lowers_the_mark(tmp_path):
    with Journal.open(tmp_path) as journal:
        journal.append({"event": "lock"})
        shutil.copyfile(tmp_path / "journal.sqlite3", tmp_path / "older.sqlite3")
        journal.append_many([{"event": "void"}] * 4)
    shutil.copyfile(tmp_path / "older.sqlite3", tmp_path / "journal.sqlite3")
    with Journal.open(tmp_path) as journal:
        journal.append({"event": "lock"})  # a program that does not verify first
        assert not verify(journal).ok
    assert read_mark(tmp_path / "journal.sqlite3").seq == 5


def test_a_journal_from_before_marks_is_marked_at_its_first_start(tmp_path):
    with Journal.open(tmp_path) as journal:
        journal.append_many([{"event": "lock"}, {"event": "void"}])
    mark_path(tmp_path / "journal.sqlite3").unlink()
    with Journal.open(tmp_path, readonly=True) as journal:
        assert verify(journal).ok  # nothing to check against: no verdict
    Journal.open(tmp_path).close()
    assert read_mark(tmp_path / "journal.sqlite3").seq == 2
