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
    (["--events", "."], "--events .: is a directory"),
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


def test_events_from_a_named_pipe_or_a_device_are_read(tmp_path, monkeypatch, capsys):
    """A stream that is not a regular file (a FIFO, /dev/null, a shell's <(...)) is not \"no such file\"."""
    import os
    import threading

    monkeypatch.chdir(tmp_path)
    os.mkfifo("fifo")
    writer = threading.Thread(target=lambda: open("fifo", "w").write('{"event": "void"}\n'))
    writer.start()
    assert main(["run", "--events", "fifo", "--exit-at-end", "--state-dir", "a"]) == 0
    writer.join()
    assert main(["run", "--events", os.devnull, "--exit-at-end", "--state-dir", "b"]) == 0
    assert (tmp_path / "a" / "journal.sqlite3").is_file() and (tmp_path / "b" / "journal.sqlite3").is_file()


def test_a_configured_lgpio_factory_without_lgpio_stops_with_what_to_install(tmp_path, monkeypatch, capsys):
    """Exit 2, which systemd does not restart: a venv without the Pi's lgpio needs installing, not retrying."""
    import sys

    monkeypatch.setitem(sys.modules, "gpiozero.pins.lgpio", None)  # as on a machine without lgpio
    config = tmp_path / "pi.toml"
    config.write_text(f'[table]\nstate_dir = "{tmp_path / "state"}"\npin_factory = "lgpio"\n'
                      '[camera]\nsource = "none"\n[display]\nport = "none"\n')
    (tmp_path / "e.jsonl").write_text("")
    assert main(["run", "--config", str(config), "--events", str(tmp_path / "e.jsonl"), "--exit-at-end"]) == 2
    err = capsys.readouterr().err
    assert 'pin_factory = "lgpio"' in err and "python3-lgpio" in err and "Traceback" not in err


def test_demo_bets_from_standard_input_reach_every_game(tmp_path, monkeypatch, capsys):
    """Standard input can be read once, and a hazard bet given after the craps game's turn still
    reaches the hazard table."""
    import io
    import sys

    monkeypatch.chdir(tmp_path)
    line = '{"event": "bet", "seat": "A", "bet": "raffle", "number": 3, "amount": 100, "game": "hazard"}\n'
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(line.encode())))
    assert main(["run", "--rolls", "1", "--bets", "-"]) == 0
    assert "A raffle 3 $1.00" in capsys.readouterr().out


