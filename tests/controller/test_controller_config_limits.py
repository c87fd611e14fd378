"""A configuration nested too deeply, or naming a state folder the system will not take, is a clear
error in every command that reads it (`run --check`, `run`, `journal ...`, `replay --config`), never
a traceback."""
from __future__ import annotations

import pytest

from controller.cli import main

DEEP = "a = " + "[" * 50_000 + "]" * 50_000 + "\n"
LONG_PART = "x" * 300  # a file name may have 255 bytes


def _write(tmp_path, text: str) -> str:
    config = tmp_path / "t.toml"
    config.write_text(text)
    return str(config)


COMMANDS = {
    "run --check": lambda c: ["run", "--config", c, "--check"],
    "run": lambda c: ["run", "--config", c, "--events", "EVENTS", "--exit-at-end"],
    "journal verify": lambda c: ["journal", "--config", c, "verify"],
    "journal audit": lambda c: ["journal", "--config", c, "audit"],
    "journal export": lambda c: ["journal", "--config", c, "export"],
    "journal recall": lambda c: ["journal", "--config", c, "recall", "3"],
    "journal frames": lambda c: ["journal", "--config", c, "frames"],
    "journal archive": lambda c: ["journal", "--config", c, "archive", "--to", "shelf"],
}

CASES = {
    "deeply-nested": (DEEP, "(syntax): arrays or tables nested too deeply to read"),
    "state-dir-part-too-long": (f'[table]\nstate_dir = "{LONG_PART}"\n', "File name too long"),
    "state-dir-under-a-file": ('[table]\nstate_dir = "t.toml/state"\n', "Not a directory"),
}


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_reading_the_configuration_says_what_is_wrong(tmp_path, monkeypatch, capsys, case, command):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "EVENTS").write_text("")
    text, says = CASES[case]
    config = _write(tmp_path, text + '[camera]\nsource = "none"\n[display]\nport = "none"\n')
    assert main(COMMANDS[command](config)) == 2
    out, err = capsys.readouterr()
    assert says in err and "Traceback" not in err and out == ""


@pytest.mark.parametrize("case", ["deeply-nested"])
def test_replay_config_says_what_is_wrong(tmp_path, capsys, case):
    config = _write(tmp_path, CASES[case][0])
    (tmp_path / "e.jsonl").write_text("")
    assert main(["replay", "--game", "craps", "--config", config, str(tmp_path / "e.jsonl")]) == 2
    assert CASES[case][1] in capsys.readouterr().err


@pytest.mark.parametrize("argv", [
    ["run", "--state-dir", LONG_PART, "--events", "EVENTS", "--exit-at-end"],
    ["run", "--state-dir", LONG_PART, "--rolls", "1"],
    ["journal", "--state-dir", LONG_PART, "verify"],
    ["journal", "--state-dir", LONG_PART, "archive", "--to", "shelf"],
    ["journal", "--file", f"{LONG_PART}/journal.sqlite3", "recall", "1"],
])
def test_a_state_folder_given_on_the_command_line_that_the_system_refuses_is_named(tmp_path, monkeypatch, capsys,
                                                                                  argv):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "EVENTS").write_text("")
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "File name too long" in err and "Traceback" not in err


def test_a_calibration_file_nested_too_deeply_is_a_configuration_error(tmp_path, capsys):
    (tmp_path / "calibration.toml").write_text("[calibration]\n" + DEEP)
    config = _write(tmp_path, '[calibration]\nfile = "calibration.toml"\n')
    assert main(["run", "--config", config, "--check"]) == 2
    assert "nested too deeply" in capsys.readouterr().err


def test_a_pin_map_nested_too_deeply_is_refused_by_the_wiring_check(tmp_path):
    from hardware.gpio.pinmap import read_tables
    from messages import ConfigError

    (tmp_path / "pins.toml").write_text(DEEP)
    with pytest.raises(ConfigError, match="nested too deeply"):
        read_tables(tmp_path / "pins.toml")


@pytest.mark.parametrize("key", ["calibration.file", "camera.path"])
def test_other_paths_of_the_configuration_that_the_system_refuses_are_named(tmp_path, capsys, key):
    section, name = key.split(".")
    extra = '\nsource = "folder"' if section == "camera" else ""
    config = _write(tmp_path, f'[{section}]\n{name} = "{LONG_PART}"{extra}\n')
    for argv in (["run", "--config", config, "--check"], ["run", "--config", config]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert f"{key}: " in err and "File name too long" in err and "Traceback" not in err


def test_a_display_port_the_system_refuses_is_a_warning_of_check(tmp_path, capsys):
    config = _write(tmp_path, f'[camera]\nsource = "none"\n[display]\nport = "/dev/{LONG_PART}"\n')
    assert main(["run", "--config", config, "--check"]) == 0
    assert "warning: display.port:" in capsys.readouterr().out
