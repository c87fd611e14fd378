"""From camera frames to ``read`` events: settle detection, the reader, the saved frame.

Why here: the vision layer knows frames and dice; the table knows events.
This module is the seam. Each frame goes to the settle detector; the one
still frame of a roll goes to the reader; the frame is saved in
``state_dir/frames`` (the journal names the file, so a disputed roll can be
looked at) *before* the read event is handed on to be journaled. A roll that
never settles becomes a ``no_read`` read with the detector's reason, so the
dealer is asked to enter it by hand instead of the table waiting forever.

:class:`ReadPipeline` is pure of threads (the demo and the bench call
``feed`` themselves); :func:`start_camera` runs it on a live source in a
thread for the service. Either is a :class:`Camera` to the table.
"""
from __future__ import annotations

import logging
import random
import threading
import time
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Literal, Mapping, Protocol

import cv2
import numpy as np

from controller.config import Config
from controller.rules import DICE
from vision.model import Calibration, DiceRead, ReadStatus
from vision.reader import ReaderModel, load_model, read_dice
from vision.reader.nets import ModelMissing
from vision.settle import SettleConfig, SettleDetector, Settled, Unsettled
from vision.sources import BrokenFrame, EndOfStream, Frame, FrameSource, GeneratedSource, HealthState, SourceUnavailable

log = logging.getLogger(__name__)

#: Where each game's dice come to rest: on the felt inside the rail, or in the hazard cage's dish.
SETTING: dict[str, Literal["rail", "cage"]] = {"craps": "rail", "bang": "rail", "hazard": "cage"}
#: Why a read of dice that lay still when the camera began to watch waits for the dealer.
AT_REST_REASON = "the dice lay still when the camera began to watch (a restart): confirm they are this roll's"


class Camera(Protocol):
    """What the table asks of its camera: to expect a roll, and how it is (for the watchdog, the
    display and the pit). :class:`CameraThread` is the configured one."""

    def expect_roll(self, at_rest: bool = False, thrown: bool = True) -> None:
        """Bets are locked: the next dice to come to rest are this roll's (:meth:`CameraThread.expect_roll`)."""

    def healthy(self) -> bool:
        """Delivering frames."""

    def lost(self) -> bool:
        """Gone, not just starting: no read will come until it is back."""

    def describe(self) -> str:
        """Its state in words, for the operator."""

    def close(self) -> None:
        """Stop reading and release the source."""


def read_event(read: DiceRead, frame_name: str | None, size: tuple[int, int] | None = None,
               model: str | None = None) -> dict[str, Any]:
    """The journal's ``read`` event for a reader's verdict (docs/events.md, Table events).

    Each die's box (``boxes``, beside ``dice``) and the frame's ``size`` are kept so that a frame
    the dealer ruled on can be labelled die by die for training (``dicetable journal frames --yolo``).
    ``model`` is the digest of the model folder that read it (``vision.reader.model_dir``).
    """
    event: dict[str, Any] = {
        "event": "read",
        "status": read.status.value,
        "dice": list(read.values),
        "confidence": round(float(read.confidence), 4),
        "frame": frame_name,
        "ms": round(float(read.ms), 1),
    }
    if read.dice:
        event["boxes"] = [[int(v) for v in d.box] for d in read.dice]
    if size is not None:
        event["size"] = [int(size[0]), int(size[1])]
    if read.reason:
        event["reason"] = read.reason
    if model is not None:
        event["model"] = model
    return event


