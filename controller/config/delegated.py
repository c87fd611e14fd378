"""The sections whose keys belong to another layer, handed to that layer's own builder:
``[rules]`` (``TableConfig``), ``[pins]`` and ``[gpio]`` (``PinMap``, ``GpioSettings``),
``[calibration]`` (vision's calibration), ``[console]`` (``WebSettings``) and ``[floor]``
(``FloorLink``). Each builder says what is wrong as a :class:`~messages.ConfigError`; its problems
join the file's, keyed as in the file (``rules.limits.place``)."""
from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from controller.config.defaults import GAMES
from controller.config.files import unusable_path
from messages import ConfigError

Problems = list[tuple[str, str]]


def build_rules_pins_gpio(merged: dict[str, Any], problems: Problems) -> dict[str, Any]:
    """``[rules]``, ``[pins]`` and ``[gpio]`` built by the layers that own their keys; a section
    that is wrong is missing from what is returned."""
    from controller.rules.config import TableConfig, unbettable
    from hardware.gpio.pinmap import GpioSettings, PinMap

    built: dict[str, Any] = {}
    for section, build in (
        ("rules", TableConfig.from_dict),
        ("pins", partial(PinMap.from_dict, where="pins")),
        ("gpio", partial(GpioSettings.from_dict, where="gpio")),
    ):
        try:
            built[section] = build(merged[section])
        except ConfigError as exc:
            problems += (exc.under("rules") if section == "rules" else exc).problems
    if "rules" in built and merged["table"]["game"] in GAMES:
        problems += [(f"rules.{key}", message) for key, message in unbettable(built["rules"], merged["table"]["game"])]
    return built


def build_console(table: dict[str, Any], base: Path, problems: Problems) -> Any:
    """``[console]``, checked by the web layer's settings (a listen off loopback needs TLS)."""
    from controller.web.settings import WebSettings

    try:
        return WebSettings.from_dict(table, base, section="console")
    except ConfigError as exc:
        problems += exc.under("console").problems
        return None


def build_floor(table: dict[str, Any], base: Path, problems: Problems) -> Any:
    """``[floor]``, checked by the floor's own builder; None for no floor."""
    from controller.floor.broker import floor_link

    floor, found = floor_link(table, base)
    problems += found
    return floor


def load_calibration(table: dict[str, Any], base: Path, problems: Problems) -> tuple[Any, Any]:
    """The reader's Calibration and the empty-table picture, from a calibration file or inline keys."""
    from vision.calibrate import CALIBRATION_KEYS, calibration_from_table, load_calibration, load_empty_image
    from vision.model import Calibration

    try:
        if "file" in table:
            if set(table) != {"file"}:
                problems.append(("calibration", "give either file or the calibration keys, not both"))
                return Calibration(), None
            if not isinstance(table["file"], str) or not table["file"]:
                problems.append(("calibration.file", f"must name a calibration.toml (got {table['file']!r})"))
                return Calibration(), None
            path = base / table["file"]
            unusable = unusable_path(path)
            if unusable or not path.is_file():
                problems.append(("calibration.file", f"{path} {unusable}" if unusable else f"no such file: {path}"))
                return Calibration(), None
            return load_calibration(path), load_empty_image(path)
        if not table:
            return Calibration(), None
        unknown = sorted(set(table) - set(CALIBRATION_KEYS))
        for key in unknown:
            problems.append((f"calibration.{key}", f"unknown key (known: file, {', '.join(CALIBRATION_KEYS)})"))
        if unknown:
            return Calibration(), None
        empty = None
        if isinstance(table.get("empty_image"), str) and table["empty_image"]:  # else refused below
            import cv2

            empty = cv2.imread(str(base / str(table["empty_image"])))
            if empty is None:
                problems.append(("calibration.empty_image", f"cannot read {base / str(table['empty_image'])}"))
        return calibration_from_table(table, base), empty
    except ConfigError as exc:
        # Every problem of the calibration, each on its line; a calibration file's keys are that file's, not this one's.
        problems += [("calibration.file", f"{exc.source}: {key}: {message}") if exc.source else (key, message)
                     for key, message in exc.problems]
        return Calibration(), None
