"""The checks of ``[table]``, ``[camera]``, ``[display]`` and ``[hazard]``, whose keys this package
owns: each key's value (:func:`key_checks`), then what the keys must be together, each check adding
``(dotted key, what is wrong)`` to ``problems``.

The checks run on the merged table (the file's keys over :data:`~controller.config.defaults.DEFAULTS`)
and put relative paths and earlier spellings in the form the settings objects hold.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from controller.config.defaults import GAMES, PIN_FACTORIES
from controller.config.files import unusable_path
from controller.config.values import (Check, boolean, device, is_number, non_empty_string, one_of, positive_int,
                                      positive_number, string, whole_number)

Problems = list[tuple[str, str]]

#: The words a ``[display] port`` names a kind of display by, for a file that gives no ``kind``.
PORT_KINDS = ("sim", "none")
#: The Pi's serial ports on GPIO14/15 (TXD/RXD), where the display's Pico is wired.
HEADER_UART_PORTS = ("/dev/serial0", "/dev/ttyAMA0", "/dev/ttyS0")
HEADER_UART_BCM = (14, 15)
#: The shortest spin that tumbles the dice in the cage (seconds): §4620.12(b) has the dealer
#: tumble them, and a cage stopped at once leaves them as they lay.
MIN_SPIN_S = 1.0


def key_checks() -> dict[str, dict[str, Check]]:
    """Each key of the sections this package owns, with the check of its value. The kinds of
    camera and of display are those their layers declare (``vision.sources.factory.KINDS``,
    ``hardware.display.KINDS``), each with ``none``."""
    from hardware.display import KINDS as DISPLAY_KINDS
    from vision.sources.factory import KINDS as CAMERA_KINDS, OLD_SPELLINGS

    return {
        "table": {"game": one_of(GAMES), "state_dir": non_empty_string, "pin_factory": one_of(PIN_FACTORIES)},
        "camera": {
            "source": one_of((*CAMERA_KINDS, "none"), also=OLD_SPELLINGS),
            "path": string,
            "device": device,
            "fps": positive_int,
            "width": positive_int,
            "height": positive_int,
            "full_width": whole_number,
            "full_height": whole_number,
            "save_frames": boolean,
            "model": string,
        },
        "display": {"kind": one_of((*DISPLAY_KINDS, "none")), "port": string, "baud": positive_int},
        "hazard": {"spin_seconds": positive_number},
    }


def check_keys(merged: dict[str, Any], problems: Problems) -> None:
    """Every key's own check, section by section."""
    for section, checks in key_checks().items():
        for key, check in checks.items():
            message = check(merged[section][key])
            if message:
                problems.append((f"{section}.{key}", message))


def check_large_payout(console: dict[str, Any], problems: Problems) -> None:
    """``console.large_payout``, the pit's threshold (the rest of ``[console]`` is the web layer's)."""
    message = positive_int(console["large_payout"])
    if message:
        problems.append(("console.large_payout", message + " (cents)"))


# --- [table] ---------------------------------------------------------------------------------------

def state_dir(table: dict[str, Any], base: Path | None) -> Path:
    """``table.state_dir`` as a path: relative paths in a file are relative to the file (``base``),
    not to wherever the service started; without a file, to the working folder."""
    folder = Path(table["state_dir"]) if isinstance(table["state_dir"], str) else Path()
    return base / folder if base is not None and not folder.is_absolute() else folder


# --- [camera] --------------------------------------------------------------------------------------

def spell_camera_source(camera: dict[str, Any]) -> None:
    """``camera.source`` as the kinds are spelt, an earlier spelling read as what it meant."""
    from vision.sources.factory import kind_spelt

    camera["source"] = kind_spelt(camera["source"], has_path=bool(camera["path"]))


def _live(camera: dict[str, Any]) -> bool:
    from vision.sources.factory import KINDS

    source = camera["source"]
    return isinstance(source, str) and source in KINDS and KINDS[source].live


def check_calibrated_size(camera: dict[str, Any], calibration: Any, empty_image: Any, problems: Problems) -> None:
    """A live camera must film at the size the table was calibrated at: the landing mask, the empty
    table and the die's size in pixels all belong to that size, and at another one the settle
    detector watches the whole frame and the reader expects dice of the wrong size."""
    pictures = [a for a in (calibration.landing_mask, empty_image) if a is not None]
    if not _live(camera) or not pictures or problems:
        return
    height, width = pictures[0].shape[:2]
    if (width, height) != (camera["width"], camera["height"]):
        problems.append(("calibration", f"made on {width}x{height} frames, but camera.width x camera.height is "
                                        f"{camera['width']}x{camera['height']}: calibrate again at that size "
                                        "(dicetable calibrate --config with this file), or set the camera to "
                                        "the calibrated one"))


