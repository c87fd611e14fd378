"""Loading the configuration: :func:`load` reads a file (or none) and :func:`validate` checks every
key and builds the typed :class:`~controller.config.settings.Config` -- the one place a
configuration is checked, with one error for all it finds (:class:`~messages.ConfigError`).

The loaders of one key or section alone (:func:`load_rules`, :func:`load_state_dir`,
:func:`load_users_path`, :func:`load_floor_broker`) serve the commands that need nothing else and must work while the rest of
the file is being mended.
"""
from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from controller.config import sections
from controller.config.defaults import DEFAULTS, DEMO_SOURCE
from controller.config.delegated import build_console, build_floor, build_rules_pins_gpio, load_calibration
from controller.config.files import check_state_dir, read_toml
from controller.config.settings import CameraSettings, Config, DisplaySettings, HazardSettings, PitSettings
from messages import ConfigError

Problems = list[tuple[str, str]]
#: Sections whose keys other layers check (:mod:`controller.config.delegated`): any key is handed on.
_HANDED_ON = ("rules", "pins", "gpio", "calibration")


def load(path: Path | str | None, *, without_calibration: bool = False) -> Config:
    """The configuration in ``path``, or the embedded defaults when ``path`` is None.

    ``without_calibration`` leaves the file's ``[calibration]`` out: ``dicetable calibrate``
    makes a new one, and a stale one (taken at another size) must not stop it.
    """
    if path is None:
        return validate({}, DEMO_SOURCE)
    data = read_toml(Path(path))
    if without_calibration:
        data.pop("calibration", None)
    return validate(data, str(path))


def validate(data: dict[str, Any], source: str) -> Config:
    """Merge ``data`` over the defaults, check every key, and build the :class:`Config`; a
    :class:`ConfigError` from ``source`` with every problem found, in the order of the file's
    sections as the checks take them."""
    problems: Problems = []
    base = Path(source).parent if source != DEMO_SOURCE else None
    folder = base or Path(".")
    merged = _merged(data, problems)
    sections.fill_display_kind(merged["display"], data.get("display"))
    sections.check_keys(merged, problems)
    built = build_rules_pins_gpio(merged, problems)
    sections.check_display_port(merged["display"], problems)
    sections.check_uart_pins(built.get("pins"), merged["display"], problems)
    calibration, empty_image = load_calibration(merged["calibration"], folder, problems)
    console = build_console(merged["console"], folder, problems)
    sections.check_large_payout(merged["console"], problems)
    camera, table = merged["camera"], merged["table"]
    sections.spell_camera_source(camera)
    sections.check_calibrated_size(camera, calibration, empty_image, problems)
    sections.check_real_table_camera(table["pin_factory"], camera["source"], problems)
    sections.check_spin(table["game"], merged["hazard"]["spin_seconds"], built.get("gpio"), problems)
    sections.check_model(camera, folder, problems)
    sections.check_full_size(camera, problems)
    sections.check_recording(camera, folder, problems)
    floor = build_floor(merged["floor"], folder, problems)
    state_dir = sections.state_dir(table, base)
    if not any(key == "table.state_dir" for key, _ in problems):
        check_state_dir(state_dir, problems)
    if problems:
        raise ConfigError.of(problems, source)
    return Config(source=source, game=table["game"], state_dir=state_dir, pin_factory=table["pin_factory"],
                  rules=built["rules"], pins=built["pins"], gpio=built["gpio"],
                  camera=CameraSettings(**camera), display=DisplaySettings(**merged["display"]),
                  calibration=calibration, empty_image=empty_image, hazard=HazardSettings(**merged["hazard"]),
                  console=console, floor=floor, pit=PitSettings(merged["console"]["large_payout"]))


def _merged(data: dict[str, Any], problems: Problems) -> dict[str, Any]:
    """The file's sections over :data:`DEFAULTS`; an unknown section or key, or a section that is no
    table, is a problem and left out."""
    merged = copy.deepcopy(DEFAULTS)
    for section, table in data.items():
        if section not in DEFAULTS:
            problems.append((section, f"unknown section (known: {', '.join(DEFAULTS)})"))
            continue
        if not isinstance(table, dict):
            problems.append((section, "must be a table ([section])"))
            continue
        known = None if section in _HANDED_ON else DEFAULTS[section]
        for key, value in table.items():
            if known is not None and key not in known:
                problems.append((f"{section}.{key}", f"unknown key (known: {', '.join(known)})"))
                continue
            merged[section][key] = value
    return merged


def load_rules(path: Path | str, game: str) -> Any:
    """Only the ``[rules]`` of the file at ``path``, as a ``TableConfig`` for ``game``: ``dicetable
    replay`` needs nothing else, and a mistake elsewhere in the file (a misspelt camera key, a
    calibration not made yet) must not keep an auditor from recomputing the settlements."""
    data = read_toml(Path(path))
    problems: Problems = []
    rules = data.get("rules", {})
    if not isinstance(rules, dict):
        raise ConfigError("rules", "must be a table ([section])", source=str(path))
    built = build_rules_pins_gpio({"rules": rules, "pins": {}, "gpio": {}, "table": {"game": game}}, problems)
    if problems:
        raise ConfigError.of(problems, str(path))
    return built["rules"]


def load_users_path(path: Path | str) -> Path:
    """Only ``console.users`` of the file at ``path`` (relative to the file; ``users`` beside it when
    not given): ``dicetable user`` needs nothing else, and must work while the rest of the file is
    being mended."""
    path = Path(path)
    console = read_toml(path).get("console", {})
    name = console.get("users", DEFAULTS["console"]["users"]) if isinstance(console, dict) else None
    if not isinstance(name, str) or not name:
        raise ConfigError("console.users", f"must be a file name (got {name!r})", source=str(path))
    return path.parent / name


def load_floor_broker(path: Path | str) -> str:
    """Only ``floor.broker`` of the file at ``path`` ("" for no floor): ``journal archive`` asks it
    (rows the floor has not acknowledged are refused), and must work while the rest of the file is
    being mended."""
    floor = read_toml(Path(path)).get("floor", {})
    broker = floor.get("broker", "") if isinstance(floor, dict) else ""
    return broker if isinstance(broker, str) else ""


def load_state_dir(path: Path | str) -> Path:
    """Only ``table.state_dir`` of the file at ``path`` (relative to the file, as ``run`` takes it):
    the journal commands need nothing else, and must work while the rest of the file is being
    mended, which is when the operator most wants to look at the journal."""
    path = Path(path)
    table = read_toml(path).get("table", {})
    state_dir = table.get("state_dir", DEFAULTS["table"]["state_dir"]) if isinstance(table, dict) else None
    if not isinstance(state_dir, str) or not state_dir:
        raise ConfigError("table.state_dir", f"must be a non-empty string (got {state_dir!r})", source=str(path))
    folder = Path(state_dir)
    folder = folder if folder.is_absolute() else path.parent / folder
    problems: Problems = []
    check_state_dir(folder, problems)
    if problems:
        raise ConfigError.of(problems, str(path))
    return folder
