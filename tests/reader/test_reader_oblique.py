"""Only the top face, uncalibrated: a die's outline tells whether it shows a side face; such a die
is read by its top face (the far one from the camera's nadir) or the roll is not settled."""
from __future__ import annotations

import math

import numpy as np
import pytest

from vision.model import ReadStatus
from vision.reader import load_model, read_dice
from vision.reader.detect import find_candidates
from vision.reader.judge import is_die
from vision.reader.look import Reading, evidence_at
from vision.reader.oblique import _DIRECTIONS, _QUARTER, fit_cube, outline_of, top_faces
from vision.reader.policy import DEFAULT_POLICY as P
from vision.scenes.die import DieLook, draw_die, orientation, project, rot_x, rot_z
from tests.reader.test_reader_topface import oblique

LOOK = DieLook()  # a translucent red casino die
LIGHT = np.array([0.2, -0.3, 0.93]) / np.linalg.norm([0.2, -0.3, 0.93])


def seen(value: int, yaw_deg: float, tilt_deg: float, towards_deg: float = 90.0) -> np.ndarray:
    """The rotation of a die with ``value`` up, turned by ``yaw_deg``, as a camera ``tilt_deg`` off the
    vertical sees it, its side faces showing towards ``towards_deg`` in the image (90: down)."""
    turn = math.radians(towards_deg - 90.0)
    return rot_z(turn) @ rot_x(math.radians(tilt_deg)) @ rot_z(-turn) @ orientation(value, math.radians(yaw_deg))


