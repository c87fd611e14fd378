"""The camera thread: whatever a frame source raises, the thread goes on reading."""
from __future__ import annotations

import time

import numpy as np

from controller.camera import CameraThread
from vision.sources.base import Frame, FrameSource, HealthState


class FailingOnce(FrameSource):
    """Raises an error no source is meant to raise (a bug of ours), then gives frames."""

    def __init__(self) -> None:
        super().__init__()
        self.reads = 0

    def read(self) -> Frame:
        self.reads += 1
        if self.reads == 1:
            raise OverflowError("a bug in the retry arithmetic")
        time.sleep(0.01)
        self._set_health(HealthState.OK)
        return Frame(np.full((48, 64, 3), 90, np.uint8), self.reads / 30.0, self.reads)


class Counting:
    """Stands in for the read pipeline: counts the frames it is fed."""

    def __init__(self) -> None:
        self.fed = 0

    def feed(self, frame: Frame) -> None:
        self.fed += 1


def test_a_bug_raised_by_the_source_does_not_end_the_camera_thread():
    pipeline = Counting()
    thread = CameraThread(FailingOnce(), pipeline, sink=lambda event: None).start()  # type: ignore[arg-type]
    try:
        deadline = time.monotonic() + 10
        while pipeline.fed < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert pipeline.fed >= 3 and thread.healthy()
    finally:
        thread.close()
