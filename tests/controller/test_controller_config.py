"""Configuration: defaults, the shipped example, and errors that name the key and the file."""
from __future__ import annotations

from pathlib import Path

import pytest

from controller.config import DEFAULTS, DEMO_SOURCE, ConfigError, load

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "example.toml"


def _write(tmp_path, text):
    path = tmp_path / "table.toml"
    path.write_text(text)
    return path


def test_no_file_gives_embedded_defaults():
    config = load(None)
    assert config.source == DEMO_SOURCE and config.game == "craps"
    assert config.camera.source == "generated" and config.display.kind == "sim"
    assert config.pin_factory == "mock" and str(config.state_dir) == "var"
    assert config.rules.max_bet == 500 and config.pins.cage_motor == 17 and config.gpio.long_press_s == 1.5


def test_shipped_example_is_valid():
    config = load(EXAMPLE)
    assert config.source == str(EXAMPLE) and config.game in ("craps", "hazard", "bang")


def test_example_documents_every_default_key():
    text = EXAMPLE.read_text()
    assert "# file = " in text
    for section, table in DEFAULTS.items():
        assert f"[{section}]" in text
        for key in table:
            assert f"{key} =" in text or f"# {key} =" in text, f"{section}.{key} missing from example"


def test_example_spells_out_the_delegated_defaults():
    """The example's [rules], [pins] and [gpio] equal the owners' defaults, so it is true to the code."""
    from controller.rules import TableConfig
    from hardware.gpio.pinmap import GpioSettings, PinMap

    config = load(EXAMPLE)
    assert config.rules == TableConfig() and config.pins == PinMap() and config.gpio == GpioSettings()


def test_relative_state_dir_is_relative_to_the_file(tmp_path):
    config = load(_write(tmp_path, '[table]\ngame = "hazard"\nstate_dir = "state"\n'))
    assert config.state_dir == tmp_path / "state" and config.game == "hazard"


@pytest.mark.parametrize(
    "text, key, words",
    [
        ('[table]\ngame = "roulette"\n', "table.game", "one of craps, hazard, bang"),
        ("[camera]\nfps = -3\n", "camera.fps", "positive whole number"),
        ("[camera]\nfps = true\n", "camera.fps", "positive whole number"),
        ('[camera]\nsource = "folder"\n', "camera.path", "folder of images"),
        ('[camera]\nsource = "folder"\npath = "recorded"\n', "camera.path", "no such folder"),
        ('[camera]\nsource = "opencv"\npath = "table.mp4"\n', "camera.path", "no such video file"),
        ("[camera]\nexposure = 4\n", "camera.exposure", "unknown key"),
        ("[pins]\nbutton_lock = 40\n", "pins.button_lock", "not a usable GPIO"),
        ("[pins]\nlock_button = 5\n", "pins.lock_button", "unknown key"),
        ("[gpio]\nlong_press_s = 0\n", "gpio.long_press_s", "outside"),
        ('[table]\npin_factory = "rpigpio"\n', "table.pin_factory", "one of mock, lgpio"),
        # a real table's file that forgot [camera] would settle real bets on generated dice
        ('[table]\npin_factory = "lgpio"\n', "camera.source", "made-up dice"),
        ("[rules]\nmin_bet = 1000\n", "rules.min_bet", "every bet would be refused"),
        ('[table]\ngame = "hazard"\n[hazard]\nspin_seconds = 0.0001\n', "hazard.spin_seconds", "too short to tumble"),
        ("[hazard]\nspin_seconds = inf\n", "hazard.spin_seconds", "number > 0"),
        ('[table]\ngame = "hazard"\n[hazard]\nspin_seconds = 30\n', "hazard.spin_seconds",
         "longer than gpio.cage_max_run_s (10 s)"),
        ("[rules.limits]\ndefault = 12.5\n", "rules.limits.default", "cents"),
        ("[rules]\nseats = []\n", "rules.seats", "non-empty list"),
        ("[rules]\nfield_pays_triple = true\n", "rules.field_pays_triple", "unknown setting"),
        ('[display]\nport = ""\n', "display.port", "non-empty"),
        ('[display]\nkind = "hdmi"\n', "display.kind", "must be one of serial, sim, none (got 'hdmi')"),
        ('[display]\nkind = "serial"\n', "display.port", "must be a non-empty string (got '')"),
        ('[display]\nkind = "serial"\nport = "sim"\n', "display.port",
         "names a display kind, not a port: give kind = 'sim'"),
        ("[dealer]\nname = 1\n", "dealer", "unknown section"),
        ("hazard = 3\n", "hazard", "must be a table"),
        ('[calibration]\nfile = "nope.toml"\n', "calibration.file", "no such file"),
        ("[calibration]\ndie_size_px = -4\n", "calibration.die_size_px", "positive number"),
        ("[calibration]\ndie_size = 40\n", "calibration.die_size", "unknown key"),
        ('[calibration]\nlanding_mask = "mask.png"\n', "calibration.landing_mask", "cannot read"),
    ],
)
def test_errors_name_key_and_file(tmp_path, text, key, words):
    path = _write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        load(path)
    message = str(info.value)
    assert f"{path}: {key}: " in message and words in message