class ReadPipeline:
    """Feed every frame; get a ``read`` event for each roll that came to rest (or never did)."""

    def __init__(self, game: str, frames_dir: Path | None, *, fps: float = 30.0, spin_s: float = 0.0,
                 calibration: Calibration | None = None, empty: np.ndarray | None = None,
                 reader: Callable[..., DiceRead] = read_dice, model: Path | str | None = None):
        """``spin_s``: how long the hazard cage turns. The settle timeout counts from the start of
        the spin, so it is lengthened by the spin: a cage set to turn longer than the timeout would
        otherwise make every roll a ``no_read``. ``model``: the reader's model folder (the bundled
        one when None); a model that cannot be loaded makes every read a ``no_read`` saying why."""
        self.game = game
        self.expect = DICE[game]
        self.frames_dir = frames_dir
        self.calibration = calibration or Calibration()
        self._reader = reader
        try:
            self.model: ReaderModel | None = load_model(model)
            self._model_problem = ""
        except ModelMissing as exc:
            log.error("camera: the reader's model cannot be loaded: %s", exc)
            self.model, self._model_problem = None, str(exc)
        mask = self.calibration.landing_mask
        config = SettleConfig(mode=SETTING[game], fps=fps, die_size_px=self._settle_die_size())
        if config.mode == "cage":
            config = replace(config, timeout_s=config.timeout_s + spin_s)
        self.detector = SettleDetector(config, landing_mask=mask, empty=empty)
        self._arm = threading.Event()
        self._arm_at_rest = threading.Event()

    def arm(self, at_rest: bool = False) -> None:
        """A roll is expected (bets were just locked); safe to call from any thread.

        The detector still hands out a frame only after motion and then rest,
        so dice left lying from the last roll are never read again. Except with
        ``at_rest`` (the table restarted in the middle of a roll, so the dice may
        have come to rest unwatched): then dice found lying still are read once,
        and that read is never ``ok`` (:data:`AT_REST_REASON`), since they may be
        the last roll's; a throw after it is read as usual and replaces it.
        """
        if at_rest:
            self._arm_at_rest.set()
        self._arm.set()

    def feed(self, frame: Frame) -> dict[str, Any] | None:
        if self._arm.is_set():
            self._arm.clear()
            at_rest = self._arm_at_rest.is_set()
            self._arm_at_rest.clear()
            self.detector.arm(at_rest=at_rest)
        verdict = self.detector.feed(frame)
        if isinstance(verdict, Settled):
            read = self._read(verdict.frame)
            still = verdict.frame.full if verdict.frame.full is not None else verdict.frame.image
            height, width = still.shape[:2]
            event = read_event(read, self._save(verdict.frame), (width, height),
                               self.model.digest if self.model else None)
            return _for_the_dealer(event) if verdict.at_rest else event
        if isinstance(verdict, Unsettled):
            return {"event": "read", "status": "no_read", "dice": [], "confidence": 0.0,
                    "frame": self._save(verdict.frame), "reason": f"dice did not settle: {verdict.reason}",
                    "at_rest": False}
        return None

    def _settle_die_size(self) -> float | None:
        """The die's size in the settle detector's frames: the calibrated one, which the reader
        scales itself to the frame it reads."""
        cal = self.calibration
        if cal.frame_size is not None:
            return cal.die_size_at((cal.frame_size[1], cal.frame_size[0]))
        return cal.die_size_px

    def _read(self, frame: Frame) -> DiceRead:
        """The reader's verdict on a still frame: from its full-resolution picture where the source
        gives one, the dice found on the small one."""
        if self.model is None:
            return DiceRead(ReadStatus.NO_READ, (), f"the reader's model cannot be loaded: {self._model_problem}")
        if frame.full is not None:
            return self._reader(frame.full, expect=self.expect, calibration=self.calibration, model=self.model,
                                finding=frame.image)
        return self._reader(frame.image, expect=self.expect, calibration=self.calibration, model=self.model)

    def _save(self, frame: Frame) -> str | None:
        """Save the frame the read was made on (the full-resolution one where there is one, so that
        a frame the dealer ruled on labels what the reader saw); its file name goes in the journal."""
        if self.frames_dir is None:
            return None
        try:
            self.frames_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:  # a full disk: the read goes on without its frame
            log.error("could not make the frames folder %s: %s", self.frames_dir, exc.strerror or exc)
            return None
        stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S%f")[:-3]
        name = f"{self.game}-{stamp}-{frame.index:07d}.jpg"
        still = frame.full if frame.full is not None else frame.image
        if not cv2.imwrite(str(self.frames_dir / name), np.ascontiguousarray(still),
                           [cv2.IMWRITE_JPEG_QUALITY, 92]):
            log.error("could not save frame %s", name)
            return None
        return name


