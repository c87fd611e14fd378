"""The pip counter on its two crops, and how its two counts are weighed against the networks."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.reader import geometry as G
from vision.reader.pips import FINE_CROP, PipCount, agreed_count, count_pips, count_pips_fine

#: Pip places on a face of side 1 centred on 0, per value.
_LAYOUT = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
           4: [(-1, -1), (1, -1), (-1, 1), (1, 1)], 5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
           6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)]}


def _drawn_die(value: int, side: int, row_gap: float = 0.27) -> tuple[np.ndarray, tuple[float, float]]:
    """A white die of ``side`` px with black pips on a grey-green table, and its centre.
    Pips lie 0.27 of the side from the centre across, ``row_gap`` of it up and down."""
    frame = np.full((240, 240, 3), (70, 110, 60), np.uint8)
    cx = cy = 120.0
    h = side / 2
    cv2.rectangle(frame, (round(cx - h), round(cy - h)), (round(cx + h), round(cy + h)), (235, 235, 235), -1)
    for dx, dy in _LAYOUT[value]:
        centre = (round(cx + dx * side * 0.27), round(cy + dy * side * row_gap))
        cv2.circle(frame, centre, max(1, round(side * 0.09)), (20, 20, 20), -1, cv2.LINE_AA)
    return frame, (cx, cy)


@pytest.mark.parametrize("side", [24, 40, 64, 96])
@pytest.mark.parametrize("value", range(1, 7))
def test_the_fine_count_counts_drawn_dice_of_every_face_and_size(value, side):
    frame, (cx, cy) = _drawn_die(value, side)
    assert count_pips_fine(frame, cx, cy, side).count == value


def test_a_big_die_the_networks_crop_blurs_is_not_counted_against_them():
    # A 6 of 96 px: on the networks' 40 px crop its pips lie 8.6 px apart and
    # the coarse count runs them together; the fine count keeps them apart.
    frame, (cx, cy) = _drawn_die(6, 96)
    fine = count_pips_fine(frame, cx, cy, 96)
    assert fine.count == 6
    assert agreed_count(count_pips(G.crop_die(frame, cx, cy, 96)), fine, 6).count in (0, 6)


def _close_six(side: int, gap: float) -> tuple[np.ndarray, tuple[float, float]]:
    """A 6 whose pips lie ``gap`` of the side apart down each column (a drawn
    die has 0.27), softly focused: at one low cut the pips of a column run
    together into one long blob, at a high one they stand apart."""
    frame, centre = _drawn_die(6, side, row_gap=gap)
    return cv2.GaussianBlur(frame, (0, 0), 1.5), centre


@pytest.mark.parametrize(("side", "gap"), [(40, 0.24), (56, 0.22), (72, 0.2)])
def test_pips_that_nearly_touch_are_counted_apart_on_the_fine_crop(side, gap):
    # Each of these 6s was counted 0 on the fine crop when the response was cut at one level
    # (0.45 of its strongest); the levels above it keep the pips apart.
    frame, (cx, cy) = _close_six(side, gap)
    assert count_pips_fine(frame, cx, cy, side).count == 6


def test_the_coarse_count_is_cut_at_one_level():
    # The coarse count may speak against the networks, and cut at several levels it made a
    # held-out silent misread: the pips of this 6 still run together on its crop.
    frame, (cx, cy) = _close_six(56, 0.22)
    assert count_pips(G.crop_die(frame, cx, cy, 56)).count == 0


@pytest.mark.parametrize("shape", [(39, 39, 3), (60, 60, 3), (FINE_CROP, G.CLS_SIZE, 3)])
def test_the_counter_refuses_a_crop_of_another_size(shape):
    with pytest.raises(ValueError, match="square crops"):
        count_pips(np.zeros(shape, np.uint8))


@pytest.mark.parametrize(("coarse", "fine", "value", "weighed"), [
    (PipCount(5), PipCount(5), 5, PipCount(5)),          # both agree
    (PipCount(5), PipCount(4), 5, PipCount(5)),          # the coarse count agrees: it stands
    (PipCount(0), PipCount(5), 5, PipCount(5)),          # only the fine count is clear, and agrees
    (PipCount(4), PipCount(5), 5, PipCount(0)),          # the counters disagree: no clear count
    (PipCount(4), PipCount(4), 5, PipCount(4)),          # both against the networks: the coarse count stands
    (PipCount(0), PipCount(4), 5, PipCount(0)),          # the fine count alone never speaks against
    (PipCount(4), PipCount(0), 5, PipCount(4)),
    (PipCount(0, True), PipCount(3), 3, PipCount(3, True)),  # a highlight seen on the coarse crop is kept
    (PipCount(2, True), PipCount(3), 3, PipCount(0, True)),
])
def test_the_fine_count_only_ever_speaks_for_the_networks(coarse, fine, value, weighed):
    assert agreed_count(coarse, fine, value) == weighed
