"""Frame sources on files made here: folder, video, generated, and the retry wrapper."""
from __future__ import annotations

import os
import threading
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.sources import (
    BrokenFrame,
    EndOfStream,
    FolderSource,
    Frame,
    FrameSource,
    GeneratedSource,
    HealthState,
    OpenCVSource,
    Recorder,
    RetryingSource,
    SourceUnavailable,
    check_image,
    open_source,
    parse_spec,
)
from vision.sources.base import Pacer
from vision.sources.retry import Backoff


def square_x(image: np.ndarray) -> int:
    """Where the bright square of conftest.textured() starts (its left edge)."""
    cols = np.nonzero((image[22:30] > 180).all(axis=2).any(axis=0))[0]
    return int(cols[0])


# --- folder -------------------------------------------------------------------


def test_folder_plays_in_natural_order_and_reports_the_corrupt_file(image_folder: Path):
    src = FolderSource(image_folder, fps=10)
    got, broken = [], []
    while True:
        try:
            got.append(src.read())
        except BrokenFrame as exc:
            broken.append(str(exc))
            assert src.health.state is HealthState.DEGRADED
        except EndOfStream:
            break
    assert [f.meta["file"] for f in got] == ["frame_1.png", "frame_2.png", "frame_4.jpg", "frame_10.png"]
    assert [square_x(f.image) for f in got] == [10, 20, 40, 100]
    assert len(broken) == 1 and "frame_3.png" in broken[0]
    assert [f.index for f in got] == [0, 1, 2, 3]
    assert got[-1].timestamp == pytest.approx(4 / 10)  # fifth image of the folder at 10 fps
    assert src.health.state is HealthState.ENDED


def test_folder_iteration_skips_broken_frames_and_stops_at_the_end(image_folder: Path):
    assert len(list(FolderSource(image_folder))) == 4


def test_folder_follows_frames_csv_order_and_timestamps(tmp_path: Path, make_frame):
    for i in range(3):
        cv2.imwrite(str(tmp_path / f"f{i}.png"), make_frame(i))
    (tmp_path / "frames.csv").write_text("file,index,timestamp\nf2.png,0,100.5\nf0.png,1,100.6\nf1.png,2,100.75\n")
    frames = list(FolderSource(tmp_path))
    assert [f.meta["file"] for f in frames] == ["f2.png", "f0.png", "f1.png"]
    assert [f.timestamp for f in frames] == [100.5, 100.6, 100.75]


@pytest.mark.parametrize("stamp", ["soon", "nan", "inf"])
def test_folder_with_a_timestamp_that_is_no_number_is_unavailable_naming_the_line(tmp_path: Path, make_frame, stamp):
    for i in range(2):
        cv2.imwrite(str(tmp_path / f"f{i}.png"), make_frame(i))
    (tmp_path / "frames.csv").write_text(f"file,index,timestamp\nf0.png,0,1.0\nf1.png,1,{stamp}\n")
    with pytest.raises(SourceUnavailable, match=rf"frames\.csv line 3: timestamp '{stamp}' is not a number"):
        FolderSource(tmp_path)


def test_folder_loops_with_increasing_timestamps(tmp_path: Path, make_frame):
    for i in range(2):
        cv2.imwrite(str(tmp_path / f"f{i}.png"), make_frame(i))
    src = FolderSource(tmp_path, fps=10, loop=True)
    frames = [src.read() for _ in range(5)]
    assert [square_x(f.image) for f in frames] == [0, 10, 0, 10, 0]
    stamps = [f.timestamp for f in frames]
    assert stamps == sorted(stamps) and len(set(stamps)) == 5


def frames_within(src, seconds: float = 5.0) -> list:
    """``list(src)``, failing (instead of hanging the suite) if the iteration has not ended within ``seconds``."""
    got: list = []
    worker = threading.Thread(target=lambda: got.extend(src), daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), f"iterating {src.name} did not end within {seconds} s"
    return got


def test_a_looping_folder_of_broken_files_ends_instead_of_spinning(tmp_path: Path):
    for i in range(3):
        (tmp_path / f"f{i}.png").write_bytes(b"\x89PNG\r\n\x1a\n truncated")
    src = FolderSource(tmp_path, loop=True)
    assert frames_within(src) == []
    assert src.health.state is HealthState.ENDED


