"""The table's configuration: one TOML file, checked in full at start.

Why checked at start: a typo in a pin number or a limit found at the first
roll would stop a live table; found at start it stops nothing. Every error
names the file and the dotted key (``/etc/dicetable.toml: camera.fps: must
be a positive integer``), and all errors are reported at once.

With no file the embedded defaults apply (:data:`DEFAULTS`): the generated
scenes as camera, mock pins, the display stand-in on a pseudo-terminal and
the state in ``./var`` -- the bench and ``make run`` setting. The example
file shipped as ``docs/example.toml`` shows and explains every key.

``[rules]`` (limits, layout options, seats), ``[pins]`` (the BCM pin map) and
``[gpio]`` (button and motor timings) belong to the rules engine and the GPIO
layer: their own builders (``TableConfig.from_dict``, ``PinMap.from_dict``,
``GpioSettings.from_dict``) check them here, at load time, and their
complaints are reported with the same file-and-key form.
"""
from __future__ import annotations

import copy
import os
import tomllib
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Callable, Mapping

from controller.rules import GAMES as RULES
from hardware.display import KINDS as DISPLAY_KIND_TABLE

GAMES = tuple(RULES)
#: ``[camera] source``, spelt as ``dicetable record --source`` and ``calibrate --source`` spell a source.
CAMERA_SOURCES = ("picamera2", "usb", "video", "folder", "generated", "none")
#: Earlier spellings, still read: ``scenes`` is ``generated``; ``opencv`` is ``video`` with a
#: ``path``, ``usb`` without one.
OLD_CAMERA_SOURCES = ("scenes", "opencv")
PIN_FACTORIES = ("mock", "lgpio")
#: ``[display] kind``: every kind of display, or none.
DISPLAY_KINDS = (*DISPLAY_KIND_TABLE, "none")
#: The words a ``[display] port`` stood for a kind by, before ``kind`` (read as that kind where no kind is given).
PORT_KINDS = ("sim", "none")
DEMO_SOURCE = "<embedded defaults>"

DEFAULTS: dict[str, Any] = {
    "table": {
        # Which game this table deals; a demo run (no file) plays all three.
        "game": "craps",
        # Where the journal and the saved frames live (systemd: /var/lib/dicetable).
        "state_dir": "var",
        # "mock": simulated GPIO pins (bench, demo); "lgpio": the Raspberry Pi's header.
        "pin_factory": "mock",
    },
    "rules": {},
    "pins": {},
    "gpio": {},
    "camera": {
        "source": "generated",
        "path": "",
        "device": 0,
        "fps": 30,
        "width": 640,
        "height": 480,
        # A full-resolution frame beside the small one (width x height) for reading the dice, e.g.
        # 2028 x 1520 (HQ camera) or 2304 x 1296 (Camera Module 3); 0: none.
        "full_width": 0,
        "full_height": 0,
        # Keep the still frame of every roll (file name goes in the journal).
        "save_frames": True,
        # The reader's model folder (`dicetable learn` writes one), relative to this file;
        # empty: the bundled model.
        "model": "",
    },
    "display": {
        # A kind of hardware.display.KINDS ("serial", "sim": the stand-in on a pseudo-terminal) or "none";
        # not given, it is what the port says (:func:`_display_kind`).
        "kind": "sim",
        "port": "",
        "baud": 115200,
    },
    # Either `file = "calibration/calibration.toml"` (written by `dicetable calibrate`) or the keys
    # of its [calibration] table inline; empty: no calibration (the reader estimates the scale).
    "calibration": {},
    "hazard": {
        # How long the cage motor turns for one spin, in seconds.
        "spin_seconds": 3.0,
    },
    # The web console (controller/web/settings.py checks these): "" listens nowhere.
    "console": {"listen": "", "users": "users", "certificate": "", "key": "", "networks": [], "hosts": [],
                "trusted_proxies": []},
    # Empty broker: no floor. Otherwise every journal row goes to this MQTT broker as table_id
    # (controller/floor, docs/floor.md).
    "floor": {"broker": "", "table_id": "", "username": "", "password_file": "", "cafile": ""},
}


