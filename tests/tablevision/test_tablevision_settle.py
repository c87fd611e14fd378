"""Settle detection on generated sequences whose truth is known frame by frame."""
from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np
import pytest

from vision.benchtool.scenarios import SCENARIOS, build
from vision.settle import SettleConfig, SettleDetector, Settled, Unsettled
from vision.sources.base import Frame

SIZE = (320, 240)  # small frames keep the suite fast; the benchmark runs 640x480


@lru_cache(maxsize=None)
def filmed(name: str, seed: int):
    sc = build(name, seed, SIZE)
    return sc, tuple(sc.frames())


def run(name: str, seed: int, **config):
    sc, frames = filmed(name, seed)
    cfg = SettleConfig(mode="cage" if name == "cage" else "rail", die_size_px=sc.table.die_size, **config)
    det = SettleDetector(cfg, landing_mask=sc.table.landing, empty=sc.table.background)
    events = [e for e in map(det.feed, frames) if e is not None]
    return sc, frames, det, events


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("name", [n for n in SCENARIOS if n != "never_settles"])
def test_exactly_one_still_frame_per_roll_never_a_moving_one(name, seed):
    sc, frames, det, events = run(name, seed)
    settled = [e for e in events if isinstance(e, Settled)]
    assert not [e for e in events if isinstance(e, Unsettled)]
    assert len(settled) == len(sc.rests), f"{name}: rolls at rest from {sc.rests}, handed out {[e.frame.index for e in settled]}"
    still_frames = det.config.frames(det.config.still_s)
    for event, rest, values in zip(settled, sc.rests, sc.values):
        truth = frames[event.frame.index].meta
        assert not truth["moving"], f"frame {event.frame.index} handed out while something moved"
        assert event.frame.index >= rest
        assert sorted(truth["values"]) == sorted(values)
        assert event.frame.index - rest <= still_frames + 2, "handed out later than needed"
        assert event.rest_index <= event.frame.index
    assert [e.roll for e in settled] == list(range(1, len(settled) + 1))


def test_a_roll_that_never_settles_is_reported_once_and_never_handed_out():
    sc, frames, det, events = run("never_settles", 0, timeout_s=5.0)
    assert [type(e) for e in events] == [Unsettled]
    event = events[0]
    assert event.frame.index - event.since_index == det.config.frames(5.0)
    assert "no rest" in event.reason
    # When the die stops at last, the dealer has decided that roll: it is not the next one.
    last = frames[-1]
    after = [Frame(last.image, 0, last.index + 1 + k) for k in range(30)]
    assert [e for e in map(det.feed, after) if e] == []


def test_a_hand_resting_too_long_after_a_throw_times_out():
    rng = np.random.default_rng(10)
    base = felt(rng)
    rolling = [with_die(base, 20 + 6 * k, 30 + 3 * k) for k in range(10)]
    hand = with_die(base, 60, 60)
    cv2.ellipse(hand, (80, 119), (30, 26), 0, 0, 360, (120, 150, 200), -1)  # the dealer's hand over the die, at the edge
    det = SettleDetector(SettleConfig(die_size_px=14, timeout_s=2.0), empty=base)
    events = [e for e in map(det.feed, stream([base] * 10 + rolling + [hand] * 80)) if e]
    assert [type(e) for e in events] == [Unsettled]


def test_bumped_dice_hand_a_single_frame_showing_where_they_stopped():
    sc, frames, det, events = run("bump_before", 0)
    (event,) = events
    # The bump ends at sc.rests[0]; any frame before it shows the die elsewhere.
    assert event.frame.index >= sc.rests[0]


def test_hand_resting_on_the_empty_table_is_not_a_roll():
    sc, frames, det, events = run("hand_on_empty", 1)
    assert events == [] and det.armed  # still waiting for the throw


def test_longer_still_period_adds_exactly_that_delay():
    _, _, _, short = run("roll", 0, still_s=0.2)
    _, _, _, long = run("roll", 0, still_s=0.5)
    assert long[0].frame.index - short[0].frame.index == 15 - 6
    assert long[0].rest_index == short[0].rest_index


# --- synthetic streams for single behaviours ---------------------------------------------


def felt(rng: np.random.Generator, size=(160, 120)) -> np.ndarray:
    w, h = size
    img = np.empty((h, w, 3), np.uint8)
    img[:] = (50, 120, 30)
    return cv2.add(img, rng.normal(0, 3, (h, w, 3)).astype(np.int16), dtype=cv2.CV_8U)