def test_a_demo_bet_for_a_game_that_is_not_one_is_refused_by_its_line(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    bet = '{"event": "bet", "seat": "A", "bet": "pass", "amount": 500, "game": "Craps"}'
    (tmp_path / "b.jsonl").write_text(f"\n{bet}\n")
    assert main(["run", "--rolls", "1", "--bets", "b.jsonl"]) == 2
    assert "--bets line 2: \"game\" must be one of craps, hazard, bang, got 'Craps'" in capsys.readouterr().err
    assert not (tmp_path / "var").exists()


def test_a_journal_of_other_rules_stops_the_table_for_good(tmp_path, capsys):
    """A journal of other rules stops the table with an exit status systemd does not restart:
    restarting cannot mend it; the journal wants archiving or the file mending (docs/operation.md)."""
    events = tmp_path / "e.jsonl"
    events.write_text("")
    config = tmp_path / "t.toml"
    head = f'[table]\nstate_dir = "{tmp_path / "state"}"\n[camera]\nsource = "none"\n[display]\nport = "none"\n'
    config.write_text(head)
    assert main(["run", "--config", str(config), "--events", str(events), "--exit-at-end"]) == 0
    config.write_text(head + "[rules]\nmin_bet = 200\n")
    assert main(["run", "--config", str(config), "--events", str(events), "--exit-at-end"]) == 2
    assert "other rules" in capsys.readouterr().err


def _table_file(tmp_path, extra: str = "") -> str:
    config = tmp_path / "t.toml"
    config.write_text(f'[table]\nstate_dir = "{tmp_path / "state"}"\n[camera]\nsource = "none"\n'
                      f'[display]\nport = "none"\n{extra}')
    return str(config)


@pytest.mark.parametrize("game, source, warned", [
    ("craps", "opencv", True), ("bang", "picamera2", True), ("hazard", "opencv", False),  # the cage has no felt to learn
    ("craps", "none", False), ("craps", "scenes", False),
])
def test_check_warns_of_a_rail_camera_with_no_picture_of_the_empty_table(tmp_path, capsys, monkeypatch, game, source,
                                                                          warned):
    import importlib.machinery
    import sys
    import types

    installed = types.ModuleType("picamera2")  # --check asks only whether it is installed
    installed.__spec__ = importlib.machinery.ModuleSpec("picamera2", None)
    monkeypatch.setitem(sys.modules, "picamera2", installed)
    config = tmp_path / "t.toml"
    config.write_text(f'[table]\ngame = "{game}"\nstate_dir = "{tmp_path / "state"}"\n[camera]\nsource = "{source}"\n'
                      '[display]\nport = "none"\n')
    assert main(["run", "--config", str(config), "--check"]) == 0
    assert ("warning: no picture of the empty table (run `dicetable calibrate`)" in capsys.readouterr().out) is warned


def test_check_and_the_start_name_maxima_above_the_regulation(tmp_path, capsys, caplog):
    config = _table_file(tmp_path, "[rules.limits]\ndefault = 100000\n")
    assert main(["run", "--config", config, "--check"]) == 0
    assert "warning: rules.limits.default: 100000 cents, above the regulation's" in capsys.readouterr().out
    (tmp_path / "e.jsonl").write_text("")
    assert main(["run", "--config", config, "--events", str(tmp_path / "e.jsonl"), "--exit-at-end"]) == 0
    assert "rules.limits.default: 100000 cents" in caplog.text


def test_check_says_whether_the_table_would_come_up_without_starting_it(tmp_path, capsys):
    """An operator edits the file beside the running table: --check tells whether the restart
    will come up, writing nothing and opening no device."""
    config = _table_file(tmp_path)
    assert main(["run", "--config", config, "--check"]) == 0
    assert "configuration ok, craps table" in capsys.readouterr().out
    assert not (tmp_path / "state").exists()  # nothing written, not even the journal's folder

    (tmp_path / "e.jsonl").write_text('{"event": "bet", "seat": "A", "bet": "pass", "amount": 500}\n')
    assert main(["run", "--config", config, "--events", str(tmp_path / "e.jsonl"), "--exit-at-end"]) == 0
    capsys.readouterr()
    rows = (tmp_path / "state" / "journal.sqlite3").stat().st_size
    assert main(["run", "--config", config, "--check"]) == 0
    assert "2 rows, chain intact, a craps table under these rules" in capsys.readouterr().out
    assert (tmp_path / "state" / "journal.sqlite3").stat().st_size == rows

    _table_file(tmp_path, "[rules]\nmin_bet = 200\n")
    assert main(["run", "--config", config, "--check"]) == 2
    assert "started under other rules (limits or layout options: min_bet)" in capsys.readouterr().err
    _table_file(tmp_path, "colour = 3\n")  # a key [display] does not have
    assert main(["run", "--config", config, "--check"]) == 2
    assert "display.colour: unknown key" in capsys.readouterr().err


def test_check_refuses_a_state_dir_this_user_cannot_write(tmp_path, monkeypatch, capsys):
    import os

    config = _table_file(tmp_path)
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda path, mode: False if str(path) == str(tmp_path) else real_access(path, mode))
    assert main(["run", "--config", config, "--check"]) == 2
    assert f"{tmp_path} is not writable by this user" in capsys.readouterr().err


@pytest.mark.parametrize("argv, message", [
    (["--check"], "--check: only with --config FILE"),
    (["--config", "t.toml", "--check", "--events", "e.jsonl"], "--check: only with --config FILE, and alone"),
    (["--resume"], "--resume: only with --events"),
    (["--config", "t.toml", "--resume"], "--resume: only with --events"),
])
def test_check_and_resume_where_they_would_do_nothing_are_refused(argv, message, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "e.jsonl").write_text("")
    (tmp_path / "t.toml").write_text("")
    assert main(["run", *argv]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "var").exists()


