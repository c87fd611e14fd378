"""The pin map and GPIO timings from configuration: defaults, overrides, and errors that name the key."""
from __future__ import annotations

import tomllib

import pytest

from hardware.gpio.pinmap import GpioSettings, PinMap
from messages import ConfigError


def test_defaults_are_distinct_usable_bcm_lines():
    pins = PinMap().to_dict()
    assert len(set(pins.values())) == len(pins)
    assert all(2 <= bcm <= 27 for bcm in pins.values())
    assert PinMap().cage_motor >= 9  # not pulled up while the Pi boots


def test_from_toml_table_overrides_only_the_keys_given():
    table = tomllib.loads("[pins]\ncage_motor = 18\nbutton_void = 16\n")["pins"]
    pins = PinMap.from_dict(table)
    assert pins.cage_motor == 18
    assert pins.button_void == 16
    assert pins.button_lock == PinMap().button_lock
    assert PinMap.from_dict(pins.to_dict()) == pins


@pytest.mark.parametrize(
    ("table", "key", "words"),
    [
        ({"buton_lock": 5}, "pins.buton_lock", "unknown key"),
        ({"cage_motor": "17"}, "pins.cage_motor", "integer"),
        ({"cage_motor": True}, "pins.cage_motor", "integer"),
        ({"light_bang_inside": 40}, "pins.light_bang_inside", "2..27"),
        ({"button_void": 1}, "pins.button_void", "2..27"),
        ({"cage_motor": 4}, "pins.cage_motor", "pulled up while the Pi boots"),
        ({"button_void": 5}, "pins.button_void", "already used by button_lock"),
    ],
)
def test_a_bad_pin_is_refused_with_its_key(table, key, words):
    with pytest.raises(ConfigError) as error:
        PinMap.from_dict(table)
    assert error.value.key == key
    assert words in str(error.value)
    assert str(error.value).startswith(f"{key}: ")


def test_the_table_name_in_errors_follows_the_configuration():
    with pytest.raises(ConfigError) as error:
        PinMap.from_dict({"cage_motor": 99}, where="hardware.pins")
    assert error.value.key == "hardware.pins.cage_motor"


def test_a_table_that_is_not_a_table_is_refused():
    with pytest.raises(ConfigError) as error:
        PinMap.from_dict(17)  # type: ignore[arg-type]
    assert error.value.key == "pins"


def test_direct_construction_checks_too():
    with pytest.raises(ConfigError) as error:
        PinMap(button_confirm=PinMap().button_lock)
    assert error.value.key == "button_confirm"


def test_gpio_settings_defaults_and_overrides():
    settings = GpioSettings.from_dict({"cage_max_run_s": 6, "long_press_s": 2.0})
    assert settings.cage_max_run_s == 6
    assert settings.long_press_s == 2.0
    assert settings.debounce_s == GpioSettings().debounce_s


@pytest.mark.parametrize(
    ("table", "key"),
    [
        ({"cage_max_run_s": 0}, "gpio.cage_max_run_s"),
        ({"cage_max_run_s": "8"}, "gpio.cage_max_run_s"),
        ({"debounce_s": -0.01}, "gpio.debounce_s"),
        ({"long_press_s": 0.3, "debounce_s": 0.4}, "gpio.long_press_s"),
        ({"long_press_s": 0.3, "debounce_s": 0.1}, "gpio.long_press_s"),  # no room for a push in half of it
        ({"hold_s": 1.0}, "gpio.hold_s"),
    ],
)
def test_bad_gpio_settings_are_refused_with_their_key(table, key):
    with pytest.raises(ConfigError) as error:
        GpioSettings.from_dict(table)
    assert error.value.key == key


def test_every_wrong_pin_and_unknown_key_is_reported_at_once():
    """An operator mends the file once: an unknown key does not hide a bad pin, nor one bad pin the next."""
    with pytest.raises(ConfigError) as error:
        PinMap.from_dict({"buton_lock": 5, "cage_motor": 4, "light_bang_inside": 40, "button_void": 5})
    assert [key for key, _ in error.value.problems] == [
        "pins.buton_lock", "pins.light_bang_inside", "pins.button_void", "pins.cage_motor"]
    assert error.value.key == "pins.buton_lock"
    assert str(error.value).splitlines()[2] == "pins.button_void: BCM 5 is already used by button_lock"


def test_a_pin_that_is_not_a_number_gets_one_complaint_not_two():
    with pytest.raises(ConfigError) as error:
        PinMap.from_dict({"cage_motor": 4.0})
    assert error.value.problems == (("pins.cage_motor", "must be a BCM GPIO number (an integer), not 4.0"),)


def test_every_wrong_gpio_setting_is_reported_at_once():
    with pytest.raises(ConfigError) as error:
        GpioSettings.from_dict({"cage_max_run_s": 0, "debounce_s": "a", "hold_s": 1})
    assert [key for key, _ in error.value.problems] == ["gpio.hold_s", "gpio.cage_max_run_s", "gpio.debounce_s"]