def with_die(base: np.ndarray, x: float, y: float, side: int = 14) -> np.ndarray:
    """A red square at a sub-pixel position, edges blended as a camera would see them."""
    m = np.array([[1, 0, x], [0, 1, y]], np.float32)
    h, w = base.shape[:2]
    alpha = cv2.warpAffine(np.ones((side, side), np.float32), m, (w, h))[:, :, None]
    red = np.array((40, 30, 200), np.float32)
    return (base.astype(np.float32) * (1 - alpha) + red * alpha).round().astype(np.uint8)


def stream(images):
    return [Frame(im, i / 30, i) for i, im in enumerate(images)]


def test_a_die_creeping_slowly_is_not_taken_for_still():
    rng = np.random.default_rng(0)
    base = felt(rng)
    # An eighth of a pixel per frame (4 px/s): too little between two frames to count as
    # motion, but half a pixel within the still period.
    creep = [with_die(base, 40 + k / 8, 50) for k in range(96)]
    rest = [with_die(base, 52, 50)] * 20
    images = [base] * 10 + creep + rest
    images = [cv2.add(im, rng.normal(0, 2, im.shape).astype(np.int16), dtype=cv2.CV_8U) for im in images]
    det = SettleDetector(SettleConfig(die_size_px=14), empty=base)
    events = [e for e in map(det.feed, stream(images)) if e]
    assert len(events) == 1 and isinstance(events[0], Settled)
    assert events[0].frame.index >= 10 + 96  # only once the creeping has stopped


def test_sensor_noise_alone_is_never_motion():
    rng = np.random.default_rng(1)
    base = felt(rng)
    det = SettleDetector(SettleConfig(die_size_px=14), empty=base)
    det.arm()
    for frame in stream([cv2.add(base, rng.normal(0, 4, base.shape).astype(np.int16), dtype=cv2.CV_8U) for _ in range(60)]):
        assert det.feed(frame) is None
        assert det.state != "moving"


def test_the_cage_waits_for_a_spin_or_the_controllers_arm():
    rng = np.random.default_rng(2)
    base = felt(rng)
    a, b, c = with_die(base, 30, 30), with_die(base, 90, 60), with_die(base, 50, 80)
    shake = [with_die(base, 30 + 7 * (k % 5), 30 + 5 * (k % 3)) for k in range(12)]  # 0.4 s of motion: no spin
    det = SettleDetector(SettleConfig(mode="cage", spin_s=1.0, die_size_px=14))
    assert [e for e in map(det.feed, stream([a] * 10 + shake + [b] * 20)) if e] == []
    det.arm()  # the controller started the motor
    events = [e for e in map(det.feed, stream(shake + [c] * 20)) if e]
    assert [type(e) for e in events] == [Settled]
    spin = [with_die(base, 20 + (5 * k) % 80, 40) for k in range(40)]  # 1.3 s of motion: a spin
    events = [e for e in map(det.feed, stream(spin + [b] * 20)) if e]
    assert [type(e) for e in events] == [Settled]
    assert events[0].roll == 2


def test_dice_at_rest_when_armed_are_handed_out_once_only_when_asked():
    # A restart in the middle of a roll: the dice landed while nothing watched, so no motion comes.
    rng = np.random.default_rng(3)
    base = felt(rng)
    lying, thrown = with_die(base, 40, 40), with_die(base, 100, 70)
    throw = [with_die(base, 20 + 8 * k, 30 + 4 * k) for k in range(10)]
    asked = SettleDetector(SettleConfig(die_size_px=14), empty=base)
    asked.arm(at_rest=True)  # before the first frame: a new stream keeps the order
    events = [e for e in map(asked.feed, stream([lying] * 60)) if e]
    assert [(type(e), e.at_rest) for e in events] == [(Settled, True)] and asked.armed
    # A die nudged is still no throw: read again, still marked.
    events = [e for e in map(asked.feed, stream([lying] * 10 + [with_die(base, 41 + k, 40) for k in range(3)]
                                                + [with_die(base, 43, 40)] * 30)) if e]
    assert [(type(e), e.at_rest, e.roll) for e in events] == [(Settled, True, 2)] and asked.armed
    # Still armed: once the stick has taken the dice, a throw is the roll, handed out unmarked.
    events = [e for e in map(asked.feed, stream([base] * 30 + throw + [thrown] * 30)) if e]
    assert [(type(e), e.at_rest, e.roll) for e in events] == [(Settled, False, 3)] and not asked.armed
    plain = SettleDetector(SettleConfig(die_size_px=14), empty=base)
    plain.arm()  # not asked: dice lying since before the arm are never read
    assert [e for e in map(plain.feed, stream([lying] * 60)) if e] == []


