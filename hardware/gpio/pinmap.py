"""Which BCM GPIO drives what, and the timings of the GPIO devices, from configuration.

The controller loads its TOML file and hands the tables to ``PinMap.from_dict``
(the ``[pins]`` table) and ``GpioSettings.from_dict`` (the ``[gpio]`` table); the
GPIO tools that run without the controller (``wiring_check``, ``force_off``) read
the same file with ``read_tables``.
Bad keys and values raise one ``ConfigError`` naming every key, so the operator sees
``pins.button_lock`` rather than a traceback from deep inside gpiozero. The wiring
behind the defaults is drawn in ``hardware/README.md``.
"""
from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from messages import ConfigError

#: BCM GPIO numbers on the 40-pin header. 0 and 1 are the HAT ID EEPROM bus.
USABLE_BCM = range(2, 28)
#: BCM 0..8 have their pull-up enabled from power-on until a program claims them,
#: which would switch an active-high motor driver on while the Pi boots.
PULLED_UP_AT_BOOT = range(0, 9)


def read_tables(path: Path | None) -> dict[str, Any]:
    """The tables of the TOML configuration at ``path`` (none for None), read as the table
    controller reads it: a UTF-8 byte order mark is allowed. A file that cannot be read or
    parsed is one ``ConfigError`` keyed ``(file)`` or ``(syntax)``, never a traceback."""
    if path is None:
        return {}
    try:
        return tomllib.loads(path.read_text(encoding="utf-8-sig"))
    except OSError as exc:  # missing, a directory, no permission
        raise ConfigError("(file)", f"cannot read it: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError("(file)", f"not UTF-8 text: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError("(syntax)", str(exc)) from None
    except RecursionError:  # tomllib recurses into nested arrays and inline tables
        raise ConfigError("(syntax)", "arrays or tables nested too deeply to read") from None


def _from_table(cls: type, data: Mapping[str, Any], where: str) -> Any:
    """Build the dataclass ``cls`` from a TOML table: defaults fill gaps, unknown keys are refused.

    Unknown keys and wrong values are reported together: the known keys are still checked.
    """
    if not isinstance(data, Mapping):
        raise ConfigError(where, f"must be a table of key = value, not {data!r}")
    known = [field.name for field in fields(cls)]
    problems = [(f"{where}.{key}", f"unknown key (known keys: {', '.join(known)})") for key in data if key not in known]
    try:
        built = cls(**{key: value for key, value in data.items() if key in known})
    except ConfigError as error:
        problems += error.under(where).problems
    if problems:
        raise ConfigError.of(problems)
    return built


@dataclass(frozen=True)
class PinMap:
    """BCM numbers of every GPIO line the table uses.

    Outputs are active-high (a lit lamp or a running motor is a high line); buttons
    connect their line to ground and use the Pi's internal pull-up.
    """

    cage_motor: int = 17
    light_no_more_bets: int = 22
    light_bang_inside: int = 23
    light_bang_outside: int = 24
    button_lock: int = 5
    button_confirm: int = 6
    button_void: int = 13
    button_next_shooter: int = 26

    def __post_init__(self) -> None:
        problems: list[tuple[str, str]] = []
        seen: dict[int, str] = {}
        for field in fields(self):
            value = getattr(self, field.name)
            key = field.name
            if isinstance(value, bool) or not isinstance(value, int):
                problems.append((key, f"must be a BCM GPIO number (an integer), not {value!r}"))
            elif value not in USABLE_BCM:
                problems.append((key, f"BCM {value} is not a usable GPIO of the 40-pin header (2..27)"))
            elif value in seen:
                problems.append((key, f"BCM {value} is already used by {seen[value]}"))
            else:
                seen[value] = field.name
        if "cage_motor" not in dict(problems) and self.cage_motor in PULLED_UP_AT_BOOT:
            problems.append((
                "cage_motor",
                f"BCM {self.cage_motor} is pulled up while the Pi boots, which would spin the "
                "cage before the program starts; use one of BCM 9..27",
            ))
        if problems:
            raise ConfigError.of(problems)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, where: str = "pins") -> PinMap:
        """Build from a TOML table; missing keys keep their defaults, unknown keys are refused."""
        return _from_table(cls, data, where)

    def to_dict(self) -> dict[str, int]:
        return {field.name: getattr(self, field.name) for field in fields(self)}


@dataclass(frozen=True)
class GpioSettings:
    """Timings of the GPIO devices.

    ``cage_max_run_s`` bounds any one spin of the hazard cage, whatever the
    controller asks; ``debounce_s`` is how long a button level must hold before it
    counts; ``long_press_s`` is how long CONFIRM is held to enter dice by hand;
    a second push of CONFIRM, VOID or NEXT SHOOTER within ``double_press_s`` of the
    last one counts as part of it (``press_logic.RepeatGuard``).
    """

    cage_max_run_s: float = 10.0
    debounce_s: float = 0.03
    long_press_s: float = 1.5
    double_press_s: float = 0.4

    def __post_init__(self) -> None:
        limits = {
            "cage_max_run_s": (0.1, 120.0),
            "debounce_s": (0.0, 0.5),
            "long_press_s": (0.2, 10.0),
            "double_press_s": (0.0, 2.0),
        }
        problems: list[tuple[str, str]] = []
        for name, (low, high) in limits.items():
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float):
                problems.append((name, f"must be a number of seconds, not {value!r}"))
            elif not low <= value <= high:
                problems.append((name, f"{value} s is outside {low}..{high} s"))
        if not problems and self.long_press_s < 4 * self.debounce_s:
            # A push of CONFIRM is let go within half the hold time (press_logic.SHORT_SHARE), and
            # must outlast the debounce time to count at all: leave it room for both.
            problems.append(("long_press_s", "must be at least 4 times debounce_s (a push ends within half of it)"))
        if problems:
            raise ConfigError.of(problems)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, where: str = "gpio") -> GpioSettings:
        """Build from a TOML table; missing keys keep their defaults, unknown keys are refused."""
        return _from_table(cls, data, where)
