"""A USB camera, a network stream or a video file, through OpenCV's ``VideoCapture``.

A USB camera that stops sending frames (a stalled or half-unplugged device) makes
``cap.read()`` wait in OpenCV's V4L2 backend for ``OPENCV_VIDEOIO_V4L_SELECT_TIMEOUT``
seconds, 10 by default, during which the camera thread can do nothing. Before a live
capture is opened that variable is set to 1 second unless the environment sets it: OpenCV
reads it once per process, at the first frame read from a V4L2 camera.
"""
from __future__ import annotations

import os
import time
from pathlib import Path

import cv2

from vision.sources.base import (
    BrokenFrame, EndOfStream, Frame, FrameSource, HealthState, Pacer, SourceUnavailable, check_image, shrunk,
)


# How long a read from a stalled V4L2 camera may wait (whole seconds; see the module docstring).
V4L_TIMEOUT_VARIABLE = "OPENCV_VIDEOIO_V4L_SELECT_TIMEOUT"
V4L_TIMEOUT_S = "1"


def is_live(target: int | str) -> bool:
    """A camera index, a ``/dev/video*`` device or a URL is live; anything else is a file."""
    return isinstance(target, int) or str(target).startswith("/dev/") or "://" in str(target)


class OpenCVSource(FrameSource):
    """Frames from ``cv2.VideoCapture(target)``.

    Live targets are stamped with :func:`time.monotonic` at capture and a
    failed read is a :class:`BrokenFrame` (several in a row: the camera is
    gone, and the retrying wrapper reopens it); files
    are stamped with their own position, end with :class:`EndOfStream` (or
    start again when ``loop``), and are paced to their frame rate when
    ``realtime`` (a replay that behaves like a camera).
    """

    def __init__(
        self,
        target: int | str,
        size: tuple[int, int] | None = None,
        fps: float | None = None,
        loop: bool = False,
        realtime: bool = False,
        full_size: tuple[int, int] | None = None,
    ) -> None:
        """``full_size``: a live camera films at this size and each frame is shrunk to ``size``
        for motion and finding, the full one kept (``Frame.full``); a file's frames bigger than
        ``size`` are shrunk likewise."""
        super().__init__()
        self.target = target
        self.small: tuple[int, int] | None = (size[0], size[1]) if full_size and size else None
        self.live = is_live(target)
        self.name = f"usb:{target}" if isinstance(target, int) else str(target)
        if not self.live and not Path(str(target)).is_file():
            raise SourceUnavailable(f"{self.name}: no such video file")
        if self.live:
            os.environ.setdefault(V4L_TIMEOUT_VARIABLE, V4L_TIMEOUT_S)
        self._cap: cv2.VideoCapture | None = cv2.VideoCapture(target)
        if not self._cap.isOpened():
            self._cap.release()
            raise SourceUnavailable(f"{self.name}: cannot open")
        capture = full_size or size
        if capture and self.live:
            self._cap.set(cv2.CAP_PROP_FRAME_WIDTH, capture[0])
            self._cap.set(cv2.CAP_PROP_FRAME_HEIGHT, capture[1])
        if fps and self.live:
            self._cap.set(cv2.CAP_PROP_FPS, fps)
        file_fps = self._cap.get(cv2.CAP_PROP_FPS)
        self.fps = float(fps or (file_fps if file_fps and file_fps > 0 else 30.0))
        self.loop = loop
        self.realtime = realtime
        self._count = 0
        self._file_frame = 0
        self._offset = 0.0  # adds a loop's length so timestamps keep increasing
        self._pacer = Pacer()
        self._set_health(HealthState.OK)

    def read(self) -> Frame:
        if self._cap is None:
            raise SourceUnavailable(f"{self.name}: closed")
        ok, image = self._cap.read()
        if not ok:
            if self.live:
                # One failed grab (a corrupt MJPEG frame, a USB hiccup) is a broken frame;
                # a run of them means the camera is gone (RetryingSource's max_broken).
                raise BrokenFrame(f"{self.name}: the camera returned no frame")
            if self.loop and self._file_frame > 0:
                self._offset += self._file_frame / self.fps
                self._file_frame = 0
                self._cap.set(cv2.CAP_PROP_POS_FRAMES, 0)
                ok, image = self._cap.read()
            if not ok:
                self._set_health(HealthState.ENDED)
                raise EndOfStream(f"{self.name}: end of video after {self._count} frames")
        if self.live:
            stamp = time.monotonic()
        else:
            stamp = self._offset + self._file_frame / self.fps
            self._file_frame += 1
            if self.realtime:
                self._pacer.wait(stamp)
        small, full = shrunk(check_image(image, f"{self.name} frame {self._count}"), self.small)
        frame = Frame(small, stamp, self._count, full=full)
        self._count += 1
        return frame


    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None
        super().close()
