"""The installer's wiring check runs on mock pins and names a bad configuration key."""
from __future__ import annotations

from hardware.gpio.wiring_check import main


def test_walks_lamps_motor_and_buttons_on_mock_pins(tmp_path, capsys):
    config = tmp_path / "table.toml"
    config.write_text("[pins]\ncage_motor = 16\n[gpio]\ncage_max_run_s = 0.1\n[camera]\nsource = 'x'\n")
    assert main([str(config), "--mock", "--lamp", "0", "--spin", "5", "--listen", "0"]) == 0
    out = capsys.readouterr().out
    assert "lamp no_more_bets on (BCM 22)" in out
    assert "lamp bang_outside on (BCM 24)" in out
    assert "cage motor on (BCM 16)" in out
    assert "cage motor stopped: max_run" in out


def test_a_bad_key_is_named_and_nothing_is_driven(tmp_path, capsys):
    config = tmp_path / "table.toml"
    config.write_text("[pins]\nbutton_lock = 99\n")
    assert main([str(config), "--mock"]) == 2
    assert "pins.button_lock" in capsys.readouterr().err


def test_a_missing_file_is_reported(tmp_path, capsys):
    assert main([str(tmp_path / "nope.toml"), "--mock"]) == 2
    assert "nope.toml" in capsys.readouterr().err


def test_killed_during_its_spin_it_switches_the_outputs_off_and_ends(tmp_path):
    """Run as the installer runs it; SIGTERM must go through safe_exit (status 143), not kill it outright."""
    import signal
    import subprocess
    import sys
    import time
    from pathlib import Path

    config = tmp_path / "table.toml"
    config.write_text("[gpio]\ncage_max_run_s = 60\n")
    root = Path(__file__).resolve().parents[2]
    process = subprocess.Popen(
        [sys.executable, "-m", "hardware.gpio.wiring_check", str(config), "--mock", "--lamp", "0", "--spin", "30"],
        cwd=root, stdout=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 20
        line = ""
        while "cage motor on" not in line and time.monotonic() < deadline:
            line = process.stdout.readline()
        assert "cage motor on" in line
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=10) == 128 + signal.SIGTERM
    finally:
        process.kill()
        process.wait()


def test_every_bad_key_is_named_on_its_own_line(tmp_path, capsys):
    config = tmp_path / "table.toml"
    config.write_text("[pins]\nbutton_lock = 99\nbutton_void = 1\n[gpio]\ndebounce_s = 2\n")
    assert main([str(config), "--mock"]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert [line.split(": ")[1] for line in lines] == ["pins.button_lock", "pins.button_void", "gpio.debounce_s"]
    assert all(line.startswith(f"{config}: ") for line in lines)


def test_a_byte_order_mark_is_read_as_the_table_reads_it(tmp_path, capsys):
    config = tmp_path / "table.toml"
    config.write_bytes(b"\xef\xbb\xbf[pins]\nbutton_lock = 99\n")
    assert main([str(config), "--mock"]) == 2
    assert "pins.button_lock" in capsys.readouterr().err  # the key is read, not a syntax error at line 1


def test_a_file_that_is_not_utf8_is_reported(tmp_path, capsys):
    config = tmp_path / "table.toml"
    config.write_bytes("# \u00a7 4620.3\n".encode("latin-1"))
    assert main([str(config), "--mock"]) == 2
    assert "utf-8" in capsys.readouterr().err


def test_no_gpio_pins_here_is_said_with_what_to_do(monkeypatch, capsys):
    """On a laptop without --mock, or with the table service still holding the lines: no traceback."""
    import hardware.gpio.wiring_check as tool
    from gpiozero.exc import BadPinFactory

    def no_pins(*args, **kwargs):
        raise BadPinFactory("Unable to load any default pin factory!")
    monkeypatch.setattr(tool, "build_devices", no_pins)
    assert main([]) == 2
    err = capsys.readouterr().err
    assert "cannot use the GPIO pins" in err and "--mock" in err
