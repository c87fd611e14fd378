"""The Picamera2 source's logic against a fake ``picamera2`` module (no real import)."""
from __future__ import annotations

import sys
import threading
import types

import cv2
import numpy as np
import pytest

from vision.sources import HealthState, SourceUnavailable, open_source
from vision.sources.picamera import Picamera2Source


class FakeRequest:
    def __init__(self, cam: "FakePicamera2") -> None:
        self.cam, self.released = cam, False

    def make_array(self, name: str) -> np.ndarray:
        assert name in ("main", "lores")
        if self.cam.fail_array:
            raise ValueError("buffer of unexpected size")
        if name == "lores":  # YUV420 (I420) as Picamera2 gives the low-resolution stream
            return cv2.cvtColor(cv2.resize(self.cam.image, self.cam.lores_size), cv2.COLOR_BGR2YUV_I420)
        return self.cam.image.copy()

    def get_metadata(self) -> dict:
        return {"SensorTimestamp": 123, "ExposureTime": 8000, "AnalogueGain": 2.5, "ColourGains": (1.6, 1.9), "Lux": 300}

    def release(self) -> None:
        self.released = True


class FakePicamera2:
    """Just enough of Picamera2 to record how the source drives it.

    As in Picamera2, a capture that times out leaves its job queued: ``stop()`` waits behind it (here
    for ``STOP_WAIT_S``, then fails instead of hanging the test) until ``cancel_all_and_flush()``.
    """

    STOP_WAIT_S = 0.5
    instances: list["FakePicamera2"] = []
    flush_supported = True
    fail_capture = False
    fail_array = False

    def __init__(self, camera_num: int = 0) -> None:
        self.camera_num = camera_num
        self.calls: list = []
        self.controls: list[dict] = []
        self.requests: list[FakeRequest] = []
        self.pending: list[threading.Event] = []  # jobs of timed-out captures, set when they end
        self.image = np.random.default_rng(0).integers(100, 200, (480, 640, 3), dtype=np.uint8)
        FakePicamera2.instances.append(self)

    def create_still_configuration(self, main=None, buffer_count=1, controls=None, lores=None):
        self.calls.append(("still_config", dict(main), buffer_count, dict(controls or {})))
        if lores is not None:
            self.calls.append(("lores", dict(lores)))
            self.lores_size = tuple(lores["size"])
            self.image = np.random.default_rng(0).integers(100, 200, (*main["size"][::-1], 3), dtype=np.uint8)
        return {"main": main, "lores": lores, "controls": controls}

    def configure(self, config) -> None:
        self.calls.append("configure")

    def start(self) -> None:
        self.calls.append("start")

    def set_controls(self, controls: dict) -> None:
        self.controls.append(dict(controls))

    def capture_request(self, **kwargs):
        if kwargs and not self.flush_supported:
            raise TypeError("capture_request() got an unexpected keyword argument 'flush'")
        if self.fail_capture:
            self.pending.append(threading.Event())
            raise RuntimeError("Camera frontend has timed out!")
        self.calls.append(("capture_request", kwargs))
        self.requests.append(FakeRequest(self))
        return self.requests[-1]

    def cancel_all_and_flush(self) -> None:
        self.calls.append("cancel_all_and_flush")
        for job in self.pending:
            job.set()
        self.pending = []

    def stop(self) -> None:
        for job in self.pending:
            if not job.wait(self.STOP_WAIT_S):
                raise TimeoutError("stop() is waiting behind a capture job that will never finish")
        self.calls.append("stop")

    def close(self) -> None:
        self.calls.append("close")


@pytest.fixture
def fake_picamera2(monkeypatch):
    module = types.ModuleType("picamera2")
    module.Picamera2 = FakePicamera2
    monkeypatch.setitem(sys.modules, "picamera2", module)
    FakePicamera2.instances = []
    FakePicamera2.flush_supported = True
    FakePicamera2.fail_capture = False
    FakePicamera2.fail_array = False
    return FakePicamera2


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_configures_rgb888_stills_at_a_fixed_frame_rate(fake_picamera2):
    src = Picamera2Source(camera_num=1, size=(640, 480), fps=30)
    cam = fake_picamera2.instances[0]
    assert cam.camera_num == 1
    kind, main, buffers, controls = cam.calls[0]
    assert kind == "still_config" and main == {"format": "RGB888", "size": (640, 480)}
    assert controls == {"FrameDurationLimits": (33333, 33333)}
    assert cam.calls[1:] == ["configure", "start"]
    assert src.health.state is HealthState.OK


def test_each_read_asks_for_a_fresh_frame_and_releases_the_request(fake_picamera2):
    src = Picamera2Source()
    cam = fake_picamera2.instances[0]
    frames = [src.read() for _ in range(3)]
    assert [c for c in cam.calls if isinstance(c, tuple) and c[0] == "capture_request"] == [("capture_request", {"flush": True, "wait": 2.0})] * 3
    assert all(r.released for r in cam.requests)
    assert [f.index for f in frames] == [0, 1, 2]
    assert np.array_equal(frames[0].image, cam.image)  # RGB888 arrays are already BGR: no conversion
    assert frames[0].meta["SensorTimestamp"] == 123