def test_all_errors_are_reported_at_once(tmp_path):
    with pytest.raises(ConfigError) as info:
        load(_write(tmp_path, '[table]\ngame = "x"\n[camera]\nfps = 0\n'))
    assert [key for key, _ in info.value.problems] == ["table.game", "camera.fps"]


def test_every_error_of_the_rules_pins_and_gpio_tables_is_reported_too(tmp_path):
    text = '[rules]\nmin_bet = 0\npayout_unit = -5\n[pins]\ncage_motor = 4\nbutton_lock = 99\n[gpio]\ndebounce_s = 9\n'
    with pytest.raises(ConfigError) as info:
        load(_write(tmp_path, text))
    assert [key for key, _ in info.value.problems] == [
        "rules.min_bet", "rules.payout_unit", "pins.button_lock", "pins.cage_motor", "gpio.debounce_s"]
    assert str(info.value).splitlines()[0].endswith(
        "table.toml: rules.min_bet: expected a positive whole number of cents, got 0")


def test_syntax_error_and_missing_file_name_the_file(tmp_path):
    with pytest.raises(ConfigError, match=r"table\.toml: \(syntax\)"):
        load(_write(tmp_path, "[table\n"))
    with pytest.raises(ConfigError, match=r"nope\.toml: \(file\): no such file"):
        load(tmp_path / "nope.toml")


def test_a_file_unreadable_as_text_is_a_configuration_error(tmp_path):
    """A file that cannot be read as text (a directory given by mistake, a comment saved as Latin-1 by
    an editor) is a configuration error, not a traceback (exit 2: not restarted)."""
    with pytest.raises(ConfigError, match=r"\(file\): cannot read it: Is a directory"):
        load(tmp_path)
    latin1 = tmp_path / "latin1.toml"
    latin1.write_bytes('# \u00a7 4620.3\ngame = "craps"\n'.encode("latin-1"))
    with pytest.raises(ConfigError, match=r"latin1\.toml: \(file\): not UTF-8 text"):
        load(latin1)


def test_a_byte_order_mark_from_a_windows_editor_is_no_error(tmp_path):
    bom = tmp_path / "bom.toml"
    bom.write_bytes(b"\xef\xbb\xbf" + b'[table]\ngame = "hazard"\n')
    assert load(bom).game == "hazard"


def test_calibration_file_written_by_the_calibrate_tool_is_loaded(tmp_path):
    import numpy as np

    (tmp_path / "cal").mkdir()
    import cv2

    mask = np.zeros((48, 64), np.uint8)
    mask[10:40, 10:50] = 255
    cv2.imwrite(str(tmp_path / "cal" / "mask.png"), mask)
    (tmp_path / "cal" / "calibration.toml").write_text(
        '[calibration]\nframe_size = [64, 48]\nlanding_mask = "mask.png"\ndie_size_px = 21.5\ndice_hsv = [[2, 200, 150]]\n')
    config = load(_write(tmp_path, '[calibration]\nfile = "cal/calibration.toml"\n'))
    assert config.calibration.die_size_px == 21.5 and config.calibration.landing_mask.shape == (48, 64)
    assert config.empty_image is None


def test_a_live_camera_must_film_at_the_calibrated_size(tmp_path):
    import cv2
    import numpy as np

    (tmp_path / "cal").mkdir()
    cv2.imwrite(str(tmp_path / "cal" / "mask.png"), np.full((48, 64), 255, np.uint8))
    (tmp_path / "cal" / "calibration.toml").write_text('[calibration]\nframe_size = [64, 48]\nlanding_mask = "mask.png"\n')
    calibrated = '[calibration]\nfile = "cal/calibration.toml"\n[camera]\nsource = "picamera2"\n'
    with pytest.raises(ConfigError, match=r"calibration: made on 64x48 frames, but camera.width x camera.height is 640x480"):
        load(_write(tmp_path, calibrated))
    assert load(_write(tmp_path, calibrated + "width = 64\nheight = 48\n")).calibration.landing_mask.shape == (48, 64)