def test_an_empty_table_at_rest_hands_out_nothing_even_when_asked():
    rng = np.random.default_rng(4)
    base = felt(rng)
    det = SettleDetector(SettleConfig(die_size_px=14), empty=base)
    det.arm(at_rest=True)
    assert [e for e in map(det.feed, stream([base] * 60)) if e] == []
    throw = [with_die(base, 20 + 8 * k, 30 + 4 * k) for k in range(10)]
    events = [e for e in map(det.feed, stream([base] * 60 + throw + [with_die(base, 100, 70)] * 30)) if e]
    assert [(type(e), e.at_rest) for e in events] == [(Settled, False)]


def test_the_cage_hands_out_dice_at_rest_when_asked_and_a_disarm_cancels_the_ask():
    rng = np.random.default_rng(5)
    base = felt(rng)
    still = with_die(base, 50, 50)
    det = SettleDetector(SettleConfig(mode="cage", die_size_px=14))
    det.arm(at_rest=True)
    assert [(type(e), e.at_rest) for e in map(det.feed, stream([still] * 30)) if e] == [(Settled, True)]
    assert not det.armed  # the cage's next roll comes with a spin
    det = SettleDetector(SettleConfig(mode="cage", die_size_px=14))
    det.arm(at_rest=True)
    det.disarm()
    det.arm()
    assert [e for e in map(det.feed, stream([still] * 30)) if e] == []


def test_a_throw_is_timed_from_its_own_motion():
    """A throw long after a hand passed over the empty table is timed from its own motion."""
    # The detector armed itself on the empty table; a hand passed; the throw came much later.
    rng = np.random.default_rng(6)
    base = felt(rng)
    passing = [with_die(base, 12 * k, 60) for k in range(12)]
    throw = [with_die(base, 20 + 8 * k, 30 + 4 * k) for k in range(10)]
    det = SettleDetector(SettleConfig(die_size_px=14, timeout_s=2.0), empty=base)
    images = [base] * 30 + passing + [base] * 120 + throw + [with_die(base, 100, 70)] * 30
    events = [e for e in map(det.feed, stream(images)) if e]
    assert [(type(e), e.frame.index >= 30 + 12 + 120 + 10) for e in events] == [(Settled, True)]


def test_dice_at_rest_stay_marked_when_touched_before_the_camera_saw_them_still():
    # A restart with the last roll's dice lying; the dealer nudges one before the first still period.
    rng = np.random.default_rng(7)
    base = felt(rng)
    nudged = [with_die(base, 40 + k, 40) for k in range(4)]
    det = SettleDetector(SettleConfig(die_size_px=14), empty=base)
    det.arm(at_rest=True)
    events = [e for e in map(det.feed, stream([with_die(base, 40, 40)] * 3 + nudged + [with_die(base, 44, 40)] * 30)) if e]
    assert [(type(e), e.at_rest) for e in events] == [(Settled, True)]


def test_the_ask_for_dice_at_rest_lapses():
    """The ask for dice at rest lapses once the table is seen empty, or a roll times out."""
    rng = np.random.default_rng(8)
    base = felt(rng)
    throw = [with_die(base, 20 + 8 * k, 30 + 4 * k) for k in range(10)]
    det = SettleDetector(SettleConfig(die_size_px=14), empty=base)
    det.arm(at_rest=True)
    events = [e for e in map(det.feed, stream([base] * 30 + throw + [with_die(base, 100, 70)] * 30)) if e]
    assert [(type(e), e.at_rest) for e in events] == [(Settled, False)]  # thrown after the restart: the roll
    det = SettleDetector(SettleConfig(mode="cage", die_size_px=14, timeout_s=1.0))
    det.arm(at_rest=True)
    shaking = [with_die(base, 30 + 7 * (k % 5), 30 + 5 * (k % 3)) for k in range(40)]
    assert [type(e) for e in map(det.feed, stream(shaking)) if e] == [Unsettled]
    assert [e for e in map(det.feed, stream([with_die(base, 50, 50)] * 30)) if e] == []  # disarmed
    det.arm()  # the dealer voided the roll that never settled: the dice lying now are not to be read
    assert [e for e in map(det.feed, stream([with_die(base, 50, 50)] * 30)) if e] == []