class ConfigError(ValueError):
    """One or more keys of a configuration are wrong; the message names each key and the file."""

    def __init__(self, source: str, problems: list[tuple[str, str]]):
        self.source = source
        self.problems = problems
        super().__init__("\n".join(f"{source}: {key}: {message}" for key, message in problems))


@dataclass(frozen=True)
class Config:
    """A validated configuration. ``source`` is the file it came from (for messages)."""

    source: str
    game: str
    state_dir: Path
    pin_factory: str
    rules: Any
    pins: Any
    gpio: Any
    camera: dict[str, Any]
    display: dict[str, Any]
    calibration: Any
    empty_image: Any
    hazard: dict[str, Any]
    console: Any = None
    raw: dict[str, Any] = field(repr=False, default_factory=dict)
    #: ``[floor]``: the table's id and broker (``controller.floor.broker.FloorLink``), or None.
    floor: Any = None

    @property
    def is_demo(self) -> bool:
        return self.source == DEMO_SOURCE

    def error(self, key: str, message: str) -> ConfigError:
        """An error about ``key`` found later by the layer that owns it (rules, GPIO)."""
        return ConfigError(self.source, [(key, message)])


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v: Any) -> bool:
    return (isinstance(v, (int, float))) and not isinstance(v, bool)


Check = Callable[[Any], str | None]


def _one_of(options: tuple[str, ...], also: tuple[str, ...] = ()) -> Check:
    """One of ``options`` (or of ``also``, older spellings still read but not offered)."""
    return lambda v: None if v in options + also else f"must be one of {', '.join(options)} (got {v!r})"


def _positive_int(v: Any) -> str | None:
    return None if _is_int(v) and v > 0 else f"must be a positive whole number (got {v!r})"


def _whole_number(v: Any) -> str | None:
    return None if _is_int(v) and v >= 0 else f"must be a whole number >= 0 (got {v!r})"


def _positive_number(v: Any) -> str | None:
    return None if _is_number(v) and 0 < v < float("inf") else f"must be a number > 0 (got {v!r})"


def _string(v: Any) -> str | None:
    return None if isinstance(v, str) else f"must be a string (got {v!r})"


def _non_empty_string(v: Any) -> str | None:
    return None if isinstance(v, str) and v else f"must be a non-empty string (got {v!r})"


def _boolean(v: Any) -> str | None:
    return None if isinstance(v, bool) else f"must be true or false (got {v!r})"


def _device(v: Any) -> str | None:
    return None if (_is_int(v) and v >= 0) or (isinstance(v, str) and v) else f"must be a camera index or a path (got {v!r})"


_CHECKS: dict[str, dict[str, Check]] = {
    "table": {"game": _one_of(GAMES), "state_dir": _non_empty_string, "pin_factory": _one_of(PIN_FACTORIES)},
    "camera": {
        "source": _one_of(CAMERA_SOURCES, also=OLD_CAMERA_SOURCES),
        "path": _string,
        "device": _device,
        "fps": _positive_int,
        "width": _positive_int,
        "height": _positive_int,
        "full_width": _whole_number,
        "full_height": _whole_number,
        "save_frames": _boolean,
        "model": _string,
    },
    "display": {"kind": _one_of(DISPLAY_KINDS), "port": _string, "baud": _positive_int},
    "hazard": {"spin_seconds": _positive_number},
}


