"""The detector's second scale: dice found too small or too big at the guessed scale are looked for again."""
from __future__ import annotations

from dataclasses import replace

import cv2
import pytest

from vision.model import Calibration, ReadStatus
from vision.reader import geometry as G
from vision.reader import read_dice
from vision.reader.detect import RESCALED_SIDE_LIMITS, Candidate, find_candidates, rescale_for
from vision.reader.model_dir import load_model
from vision.reader.policy import DEFAULT_POLICY as P

SHAPE = (480, 640, 3)


def dice_of(side: float, score: float = 0.9, n: int = 3) -> list[Candidate]:
    return [Candidate(100.0 * (i + 1), 100.0, side, score) for i in range(n)]


@pytest.mark.parametrize("at_input", [P.die_px_band[0] - 2, P.die_px_band[1] + 10])
def test_dice_out_of_the_band_get_the_scale_that_shows_them_at_the_size_wanted(at_input):
    scale = 0.4
    side = at_input / scale  # frame px
    other = rescale_for(dice_of(side), scale, SHAPE)
    assert other == pytest.approx(P.rescaled_die_px / side)
    assert (other > scale) == (at_input < P.die_px_band[0])


def test_dice_in_the_band_or_no_clear_die_keep_the_guessed_scale():
    scale = 0.4
    for at_input in P.die_px_band:
        assert rescale_for(dice_of(at_input / scale), scale, SHAPE) is None
    assert rescale_for(dice_of(5.0, score=(P.die_peak + P.faint_peak) / 2), scale, SHAPE) is None
    assert rescale_for([], scale, SHAPE) is None


def test_the_median_die_decides_not_one_odd_candidate():
    scale = 0.4
    fine = sum(P.die_px_band) / 2 / scale
    assert rescale_for(dice_of(fine) + [Candidate(50.0, 50.0, 3.0, 0.9)], scale, SHAPE) is None


def test_the_other_scale_is_kept_within_limits():
    shape = (3000, 4000, 3)
    lo, hi = (px / 4000 for px in RESCALED_SIDE_LIMITS)
    assert rescale_for(dice_of(2.0), 0.05, shape) == pytest.approx(hi)
    assert rescale_for(dice_of(2.0), hi, shape) is None  # already there
    assert rescale_for(dice_of(3000.0), 0.05, shape) == pytest.approx(lo)


@pytest.fixture
def count_detector_runs(monkeypatch):
    nets = load_model().nets
    runs = []
    real = nets.detect

    def counted(blob):
        runs.append(blob.shape)
        return real(blob)

    monkeypatch.setattr(nets, "detect", counted)
    return nets, runs


FAR = [(500, 400, 2), (1000, 700, 5), (1500, 1100, 3), (700, 1200, 6)]


def test_small_dice_in_a_big_frame_are_found_and_read(draw_table, monkeypatch):
    """Dice of 26 px in a 2560x1920 photo are 2.6 px at the guessed scale: most are
    missed there. The second look reads them all."""
    frame = draw_table([(x * 4 // 3, y * 4 // 3, v) for x, y, v in FAR], side=26, size=(1920, 2560), seed=1)
    read = read_dice(frame, expect=4)
    assert read.status == ReadStatus.OK, read.reason
    assert sorted(read.values) == [2, 3, 5, 6]
    guessed_only = replace(load_model(), policy=replace(P, die_px_band=(0.0, float("inf"))))
    assert read_dice(frame, expect=4, model=guessed_only).status == ReadStatus.NO_READ


def test_a_calibrated_table_and_dice_big_enough_run_the_detector_once(draw_table, count_detector_runs):
    nets, runs = count_detector_runs
    far = draw_table(FAR, side=26, size=(1440, 1920), seed=1)
    find_candidates(far, nets, 26.0)
    assert len(runs) == 1
    find_candidates(draw_table([(200, 240, 1), (430, 250, 6)]), nets, None)
    assert len(runs) == 2
    find_candidates(far, nets, None)
    assert len(runs) == 4 and runs[3][2] > runs[2][2]  # looked again, larger


def test_dice_found_on_a_small_frame_are_read_from_the_full_one(draw_table, count_detector_runs):
    nets, runs = count_detector_runs
    full = draw_table([(400, 480, 2), (860, 500, 5)], side=80, size=(960, 1280), seed=4)
    small = cv2.resize(full, (640, 480), interpolation=cv2.INTER_AREA)
    shrunk = G.detector_view(full, 0.2)
    assert G.detector_view(full, 0.2, small).shape == shrunk.shape
    read = read_dice(full, expect=2, finding=small)
    assert read.status != ReadStatus.NO_READ and sorted(read.values) == [2, 5]
    assert read.dice[0].box[2] > 60  # boxes in the full frame's pixels
    # a finding frame of another view's shape is not used
    other = cv2.resize(full, (640, 360))
    assert G.detector_view(full, 0.2, other).shape == shrunk.shape


def test_a_calibration_scales_its_die_size_to_the_frame_read():
    small = Calibration(die_size_px=20.0, frame_size=(640, 480))
    assert small.die_size_at((960, 1280, 3)) == 40.0
    full = Calibration(die_size_px=20.0, frame_size=(640, 480), full_die_size_px=41.5, full_size=(1280, 960))
    assert full.die_size_at((960, 1280, 3)) == 41.5
    assert full.die_size_at((480, 640, 3)) == 20.0
    assert Calibration(die_size_px=30.0).die_size_at((960, 1280, 3)) == 30.0