def test_disarmed_detector_hands_out_nothing():
    sc, frames = filmed("roll", 0)
    det = SettleDetector(SettleConfig(die_size_px=sc.table.die_size), landing_mask=sc.table.landing, empty=sc.table.background)
    events = []
    for frame in frames:
        det.disarm()
        events.append(det.feed(frame))
    assert not any(events)


def test_frame_size_change_starts_over_without_failing():
    """A camera reopened at another size: the detector learns the new empty table and reads the next roll."""
    rng = np.random.default_rng(3)
    small, big = felt(rng, (160, 120)), felt(rng, (320, 240))
    roll_small = [with_die(small, 20 + 6 * k, 30 + 3 * k) for k in range(10)]
    roll_big = [with_die(big, 40 + 9 * k, 60 + 4 * k) for k in range(10)]
    det = SettleDetector(SettleConfig(die_size_px=14))
    images = [small] * 10 + roll_small + [roll_small[-1]] * 10 + [big] * 10 + roll_big + [roll_big[-1]] * 10
    events = [(i, e) for i, e in enumerate(det.feed(Frame(im, i / 30, i)) for i, im in enumerate(images)) if e]
    assert [type(e) for _, e in events] == [Settled, Settled]
    assert 20 <= events[0][0] < 30 and events[1][0] >= 30 + 10 + 10  # the second roll only once it lay still


@pytest.mark.parametrize("size", [float("nan"), float("inf"), 0.0, -3.0])
def test_a_die_size_that_is_no_size_is_refused_at_once(size):
    """A die size that is no size is refused when it is configured, not at the first frame."""
    with pytest.raises(ValueError, match="die_size_px must be a positive number of pixels"):
        SettleConfig(die_size_px=size)


def test_plain_arrays_are_accepted_and_bad_modes_refused():
    rng = np.random.default_rng(4)
    det = SettleDetector(SettleConfig(die_size_px=14))
    assert det.feed(felt(rng)) is None
    with pytest.raises(ValueError):
        SettleDetector(SettleConfig(mode="table"))  # type: ignore[arg-type]


def test_arming_while_the_dice_are_still_moving_counts_that_motion():
    """The table may learn of the throw (or the cage's motor stopping) after the dice started moving."""
    rng = np.random.default_rng(5)
    base = felt(rng)
    moving = [with_die(base, 20 + 4 * k, 40) for k in range(12)]  # 0.4 s: too short to arm the cage by itself
    det = SettleDetector(SettleConfig(mode="cage", die_size_px=14))
    frames = stream([base] * 10 + moving + [moving[-1]] * 20)
    events = []
    for frame in frames:
        if frame.index == 10 + 12 + 2:  # armed just after the dice stopped, before the still period ended
            det.arm()
        events.append(det.feed(frame))
    settled = [e for e in events if e]
    assert [type(e) for e in settled] == [Settled] and settled[0].frame.index >= 22


def test_arming_long_after_the_dice_stopped_waits_for_new_motion():
    rng = np.random.default_rng(6)
    base = felt(rng)
    moving = [with_die(base, 20 + 4 * k, 40) for k in range(12)]
    det = SettleDetector(SettleConfig(mode="cage", die_size_px=14))
    frames = stream([base] * 10 + moving + [moving[-1]] * 30)
    for frame in frames:
        if frame.index == 40:
            det.arm()
        assert det.feed(frame) is None


def test_arming_twice_does_not_forget_the_throw_in_progress():
    sc, frames = filmed("cage", 0)
    det = SettleDetector(SettleConfig(mode="cage", die_size_px=sc.table.die_size), landing_mask=sc.table.landing)
    events = []
    for frame in frames:
        if frame.meta["moving"]:
            det.arm()  # the controller arming again and again while the cage turns
        events.append(det.feed(frame))
    assert len([e for e in events if isinstance(e, Settled)]) == len(sc.rests)