def _build_delegated(merged: dict[str, Any], problems: list[tuple[str, str]]) -> dict[str, Any]:
    """Hand ``[rules]``, ``[pins]`` and ``[gpio]`` to the layers that own their keys."""
    from controller.rules.config import ConfigError as RulesConfigError, TableConfig, unbettable
    from hardware.gpio.pinmap import GpioConfigError, GpioSettings, PinMap

    built: dict[str, Any] = {}
    for section, build, error_type in (
        ("rules", TableConfig.from_dict, RulesConfigError),
        ("pins", partial(PinMap.from_dict, where="pins"), GpioConfigError),
        ("gpio", partial(GpioSettings.from_dict, where="gpio"), GpioConfigError),
    ):
        try:
            built[section] = build(merged[section])
        except error_type as exc:
            problems += [(f"rules.{key}" if section == "rules" else key, message) for key, message in exc.problems]
    if "rules" in built and merged["table"]["game"] in GAMES:
        problems += [(f"rules.{key}", message) for key, message in unbettable(built["rules"], merged["table"]["game"])]
    return built


def _build_console(table: dict[str, Any], base: Path, problems: list[tuple[str, str]]) -> Any:
    """``[console]``, checked by the web layer's settings (a listen off loopback needs TLS)."""
    from controller.web.settings import WebConfigError, WebSettings

    try:
        return WebSettings.from_dict(table, base, section="console")
    except WebConfigError as exc:
        problems += [(f"console.{key}", message) for key, message in exc.problems]
        return None


def _load_calibration(table: dict[str, Any], base: Path, problems: list[tuple[str, str]]) -> tuple[Any, Any]:
    """The reader's Calibration and the empty-table picture, from a calibration file or inline keys."""
    from vision.calibrate import (CALIBRATION_KEYS, CalibrationError, calibration_from_table, load_calibration,
                                  load_empty_image)
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
    except CalibrationError as exc:
        # Every problem of the calibration, each on its line; a calibration file's keys are that file's, not this one's.
        problems += [("calibration.file", f"{exc.source}: {key}: {message}") if exc.source else (key, message)
                     for key, message in exc.problems] or [("calibration.file", str(exc))]
        return Calibration(), None


#: The Pi's serial ports on GPIO14/15 (TXD/RXD), where the display's Pico is wired.
HEADER_UART_PORTS = ("/dev/serial0", "/dev/ttyAMA0", "/dev/ttyS0")
HEADER_UART_BCM = (14, 15)


def _display_kind(given: Any) -> str:
    """``display.kind`` for a ``[display]`` table that names none: what its ``port`` says ("sim",
    "none"), "serial" for a port naming a device, and "sim" when it names no port either."""
    if not isinstance(given, dict) or "port" not in given:
        return "sim"
    return given["port"] if given["port"] in PORT_KINDS else "serial"


def _check_display_port(display: dict[str, Any], problems: list[tuple[str, str]]) -> None:
    """A display wired to a serial port must name it."""
    kind = display["kind"]
    if kind in DISPLAY_KIND_TABLE and DISPLAY_KIND_TABLE[kind].wired and isinstance(display["port"], str):
        message = _non_empty_string(display["port"]) or (
            f"names a display kind, not a port: give kind = {display['port']!r}" if display["port"] in PORT_KINDS
            else None)
        if message:
            problems.append(("display.port", message))


def _check_uart_pins(pins: Any, display: dict[str, Any], problems: list[tuple[str, str]]) -> None:
    """A button or lamp on BCM 14/15 would fight the display's serial line on the same pins."""
    port = display["port"]
    if pins is None or display["kind"] != "serial" or port not in HEADER_UART_PORTS:
        return
    for key, bcm in pins.to_dict().items():
        if bcm in HEADER_UART_BCM:
            problems.append((f"pins.{key}", f"BCM {bcm} carries the display's serial line (display.port = {port!r}); "
                                            "use a pin that hardware/README.md leaves free"))


def live_camera(camera: Mapping[str, Any]) -> bool:
    """Whether the ``[camera]`` table names a camera filming the table now (the Pi's, or a USB one
    with no recording ``path``), rather than generated scenes, a recording or none."""
    return camera["source"] in ("picamera2", "usb")