def test_a_looping_folder_keeps_looping_past_broken_files(image_folder: Path):
    src = FolderSource(image_folder, loop=True)
    files = [next(iter(src)).meta["file"] for _ in range(9)]
    assert files == ["frame_1.png", "frame_2.png", "frame_4.jpg", "frame_10.png"] * 2 + ["frame_1.png"]


def test_iterating_a_closed_source_ends(video_file: Path):
    src = OpenCVSource(str(video_file))
    src.close()
    assert frames_within(src) == []


def test_folder_gives_grey_16_bit_and_4_channel_files_as_bgr_8_bit(tmp_path: Path, make_frame):
    bgr = make_frame(3)
    grey = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)
    cv2.imwrite(str(tmp_path / "a_grey.png"), grey)
    cv2.imwrite(str(tmp_path / "b_deep.png"), bgr.astype(np.uint16) * 257)  # 16 bits per channel
    cv2.imwrite(str(tmp_path / "c_alpha.png"), cv2.cvtColor(bgr, cv2.COLOR_BGR2BGRA))
    cv2.imwrite(str(tmp_path / "d_grey_deep.tif"), grey.astype(np.uint16) * 257)
    frames = list(FolderSource(tmp_path))
    assert [f.meta["file"] for f in frames] == ["a_grey.png", "b_deep.png", "c_alpha.png", "d_grey_deep.tif"]
    assert all(f.image.dtype == np.uint8 and f.image.shape == bgr.shape for f in frames)
    assert np.array_equal(frames[0].image, cv2.cvtColor(grey, cv2.COLOR_GRAY2BGR))
    assert np.array_equal(frames[1].image, bgr) and np.array_equal(frames[2].image, bgr)
    assert np.array_equal(frames[3].image, cv2.cvtColor(grey, cv2.COLOR_GRAY2BGR))


def test_missing_or_empty_folder_is_unavailable(tmp_path: Path):
    with pytest.raises(SourceUnavailable, match="no such folder"):
        FolderSource(tmp_path / "nope")
    with pytest.raises(SourceUnavailable, match="no images"):
        FolderSource(tmp_path)


def test_every_frame_written_is_in_frames_csv_on_disk_while_the_recorder_is_open(tmp_path: Path, make_frame):
    """A recording cut short keeps every frame listed: each row reaches the file as it is written, not at close."""
    out = tmp_path / "rec"
    recorder = Recorder(out)
    try:
        for i in range(5):
            recorder.write(Frame(make_frame(i), 10.0 + i / 10, i))
            on_disk = (out / "frames.csv").read_text().splitlines()
            assert len(on_disk) == 1 + (i + 1) and on_disk[-1].startswith(f"frame_{i:06d}.png,{i},")
        assert [f.index for f in FolderSource(out)] == list(range(5))  # replayable before close
    finally:
        recorder.close()


# --- video file ----------------------------------------------------------------


def test_video_file_gives_every_frame_then_ends(video_file: Path):
    with OpenCVSource(str(video_file)) as src:
        frames = list(src)
        assert src.health.state is HealthState.ENDED
    assert len(frames) == 12
    assert [square_x(f.image) for f in frames] == [10 * i for i in range(12)]
    assert [f.timestamp for f in frames] == pytest.approx([i / 10 for i in range(12)])
    assert all(f.image.shape == (120, 160, 3) for f in frames)


def test_video_file_loops(video_file: Path):
    src = OpenCVSource(str(video_file), loop=True)
    frames = [src.read() for _ in range(15)]
    assert square_x(frames[12].image) == 0
    assert frames[12].timestamp == pytest.approx(1.2)
    src.close()
    with pytest.raises(SourceUnavailable):
        src.read()


def test_video_that_is_not_a_video_is_unavailable(tmp_path: Path):
    bad = tmp_path / "broken.avi"
    bad.write_bytes(b"RIFF....AVI garbage")
    with pytest.raises(SourceUnavailable):
        OpenCVSource(str(bad))
    with pytest.raises(SourceUnavailable, match="no such video"):
        OpenCVSource(str(tmp_path / "absent.mp4"))


# --- pacing replays ---------------------------------------------------------------