@pytest.mark.parametrize("signum, status", [(15, 143), (2, 130)])
def test_a_table_reading_standard_input_stops_on_a_signal_with_its_status(tmp_path, signum, status):
    """The thread waiting on stdin held sys.stdin's lock, and the interpreter's exit aborted on it
    (SIGABRT, "Fatal Python error: _enter_buffered_busy") instead of ending with 128 + the signal."""
    import signal
    import subprocess
    import sys
    import time

    config = tmp_path / "t.toml"
    config.write_text('[table]\nstate_dir = "state"\n[camera]\nsource = "none"\n[display]\nport = "none"\n')
    process = subprocess.Popen([sys.executable, "-m", "controller.cli", "run", "--config", str(config), "--events", "-"],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        assert process.stderr is not None and "replayed" in process.stderr.readline().decode()  # reading stdin now
        time.sleep(0.3)
        process.send_signal(signum)
        assert process.wait(timeout=20) == status
    finally:
        process.kill()
    assert "Fatal Python error" not in process.stderr.read().decode()


@pytest.mark.parametrize("extra, words", [
    ('[camera]\nsource = "picamera2"\n', "python3-picamera2"),  # a camera module no restart brings
    ("STATE_FILE", "is a file, not a folder"),
])
def test_check_and_run_refuse_alike_what_no_restart_mends(tmp_path, capsys, monkeypatch, extra, words):
    """--check said "configuration ok" where run then failed: a missing Picamera2 made a table
    that systemd restarted every watchdog period, a state_dir that is a file exit 3."""
    import sys

    monkeypatch.setitem(sys.modules, "picamera2", None)  # as off the Pi (find_spec then says so too)
    if extra == "STATE_FILE":
        (tmp_path / "state").write_text("")
        extra = ""
    config = tmp_path / "t.toml"
    config.write_text(f'[table]\nstate_dir = "{tmp_path / "state"}"\n[display]\nport = "none"\n'
                      + (extra or '[camera]\nsource = "none"\n'))
    (tmp_path / "e.jsonl").write_text("")
    assert main(["run", "--config", str(config), "--check"]) == 2
    assert words in capsys.readouterr().err
    assert main(["run", "--config", str(config), "--events", str(tmp_path / "e.jsonl"), "--exit-at-end"]) == 2
    assert words in capsys.readouterr().err


def test_check_warns_of_a_display_port_that_is_not_there(tmp_path, capsys):
    config = _table_file(tmp_path)
    text = (tmp_path / "t.toml").read_text().replace('port = "none"', 'port = "/dev/ttyNOSUCH0"')
    (tmp_path / "t.toml").write_text(text)
    assert main(["run", "--config", config, "--check"]) == 0
    assert "warning: display.port: /dev/ttyNOSUCH0 is not there now" in capsys.readouterr().out


def test_check_agrees_with_the_start_on_odd_journal_files(tmp_path, capsys):
    """--check says what the start does: a zero-byte journal.sqlite3 starts a new journal, and rows
    left in a -wal whose file was moved make the start refuse."""
    config = _table_file(tmp_path)
    (tmp_path / "state").mkdir()
    (tmp_path / "state" / "journal.sqlite3").write_bytes(b"")
    assert main(["run", "--config", config, "--check"]) == 0
    assert "an empty journal file: the table starts one" in capsys.readouterr().out
    (tmp_path / "state" / "journal.sqlite3").unlink()
    (tmp_path / "state" / "journal.sqlite3-wal").write_bytes(b"rows of a journal whose file was moved")
    assert main(["run", "--config", config, "--check"]) == 2
    assert "holds rows of one whose file was moved" in capsys.readouterr().err


def test_the_journal_commands_read_only_the_state_dir_of_a_file_being_mended(tmp_path, capsys):
    config = _table_file(tmp_path)
    (tmp_path / "e.jsonl").write_text('{"event": "bet", "seat": "A", "bet": "pass", "amount": 500}\n')
    assert main(["run", "--config", config, "--events", str(tmp_path / "e.jsonl"), "--exit-at-end"]) == 0
    capsys.readouterr()
    _table_file(tmp_path, '[hazard]\nspin_secnds = 3\n[calibration]\nfile = "not-made-yet.toml"\n')
    assert main(["journal", "--config", config, "verify"]) == 0
    assert '"rows":2' in capsys.readouterr().out


def test_check_on_a_state_folder_this_user_may_not_enter_says_so(tmp_path, capsys, monkeypatch):
    from pathlib import Path

    config = _table_file(tmp_path)
    real_exists = Path.exists

    def refused(self):
        if self.name == "journal.sqlite3":
            raise PermissionError(13, "Permission denied")
        return real_exists(self)

    monkeypatch.setattr(Path, "exists", refused)
    assert main(["run", "--config", config, "--check"]) == 2
    err = capsys.readouterr().err
    assert "cannot read the journal" in err and "Permission denied" in err and "Traceback" not in err