def _check_calibrated_size(camera: dict[str, Any], calibration: Any, empty_image: Any,
                           problems: list[tuple[str, str]]) -> None:
    """A live camera must film at the size the table was calibrated at: the landing mask, the empty
    table and the die's size in pixels all belong to that size, and at another one the settle
    detector watches the whole frame and the reader expects dice of the wrong size."""
    pictures = [a for a in (calibration.landing_mask, empty_image) if a is not None]
    if not live_camera(camera) or not pictures or problems:
        return
    height, width = pictures[0].shape[:2]
    if (width, height) != (camera["width"], camera["height"]):
        problems.append(("calibration", f"made on {width}x{height} frames, but camera.width x camera.height is "
                                        f"{camera['width']}x{camera['height']}: calibrate again at that size "
                                        "(dicetable calibrate --config with this file), or set the camera to "
                                        "the calibrated one"))


#: The shortest spin that tumbles the dice in the cage (seconds): §4620.12(b) has the dealer
#: tumble them, and a cage stopped at once leaves them as they lay.
MIN_SPIN_S = 1.0


def _check_spin(seconds: Any, gpio: Any, problems: list[tuple[str, str]]) -> None:
    """A spin too short to tumble the dice, or longer than the motor's own cap (which would cut
    every spin short with a warning at each), is a mistake in the file."""
    if not _is_number(seconds) or seconds <= 0:
        return  # already reported by the key's own check
    if seconds < MIN_SPIN_S:
        problems.append(("hazard.spin_seconds", f"{seconds} s is too short to tumble the dice (at least {MIN_SPIN_S:g} s)"))
    elif gpio is not None and seconds > gpio.cage_max_run_s:
        problems.append(("hazard.spin_seconds", f"{seconds} s is longer than gpio.cage_max_run_s ({gpio.cage_max_run_s:g} s), "
                                                "which would cut every spin to that"))


def _source_spelt(camera: dict[str, Any]) -> Any:
    """``camera.source`` as :data:`CAMERA_SOURCES` spell it, an older spelling read as what it meant."""
    source = camera["source"]
    if source == "scenes":
        return "generated"
    if source == "opencv":
        return "video" if camera["path"] else "usb"
    return source


def _check_model(camera: dict[str, Any], base_dir: Path, problems: list[tuple[str, str]]) -> None:
    """``camera.model``, a model folder relative to the configuration file, must be one now: a
    table started on a missing model would read nothing. Made absolute in place."""
    from vision.reader.model_dir import model_problems

    if not isinstance(camera.get("model"), str) or not camera["model"]:
        return
    folder = base_dir / camera["model"]
    problems += [("camera.model", problem) for problem in model_problems(folder)]
    camera["model"] = str(folder)


def _check_real_table_camera(pin_factory: Any, camera_source: Any, problems: list[tuple[str, str]]) -> None:
    """The generated camera (the default, for the demo and the bench) throws made-up dice: on the
    Pi's real pins it would settle real bets on them. A file for a real table that forgets
    ``[camera]`` must not start."""
    if pin_factory == "lgpio" and camera_source == "generated":
        problems.append(("camera.source", "\"generated\" (generated dice, the default) with the Pi's pins "
                                          "(table.pin_factory = \"lgpio\") would settle real bets on made-up dice; "
                                          "name the table's camera (\"picamera2\", \"usb\"), a recording "
                                          "(\"folder\") or \"none\" (reads come in the event stream)"))


