"""The table's configuration: one TOML file, checked in full at start.

Why checked at start: a typo in a pin number or a limit found at the first
roll would stop a live table; found at start it stops nothing. Every error
names the file and the dotted key (``/etc/dicetable.toml: camera.fps: must
be a positive integer``), and all errors are reported at once, as one
:class:`~messages.ConfigError`.

With no file the embedded defaults apply (:data:`DEFAULTS`). The example
file shipped as ``docs/example.toml`` shows and explains every key.

- :mod:`~controller.config.load` -- :func:`load` and :func:`validate`, the one place a configuration
  is checked; the loaders of one key alone.
- :mod:`~controller.config.settings` -- the checked configuration as typed values: :class:`Config`
  and one frozen settings object a section (:class:`CameraSettings`, :class:`DisplaySettings`,
  :class:`HazardSettings`).
- :mod:`~controller.config.sections` -- the checks of the keys this package owns, and of what they
  must be together; :mod:`~controller.config.delegated` -- the sections other layers check
  (``[rules]``, ``[pins]``, ``[gpio]``, ``[calibration]``, ``[console]``, ``[floor]``).
- :mod:`~controller.config.startup` -- what ``run --check`` and ``run`` refuse or warn of before
  opening a device.
"""
from controller.config.defaults import DEFAULTS, DEMO_SOURCE, GAMES
from controller.config.files import unusable_path
from controller.config.load import load, load_floor_broker, load_rules, load_state_dir, load_users_path, validate
from controller.config.settings import CameraSettings, Config, DisplaySettings, HazardSettings
from controller.config.startup import (LGPIO_INSTALL, console_warnings, device_warnings, rules_warnings,
                                       startup_problems)
from messages import ConfigError

__all__ = [
    "DEFAULTS", "DEMO_SOURCE", "GAMES", "LGPIO_INSTALL", "CameraSettings", "Config", "ConfigError", "DisplaySettings",
    "HazardSettings", "console_warnings", "device_warnings", "load", "load_floor_broker", "load_rules", "load_state_dir",
    "load_users_path", "rules_warnings", "startup_problems", "unusable_path", "validate",
]
