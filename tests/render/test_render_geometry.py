"""The geometry the renderer's labels come from: which face is up, how far a die leans, where the
camera sees a point, and where a lamp is mirrored (pure numpy: no Blender, no physics)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from training.render.geometry import (FACE_AXES, FACE_NORMALS, PinholeCamera, axis_angle, cube_corners, image_box,
                                      lamp_on_top_face, mirror_lamp_position, mirror_point, quaternion_to_matrix,
                                      rotation_with_face_up, tilt_deg, top_face, top_face_corners, top_face_px)


def test_opposite_faces_add_up_to_seven_and_axes_are_right_handed():
    for value, n in FACE_NORMALS.items():
        assert np.allclose(FACE_NORMALS[7 - value], -n)
        u, v = FACE_AXES[value]
        assert np.allclose(np.cross(u, v), n)


@pytest.mark.parametrize("value", range(1, 7))
@pytest.mark.parametrize("yaw", [0.0, 0.7, 2.0, -2.9])
def test_a_die_laid_with_a_face_up_reads_that_face_flat(value, yaw):
    rot = rotation_with_face_up(value, yaw)
    assert np.allclose(rot @ rot.T, np.eye(3))
    assert top_face(rot) == value
    assert tilt_deg(rot) == pytest.approx(0.0, abs=1e-6)


def test_a_cocked_die_is_labelled_by_the_face_whose_normal_is_closest_to_up():
    flat = rotation_with_face_up(1, 0.0)  # 1 up, 2 towards +y
    leaning = axis_angle(np.array([1.0, 0.0, 0.0]), math.radians(30)) @ flat
    assert top_face(leaning) == 1
    assert tilt_deg(leaning) == pytest.approx(30.0)
    # past 45 degrees the side face is nearer to up: a turn about +x lifts face 2 (+y) towards +z
    over = axis_angle(np.array([1.0, 0.0, 0.0]), math.radians(50)) @ flat
    assert top_face(over) == 2
    assert tilt_deg(over) == pytest.approx(40.0)


def test_turning_about_the_vertical_never_changes_the_value_or_the_tilt():
    base = axis_angle(np.array([0.3, 1.0, 0.0]), math.radians(12)) @ rotation_with_face_up(4, 0.0)
    for yaw in np.linspace(0, 2 * math.pi, 9):
        turned = axis_angle(np.array([0.0, 0.0, 1.0]), yaw) @ base
        assert top_face(turned) == 4
        assert tilt_deg(turned) == pytest.approx(12.0, abs=1e-6)


def test_quaternions_from_the_physics_become_the_same_rotation():
    axis, angle = np.array([1.0, 2.0, -0.5]), 1.1
    a = axis / np.linalg.norm(axis)
    q = (*(a * math.sin(angle / 2)), math.cos(angle / 2))
    assert np.allclose(quaternion_to_matrix(q), axis_angle(axis, angle))
    with pytest.raises(ValueError):
        quaternion_to_matrix((0, 0, 0, 0))


def test_top_face_corners_lie_on_the_top_face():
    rot = axis_angle(np.array([0.0, 1.0, 0.0]), 0.2) @ rotation_with_face_up(6, 0.5)
    centre = np.array([0.1, 0.2, 0.0095])
    corners = top_face_corners(centre, rot, 0.0095)
    n = rot @ FACE_NORMALS[6]
    assert np.allclose((corners - centre) @ n, 0.0095)
    assert len(cube_corners(centre, rot, 0.0095)) == 8


def _down(width=640, height=480, focal=500.0, z=1.0):
    return PinholeCamera.looking_at([0, 0, z], [0, 0, 0], focal, width, height)


def test_a_camera_looking_straight_down_maps_x_right_and_y_up_the_image():
    cam = _down()
    centre, right, ahead = cam.project(np.array([[0, 0, 0], [0.1, 0, 0], [0, 0.1, 0]]))
    assert centre == pytest.approx([320, 240])
    assert right == pytest.approx([370, 240])
    assert ahead == pytest.approx([320, 190])
    assert cam.look_from_vertical_deg() == pytest.approx(0.0)


def test_a_ray_through_a_projected_point_passes_through_that_point():
    cam = PinholeCamera.looking_at([0.3, -0.4, 0.5], [0, 0, 0], 700, 640, 480, roll=0.1)
    point = np.array([0.02, -0.03, 0.01])
    px, py = cam.project(point)[0]
    ray = cam.ray(px, py)
    to_point = (point - cam.position) / np.linalg.norm(point - cam.position)
    assert np.allclose(ray, to_point, atol=1e-9)
    assert cam.look_from_vertical_deg() == pytest.approx(math.degrees(math.atan2(0.5, 0.5)))


def test_points_behind_the_camera_have_no_pixel():
    cam = _down()
    assert not cam.in_front(np.array([[0, 0, 2.0]]))
    with pytest.raises(ValueError):
        cam.project(np.array([[0, 0, 2.0]]))


def test_a_flat_die_seen_from_above_has_its_edge_length_as_top_face_width():
    cam = _down(focal=1000.0, z=1.0)
    half = 0.0095
    corners = top_face_corners(np.array([0, 0, half]), rotation_with_face_up(3, 0.0), half)
    # 19 mm at 1 m less the die's height, 1000 px of focal length
    assert top_face_px(cam, corners) == pytest.approx(1000 * 0.019 / (1 - 0.019), rel=1e-6)


def test_image_boxes_are_cut_to_the_frame_and_say_so():
    box, inside = image_box(np.array([[10.0, 20.0], [50.0, 60.0]]), 640, 480)
    assert box == [10.0, 20.0, 40.0, 40.0] and inside
    box, inside = image_box(np.array([[-10.0, 20.0], [30.0, 60.0]]), 640, 480)
    assert box == [0.0, 20.0, 30.0, 40.0] and not inside


def test_the_mirror_point_makes_equal_angles():
    cam, lamp = np.array([0.0, 0.0, 1.0]), np.array([1.0, 0.0, 2.0])
    hit = mirror_point(cam, lamp, np.zeros(3), np.array([0.0, 0.0, 1.0]))
    a, b = cam - hit, lamp - hit
    assert math.atan2(a[2], abs(a[0])) == pytest.approx(math.atan2(b[2], abs(b[0])))
    assert mirror_point(cam, np.array([0, 0, -1.0]), np.zeros(3), np.array([0.0, 0.0, 1.0])) is None


def test_a_lamp_hung_at_the_mirrored_place_is_seen_on_the_top_face_and_one_aside_is_not():
    half = 0.0095
    centre = np.array([0.05, 0.02, half])
    rot = rotation_with_face_up(2, 0.3)
    cam = np.array([0.3, -0.2, 0.6])
    lamp = mirror_lamp_position(cam, centre + np.array([0, 0, half]), 2.0)
    assert lamp is not None and lamp[2] == pytest.approx(2.0)
    assert lamp_on_top_face(cam, lamp, 0.05, centre, rot, half)
    assert not lamp_on_top_face(cam, lamp + np.array([0.8, 0.0, 0.0]), 0.05, centre, rot, half)


def test_a_bigger_lamp_reaches_the_face_from_further_aside():
    half = 0.0095
    centre = np.array([0.0, 0.0, half])
    rot = rotation_with_face_up(1, 0.0)
    cam = np.array([0.0, 0.0, 0.5])
    lamp = np.array([0.12, 0.0, 2.0])
    assert not lamp_on_top_face(cam, lamp, 0.02, centre, rot, half)
    assert lamp_on_top_face(cam, lamp, 0.5, centre, rot, half)


def test_no_mirrored_lamp_where_the_reflection_never_climbs_to_the_ceiling():
    assert mirror_lamp_position(np.array([0, 0, 1.0]), np.zeros(3), 0.0) is None