def validate(data: dict[str, Any], source: str) -> Config:
    """Merge ``data`` over the defaults, check every key, and build the :class:`Config`."""
    problems: list[tuple[str, str]] = []
    merged = copy.deepcopy(DEFAULTS)
    for section, table in data.items():
        if section not in DEFAULTS:
            problems.append((section, f"unknown section (known: {', '.join(DEFAULTS)})"))
            continue
        if not isinstance(table, dict):
            problems.append((section, "must be a table ([section])"))
            continue
        for key, value in table.items():
            known = _CHECKS[section] if section in _CHECKS else DEFAULTS[section] if section in ("console", "floor") else None
            if known is not None and key not in known:
                problems.append((f"{section}.{key}", f"unknown key (known: {', '.join(known)})"))
                continue
            merged[section][key] = value
    display = merged["display"]
    if not isinstance(data.get("display"), dict) or "kind" not in data["display"]:
        display["kind"] = _display_kind(data.get("display"))
        display["port"] = "" if display["port"] in PORT_KINDS else display["port"]
    for section, checks in _CHECKS.items():
        for key, check in checks.items():
            message = check(merged[section][key])
            if message:
                problems.append((f"{section}.{key}", message))
    built = _build_delegated(merged, problems)
    _check_display_port(display, problems)
    _check_uart_pins(built.get("pins"), display, problems)
    base_dir = Path(source).parent if source != DEMO_SOURCE else Path(".")
    calibration, empty_image = _load_calibration(merged["calibration"], base_dir, problems)
    console = _build_console(merged["console"], base_dir, problems)
    camera = merged["camera"]
    camera["source"] = _source_spelt(camera)
    _check_calibrated_size(camera, calibration, empty_image, problems)
    _check_real_table_camera(merged["table"]["pin_factory"], camera["source"], problems)
    if merged["table"]["game"] == "hazard":  # only a hazard table turns the cage
        _check_spin(merged["hazard"]["spin_seconds"], built.get("gpio"), problems)
    _check_model(camera, base_dir, problems)
    if bool(camera.get("full_width")) != bool(camera.get("full_height")):
        problems.append(("camera.full_width", "give full_width and full_height together (0 and 0: no full frame)"))
    if camera["source"] in ("folder", "video") and not camera["path"]:
        what = "the folder of images" if camera["source"] == "folder" else "the video file"
        problems.append(("camera.path", f"must name {what} when camera.source is {camera['source']!r}"))
    elif camera["source"] in ("folder", "video") and isinstance(camera["path"], str) and camera["path"]:
        # A recording is relative to this file; it must be there now (a live camera is retried instead).
        recording = base_dir / camera["path"]
        unusable = unusable_path(recording)
        if unusable:
            problems.append(("camera.path", f"{recording} {unusable}"))
        elif camera["source"] == "folder" and not recording.is_dir():
            problems.append(("camera.path", f"no such folder: {recording}"))
        elif camera["source"] == "video" and not recording.is_file():
            problems.append(("camera.path", f"no such video file: {recording}"))
        camera["path"] = str(recording)
    from controller.floor.broker import floor_link  # its keys are checked by the floor's own builder

    floor, floor_problems = floor_link(merged["floor"], base_dir)
    problems += floor_problems
    table = merged["table"]
    state_dir = Path(table["state_dir"]) if isinstance(table["state_dir"], str) else Path()
    if not state_dir.is_absolute() and source != DEMO_SOURCE:
        # Relative paths in a file are relative to the file, not to wherever the service started.
        state_dir = Path(source).parent / state_dir
    if not any(key == "table.state_dir" for key, _ in problems):
        _check_state_dir(state_dir, problems)
    if problems:
        raise ConfigError(source, problems)
    return Config(
        source=source,
        game=table["game"],
        state_dir=state_dir,
        pin_factory=table["pin_factory"],
        rules=built["rules"],
        pins=built["pins"],
        gpio=built["gpio"],
        camera=dict(camera),
        display=dict(merged["display"]),
        calibration=calibration,
        empty_image=empty_image,
        hazard=dict(merged["hazard"]),
        console=console,
        raw=merged,
        floor=floor,
    )


#: What to do when the Pi's GPIO library cannot be loaded (said by ``run --check`` and by ``run``).
LGPIO_INSTALL = ('on the Pi install python3-lgpio and make the venv with --system-site-packages '
                 '(README, "Raspberry Pi install"), or use pin_factory = "mock" off the Pi')


