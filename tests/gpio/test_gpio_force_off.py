"""The after-stop tool drives every output line low, from the configured pin map."""
from __future__ import annotations

from gpiozero import DigitalOutputDevice

from hardware.gpio.force_off import OUTPUTS, force_off
from hardware.gpio.pinmap import PinMap


def test_lines_left_high_by_a_killed_program_are_driven_low(factory, levels):
    pins = PinMap(cage_motor=20, light_no_more_bets=21)
    for name in OUTPUTS:
        # What a killed table program leaves behind: lines still driven high.
        DigitalOutputDevice(getattr(pins, name), initial_value=True, pin_factory=factory).close()
    handled = force_off(pins, pin_factory=factory)
    assert sorted(handled) == sorted(getattr(pins, name) for name in OUTPUTS)
    for name in OUTPUTS:
        assert levels(factory.pin(getattr(pins, name)))[-1] is False


def test_a_line_it_cannot_claim_does_not_stop_the_others(factory, levels, capsys):
    pins = PinMap()
    busy = DigitalOutputDevice(pins.light_bang_inside, initial_value=True, pin_factory=factory)
    motor = DigitalOutputDevice(pins.cage_motor, initial_value=True, pin_factory=factory)
    motor.close()
    handled = force_off(pins, pin_factory=factory)
    assert pins.light_bang_inside not in handled
    assert pins.cage_motor in handled
    assert levels(factory.pin(pins.cage_motor))[-1] is False
    assert "light_bang_inside" in capsys.readouterr().err
    busy.close()


def test_a_broken_file_names_each_bad_key_and_still_switches_the_default_lines_off(tmp_path, monkeypatch, capsys):
    import hardware.gpio.force_off as tool

    switched = []
    monkeypatch.setattr(tool, "force_off", lambda pins: switched.append(pins) or [0] * len(OUTPUTS))
    config = tmp_path / "table.toml"
    config.write_text("[pins]\ncage_motor = 4\nbutton_lock = 99\n")
    assert tool.main([str(config)]) == 0
    assert switched == [PinMap()]
    assert capsys.readouterr().err.splitlines() == [
        f"force_off: {config}: pins.button_lock: BCM 99 is not a usable GPIO of the 40-pin header (2..27)",
        f"force_off: {config}: pins.cage_motor: BCM 4 is pulled up while the Pi boots, which would spin the cage "
        "before the program starts; use one of BCM 9..27",
        "force_off: using the default pin map",
    ]


def test_a_file_that_is_not_utf8_still_switches_the_default_lines_off(tmp_path, monkeypatch, capsys):
    """A comment saved as Latin-1 must not keep the motor on after a stop."""
    import hardware.gpio.force_off as tool

    switched = []
    monkeypatch.setattr(tool, "force_off", lambda pins: switched.append(pins) or [0] * len(OUTPUTS))
    config = tmp_path / "table.toml"
    config.write_bytes("# \u00a7 4620.3\n[pins]\ncage_motor = 20\n".encode("latin-1"))
    assert tool.main([str(config)]) == 0
    assert switched == [PinMap()]
    assert "using the default pin map" in capsys.readouterr().err


def test_a_byte_order_mark_does_not_send_it_to_the_default_pins(tmp_path, monkeypatch):
    """The table reads such a file; force_off must switch off the same lines, not the default ones."""
    import hardware.gpio.force_off as tool

    switched = []
    monkeypatch.setattr(tool, "force_off", lambda pins: switched.append(pins) or [0] * len(OUTPUTS))
    config = tmp_path / "table.toml"
    config.write_bytes(b"\xef\xbb\xbf[pins]\ncage_motor = 20\n")
    assert tool.main([str(config)]) == 0
    assert switched == [PinMap(cage_motor=20)]