def test_fingers_resting_at_the_edge_are_not_a_roll_but_a_die_there_is():
    rng = np.random.default_rng(7)
    base = felt(rng)
    hand = base.copy()
    cv2.ellipse(hand, (80, 119), (22, 18), 0, 0, 360, (120, 150, 200), -1)  # palm and fingers, cut by the frame's edge
    reaching = [base.copy() for _ in range(6)]
    for k, im in enumerate(reaching):
        cv2.ellipse(im, (80, 140 - 4 * k), (22, 18), 0, 0, 360, (120, 150, 200), -1)
    det = SettleDetector(SettleConfig(die_size_px=14), empty=base)
    events = [e for e in map(det.feed, stream([base] * 10 + reaching + [hand] * 30)) if e]
    assert events == []
    die = with_die(base, 70, 104)  # a die at the same edge, wholly inside the frame
    rolling = [with_die(base, 70 + 3 * k, 60 + 4 * k) for k in range(-8, 0)]
    events = [e for e in map(det.feed, stream([base] * 10 + rolling + [die] * 20)) if e]
    assert [type(e) for e in events] == [Settled]


@pytest.mark.parametrize("setting", ["rail", "cage"])
def test_the_demo_camera_and_the_detector_agree_roll_after_roll(setting, drain_throw):
    """As the demo plays: no calibration, armed at each lock, frames read only while a throw plays."""
    from vision.sources import GeneratedSource

    src = GeneratedSource(seed=8, setting=setting, size=(320, 240), rest_s=0.4)
    det = SettleDetector(SettleConfig(mode=setting))
    rng = np.random.default_rng(8)
    for roll in range(1, 4):
        values = [int(v) for v in rng.integers(1, 7, src.dice)]
        det.arm()
        src.throw(values)
        settled = drain_throw(src, det)
        assert [type(e) for e in settled] == [Settled]
        assert sorted(settled[0].frame.meta["values"]) == sorted(values)
        assert not settled[0].frame.meta["moving"] and settled[0].roll == roll


def test_flickering_light_is_not_motion():
    """Some lamps flicker at mains frequency: the whole picture brightens and dims from frame to frame."""
    rng = np.random.default_rng(9)
    base = cv2.add(felt(rng), np.full((120, 160, 3), 60, np.uint8))  # a bright felt, where 12% is 20 levels
    rolling = [with_die(base, 20 + 6 * k, 30 + 3 * k) for k in range(10)]
    frames = [base] * 10 + rolling + [rolling[-1]] * 30
    flicker = [cv2.convertScaleAbs(im, alpha=1.0 + 0.12 * (-1) ** i) for i, im in enumerate(frames)]
    det = SettleDetector(SettleConfig(die_size_px=14))
    events = [e for e in map(det.feed, stream(flicker)) if e]
    assert [type(e) for e in events] == [Settled] and events[0].frame.index >= 20


def banded(frame: Frame, depth: float, rows_per_band: float = 40.0) -> Frame:
    """The frame lit by a lamp flickering at mains frequency, through a rolling shutter:
    horizontal bands of brightness that move on from one frame to the next."""
    h = frame.image.shape[0]
    phase = frame.index * 0.37
    gain = 1.0 + depth * np.sin(2 * np.pi * (np.arange(h) / rows_per_band + phase))
    image = np.clip(frame.image.astype(np.float32) * gain[:, None, None], 0, 255).astype(np.uint8)
    return Frame(image, frame.timestamp, frame.index, frame.meta)


@pytest.mark.parametrize("name", ["roll", "hand_over_dice"])
def test_flicker_in_moving_bands_is_not_motion(name):
    sc, frames = filmed(name, 0)
    cfg = SettleConfig(die_size_px=sc.table.die_size)
    det = SettleDetector(cfg, landing_mask=sc.table.landing, empty=sc.table.background)
    events = [e for e in (det.feed(banded(f, 0.12)) for f in frames) if e is not None]
    assert [type(e) for e in events] == [Settled] * len(sc.rests)
    for event, rest in zip(events, sc.rests):
        assert not frames[event.frame.index].meta["moving"]
        assert rest <= event.frame.index <= rest + cfg.frames(cfg.still_s) + 2


def test_thresholds_may_be_given_in_frames():
    cfg = SettleConfig.in_frames(fps=25, still=9, spin=20, mode="cage")
    assert cfg.mode == "cage" and cfg.fps == 25
    assert cfg.frames(cfg.still_s) == 9 and cfg.frames(cfg.spin_s) == 20
    _, _, _, six = run("roll", 0)
    sc, frames = filmed("roll", 0)
    det = SettleDetector(SettleConfig.in_frames(still=12, die_size_px=sc.table.die_size), landing_mask=sc.table.landing, empty=sc.table.background)
    twelve = [e for e in map(det.feed, frames) if e]
    assert twelve[0].frame.index - six[0].frame.index == 6