def startup_problems(config: Config) -> list[str]:
    """What keeps ``dicetable run`` from starting with ``config`` that no restart mends, found
    without opening a device, so ``run --check`` says what ``run`` would (exit 2, which systemd
    does not restart): software the Pi's devices need and is not installed, and a state
    directory that is a file."""
    import importlib.util

    found = []
    if config.pin_factory == "lgpio" and importlib.util.find_spec("lgpio") is None:
        found.append(f'table.pin_factory = "lgpio": the lgpio module is not installed; {LGPIO_INSTALL}')
    if config.camera["source"] == "picamera2" and importlib.util.find_spec("picamera2") is None:
        found.append('camera.source = "picamera2": Picamera2 is not installed; on the Pi install python3-picamera2 '
                     'and make the venv with --system-site-packages (README, "Raspberry Pi install")')
    problem = unusable_path(config.state_dir)
    if problem:
        found.append(f"table.state_dir: {config.state_dir} {problem}")
    elif config.state_dir.is_file():
        found.append(f"table.state_dir: {config.state_dir} is a file, not a folder")
    return found


def device_warnings(config: Config) -> list[str]:
    """Devices named by a path that is not there now: the table starts and waits for them (a USB
    adapter may be plugged in later), but until then its watchdog is not pinged."""
    port = config.display["port"]
    if config.display["kind"] != "serial" or not port.startswith("/dev/"):
        return []
    unusable = unusable_path(Path(port))
    if unusable:
        return [f"display.port: {port} {unusable} (the table cannot open it)"]
    if not Path(port).exists():
        return [f"display.port: {port} is not there now (the table waits for it, and systemd restarts it "
                "while the display does not answer)"]
    return []


def rules_warnings(config: Config) -> list[str]:
    """Maxima set above the regulation's, each naming its key: the house may configure them, but
    ``run --check`` prints them and the table logs them at every start."""
    return [f"rules.{key}: {message}" for key, message in config.rules.above_regulation()]


def load(path: Path | str | None, *, without_calibration: bool = False) -> Config:
    """The configuration in ``path``, or the embedded defaults when ``path`` is None.

    ``without_calibration`` leaves the file's ``[calibration]`` out: ``dicetable calibrate``
    makes a new one, and a stale one (taken at another size) must not stop it.
    """
    if path is None:
        return validate({}, DEMO_SOURCE)
    data = _read_toml(Path(path))
    if without_calibration:
        data.pop("calibration", None)
    return validate(data, str(path))


def load_rules(path: Path | str, game: str) -> Any:
    """Only the ``[rules]`` of the file at ``path``, as a ``TableConfig`` for ``game``: ``dicetable
    replay`` needs nothing else, and a mistake elsewhere in the file (a misspelt camera key, a
    calibration not made yet) must not keep an auditor from recomputing the settlements."""
    data = _read_toml(Path(path))
    problems: list[tuple[str, str]] = []
    rules = data.get("rules", {})
    if not isinstance(rules, dict):
        raise ConfigError(str(path), [("rules", "must be a table ([section])")])
    built = _build_delegated({"rules": rules, "pins": {}, "gpio": {}, "table": {"game": game}}, problems)
    if problems:
        raise ConfigError(str(path), problems)
    return built["rules"]


def unusable_path(path: Path) -> str | None:
    """What the system says against ``path`` as a name (a part over 255 bytes, a file where a folder
    is needed, a loop of links, a NUL), or None: a path that is not there, or that this user may
    not enter, is no fault of the name (the table's user may), and is said where it is used."""
    try:
        os.stat(path)
    except (FileNotFoundError, PermissionError):
        return None
    except OSError as exc:
        return f"cannot be used: {exc.strerror or exc}"
    except ValueError as exc:  # a NUL in the name
        return f"cannot be used: {exc}"
    return None


