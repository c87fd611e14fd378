"""The camera thread: whatever a frame source raises, the thread goes on reading."""
from __future__ import annotations

import logging
import sys
import time
import types

import numpy as np
import pytest

from controller.camera import CameraThread, source_spec
from controller.config import DEMO_SOURCE, validate
from vision.sources import open_source
from vision.sources.base import Frame, FrameSource, HealthState, SourceUnavailable


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


def camera_config(**camera):
    return validate({"camera": {"width": 1280, "height": 960, "fps": 15, **camera}}, DEMO_SOURCE)


@pytest.mark.parametrize("camera, kind", [({"source": "picamera2"}, "picamera2"), ({"source": "opencv", "device": 1}, "usb")])
def test_live_cameras_are_asked_for_the_configured_size_and_frame_rate(camera, kind):
    spec = source_spec(camera_config(**camera))
    assert spec["type"] == kind and spec["size"] == (1280, 960) and spec["fps"] == 15
    assert "full_size" not in spec
    full = source_spec(camera_config(**camera, full_width=2560, full_height=1920))
    assert full["full_size"] == (2560, 1920) and full["size"] == (1280, 960)


def test_a_folder_of_big_frames_gives_small_and_full_frames(tmp_path):
    import cv2

    from vision.sources import open_source

    big = np.random.default_rng(1).integers(0, 255, (960, 1280, 3), dtype=np.uint8)
    cv2.imwrite(str(tmp_path / "f1.png"), big)
    config = camera_config(source="folder", path=str(tmp_path), width=640, height=480, full_width=1280,
                           full_height=960)
    with open_source(source_spec(config), retry=False) as src:
        frame = src.read()
    assert frame.image.shape == (480, 640, 3) and (frame.full == big).all()


def test_a_pipeline_reads_the_full_frame_finds_on_the_small_one_and_journals_the_model():
    import cv2

    from controller.camera import ReadPipeline, read_event
    from vision.reader import read_dice
    from vision.scenes import render_scene

    calls = []

    def reader(image, expect, calibration, model=None, finding=None):
        calls.append((image.shape, None if finding is None else finding.shape, model.digest))
        return read_dice(image, expect=expect, calibration=calibration, model=model, finding=finding)

    pipeline = ReadPipeline("craps", None, fps=30, reader=reader)
    full, label = render_scene(2, (3, 4), "rail", size=(1280, 960), tilt=0.0)
    read = pipeline._read(Frame(cv2.resize(full, (640, 480)), 0.0, 0, full=full))
    assert calls == [((960, 1280, 3), (480, 640, 3), pipeline.model.digest)]
    assert sorted(read.values) == [3, 4]
    assert read_event(read, "f.jpg", (1280, 960), pipeline.model.digest)["model"] == pipeline.model.digest


class RecordingCapture:
    """``cv2.VideoCapture`` of a USB camera that records what it is asked to set."""

    def __init__(self, target) -> None:
        self.target, self.props = target, dict[int, float]()

    def isOpened(self) -> bool:  # noqa: N802 - OpenCV's name
        return True

    def set(self, prop, value) -> bool:
        self.props[prop] = value
        return True

    def get(self, prop) -> float:
        return self.props.get(prop, 30.0)

    def release(self) -> None:
        pass


def test_the_usb_camera_opened_from_the_configuration_gets_its_size_and_rate(monkeypatch):
    import cv2

    import vision.sources.opencv as opencv_module

    opened: list[RecordingCapture] = []

    def capture(target) -> RecordingCapture:
        opened.append(RecordingCapture(target))
        return opened[-1]

    monkeypatch.setattr(opencv_module.cv2, "VideoCapture", capture)
    with open_source(source_spec(camera_config(source="opencv", device=1)), retry=False) as src:
        assert src.fps == 15
    props = opened[0].props
    assert opened[0].target == 1
    assert (props[cv2.CAP_PROP_FRAME_WIDTH], props[cv2.CAP_PROP_FRAME_HEIGHT], props[cv2.CAP_PROP_FPS]) == (1280, 960, 15)