def check_real_table_camera(pin_factory: Any, camera_source: Any, problems: Problems) -> None:
    """The generated camera (the default, for the demo and the bench) throws made-up dice: on the
    Pi's real pins it would settle real bets on them. A file for a real table that forgets
    ``[camera]`` must not start."""
    if pin_factory == "lgpio" and camera_source == "generated":
        problems.append(("camera.source", "\"generated\" (generated dice, the default) with the Pi's pins "
                                          "(table.pin_factory = \"lgpio\") would settle real bets on made-up dice; "
                                          "name the table's camera (\"picamera2\", \"usb\"), a recording "
                                          "(\"folder\") or \"none\" (reads come in the event stream)"))


def check_model(camera: dict[str, Any], base: Path, problems: Problems) -> None:
    """``camera.model``, a model folder relative to the configuration file, must be one now: a
    table started on a missing model would read nothing. Made absolute in place."""
    from vision.reader.model_dir import model_problems

    if not isinstance(camera.get("model"), str) or not camera["model"]:
        return
    folder = base / camera["model"]
    problems += [("camera.model", problem) for problem in model_problems(folder)]
    camera["model"] = str(folder)


def check_full_size(camera: dict[str, Any], problems: Problems) -> None:
    if bool(camera.get("full_width")) != bool(camera.get("full_height")):
        problems.append(("camera.full_width", "give full_width and full_height together (0 and 0: no full frame)"))


def check_recording(camera: dict[str, Any], base: Path, problems: Problems) -> None:
    """A source that replays a recording must name it, relative to this file, and it must be there
    now (a live camera is retried instead). Made absolute in place."""
    from vision.sources.factory import KINDS

    kind = KINDS.get(camera["source"]) if isinstance(camera["source"], str) else None
    recording = kind.recording if kind is not None else None
    if recording is None:
        return
    if not camera["path"]:
        problems.append(("camera.path", f"must name {recording.names} when camera.source is {camera['source']!r}"))
        return
    if not isinstance(camera["path"], str):
        return  # already reported by the key's own check
    path = base / camera["path"]
    unusable = unusable_path(path)
    if unusable:
        problems.append(("camera.path", f"{path} {unusable}"))
    elif not (path.is_dir() if recording.folder else path.is_file()):
        problems.append(("camera.path", f"no such {recording.noun}: {path}"))
    camera["path"] = str(path)


# --- [display] -------------------------------------------------------------------------------------

def display_kind(given: Any) -> str:
    """``display.kind`` for a ``[display]`` table that names none: what its ``port`` says ("sim",
    "none"), "serial" for a port naming a device, and "sim" when it names no port either."""
    if not isinstance(given, dict) or "port" not in given:
        return "sim"
    return given["port"] if given["port"] in PORT_KINDS else "serial"


def fill_display_kind(display: dict[str, Any], given: Any) -> None:
    """A ``[display]`` table without ``kind`` gets the kind its port says; a port that was a kind's
    word is then no port."""
    if isinstance(given, dict) and "kind" in given:
        return
    display["kind"] = display_kind(given)
    if display["port"] in PORT_KINDS:
        display["port"] = ""


def check_display_port(display: dict[str, Any], problems: Problems) -> None:
    """A display wired to a serial port must name it."""
    from hardware.display import KINDS

    kind = KINDS.get(display["kind"]) if isinstance(display["kind"], str) else None
    if kind is None or not kind.wired or not isinstance(display["port"], str):
        return
    message = non_empty_string(display["port"]) or (
        f"names a display kind, not a port: give kind = {display['port']!r}" if display["port"] in PORT_KINDS else None)
    if message:
        problems.append(("display.port", message))


def check_uart_pins(pins: Any, display: dict[str, Any], problems: Problems) -> None:
    """A button or lamp on BCM 14/15 would fight the display's serial line on the same pins."""
    port = display["port"]
    if pins is None or display["kind"] != "serial" or port not in HEADER_UART_PORTS:
        return
    for key, bcm in pins.to_dict().items():
        if bcm in HEADER_UART_BCM:
            problems.append((f"pins.{key}", f"BCM {bcm} carries the display's serial line (display.port = {port!r}); "
                                            "use a pin that hardware/README.md leaves free"))


# --- [hazard] --------------------------------------------------------------------------------------

def check_spin(game: Any, seconds: Any, gpio: Any, problems: Problems) -> None:
    """At a hazard table (the only one that turns the cage), a spin too short to tumble the dice, or
    longer than the motor's own cap (which would cut every spin short with a warning at each), is a
    mistake in the file."""
    if game != "hazard" or not is_number(seconds) or seconds <= 0:
        return  # no cage, or already reported by the key's own check
    if seconds < MIN_SPIN_S:
        problems.append(("hazard.spin_seconds", f"{seconds} s is too short to tumble the dice (at least {MIN_SPIN_S:g} s)"))
    elif gpio is not None and seconds > gpio.cage_max_run_s:
        problems.append(("hazard.spin_seconds", f"{seconds} s is longer than gpio.cage_max_run_s ({gpio.cage_max_run_s:g} s), "
                                                "which would cut every spin to that"))
