"""The Raspberry Pi camera through Picamera2 (imported here only, when a camera is opened).

Facts this relies on (Picamera2 manual and source):

- ``create_still_configuration(main={"format": "RGB888"})`` gives arrays in
  B, G, R byte order: exactly what OpenCV and the reader expect, no copy.
- ``capture_request(flush=True)`` returns a frame whose exposure began after
  the call (older releases lack ``flush``: one frame is dropped instead), so a
  frame is never older than the moment it was asked for; ``wait=<seconds>``
  bounds the wait, so a camera that stops answering raises instead of
  hanging the program (and is then reopened by the retrying wrapper).
- A capture that timed out stays queued as Picamera2's pending job: ``stop()``
  would wait behind it for ever if the camera sends nothing more (a dislodged
  cable), and if the camera recovers the orphaned job takes a request nobody
  releases. ``cancel_all_and_flush()`` drops it; the Picamera2 manual gives it
  for exactly this tidying up before closing.
- Two streams from one request (the manual's "Configurations"): ``main`` at a sensor mode
  (``full_size``, e.g. 2028x1520 on the HQ camera, 2304x1296 on Camera Module 3) and a small
  ``lores`` one (``size``, YUV420, the only format a Pi 4 gives it) for motion and for finding
  dice; the frame read at full resolution is the very one the settle detector saw at rest.
- Automatic exposure and white balance chase every change in the picture: a
  red die entering the frame would shift the colours of the felt. They are
  locked (``AeEnable``/``AwbEnable`` off, the values they had reached set
  explicitly) once the scene is lit, i.e. after ``settle_s`` seconds and once
  the picture is bright enough; a dark start (lights off) keeps them automatic
  until the lights come on.
"""
from __future__ import annotations

import time
from typing import Any, Callable

import cv2
import numpy as np

from vision.sources.base import Frame, FrameSource, HealthState, SourceUnavailable, check_image, log

# The metadata keys whose values become fixed controls when locking.
_LOCKED_CONTROLS = ("ExposureTime", "AnalogueGain", "ColourGains")


class Picamera2Source(FrameSource):
    """Still frames from a Pi camera, with exposure and white balance locked once lit."""

    def __init__(
        self,
        camera_num: int = 0,
        size: tuple[int, int] = (640, 480),
        fps: float = 30.0,
        settle_s: float = 1.0,
        min_level: float = 40.0,
        capture_timeout_s: float = 2.0,
        controls: dict[str, Any] | None = None,
        clock: Callable[[], float] = time.monotonic,
        full_size: tuple[int, int] | None = None,
    ) -> None:
        super().__init__()
        self.full_size = tuple(full_size) if full_size else None
        self.name = f"picamera2:{camera_num}"
        try:
            from picamera2 import Picamera2  # Pi only: never at module level
        except ImportError as exc:
            raise SourceUnavailable(f"{self.name}: Picamera2 is not installed (Raspberry Pi OS package python3-picamera2)") from exc
        self.settle_s = settle_s
        self.min_level = min_level
        self.capture_timeout_s = capture_timeout_s
        self._clock = clock
        self._cam = Picamera2(camera_num)
        try:
            # A fixed frame duration holds the frame rate the settle detector counts in
            # (a still configuration otherwise allows long exposures in dim light).
            frame_us = int(round(1_000_000 / fps))
            streams: dict[str, Any] = {"main": {"format": "RGB888", "size": tuple(size)}}
            if self.full_size:
                streams = {"main": {"format": "RGB888", "size": self.full_size},
                           "lores": {"format": "YUV420", "size": tuple(size)}}
            config = self._cam.create_still_configuration(
                **streams,
                buffer_count=2,
                controls={"FrameDurationLimits": (frame_us, frame_us)},
            )
            self._cam.configure(config)
            if controls:
                self._cam.set_controls(dict(controls))
            self._cam.start()
        except Exception:
            self._cam.close()
            raise
        self._started = clock()
        self.locked: dict[str, Any] | None = None
        self._flush_supported = True
        self._count = 0
        self._set_health(HealthState.OK)

    def read(self) -> Frame:
        if self._cam is None:
            raise SourceUnavailable(f"{self.name}: closed")
        request = self._capture()
        try:
            main = request.make_array("main")
            lores = request.make_array("lores") if self.full_size else None
            metadata = dict(request.get_metadata() or {})
        finally:
            request.release()
        stamp = time.monotonic()
        full = None
        if lores is not None:
            full = check_image(main, f"{self.name} frame {self._count} (main)")
            image = check_image(cv2.cvtColor(lores, cv2.COLOR_YUV2BGR_I420), f"{self.name} frame {self._count}")
        else:
            image = check_image(main, f"{self.name} frame {self._count}")
        if self.locked is None:
            self._maybe_lock(image, metadata)
        meta = {key: metadata[key] for key in ("SensorTimestamp", *_LOCKED_CONTROLS) if key in metadata}
        frame = Frame(image, stamp, self._count, meta, full)
        self._count += 1
        return frame

    def _capture(self) -> Any:
        """A request for a fresh frame; a failed capture leaves no job queued behind it."""
        try:
            return self._capture_request()
        except Exception:
            self._cancel_pending(self._cam)
            raise

    def _capture_request(self) -> Any:
        """``capture_request`` with ``flush`` and ``wait`` where this Picamera2 supports them."""
        if self._flush_supported:
            try:
                return self._cam.capture_request(flush=True, wait=self.capture_timeout_s)
            except TypeError:
                # Picamera2 before 0.3.17 has no ``flush``: drop one queued frame instead.
                self._flush_supported = False
                log.info("%s: capture_request(flush=...) unsupported; dropping one frame per read", self.name)
        self._cam.capture_request().release()
        return self._cam.capture_request()

    def _maybe_lock(self, image: np.ndarray, metadata: dict[str, Any]) -> None:
        """Fix exposure and white balance at their current values once the scene is lit."""
        if self._clock() - self._started < self.settle_s:
            return
        level = float(image[::8, ::8].mean())
        if level < self.min_level:
            return  # lights not on yet: locking now would freeze a dark exposure
        if not all(key in metadata for key in _LOCKED_CONTROLS):
            return
        self.locked = {"AeEnable": False, "AwbEnable": False}
        self.locked.update({key: metadata[key] for key in _LOCKED_CONTROLS})
        self._cam.set_controls(self.locked)
        log.info("%s: exposure and white balance locked: %s", self.name, self.locked)

    def _cancel_pending(self, cam: Any) -> None:
        """Cancel the capture jobs still queued, so that ``stop()`` cannot wait behind one for ever."""
        cancel = getattr(cam, "cancel_all_and_flush", None)
        if cancel is None:  # older Picamera2: nothing to cancel with; stop() may then wait
            log.debug("%s: this Picamera2 has no cancel_all_and_flush()", self.name)
            return
        cancel()

    def close(self) -> None:
        cam, self._cam = self._cam, None
        if cam is not None:
            try:
                self._cancel_pending(cam)  # a capture may still be pending in another thread
                cam.stop()
            finally:
                cam.close()
        super().close()