def test_pacer_holds_a_replay_to_its_recorded_timing_without_catching_up():
    clock = FakeClock()
    pacer = Pacer(clock=clock, sleep=clock.sleep)
    start = clock.now
    pacer.wait(50.0)  # the first stamp is "now", whatever its value
    assert clock.now == start
    pacer.wait(50.5)
    assert clock.now == pytest.approx(start + 0.5)
    clock.now += 2.0  # the replay fell behind (a slow frame)
    pacer.wait(51.0)
    assert clock.now == pytest.approx(start + 2.5)  # late: no wait, and no frame dropped
    pacer.wait(53.0)
    assert clock.now == pytest.approx(start + 3.0)  # back on the recorded schedule
    assert clock.sleeps == pytest.approx([0.5, 0.5])


# --- checking frames --------------------------------------------------------------


def test_check_image_accepts_bgr_grey_and_bgra():
    img = np.random.default_rng(0).integers(0, 255, (40, 50, 3), dtype=np.uint8)
    assert check_image(img) is img
    assert check_image(img[:, :, 0]).shape == (40, 50, 3)
    assert check_image(np.dstack([img, img[:, :, :1]])).shape == (40, 50, 3)


@pytest.mark.parametrize(
    "bad, why",
    [
        (None, "no image"),
        (np.zeros((40, 50, 3), np.float32), "uint8"),
        (np.zeros((40, 50, 2), np.uint8), "shape"),
        (np.zeros((8, 8, 3), np.uint8), "too small"),
        (np.full((40, 50, 3), 7, np.uint8), "uniform"),
    ],
)
def test_check_image_refuses_broken_frames(bad, why):
    with pytest.raises(BrokenFrame, match=why):
        check_image(bad)


# --- retrying a camera that fails and comes back -------------------------------------


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


class FlakyCamera(FrameSource):
    """Delivers frames according to a script shared by every instance ('ok', 'broken', 'lost')."""

    opened = 0

    def __init__(self, script: list[str], image: np.ndarray) -> None:
        super().__init__()
        FlakyCamera.opened += 1
        self.script, self.image = script, image

    def read(self) -> Frame:
        step = self.script.pop(0) if self.script else "ok"
        if step == "broken":
            check_image(np.zeros((40, 40, 3), np.uint8))
        if step == "lost":
            raise OSError("device disconnected")
        return Frame(self.image, 0.0, 99)


def test_retrying_source_survives_a_camera_that_fails_to_open_then_comes_back(make_frame):
    clock = FakeClock()
    attempts = {"n": 0}

    def opener():
        attempts["n"] += 1
        if attempts["n"] <= 3:
            raise SourceUnavailable("no camera on /dev/video0")
        return FlakyCamera([], make_frame(1))

    src = RetryingSource(opener, backoff=Backoff(initial=0.5, factor=2, maximum=10), max_block_s=5, clock=clock, sleep=clock.sleep)
    failures = 0
    while True:
        try:
            frame = src.read()
            break
        except SourceUnavailable:
            failures += 1
            assert src.health.state is HealthState.LOST and not src.health.ok
    assert failures == 3 and attempts["n"] == 4
    assert clock.sleeps == [0.5, 1.0, 2.0]  # the backoff doubles between attempts
    assert frame.index == 0 and src.health.state is HealthState.OK and src.health.ok


def test_retrying_source_never_blocks_longer_than_max_block(make_frame):
    clock = FakeClock()

    def opener():
        raise SourceUnavailable("gone")

    src = RetryingSource(opener, backoff=Backoff(initial=30, maximum=30), max_block_s=1.0, clock=clock, sleep=clock.sleep)
    for _ in range(4):
        with pytest.raises(SourceUnavailable):
            src.read()
    assert max(clock.sleeps) <= 1.0
    assert src.health.failures == 1  # only one real attempt so far: the others were waits