def _check_state_dir(state_dir: Path, problems: list[tuple[str, str]]) -> None:
    """The state directory must be a name the system takes: a name it refuses (a part over 255
    bytes) failed at the first journal write with a traceback."""
    problem = unusable_path(state_dir)
    if problem:
        problems.append(("table.state_dir", f"{state_dir} {problem}"))


def console_warnings(config: Config) -> list[str]:
    """What ``run --check`` says of a console nobody can log in to (the table runs all the same)."""
    settings = config.console
    if settings is None or settings.listen is None:
        return []
    from controller.web.users import UsersError, read_users

    try:
        users = read_users(settings.users)
    except UsersError as exc:
        return [f"console: {exc}: nobody can log in until it is mended"]
    found = []
    if not users:
        found.append(f"console: no users in {settings.users} yet: nobody can log in until one is added "
                     "(dicetable user --config FILE add NAME --role dealer)")
    if settings.tls:
        from controller.web.serve import tls_context

        try:
            tls_context(settings.certificate, settings.key)
        except ValueError as exc:  # unreadable by this user, not PEM, a key of another certificate
            found.append(f"console: {exc}: the table would run without its console")
    return found


def load_users_path(path: Path | str) -> Path:
    """Only ``console.users`` of the file at ``path`` (relative to the file; ``users`` beside it when
    not given): ``dicetable user`` needs nothing else, and must work while the rest of the file is
    being mended."""
    path = Path(path)
    console = _read_toml(path).get("console", {})
    name = console.get("users", DEFAULTS["console"]["users"]) if isinstance(console, dict) else None
    if not isinstance(name, str) or not name:
        raise ConfigError(str(path), [("console.users", f"must be a file name (got {name!r})")])
    return path.parent / name


def load_state_dir(path: Path | str) -> Path:
    """Only ``table.state_dir`` of the file at ``path`` (relative to the file, as ``run`` takes it):
    the journal commands need nothing else, and must work while the rest of the file is being
    mended, which is when the operator most wants to look at the journal."""
    path = Path(path)
    table = _read_toml(path).get("table", {})
    state_dir = table.get("state_dir", DEFAULTS["table"]["state_dir"]) if isinstance(table, dict) else None
    if not isinstance(state_dir, str) or not state_dir:
        raise ConfigError(str(path), [("table.state_dir", f"must be a non-empty string (got {state_dir!r})")])
    folder = Path(state_dir)
    folder = folder if folder.is_absolute() else path.parent / folder
    problems: list[tuple[str, str]] = []
    _check_state_dir(folder, problems)
    if problems:
        raise ConfigError(str(path), problems)
    return folder


def _read_toml(path: Path) -> dict[str, Any]:
    """The TOML table in ``path``; every way of failing is a ``ConfigError`` naming the file."""
    try:
        text = path.read_bytes().decode("utf-8-sig")  # -sig: a BOM from a Windows editor is no error
        return tomllib.loads(text)
    except FileNotFoundError:
        raise ConfigError(str(path), [("(file)", "no such file")]) from None
    except OSError as exc:  # a directory, no permission, a failing card: say so, never a traceback
        raise ConfigError(str(path), [("(file)", f"cannot read it: {exc.strerror or exc}")]) from None
    except UnicodeDecodeError as exc:
        raise ConfigError(str(path), [("(file)", f"not UTF-8 text (TOML must be): byte {exc.start}")]) from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(str(path), [("(syntax)", _with_line(str(exc), text))]) from None
    except RecursionError:  # tomllib recurses into nested arrays and inline tables
        raise ConfigError(str(path), [("(syntax)", "arrays or tables nested too deeply to read")]) from None


def _with_line(message: str, text: str) -> str:
    """tomllib's message with the line it points at: "Cannot overwrite a value (at line 78, column
    9)" does not say which key was given twice."""
    import re

    at = re.search(r"at line (\d+)", message)
    lines = text.splitlines()
    if at is None or not 1 <= int(at.group(1)) <= len(lines):
        return message
    return f"{message}: {lines[int(at.group(1)) - 1].strip()!r}"