def test_locks_exposure_and_white_balance_once_lit_and_settled(fake_picamera2):
    clock = Clock()
    src = Picamera2Source(settle_s=1.0, clock=clock)
    cam = fake_picamera2.instances[0]
    src.read()
    assert cam.controls == [] and src.locked is None  # too early: exposure still converging
    clock.now += 1.5
    src.read()
    assert cam.controls == [{"AeEnable": False, "AwbEnable": False, "ExposureTime": 8000, "AnalogueGain": 2.5, "ColourGains": (1.6, 1.9)}]
    src.read()
    assert len(cam.controls) == 1  # locked once, not on every frame


def test_does_not_lock_while_the_table_is_dark(fake_picamera2):
    clock = Clock()
    src = Picamera2Source(settle_s=0.5, min_level=40, clock=clock)
    cam = fake_picamera2.instances[0]
    cam.image = np.random.default_rng(1).integers(0, 20, (480, 640, 3), dtype=np.uint8)
    clock.now += 5
    src.read()
    assert cam.controls == []
    cam.image = np.random.default_rng(2).integers(90, 160, (480, 640, 3), dtype=np.uint8)  # lights on
    src.read()
    assert cam.controls and cam.controls[0]["AeEnable"] is False


def test_older_picamera2_without_flush_drops_one_frame_instead(fake_picamera2):
    fake_picamera2.flush_supported = False
    src = Picamera2Source()
    cam = fake_picamera2.instances[0]
    src.read()
    src.read()
    captures = [c for c in cam.calls if isinstance(c, tuple) and c[0] == "capture_request"]
    assert captures == [("capture_request", {})] * 4  # one dropped, one kept, per read
    assert all(r.released for r in cam.requests)


def test_close_stops_and_closes_the_camera(fake_picamera2):
    with Picamera2Source() as src:
        cam = fake_picamera2.instances[0]
    assert cam.calls[-2:] == ["stop", "close"]
    assert src.health.state is HealthState.CLOSED
    with pytest.raises(SourceUnavailable):
        src.read()


def test_a_camera_that_times_out_is_reported_and_reopened(fake_picamera2):
    src = open_source({"type": "picamera2", "settle_s": 0, "backoff": {"initial": 0.0}})
    assert src.read().index == 0
    fake_picamera2.fail_capture = True
    with pytest.raises(SourceUnavailable, match="timed out"):
        src.read()
    assert src.health.state is HealthState.LOST and "timed out" in src.health.detail
    first = fake_picamera2.instances[0]
    # The timed-out job was cancelled, so stopping did not wait behind it; the dead camera was released.
    assert first.calls[-3:] == ["cancel_all_and_flush", "stop", "close"] and first.pending == []
    fake_picamera2.fail_capture = False
    assert src.read().index == 1
    assert len(fake_picamera2.instances) == 2 and src.health.state is HealthState.OK
    src.close()


def test_a_timed_out_capture_leaves_no_job_to_take_the_next_frame(fake_picamera2):
    src = Picamera2Source()
    cam = fake_picamera2.instances[0]
    cam.fail_capture = True
    with pytest.raises(RuntimeError, match="timed out"):
        src.read()
    assert cam.pending == []  # a camera that recovers hands its frame to the next read, not to an orphan
    cam.fail_capture = False
    assert src.read().index == 0
    src.close()
    assert cam.calls[-2:] == ["stop", "close"]


def test_close_works_with_a_picamera2_without_cancel_all_and_flush(fake_picamera2, monkeypatch):
    monkeypatch.delattr(fake_picamera2, "cancel_all_and_flush")
    src = Picamera2Source()
    cam = fake_picamera2.instances[0]
    src.read()
    src.close()
    assert cam.calls[-2:] == ["stop", "close"]


def test_the_request_is_released_when_its_array_cannot_be_made(fake_picamera2):
    src = Picamera2Source()
    cam = fake_picamera2.instances[0]
    cam.fail_array = True
    with pytest.raises(ValueError, match="unexpected size"):
        src.read()
    assert len(cam.requests) == 1 and cam.requests[0].released  # else the camera runs out of buffers


def test_two_streams_give_a_small_frame_and_the_full_one_of_the_same_moment(fake_picamera2):
    source = Picamera2Source(size=(640, 480), full_size=(2028, 1520), clock=Clock())
    cam = fake_picamera2.instances[-1]
    assert ("lores", {"format": "YUV420", "size": (640, 480)}) in cam.calls
    assert cam.calls[0][1] == {"format": "RGB888", "size": (2028, 1520)}
    frame = source.read()
    assert frame.image.shape == (480, 640, 3) and frame.full.shape == (1520, 2028, 3)
    # one picture at two sizes, in BGR both (the small one came as YUV420)
    assert np.abs(frame.image.mean(axis=(0, 1)) - frame.full.mean(axis=(0, 1))).max() < 3
    source.close()


def test_one_stream_gives_no_full_frame(fake_picamera2):
    source = Picamera2Source(size=(640, 480), clock=Clock())
    assert source.read().full is None
    source.close()