def felt(seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    img = np.full((480, 640, 3), (60, 130, 40), np.float32) + rng.normal(0, 3, (480, 640, 3))
    return np.clip(img, 0, 255).astype(np.uint8)


def table(dice: list[tuple[float, float, np.ndarray]], size: float = 50.0, seed: int = 0) -> np.ndarray:
    img = felt(seed)
    for cx, cy, rot in dice:
        draw_die(img, (cx, cy), size, rot, LOOK, LIGHT)
    return img


def extents(pts: np.ndarray) -> np.ndarray:
    u = np.stack([np.cos(_DIRECTIONS), np.sin(_DIRECTIONS)], axis=1)
    proj = pts @ u.T
    return proj.max(axis=0) - proj.min(axis=0)


@pytest.mark.parametrize("tilt", [0, 10, 20, 30, 40])
@pytest.mark.parametrize("yaw", [0, 20, 45, 70])
def test_the_cube_fitted_to_an_outline_is_seen_at_the_tilt_it_was_drawn_at(tilt, yaw):
    pts = np.concatenate([p for _, p, _ in project(seen(3, yaw, tilt), 50.0)])
    ext = extents(pts)
    side, fitted_yaw, fitted, axis, _top, margin, misfit = fit_cube(ext, _QUARTER)
    # within a few degrees: the margin allowed for rounded edges trades a little with the tilt
    assert fitted == pytest.approx(tilt, abs=6.0)
    assert misfit < 0.01
    a = abs(math.cos(math.radians(fitted_yaw))) + abs(math.sin(math.radians(fitted_yaw)))
    assert side * a + margin == pytest.approx(ext[(axis + _QUARTER) % len(ext)], rel=0.03)  # the width across
    if tilt >= 10:
        assert abs(axis - _QUARTER) <= 1  # side faces show down the frame, as drawn


@pytest.mark.parametrize("tilt", [0, 20, 30])
def test_a_drawn_die_s_outline_gives_its_tilt_and_its_top_face(tilt):
    rot = seen(5, 25.0, tilt)
    frame = table([(320.0, 240.0, rot)])
    o = outline_of(frame, 320.0, 240.0, 60.0)
    assert o is not None
    assert o.tilt_deg == pytest.approx(tilt, abs=4.0)
    if tilt:
        assert abs(o.toward[1]) > 0.95  # the axis is the frame's vertical
        tx, ty = o.facing((0.0, 1.0)).top_face()
        top = next(p for v, p, _ in project(rot, 50.0) if v == 5).mean(axis=0) + (320.0, 240.0)
        assert math.hypot(tx - top[0], ty - top[1]) < 3.0


def test_a_die_cut_by_the_window_or_lost_in_the_ground_has_no_outline():
    frame = table([(20.0, 240.0, seen(2, 0.0, 20.0))])
    assert outline_of(frame, 20.0, 240.0, 60.0) is None  # its window leaves the frame
    assert outline_of(felt(), 320.0, 240.0, 50.0) is None  # felt only


def _evidence(frame: np.ndarray, expect: int):
    model = load_model()
    reading = Reading(model.nets, model.policy)
    return reading, evidence_at(frame, reading, find_candidates(frame, model.nets, None, model.policy), expect)


def test_dice_seen_at_unlike_angles_by_a_tilted_camera_are_not_settled():
    frame = table([(200.0, 240.0, seen(2, 10.0, 18.0)), (440.0, 240.0, seen(4, 30.0, 40.0))])
    reading, evidence = _evidence(frame, 2)
    assert top_faces(frame, reading, evidence).refusal is not None


def test_dice_whose_side_faces_show_askew_are_left_to_the_other_guards():
    # side faces showing sideways: not a camera looking up the frame (a rolled camera, dice
    # leaning): the outlines do not say where the top faces are, and nothing is re-read
    frame = table([(200.0, 240.0, seen(2, 10.0, 25.0, towards_deg=0.0)), (440.0, 240.0, seen(4, 30.0, 25.0, towards_deg=0.0))])
    reading, evidence = _evidence(frame, 2)
    got = top_faces(frame, reading, evidence)
    assert got.refusal is None and got.evidence == evidence


def test_a_tilted_camera_s_dice_are_read_from_their_top_faces():
    frame = table([(200.0, 240.0, seen(2, 10.0, 20.0)), (440.0, 240.0, seen(4, 30.0, 20.0))])
    reading, evidence = _evidence(frame, 2)
    got = top_faces(frame, reading, evidence)
    assert got.refusal is None
    changed = [(a, b) for a, b in zip(evidence, got.evidence) if a != b]
    assert len(changed) == 2  # both dice read again, from their top faces
    assert sorted(b.value for _, b in changed) == [2, 4]
    assert all((b.cx, b.cy, b.side) == (a.cx, a.cy, a.side) for a, b in changed)  # placed where they were found


def test_a_roll_seen_square_from_above_is_left_as_it_was():
    frame = table([(200.0, 200.0, seen(3, 10.0, 0.0)), (440.0, 280.0, seen(5, 40.0, 0.0))])
    reading, evidence = _evidence(frame, 2)
    got = top_faces(frame, reading, evidence)
    assert got.refusal is None and got.evidence == evidence


@pytest.mark.parametrize("deg", [35.0, 40.0])
def test_uncalibrated_no_die_seen_beyond_the_policy_s_tilt_is_settled(deg):
    roll = [(200, 240, 5, 3), (440, 250, 6, 2)]
    read = read_dice(oblique(roll, deg), expect=2)
    assert deg > P.max_view_tilt_deg and read.status != ReadStatus.OK


@pytest.mark.parametrize("tilt", [15.0, 20.0, 25.0])
def test_uncalibrated_a_tilted_camera_s_dice_are_read_by_their_top_faces(tilt):
    """Drawn dice of every value under a tilted camera: an ``ok`` read names the top faces, and
    each die's reported value is its top face's, never the side face turned to the camera."""
    for k, (a, b) in enumerate([(1, 6), (2, 5), (3, 4), (4, 2), (5, 1), (6, 3)]):
        frame = table([(200.0, 220.0, seen(a, 10.0 + 7 * k, tilt)), (440.0, 260.0, seen(b, 35.0 + 5 * k, tilt))], seed=k)
        read = read_dice(frame, expect=2)
        if read.status is ReadStatus.OK:
            assert read.values == (a, b)
        assert read.values in ((a, b), ())


def test_every_place_counted_as_a_die_is_measured():
    frame = table([(200.0, 240.0, seen(2, 10.0, 20.0)), (440.0, 240.0, seen(4, 30.0, 20.0))])
    reading, evidence = _evidence(frame, 2)
    dice = [e for e in evidence if is_die(e.peak, e.probs, reading.policy)]
    assert len(dice) == 2
    assert all(outline_of(frame, e.cx, e.cy, e.side) is not None for e in dice)


def test_a_shadow_on_the_felt_is_not_the_die():
    # a die seen square from above with a deep shadow beside it: the outline is the die's alone
    img = felt()
    img[235:300, 300:385] = (img[235:300, 300:385] * 0.45).astype(np.uint8)
    draw_die(img, (320.0, 240.0), 50.0, seen(4, 0.0, 0.0), LOOK, LIGHT)
    o = outline_of(img, 320.0, 240.0, 52.0)
    assert o is not None and o.tilt_deg < P.side_face_deg
