"""Only the top face: a die seen by a tilted camera is read by its top face, or not settled."""
from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision.model import Calibration, ReadStatus
from vision.reader import read_dice
from vision.reader.policy import DEFAULT_POLICY as P
from vision.reader.topface import TopFaceView, view_of
from vision.scenes.die import PIP_GRID


def face(img: np.ndarray, cx: float, cy: float, w: float, h: float, value: int, body) -> None:
    """A die face seen squashed to ``w`` x ``h`` px, centred on (cx, cy)."""
    cv2.rectangle(img, (round(cx - w / 2), round(cy - h / 2)), (round(cx + w / 2), round(cy + h / 2)), body, -1)
    for px, py in PIP_GRID[value]:
        centre = (round(cx + px * 0.27 * w), round(cy + py * 0.27 * h))
        cv2.ellipse(img, centre, (max(1, round(0.09 * w)), max(1, round(0.09 * h))), 0, 0, 360, (20, 20, 20), -1)


def oblique(dice: list[tuple[float, float, int, int]], tilt_deg: float, side: float = 56) -> np.ndarray:
    """Dice ``(cx, cy, top, front)`` as a camera tilted ``tilt_deg`` sees them: the top face
    foreshortened, the front face (turned to the camera, below it) in view. (cx, cy) is the
    centre of the whole outline."""
    t = math.radians(tilt_deg)
    img = np.full((480, 640, 3), (150, 190, 220), np.uint8)
    top_h, front_h = side * math.cos(t), side * math.sin(t)
    for cx, cy, top, front in dice:
        y0 = cy - (top_h + front_h) / 2
        face(img, cx, y0 + top_h / 2, side, top_h, top, (245, 245, 245))
        face(img, cx, y0 + top_h + front_h / 2, side, front_h, front, (200, 200, 200))
    return cv2.GaussianBlur(img, (3, 3), 0)


ROLL = [(200, 240, 2, 6), (440, 250, 3, 5)]


def tilted(deg: float, die_px: float | None = 56.0) -> Calibration:
    return Calibration(die_size_px=die_px, view_tilt_deg=deg, view_toward_deg=90.0)


def test_the_top_face_view_finds_the_top_face_beside_the_front_one():
    view = TopFaceView(30.0, (0.0, 1.0))
    side = 56 * (math.cos(math.radians(30)) + math.sin(math.radians(30)))
    tx, ty, s = view.top_face(100.0, 100.0, side)
    assert (tx, s) == (100.0, pytest.approx(56.0))
    assert ty == pytest.approx(100.0 - 56 * math.sin(math.radians(30)) / 2)  # moved away from the front face


def test_a_camera_straight_above_or_uncalibrated_has_no_view():
    assert view_of(None, (480, 640, 3)) is None
    assert view_of(Calibration(), (480, 640, 3)) is None
    assert view_of(tilted(20.0), (480, 640, 3)).toward == pytest.approx((0.0, 1.0))


def test_a_box_of_the_top_face_alone_is_not_moved():
    view = TopFaceView(30.0, (0.0, 1.0), die_px=56.0)
    assert view.top_face(100.0, 100.0, 56.0) == (100.0, 100.0, 56.0)


@pytest.mark.parametrize("deg", [20.0, 35.0])
def test_a_tilted_camera_reads_the_top_faces_never_the_front_ones(deg):
    frame = oblique(ROLL, deg)
    read = read_dice(frame, expect=2, calibration=tilted(deg))
    fronts = (6, 5)
    if read.status == ReadStatus.OK:
        assert read.values == (2, 3)
    for die, front in zip(read.dice, fronts):
        assert not (read.status == ReadStatus.OK and die.value == front)


def test_the_calibrated_view_reads_a_roll_the_plain_crop_would_not_settle_right():
    frame = oblique(ROLL, 35.0)
    assert read_dice(frame, expect=2, calibration=tilted(35.0)).values == (2, 3)


def test_beyond_the_policy_s_tilt_no_read_is_ok():
    deg = P.max_view_tilt_deg + 10
    read = read_dice(oblique(ROLL, deg), expect=2, calibration=tilted(deg))
    assert read.status != ReadStatus.OK