def _for_the_dealer(event: dict[str, Any]) -> dict[str, Any]:
    """``event`` (a read of dice found at rest) made one the table does not settle alone."""
    reason = AT_REST_REASON + (f"; {event['reason']}" if event.get("reason") else "")
    status = "uncertain" if event["status"] == "ok" else event["status"]
    return {**event, "status": status, "reason": reason}


def generated_options(game: str) -> dict[str, Any]:
    """The generated camera's options for ``game``: where its dice lie (:data:`SETTING`) and how
    many the rules say it throws (``controller.rules.DICE``); the camera knows no games."""
    if game not in SETTING:
        raise ValueError(f"camera source generated: game={game!r}: expected one of {', '.join(SETTING)}")
    return {"setting": SETTING[game], "dice": DICE[game]}


def open_camera(spec: str | Mapping[str, Any], **overrides: Any) -> FrameSource:
    """``vision.sources.open_source(spec)``, with a generated source's ``game`` option (on a command
    line ``generated:game=hazard``) given to it as its setting and count of dice.

    ``ValueError`` for a spec naming no source or an option the source cannot take, as
    ``open_source``; :class:`~vision.sources.SourceUnavailable` for a file that is not there.
    """
    from vision.sources import open_source, parse_spec

    opts = {**parse_spec(spec), **overrides}
    if opts["type"] == "generated" and "game" in opts:
        opts = {**generated_options(opts.pop("game")), **opts}
    return open_source(opts)


def source_spec(config: Config) -> dict[str, Any]:
    """The ``vision.sources.open_source`` spec for the ``[camera]`` table.

    Live cameras are asked for the configured size and frame rate: the settle detector counts
    its still time in frames at ``fps``, so a camera left at its own rate would settle too early
    or too late. A video file keeps its own size and rate (it was recorded at them). With a full
    resolution (``full_width`` x ``full_height``) every source gives it beside the small frame.
    """
    camera = config.camera
    size = camera.size
    full = {"full_size": camera.full_size} if camera.full_size else {}
    kind = camera.source
    if kind == "generated":
        return {"type": "generated", "game": config.game, "fps": camera.fps, "size": size, "realtime": True}
    if kind == "folder":
        return {"type": "folder", "path": camera.path, "fps": camera.fps, "realtime": True,
                **({"size": size, **full} if full else {})}
    if kind == "video":
        return {"type": "video", "path": camera.path, **({"size": size, **full} if full else {})}
    if kind == "usb":
        return {"type": "usb", "target": camera.device, "size": size, "fps": camera.fps, **full}
    return {"type": "picamera2", "size": size, "fps": camera.fps, **full}