def test_retrying_source_keeps_retrying_through_an_outage_of_a_day(make_frame):
    """The delay stays at its cap however many attempts fail (2.0 ** 1024 overflows a float)."""
    clock = FakeClock()
    back = {"after": 24 * 3600.0}

    def opener():
        if clock.now < back["after"]:
            raise SourceUnavailable("no camera on /dev/video0")
        return FlakyCamera([], make_frame(1))

    src = RetryingSource(opener, backoff=Backoff(initial=0.5, factor=2, maximum=10), max_block_s=10,
                         clock=clock, sleep=clock.sleep)
    while True:
        try:
            frame = src.read()
            break
        except SourceUnavailable:
            pass
    assert src.health.state is HealthState.OK and frame.index == 0
    assert len(clock.sleeps) > 5_000 and max(clock.sleeps) == 10


def test_retrying_source_reopens_after_a_loss_and_keeps_counting(make_frame):
    clock = FakeClock()
    FlakyCamera.opened = 0
    script = ["ok", "ok", "lost", "ok"]
    src = RetryingSource(lambda: FlakyCamera(script, make_frame(2)), clock=clock, sleep=clock.sleep)
    indices = []
    for _ in range(5):
        try:
            indices.append(src.read().index)
        except SourceUnavailable as exc:
            assert "device disconnected" in str(exc)
            assert src.health.state is HealthState.LOST
    assert indices == [0, 1, 2, 3] and FlakyCamera.opened == 2


def test_retrying_source_reports_broken_frames_and_reopens_after_a_burst(make_frame):
    clock = FakeClock()
    FlakyCamera.opened = 0
    script = ["ok", "broken", "ok", "broken", "broken", "broken", "ok"]
    src = RetryingSource(lambda: FlakyCamera(script, make_frame(3)), max_broken=3, clock=clock, sleep=clock.sleep)
    outcomes = []
    for _ in range(8):
        try:
            src.read()
            outcomes.append("ok")
        except BrokenFrame:
            outcomes.append("broken")
            assert src.health.state is HealthState.DEGRADED and src.health.ok
        except SourceUnavailable:
            outcomes.append("lost")
    assert outcomes == ["ok", "broken", "ok", "broken", "broken", "lost", "ok", "ok"]
    assert FlakyCamera.opened == 2


# --- the factory -------------------------------------------------------------------------


def test_parse_spec_understands_every_form(tmp_path: Path, video_file: Path):
    assert parse_spec("picamera2") == {"type": "picamera2", "camera_num": 0}
    assert parse_spec("picamera2:1") == {"type": "picamera2", "camera_num": 1}
    assert parse_spec("usb:2") == {"type": "usb", "target": 2}
    assert parse_spec("0") == {"type": "usb", "target": 0}
    assert parse_spec("/dev/video3") == {"type": "usb", "target": "/dev/video3"}
    assert parse_spec(str(tmp_path)) == {"type": "folder", "path": str(tmp_path)}
    assert parse_spec(str(video_file)) == {"type": "video", "path": str(video_file)}
    assert parse_spec("generated:seed=3,game=hazard,realtime=false,size=320x240") == {
        "type": "generated", "seed": 3, "game": "hazard", "realtime": False, "size": (320, 240)
    }
    assert parse_spec({"type": "folder", "path": "x", "loop": True}) == {"type": "folder", "path": "x", "loop": True}


@pytest.mark.parametrize("spec", ["", "nonsense-here", {"type": "webcam"}, "generated:seed"])
def test_parse_spec_refuses_what_names_nothing(spec):
    with pytest.raises(ValueError):
        parse_spec(spec)


def test_open_source_opens_files_and_wraps_live_cameras(image_folder: Path, video_file: Path):
    assert isinstance(open_source(f"folder:{image_folder}"), FolderSource)
    with open_source({"type": "video", "path": str(video_file), "loop": True}) as src:
        assert isinstance(src, OpenCVSource) and src.loop
    live = open_source("usb:63")
    assert isinstance(live, RetryingSource)  # no camera 63 here: retried, not fatal
    with pytest.raises(SourceUnavailable):
        live.read()
    assert live.health.state is HealthState.LOST
    live.close()