def test_the_pi_camera_opened_from_the_configuration_gets_its_size_and_rate(monkeypatch):
    configured: list[tuple] = []

    class Picamera2:
        def __init__(self, camera_num: int = 0) -> None:
            pass

        def create_still_configuration(self, main=None, buffer_count=1, controls=None):
            configured.append((main["size"], controls["FrameDurationLimits"]))

        def configure(self, config) -> None:
            pass

        def start(self) -> None:
            pass

        def stop(self) -> None:
            pass

        def close(self) -> None:
            pass

    monkeypatch.setitem(sys.modules, "picamera2", types.SimpleNamespace(Picamera2=Picamera2))
    open_source(source_spec(camera_config(source="picamera2")), retry=False).close()
    assert configured == [((1280, 960), (66667, 66667))]


def test_a_cage_that_turns_longer_than_the_settle_timeout_is_still_read():
    """The settle timeout counts from the start of the spin: a long spin must not end every roll as no_read."""
    from controller.camera import ReadPipeline
    from vision.model import DiceRead, Die, ReadStatus

    fps, spin_s = 10.0, 12.0
    reads = []

    def reader(image, expect, calibration, **_):
        reads.append(image)
        return DiceRead(ReadStatus.OK, tuple(Die(v, 0.99, (10 * v, 10, 8, 8)) for v in (1, 2, 3)))

    pipeline = ReadPipeline("hazard", None, fps=fps, spin_s=spin_s, reader=reader)
    rng = np.random.default_rng(1)
    turning = [rng.integers(0, 255, (48, 64, 3), dtype=np.uint8) for _ in range(int((spin_s - 0.5) * fps))]
    rest = [np.full((48, 64, 3), 120, np.uint8)] * 20
    pipeline.arm()
    events = [e for i, image in enumerate(turning + rest) if (e := pipeline.feed(Frame(image, i / fps, i)))]
    assert [(e["status"], e["dice"]) for e in events] == [("ok", [1, 2, 3])] and len(reads) == 1


def test_dice_found_at_rest_after_a_restart_go_to_the_dealer(tmp_path):
    """After a restart at ``locked``, dice found at rest are read for the dealer: they may have landed
    while the service was down (or be the last roll's), so they never settle alone; a later throw
    replaces their read and is read as usual."""
    from controller.camera import AT_REST_REASON, ReadPipeline
    from controller.journal import Journal
    from controller.rules import TableConfig
    from controller.table import JournaledTable, Phase
    from vision.model import Calibration, DiceRead, Die, ReadStatus

    values = iter([(5, 6), (5, 6), (2, 3)])

    def reader(image, expect, calibration, **_):
        return DiceRead(ReadStatus.OK, tuple(Die(v, 0.99, (10 * v, 10, 8, 8)) for v in next(values)))

    felt = np.full((120, 160, 3), (50, 120, 30), np.uint8)

    def with_die(x, y):
        image = felt.copy()
        image[y:y + 14, x:x + 14] = (40, 30, 200)
        return image

    pipeline = ReadPipeline("craps", None, fps=30, calibration=Calibration(die_size_px=14), empty=felt, reader=reader)
    pipeline.arm(at_rest=True)
    throw = [with_die(20 + 8 * k, 30 + 4 * k) for k in range(10)]
    nudged = [with_die(41 + k, 40) for k in range(3)]  # the dealer leans in: the same dice, no throw
    taken = [felt] * 30  # the stick takes the dice to the shooter
    images = [with_die(40, 40)] * 60 + nudged + [with_die(43, 40)] * 30 + taken + throw + [with_die(100, 70)] * 30
    events = [e for i, image in enumerate(images) if (e := pipeline.feed(Frame(image, i / 30, i)))]
    assert [(e["status"], e["dice"]) for e in events] == [("uncertain", [5, 6]), ("uncertain", [5, 6]), ("ok", [2, 3])]
    assert events[0]["reason"] == events[1]["reason"] == AT_REST_REASON and "reason" not in events[2]
    with Journal.open(tmp_path) as journal:
        table = JournaledTable.open(journal, "craps", TableConfig())
        table.submit({"event": "lock"})
        assert table.submit(events[0]).accepted and table.state.phase is Phase.PENDING
        assert table.state.pending.confirmable(2)  # the display says ConF: CONFIRM settles it, VOID throws again
        assert table.submit(events[1]).accepted and table.state.phase is Phase.PENDING  # nudged: still waits
        settled = table.submit(events[2])
        assert settled.accepted and table.state.phase is Phase.BETTING and table.state.last_roll == (2, 3)