def test_a_pin_on_the_displays_serial_line_is_refused(tmp_path):
    on_uart = '[display]\nport = "/dev/serial0"\n[pins]\nbutton_void = 14\n'
    with pytest.raises(ConfigError, match=r"pins.button_void: BCM 14 carries the display's serial line"):
        load(_write(tmp_path, on_uart))
    # with the display on a USB-serial adapter, GPIO14/15 are free
    assert load(_write(tmp_path, on_uart.replace("/dev/serial0", "/dev/ttyUSB0"))).pins.button_void == 14


def test_the_display_kind_is_given_or_what_the_port_says(tmp_path):
    """A file without ``kind`` keeps what its port said: the stand-in, no display, or a serial device."""
    shown = {}
    for display in ("", 'port = "sim"', 'port = "none"', 'port = "/dev/ttyUSB0"',
                    'kind = "serial"\nport = "/dev/serial0"', 'kind = "none"\nport = "/dev/serial0"'):
        config = load(_write(tmp_path, f"[display]\n{display}\n"))
        shown[display] = (config.display.kind, config.display.port)
    assert list(shown.values()) == [("sim", ""), ("sim", ""), ("none", ""), ("serial", "/dev/ttyUSB0"),
                                    ("serial", "/dev/serial0"), ("none", "/dev/serial0")]


def test_the_configuration_page_shows_the_shipped_example():
    page = (Path(__file__).resolve().parents[2] / "docs" / "configuration.md").read_text()
    block = page.split("```toml\n")[1].split("```")[0]
    assert block == EXAMPLE.read_text()


@pytest.mark.parametrize("limits", ["place = 700", "raffle = { 1 = 100 }"])
def test_a_table_with_limits_of_its_own_opens_and_reopens_its_journal(tmp_path, limits):
    """The journal's first row keeps the rules as written; a limit the file accepts must be writable there."""
    from controller.journal import Journal
    from controller.table import JournaledTable

    config = load(_write(tmp_path, f'[table]\ngame = "hazard"\n[rules.limits]\n{limits}\n'))
    for seat in "AB":
        with Journal.open(tmp_path / "state") as journal:
            table = JournaledTable.open(journal, config.game, config.rules)
            assert table.submit({"event": "bet", "seat": seat, "bet": "raffle", "number": 1, "amount": 100}).accepted
    with Journal.open(tmp_path / "state") as journal:
        assert len(JournaledTable.open(journal, config.game, config.rules).state.rules.layout) == 2


def test_a_key_given_twice_is_named_by_its_line(tmp_path):
    """tomllib says only "Cannot overwrite a value (at line 3, column 14)"."""
    with pytest.raises(ConfigError, match=r"\(syntax\): Cannot overwrite a value .*: 'game = \"bang\"'"):
        load(_write(tmp_path, '[table]\ngame = "craps"\ngame = "bang"\n'))


def test_every_problem_of_a_calibration_file_is_its_own_line_naming_both_files(tmp_path):
    calibration = tmp_path / "cal" / "calibration.toml"
    calibration.parent.mkdir()
    calibration.write_text("[calibration]\ndie_sise_px = 3\nfelt_hsv = [70, 230, 300]\n")
    with pytest.raises(ConfigError) as info:
        load(_write(tmp_path, '[calibration]\nfile = "cal/calibration.toml"\n'))
    assert [key for key, _ in info.value.problems] == ["calibration.file", "calibration.file"]
    assert all(message.startswith(f"{calibration}: calibration.") for _, message in info.value.problems)


def test_a_spin_time_is_checked_only_at_the_hazard_table(tmp_path):
    """A leftover [hazard] spin_seconds = 0.5 refused a craps table, which has no cage."""
    assert load(_write(tmp_path, "[hazard]\nspin_seconds = 0.5\n")).game == "craps"


def test_the_camera_s_model_is_a_model_folder_relative_to_the_file(tmp_path):
    import shutil

    from vision.reader.model_dir import BUNDLED_MODEL, MODEL_FILES

    folder = tmp_path / "models" / "table1"
    folder.mkdir(parents=True)
    for name in MODEL_FILES:
        shutil.copy(BUNDLED_MODEL / name, folder / name)
    path = tmp_path / "table.toml"
    path.write_text('[camera]\nmodel = "models/table1"\n')
    assert load(path).camera.model == str(folder)
    path.write_text('[camera]\nmodel = "models/none"\n')
    with pytest.raises(ConfigError, match="camera.model: no such model folder"):
        load(path)
    (folder / "policy.json").unlink()
    path.write_text('[camera]\nmodel = "models/table1"\n')
    with pytest.raises(ConfigError, match="camera.model: .*policy.json: missing"):
        load(path)


def test_a_full_resolution_needs_both_sides(tmp_path):
    path = tmp_path / "table.toml"
    path.write_text("[camera]\nfull_width = 2028\n")
    with pytest.raises(ConfigError, match="camera.full_width: give full_width and full_height together"):
        load(path)