@pytest.mark.parametrize("spec, why", [
    ("generated:sede=3", "unknown option 'sede'"),
    ("generated:size=0x0", r"size=\(0, 0\): expected width x height"),
    ("generated:size=big", "size='big'"),
    ("generated:fps=0", "fps=0: expected a number of frames per second above 0"),
    ("generated:realtime=yes", "realtime='yes': expected true or false"),
    ({"type": "folder", "loop": True}, "missing option 'path'"),
    ({"type": "video", "path": "x.mp4", "target": 1}, "unknown option 'target'"),
    ({"type": "usb", "target": 0, "exposure": 5}, "camera source usb: unknown option 'exposure'"),
    ({"type": "picamera2", "fps": -30}, "camera source picamera2: fps=-30"),
    ({"type": "usb", "backoff": {"start": 1}}, "backoff="),
])
def test_open_source_refuses_options_the_source_cannot_use_at_once(spec, why):
    with pytest.raises(ValueError, match=why):
        open_source(spec)  # live cameras too: a typo is not retried for ever as a lost camera


def test_open_source_accepts_the_documented_options(image_folder: Path):
    with open_source("generated:seed=3,setting=cage,dice=3,size=320x240,realtime=1,fps=15") as src:
        assert isinstance(src, GeneratedSource)
        assert (src.seed, src.setting, src.dice, src.size, src.realtime, src.fps) == (3, "cage", 3, (320, 240), True, 15.0)
    with open_source({"type": "folder", "path": str(image_folder), "loop": True, "fps": 10}) as folder:
        assert isinstance(folder, FolderSource)
        assert folder.loop and folder.fps == 10
    open_source({"type": "usb", "target": 63, "size": [320, 240], "fps": 15, "backoff": {"initial": 1.0}}).close()


def test_open_source_of_a_missing_picamera2_is_unavailable_not_an_import_error(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "picamera2", None)  # makes `import picamera2` fail
    with pytest.raises(SourceUnavailable, match="Picamera2 is not installed"):
        open_source("picamera2", retry=False)


# --- the generated camera --------------------------------------------------------------


def test_generated_source_shows_the_thrown_values_at_rest_then_an_empty_table():
    src = GeneratedSource(seed=5, size=(320, 240), rest_s=0.5)
    idle = src.read()
    assert idle.meta["values"] == () and idle.meta["throw"] == 0
    assert src.throw([6, 2]) == 1
    frames = []
    while src.pending:
        frames.append(src.read())
    lead, frames = frames[: src.lead_frames], frames[src.lead_frames :]
    assert all(f.meta["values"] == () and not f.meta["moving"] for f in lead)  # the shooter picks up the dice
    moving = [f.meta["moving"] for f in frames]
    assert moving[0] and not all(moving)
    first_rest = moving.index(False)
    assert all(m for m in moving[:first_rest])
    hand = moving.index(True, first_rest)  # the dealer's hand comes for the dice
    resting = frames[first_rest:hand]
    assert len(resting) >= 15 and all(f.meta["values"] == (6, 2) for f in resting)
    assert frames[-1].meta["values"] == ()  # the dealer took the dice
    assert src.read().meta["values"] == ()
    assert [f.index for f in lead + frames] == list(range(1, len(lead) + len(frames) + 1))


def test_generated_source_is_deterministic_for_a_seed():
    def film(seed: int) -> list[np.ndarray]:
        src = GeneratedSource(seed=seed, size=(160, 120))
        src.throw([3, 4])
        return [src.read().image for _ in range(20)]

    a, b, c = film(1), film(1), film(2)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert not all(np.array_equal(x, y) for x, y in zip(a, c))


def test_generated_cage_keeps_its_dice_between_spins():
    src = GeneratedSource(seed=2, setting="cage", size=(320, 240), rest_s=0.3)
    assert len(src.read().meta["values"]) == 3  # dice lie in the dish from the start
    src.throw([1, 2, 3])
    while src.pending:
        last = src.read()
    assert sorted(last.meta["values"]) == [1, 2, 3]
    assert sorted(src.read().meta["values"]) == [1, 2, 3]


def test_generated_source_throws_the_count_of_dice_it_is_given_not_the_settings_usual():
    src = GeneratedSource(seed=4, setting="rail", dice=3, size=(320, 240), rest_s=0.3)
    src.throw([1, 2, 3])
    frames = []
    while src.pending:
        frames.append(src.read())
    assert any(f.meta["values"] == (1, 2, 3) and not f.meta["moving"] for f in frames)
    with pytest.raises(ValueError, match="throws 3 dice"):
        src.throw([1, 2])