class GoneThenBack(FrameSource):
    """A camera unplugged for a few reads, then plugged back in."""

    def __init__(self, gone: int) -> None:
        super().__init__()
        self.gone, self.reads = gone, 0

    def read(self) -> Frame:
        self.reads += 1
        if self.reads <= self.gone:
            raise SourceUnavailable(f"usb:0: unavailable, try {self.reads}")
        time.sleep(0.01)
        self._set_health(HealthState.OK)
        return Frame(np.full((48, 64, 3), 90, np.uint8), self.reads / 30.0, self.reads)


def test_a_camera_outage_is_logged_once_and_its_end_once(caplog):
    pipeline = Counting()
    thread = CameraThread(GoneThenBack(gone=3), pipeline, sink=lambda event: None).start()  # type: ignore[arg-type]
    try:
        deadline = time.monotonic() + 10
        while pipeline.fed < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        thread.close()
    said = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING and r.name == "controller.camera"]
    assert said == ["camera unavailable: usb:0: unavailable, try 1", "camera delivering again"]


class Waiting(FrameSource):
    """A camera that gives nothing yet; its health is set by the test."""

    def read(self) -> Frame:
        time.sleep(0.02)
        raise SourceUnavailable("usb:0: no frame yet")


def test_a_camera_still_starting_is_not_lost_but_a_lost_or_ended_one_is():
    source = Waiting()
    thread = CameraThread(source, Counting(), sink=lambda event: None).start()  # type: ignore[arg-type]
    try:
        assert source.health.state is HealthState.STARTING and not thread.lost()  # the first frame is coming
        for state in (HealthState.LOST, HealthState.ENDED):
            source._set_health(state, "unplugged")
            assert thread.lost()
        source._set_health(HealthState.OK)
        assert not thread.lost()
    finally:
        thread.close()
    assert thread.lost()  # a stopped thread reads nothing


def test_a_read_event_keeps_the_dice_boxes_and_the_frame_size(tmp_path):
    """A read event keeps each die's box and the frame's size, and the journal and the table take it:
    the boxes let a frame the dealer rules on be labelled die by die (`journal frames --yolo`)."""
    from controller.camera import ReadPipeline
    from controller.journal import Journal
    from controller.rules import TableConfig
    from controller.table import JournaledTable, Phase
    from vision.sources import GeneratedSource

    camera = GeneratedSource(seed=5, fps=30, size=(640, 480), rest_s=0.4)
    pipeline = ReadPipeline("craps", tmp_path / "frames", fps=30)
    pipeline.arm()
    camera.throw([2, 6])
    event = None
    for _ in range(400):
        if not camera.pending or event is not None:
            break
        event = pipeline.feed(camera.read())
    camera.close()
    assert event is not None and event["size"] == [640, 480] and len(event["dice"]) == 2
    assert len(event["boxes"]) == 2
    for x, y, w, h in event["boxes"]:
        assert all(type(v) is int for v in (x, y, w, h)) and 0 <= x < x + w <= 640 and 0 <= y < y + h <= 480
    with Journal.open(tmp_path / "state") as journal:
        table = JournaledTable.open(journal, "craps", TableConfig())
        table.submit({"event": "lock"})
        assert table.submit(event).accepted and table.state.phase in (Phase.BETTING, Phase.PENDING)
        stored = [e.event for e in journal.entries() if e.event.get("event") == "read"]
    assert stored == [event]


def test_a_read_events_boxes_follow_its_dice():
    """Labels are made by pairing the two lists: each box must be the box of the die at its place."""
    from controller.camera import read_event
    from vision.model import DiceRead, Die, ReadStatus

    read = DiceRead(ReadStatus.UNCERTAIN, (Die(6, 0.7, (300, 10, 40, 41)), Die(1, 0.99, (12, 200, 39, 40))), "", 9.0)
    event = read_event(read, "f.jpg", (640, 480))
    assert event["dice"] == [6, 1] and event["boxes"] == [[300, 10, 40, 41], [12, 200, 39, 40]]
    assert event["size"] == [640, 480]
    assert "boxes" not in read_event(DiceRead(ReadStatus.NO_READ, (), "no dice"), None, (640, 480))


