"""Keep a live camera going through unplugging, crashes and bursts of broken frames.

:class:`RetryingSource` wraps whatever opens the camera. When the camera
fails it is closed, the failure logged and the health set to ``lost``; it is
reopened after a delay that doubles on each failed attempt (up to a cap), so a
camera that is gone for an hour costs a log line now and then rather than a
busy loop. ``read()`` never blocks longer than ``max_block_s`` while waiting to
retry: the controller's loop keeps turning (buttons, display) with no camera. A
read from the camera itself is bounded by the camera's own timeout instead
(Picamera2's ``capture_timeout_s``; for a USB camera, OpenCV's V4L2 select
timeout, see :mod:`vision.sources.opencv`).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Callable

from vision.sources.base import (
    BrokenFrame,
    EndOfStream,
    Frame,
    FrameSource,
    HealthState,
    SourceUnavailable,
    log,
)


@dataclass(frozen=True)
class Backoff:
    """Delay before reopening: ``initial * factor**(n-1)`` seconds after the n-th failure, at most ``maximum``."""

    initial: float = 0.5
    factor: float = 2.0
    maximum: float = 10.0

    def delay(self, failures: int) -> float:
        try:
            return min(self.maximum, self.initial * self.factor ** max(0, failures - 1))
        except OverflowError:  # 2.0 ** 1024: a camera gone for hours is past the cap, not an error
            return self.maximum


class RetryingSource(FrameSource):
    """A source that reopens its camera with backoff instead of ever giving up.

    ``opener`` builds a fresh inner source (it may raise anything: a missing
    device, a busy camera). After ``max_broken`` broken frames in a row the
    camera is treated as lost and reopened, since a sensor that keeps sending
    garbage usually needs a restart. Frame indices continue across reconnects.
    """

    def __init__(
        self,
        opener: Callable[[], FrameSource],
        name: str = "camera",
        backoff: Backoff = Backoff(),
        max_broken: int = 5,
        max_block_s: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        super().__init__()
        self.name = name
        self._opener = opener
        self._backoff = backoff
        self._max_broken = max_broken
        self._max_block_s = max_block_s
        self._clock = clock
        self._sleep = sleep
        self._inner: FrameSource | None = None
        self._failures = 0  # failed opens / losses since the last good frame
        self._broken = 0  # broken frames in a row
        self._next_attempt = clock()
        self._count = 0
        self._closed = False

    def read(self) -> Frame:
        if self._closed:
            raise SourceUnavailable(f"{self.name}: closed")
        inner = self._inner or self._reopen()
        try:
            frame = inner.read()
        except EndOfStream:
            self._set_health(HealthState.ENDED)
            raise
        except BrokenFrame as exc:
            self._broken += 1
            log.warning("%s: broken frame %d in a row: %s", self.name, self._broken, exc)
            if self._broken >= self._max_broken:
                self._lose(f"{self._broken} broken frames in a row")
                raise SourceUnavailable(f"{self.name}: {self._broken} broken frames in a row; reopening") from exc
            self._set_health(HealthState.DEGRADED, str(exc), self._broken)
            raise
        except Exception as exc:  # any failure of a device driver means: camera lost
            self._lose(f"{type(exc).__name__}: {exc}")
            raise SourceUnavailable(f"{self.name}: {exc}") from exc
        self._failures = 0
        self._broken = 0
        self._set_health(HealthState.OK)
        frame = replace(frame, index=self._count)
        self._count += 1
        return frame

    def _reopen(self) -> FrameSource:
        wait = self._next_attempt - self._clock()
        if wait > self._max_block_s:
            self._sleep(self._max_block_s)
            raise SourceUnavailable(f"{self.name}: unavailable, next attempt in {wait - self._max_block_s:.1f} s")
        if wait > 0:
            self._sleep(wait)
        try:
            self._inner = self._opener()
        except Exception as exc:
            self._lose(str(exc) if isinstance(exc, SourceUnavailable) else f"cannot open: {type(exc).__name__}: {exc}")
            raise SourceUnavailable(f"{self.name}: cannot open: {exc}") from exc
        log.info("%s: opened%s", self.name, f" after {self._failures} failure(s)" if self._failures else "")
        return self._inner

    def _lose(self, reason: str) -> None:
        if self._inner is not None:
            try:
                self._inner.close()
            except Exception as exc:  # noqa: BLE001 - closing a dead device may fail too; it is gone either way
                log.debug("%s: close after failure: %s", self.name, exc)
            self._inner = None
        self._failures += 1
        self._broken = 0
        delay = self._backoff.delay(self._failures)
        self._next_attempt = self._clock() + delay
        log.warning("%s: lost (%s); retry %d in %.1f s", self.name, reason, self._failures, delay)
        self._set_health(HealthState.LOST, reason, self._failures)

    def close(self) -> None:
        self._closed = True
        if self._inner is not None:
            self._inner.close()
            self._inner = None
        super().close()