@pytest.mark.parametrize("values, setting", [([1, 2, 3], "rail"), ([0, 4], "rail"), ([7, 1], "rail"), ([1, 2], "cage")])
def test_generated_source_refuses_impossible_throws(values, setting):
    src = GeneratedSource(seed=0, setting=setting, size=(160, 120))
    with pytest.raises(ValueError):
        src.throw(values)
    assert src.pending == 0


@pytest.mark.parametrize("options, why", [({"setting": "poker"}, "unknown setting 'poker'"),
                                          ({"dice": 0}, "dice=0"), ({"dice": True}, "dice=True")])
def test_generated_source_refuses_a_setting_or_count_of_dice_it_cannot_film(options, why):
    with pytest.raises(ValueError, match=why):
        GeneratedSource(seed=0, size=(160, 120), **options)


def test_generated_throw_can_end_with_touching_or_leaning_dice():
    src = GeneratedSource(seed=3, size=(320, 240), rest_s=0.3)

    def at_rest(**kind):
        src.throw([2, 5], **kind)
        frames = []
        while src.pending:
            frames.append(src.read())
        return [f.meta["label"] for f in frames if not f.meta["moving"] and f.meta["values"]]

    assert all(label.touching for label in at_rest(touching=True))
    leaning = at_rest(leaning=1)
    assert leaning and all([d.leaning for d in label.dice] == [False, True] for label in leaning)
    assert not any(label.touching for label in at_rest())


class FakeCapture:
    """A USB camera as cv2.VideoCapture shows it, following a script shared by every opening."""

    def __init__(self, script: list[str], image: np.ndarray) -> None:
        self.script, self.image, self.released = script, image, False

    def isOpened(self) -> bool:  # noqa: N802 - OpenCV's name
        return not (self.script and self.script[0] == "absent" and self.script.pop(0))

    def set(self, prop, value) -> bool:
        return True

    def get(self, prop) -> float:
        return 30.0

    def read(self):
        step = self.script.pop(0) if self.script else "ok"
        return (False, None) if step == "fail" else (True, self.image.copy())

    def release(self) -> None:
        self.released = True


def test_usb_camera_unplugged_and_plugged_back(monkeypatch, make_frame):
    import vision.sources.opencv as opencv_module

    script = ["ok", "fail", "ok", "fail", "fail", "fail", "absent", "absent", "ok"]
    opened: list[FakeCapture] = []

    def fake_capture(target):
        opened.append(FakeCapture(script, make_frame(5)))
        return opened[-1]

    monkeypatch.setattr(opencv_module.cv2, "VideoCapture", fake_capture)
    clock = FakeClock()
    src = RetryingSource(lambda: OpenCVSource(0), name="usb:0", max_broken=3, max_block_s=5, clock=clock, sleep=clock.sleep)
    outcomes = []
    for _ in range(9):
        try:
            src.read()
            outcomes.append("ok")
        except BrokenFrame:
            outcomes.append("broken")
        except SourceUnavailable:
            outcomes.append(src.health.state.value)
    # One failed grab is a broken frame; three in a row: unplugged. Reopening fails twice, then works.
    assert outcomes == ["ok", "broken", "ok", "broken", "broken", "lost", "lost", "lost", "ok"]
    assert opened[0].released and len(opened) == 4
    assert src.health.state is HealthState.OK


def test_a_usb_camera_read_waits_at_most_a_second(monkeypatch, make_frame):
    """A USB camera's read waits at most a second, unless the environment says otherwise."""
    import vision.sources.opencv as opencv_module

    monkeypatch.setattr(opencv_module.cv2, "VideoCapture", lambda target: FakeCapture([], make_frame(1)))
    monkeypatch.delenv("OPENCV_VIDEOIO_V4L_SELECT_TIMEOUT", raising=False)
    OpenCVSource(0).close()
    assert os.environ["OPENCV_VIDEOIO_V4L_SELECT_TIMEOUT"] == "1"  # OpenCV's default is 10 s
    monkeypatch.setenv("OPENCV_VIDEOIO_V4L_SELECT_TIMEOUT", "3")
    OpenCVSource(0).close()
    assert os.environ["OPENCV_VIDEOIO_V4L_SELECT_TIMEOUT"] == "3"