@pytest.mark.parametrize("game", ["craps", "hazard"])
def test_the_generated_camera_lays_dice_for_a_start_mid_roll(game):
    """The generated camera lays the dice for a start in the middle of a roll, as at a real table whose
    dice landed while the service was down: they lie in view from the first frame, no throw is
    filmed, and their read goes to the dealer, never settled alone."""
    from controller.camera import AT_REST_REASON, ReadPipeline, generated_options
    from vision.sources import GeneratedSource

    source = GeneratedSource(seed=5, **generated_options(game), size=(640, 480), rest_s=0.5)
    pipeline = ReadPipeline(game, None, fps=30, empty=source.empty_picture())
    camera = CameraThread(source, pipeline, sink=lambda event: None, seed=3)  # not started: fed here
    camera.expect_roll(at_rest=True)
    frames = [source.read() for _ in range(90)]
    reads = [event for event in map(pipeline.feed, frames) if event is not None]
    source.close()
    assert not any(frame.meta["moving"] for frame in frames[: source.rest_frames])
    laid = {frame.meta["values"] for frame in frames if frame.meta["values"]}
    assert len(laid) == 1 and len(reads) == 1  # the hand taking them (rail) is no second roll
    assert reads[0]["status"] == "uncertain" and reads[0]["reason"].startswith(AT_REST_REASON)
    assert sorted(reads[0]["dice"]) == sorted(laid.pop())


@pytest.mark.parametrize("game, thrown", [("craps", True), ("hazard", True), ("hazard", False)])
def test_the_generated_camera_throws_only_dice_that_are_thrown(game, thrown):
    """A voided read in the cage leaves its dice lying until LOCK spins the cage again."""
    from controller.camera import ReadPipeline, generated_options
    from vision.sources import GeneratedSource

    source = GeneratedSource(seed=5, **generated_options(game), size=(320, 240), rest_s=0.5)
    camera = CameraThread(source, ReadPipeline(game, None, fps=30), sink=lambda event: None)
    camera.expect_roll(thrown=thrown)
    assert (source.pending > 0) is thrown
    source.close()


def test_a_table_recovered_mid_roll_arms_the_camera_before_its_first_frame(tmp_path, monkeypatch):
    """Armed after the camera began, the frames read meanwhile (the generated table still empty)
    could pass for the landing area seen empty, and the dice laid then for a throw settled alone."""
    from controller.camera import start_camera
    from controller.config import load

    config_file = tmp_path / "table.toml"
    config_file.write_text('[table]\nstate_dir = "state"\n[camera]\nsource = "scenes"\n[display]\nport = "none"\n')
    seen = []

    def start(self):
        seen.append((self.source.pending, self.pipeline._arm_at_rest.is_set(), self.source._count))
        return self

    monkeypatch.setattr(CameraThread, "start", start)
    camera = start_camera(load(config_file), sink=lambda event: None, roll_under_way=True, at_rest=True)
    camera.source.close()
    pending, at_rest, frames_read = seen[0]
    assert pending > 0 and at_rest and frames_read == 0


@pytest.mark.parametrize("game", ["craps", "hazard", "bang"])
def test_the_generated_camera_of_a_game_films_the_rules_count_of_dice_where_they_lie(game):
    """`generated:game=G` on a command line or in a configuration: the camera knows no games, so the
    app gives it the game's setting and the count of dice the rules say the game throws."""
    from controller.camera import SETTING, open_camera
    from controller.rules import DICE
    from vision.sources import GeneratedSource

    with open_camera(f"generated:seed=3,game={game},size=160x120") as source:
        assert isinstance(source, GeneratedSource)
        assert (source.setting, source.dice) == (SETTING[game], DICE[game])
        source.throw([1] * DICE[game])
        with pytest.raises(ValueError, match=f"throws {DICE[game]} dice"):
            source.throw([1] * (DICE[game] + 1))
    with open_camera({"type": "generated", "size": (160, 120)}, game=game) as source:  # an override: --game
        assert source.dice == DICE[game]


def test_a_generated_camera_of_an_unknown_game_is_refused_naming_the_games():
    from controller.camera import open_camera

    with pytest.raises(ValueError, match="game='poker': expected one of craps, bang, hazard"):
        open_camera("generated:game=poker")