class CameraThread:
    """Runs a :class:`ReadPipeline` on a live source and puts its read events on ``sink``.

    With the generated camera (``[camera] source = "generated"``) nobody throws real dice, so
    :meth:`expect_roll` also puts seeded random dice in the scene, as they would come at a table:
    thrown, lying already (a start in the middle of a roll), or not at all (a voided read in the
    cage, whose dice lie there until the next spin). A configured table can then be played on a
    laptop from an event stream of bets and locks alone.
    """

    def __init__(self, source: FrameSource, pipeline: ReadPipeline, sink: Callable[[dict[str, Any]], None],
                 *, seed: int = 0):
        self.source = source
        self.pipeline = pipeline
        self._sink = sink
        self._dice = random.Random(seed)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="camera", daemon=True)

    def start(self) -> "CameraThread":
        self._thread.start()
        return self

    def expect_roll(self, at_rest: bool = False, thrown: bool = True) -> None:
        """Bets are locked: arm the settle detector. ``at_rest``: the table restarted mid-roll
        (:meth:`ReadPipeline.arm`); ``thrown``: the dice are thrown anew
        (:func:`controller.table.dice_thrown`). A generated scene lays the dice for the first and
        throws them for the second."""
        self.pipeline.arm(at_rest)
        if isinstance(self.source, GeneratedSource) and (at_rest or thrown):
            values = [self._dice.randint(1, 6) for _ in range(self.pipeline.expect)]
            (self.source.lay if at_rest else self.source.throw)(values)

    def healthy(self) -> bool:
        return self.source.health.ok and self._thread.is_alive()

    def lost(self) -> bool:
        """Gone, not just starting: no read will come until it is back (the dealer must enter dice by hand)."""
        return not self._thread.is_alive() or self.source.health.state in (HealthState.LOST, HealthState.ENDED)

    def describe(self) -> str:
        """The camera's state in words, for the operator (``lost: no camera on /dev/video0``)."""
        if not self._thread.is_alive():
            return "stopped reading"
        health = self.source.health
        return health.state.value + (f": {health.detail}" if health.detail else "")

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2.0)
        self.source.close()

    def _run(self) -> None:
        outage = False
        while not self._stop.is_set():
            try:
                frame = self.source.read()
            except BrokenFrame as exc:
                log.warning("camera: broken frame skipped: %s", exc)
                continue
            except SourceUnavailable as exc:
                # Once per outage: a camera gone for the night would otherwise log every second.
                log.log(logging.DEBUG if outage else logging.WARNING, "camera unavailable: %s", exc)
                outage = True
                time.sleep(0.5)
                continue
            except EndOfStream:
                log.warning("camera: the recording has ended; no more rolls will be read")
                return
            except Exception:  # noqa: BLE001 - a fault of ours must not end the camera for good
                log.exception("camera: reading a frame failed")
                time.sleep(0.5)
                continue
            if outage:
                log.warning("camera delivering again")
                outage = False
            try:
                event = self.pipeline.feed(frame)
            except Exception:  # noqa: BLE001 - one bad frame must not stop the camera
                log.exception("camera: frame %d could not be processed", frame.index)
                continue
            if event is not None:
                self._sink(event)


def uncalibrated_warning(config: Config) -> str | None:
    """What the operator should know when a rail table's camera has no picture of the empty table.

    The settle detector then takes the first still scene for the felt: dice lying there when the
    camera starts (a restart mid-roll, or the last roll's dice not yet taken) stay "felt" for the
    whole run, so a hand passing over the empty felt later looks like a roll and a throw where
    those dice lay may be missed. The generated camera starts on an empty table."""
    if SETTING[config.game] != "rail" or config.empty_image is not None or config.camera.source in ("none", "generated"):
        return None
    return ("no picture of the empty table (run `dicetable calibrate`): dice lying when the camera starts "
            "would be taken for the felt until the next start")


def start_camera(config: Config, sink: Callable[[dict[str, Any]], None], *, roll_under_way: bool = False,
                 at_rest: bool = False, thrown: bool = True) -> CameraThread:
    """Open the configured camera and start reading rolls from it.

    ``roll_under_way``: the table recovered in the middle of a roll; the detector is armed for it
    (:meth:`CameraThread.expect_roll` with ``at_rest`` and ``thrown``) before the first frame is
    read. Armed later, the frames read meanwhile (the generated camera's empty table before it lays
    the dice) could count as the landing area seen empty, and the dice found lying then as a new
    throw that needs no confirming."""
    if (warning := uncalibrated_warning(config)) is not None:
        log.warning("camera: %s", warning)

    source = open_camera(source_spec(config))
    empty = config.empty_image
    if empty is None and isinstance(source, GeneratedSource):
        empty = source.empty_picture()  # the generated table is its own calibration
    frames_dir = config.state_dir / "frames" if config.camera.save_frames else None
    pipeline = ReadPipeline(config.game, frames_dir, fps=config.camera.fps, spin_s=config.hazard.spin_seconds,
                            calibration=config.calibration, empty=empty, model=config.camera.model or None)
    camera = CameraThread(source, pipeline, sink)
    if roll_under_way:
        camera.expect_roll(at_rest=at_rest, thrown=thrown)
    return camera.start()
