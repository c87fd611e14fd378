"""The one interface every camera stand-in and every camera implements.

A :class:`FrameSource` hands out :class:`Frame` objects, one per ``read()``:
a BGR image (what OpenCV and the reader expect), a timestamp and a running
index. Trouble is told apart by exception, because the caller reacts
differently to each: :class:`BrokenFrame` (skip this one, the next may be
fine), :class:`SourceUnavailable` (the camera is gone for now; a
:class:`~vision.sources.retry.RetryingSource` brings it back) and
:class:`EndOfStream` (a file or folder is finished). Every source keeps a
:class:`SourceHealth` the controller can show and test before pinging the
watchdog.
"""
from __future__ import annotations

import logging
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Callable, Iterator, Mapping

import cv2
import numpy as np

log = logging.getLogger("vision.sources")


class SourceError(Exception):
    """Base of everything a source raises on purpose."""


class BrokenFrame(SourceError):
    """This frame is unusable (corrupt file, wrong shape, blank sensor); later ones may be fine."""


class SourceUnavailable(SourceError):
    """The camera cannot deliver frames now (unplugged, busy, stopped)."""


class EndOfStream(SourceError):
    """A finite source (a video file, a folder) has no more frames."""


@dataclass(frozen=True)
class Frame:
    """One picture from a source.

    ``image``: HxWx3 uint8, BGR. ``timestamp``: seconds; on live cameras the
    :func:`time.monotonic` clock at capture, on recordings the recording's
    own clock (so a replay keeps the original timing). ``index``: counts
    the frames this source has delivered, from 0. ``meta``: what the source
    knows besides the pixels (the file name of a recorded frame, the truth of
    a generated one, a camera's exposure). ``full``: the same moment at the
    camera's full resolution, where the source gives one (Picamera2's ``main``
    stream beside ``lores``, or a bigger picture the source shrank into
    ``image``): ``image`` is then the small frame for motion and for finding
    dice, and the reader reads each die from ``full``.
    """

    image: np.ndarray
    timestamp: float
    index: int
    meta: Mapping[str, Any] = field(default_factory=dict)
    full: np.ndarray | None = None


def shrunk(image: np.ndarray, size: tuple[int, int] | None) -> tuple[np.ndarray, np.ndarray | None]:
    """``image`` as a small frame of ``size`` (width, height) and itself as the full one, where it
    is bigger than that size and of its shape (within 1%); else ``image`` alone. How a source
    without a low-resolution stream gives both."""
    if size is None:
        return image, None
    h, w = image.shape[:2]
    sw, sh = size
    if w <= sw or abs(w / h - sw / sh) > 0.01 * sw / sh:
        return image, None
    return cv2.resize(image, (sw, sh), interpolation=cv2.INTER_AREA), image


class HealthState(str, Enum):
    STARTING = "starting"
    OK = "ok"
    DEGRADED = "degraded"  # delivering, but some frames were broken
    LOST = "lost"  # no frames; reconnecting
    ENDED = "ended"  # a finite source is finished
    CLOSED = "closed"


@dataclass(frozen=True)
class SourceHealth:
    """What the operator sees about the camera, and what gates the watchdog."""

    state: HealthState
    detail: str = ""
    since: float = 0.0  # monotonic time of the last change of state
    failures: int = 0  # consecutive failures (broken frames or failed reconnects)

    @property
    def ok(self) -> bool:
        return self.state in (HealthState.OK, HealthState.DEGRADED)

    def to_json(self) -> dict[str, Any]:
        return {"state": self.state.value, "detail": self.detail, "failures": self.failures}


class FrameSource(ABC):
    """A camera, a recording or a generator of frames.

    Use as a context manager so the device is released however the program
    leaves; iterate to get good frames until the source ends (broken frames
    and moments without a camera are skipped, having been logged).
    """

    name: str = "source"

    def __init__(self) -> None:
        self._health = SourceHealth(HealthState.STARTING, since=time.monotonic())

    @abstractmethod
    def read(self) -> Frame:
        """The next frame; raises :class:`BrokenFrame`, :class:`SourceUnavailable` or :class:`EndOfStream`."""

    def close(self) -> None:
        """Release the device or file. Safe to call twice."""
        self._set_health(HealthState.CLOSED)

    @property
    def health(self) -> SourceHealth:
        return self._health

    def _set_health(self, state: HealthState, detail: str = "", failures: int = 0) -> None:
        old = self._health
        if old.state != state or old.detail != detail or old.failures != failures:
            since = old.since if old.state == state else time.monotonic()
            self._health = SourceHealth(state, detail, since, failures)
            if old.state != state:
                level = logging.INFO if state in (HealthState.OK, HealthState.ENDED, HealthState.CLOSED) else logging.WARNING
                log.log(level, "%s: %s%s", self.name, state.value, f" ({detail})" if detail else "")

    def __enter__(self) -> FrameSource:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __iter__(self) -> Iterator[Frame]:
        """Good frames until the source ends or is closed (a closed source would refuse every read for ever)."""
        while True:
            try:
                yield self.read()
            except BrokenFrame:
                continue
            except SourceUnavailable:
                if self.health.state is HealthState.CLOSED:
                    return
            except EndOfStream:
                return


class Pacer:
    """Holds a replay to its recorded timing, so a file or generated scene behaves like a camera.

    The first stamp seen is matched to "now"; every later ``wait(stamp)``
    sleeps until the same interval has passed on the monotonic clock. A replay
    that falls behind hands out its next frames without waiting until it is back
    on its recorded schedule: frames are never dropped.
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep) -> None:
        self._start: float | None = None
        self._clock = clock  # injectable so the pacing can be tested without waiting
        self._sleep = sleep

    def wait(self, stamp: float) -> None:
        """Sleep until ``stamp`` (seconds on the replay's clock) is due on the monotonic clock."""
        now = self._clock()
        if self._start is None:
            self._start = now - stamp
        delay = self._start + stamp - now
        if delay > 0:
            self._sleep(delay)


def check_image(image: Any, what: str = "frame") -> np.ndarray:
    """``image`` as an HxWx3 uint8 BGR array, or :class:`BrokenFrame` saying why not.

    Grey images are widened and a fourth (alpha / padding) channel dropped,
    since cameras legitimately deliver both; a frame with no variation at all
    is refused because a live sensor always shows some noise: a uniform frame
    means a dead or covered sensor, not a table.
    """
    if not isinstance(image, np.ndarray):
        raise BrokenFrame(f"{what}: no image data")
    if image.dtype != np.uint8:
        raise BrokenFrame(f"{what}: pixel type {image.dtype}, expected uint8")
    if image.ndim == 2:
        image = np.repeat(image[:, :, None], 3, axis=2)
    if image.ndim != 3 or image.shape[2] not in (3, 4):
        raise BrokenFrame(f"{what}: shape {image.shape}, expected height x width x 3")
    if image.shape[2] == 4:
        image = np.ascontiguousarray(image[:, :, :3])
    if image.shape[0] < 16 or image.shape[1] < 16:
        raise BrokenFrame(f"{what}: {image.shape[1]}x{image.shape[0]} is too small to be a camera frame")
    sample = image[::7, ::7]
    if sample.min() == sample.max():
        raise BrokenFrame(f"{what}: uniform image (value {int(sample.min())}), sensor dead or covered")
    return image
