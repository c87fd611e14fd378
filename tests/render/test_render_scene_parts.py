"""The renderer's pure parts: the die's mesh and pip texture, the seeded looks, the camera model,
the layout print, the batches' seeds, and the camera's and lamps' placement."""
from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from training.render.cli import HELD_OUT_FROM, check_seeds, parser
from training.render.compose import place_camera, place_lamps
from training.render.diemesh import PIP_LAYOUT, die_mesh, pip_atlas, tile_uv
from training.render.frames import frame_kind, frame_name
from training.render.geometry import FACE_NORMALS, lamp_on_top_face, rotation_with_face_up
from training.render.layout import layout_mask
from training.render.looks import camera_look, die_look, kelvin_to_rgb, photo_look
from training.render.photo import apply_camera, jpeg_bytes
from training.render.physics import DiePose


@pytest.mark.parametrize("rounded", [0.02, 0.3])
def test_the_die_mesh_is_a_rounded_cube_of_the_given_size(rounded):
    half = 0.0095
    mesh = die_mesh(half, rounded)
    assert np.abs(mesh.vertices).max() == pytest.approx(half)
    assert np.allclose(np.linalg.norm(mesh.normals, axis=1), 1.0)
    # every vertex lies on the rounded box: at the radius from the shrunken core
    core = np.clip(mesh.vertices, -half * (1 - rounded), half * (1 - rounded))
    assert np.allclose(np.linalg.norm(mesh.vertices - core, axis=1), half * rounded)
    assert mesh.uvs.min() >= 0.0 and mesh.uvs.max() <= 1.0


def test_each_face_maps_into_its_own_tile_of_the_atlas():
    for value in range(1, 7):
        u, v = tile_uv(value, np.array([-1.0, 1.0]), np.array([-1.0, 1.0]))
        col, row = (value - 1) % 3, (value - 1) // 3
        assert u == pytest.approx([col / 3, (col + 1) / 3])
        assert v == pytest.approx([(1 - row) / 2, (2 - row) / 2])


@pytest.mark.parametrize("turns", [(0,) * 6, (1, 2, 3, 1, 2, 3)])
def test_each_tile_of_the_pip_texture_shows_as_many_pips_as_its_face(turns):
    tile = 96
    atlas = pip_atlas(tile, 0.2, 0.55, 0.0, turns)
    for value in range(1, 7):
        col, row = (value - 1) % 3, (value - 1) // 3
        part = (atlas[row * tile:(row + 1) * tile, col * tile:(col + 1) * tile] > 0.5).astype(np.uint8)
        count, _ = cv2.connectedComponents(part)
        assert count - 1 == value == len(PIP_LAYOUT[value])


def test_looks_are_the_same_for_the_same_seed_and_vary_between_seeds():
    a = die_look(np.random.default_rng(5))
    assert a == die_look(np.random.default_rng(5))
    looks = [die_look(np.random.default_rng(s)) for s in range(60)]
    assert {lk.translucent for lk in looks} == {True, False}
    assert len({lk.material for lk in looks}) > 10
    tilts = [camera_look(np.random.default_rng(s), "rail", 640).tilt_deg for s in range(60)]
    assert min(tilts) == 0.0 and max(tilts) > 40  # straight down and oblique


def test_lamp_colours_run_from_warm_to_cool():
    warm, cool = kelvin_to_rgb(2800), kelvin_to_rgb(5200)
    assert max(warm) == pytest.approx(1.0) and max(cool) == pytest.approx(1.0)
    assert warm[2] < cool[2] and warm[0] >= cool[0]


def test_the_camera_model_is_seeded_and_keeps_the_frame_size():
    frame = np.full((48, 64, 3), 120, np.uint8)
    frame[10:20, 10:20] = 250
    look = photo_look(np.random.default_rng(3))
    a = apply_camera(frame, look, np.random.default_rng(4))
    b = apply_camera(frame, look, np.random.default_rng(4))
    assert a.shape == frame.shape and a.dtype == np.uint8
    assert np.array_equal(a, b)
    assert not np.array_equal(a, apply_camera(frame, look, np.random.default_rng(5)))
    assert cv2.imdecode(np.frombuffer(jpeg_bytes(a, look.jpeg_quality), np.uint8), cv2.IMREAD_COLOR).shape == a.shape


def test_the_layout_print_is_seeded():
    a = layout_mask(9, 256, 2.0)
    assert np.array_equal(a, layout_mask(9, 256, 2.0))
    assert 0.0 < a.mean() < 0.5
    assert not np.array_equal(a, layout_mask(10, 256, 2.0))


def test_training_batches_never_reach_the_held_out_seeds():
    assert check_seeds(0, 1000, held_out=False) is None
    assert check_seeds(HELD_OUT_FROM - 10, 10, held_out=False) is None
    assert "held-out" in check_seeds(HELD_OUT_FROM - 10, 11, held_out=False)
    assert check_seeds(HELD_OUT_FROM, 200, held_out=True) is None
    assert check_seeds(5, 10, held_out=True) is not None
    args = parser().parse_args(["frames", "--count", "3", "--seed", "4", "--size", "1280x960", "--kind", "cage"])
    assert args.size == (1280, 960) and args.samples == 12


def test_frame_names_and_kinds_follow_from_the_seed():
    kinds = [frame_kind(s, "mixed") for s in range(200)]
    assert kinds == [frame_kind(s, "mixed") for s in range(200)]
    assert 0.2 < kinds.count("cage") / 200 < 0.5
    assert frame_kind(3, "rail") == "rail"
    assert frame_name("cage", (1280, 960), 900001) == "cage-1280x960-0900001.jpg"


def _pose(x, y, value=1):
    return DiePose((x, y, 0.0095), rotation_with_face_up(value, 0.2), False, False, False)


def test_the_camera_is_aimed_so_the_dice_are_in_the_frame():
    rng = np.random.default_rng(1)
    poses = [_pose(0.0, -0.1), _pose(0.25, -0.05)]
    for seed in range(20):
        look = camera_look(np.random.default_rng(seed), "rail", 640)
        cam = place_camera(look, poses, 0.019, 640, 480, "rail")
        px = cam.project(np.array([p.centre for p in poses]))
        assert (px >= 0).all() and (px[:, 0] <= 640).all() and (px[:, 1] <= 480).all()
        forward = -cam.rotation[:, 2]
        assert forward[1] >= -1e-9  # from the players' side towards the back wall, never from behind it
    cage = place_camera(camera_look(rng, "cage", 640), poses, 0.019, 640, 480, "cage", min_height=0.4)
    assert cage.position[2] >= 0.4 - 1e-9


def test_a_mirrored_lamp_is_mirrored_on_a_die_top():
    poses = [_pose(0.0, 0.0)]
    look = camera_look(np.random.default_rng(2), "rail", 640)
    cam = place_camera(look, poses, 0.019, 640, 480, "rail")
    lamps = place_lamps(np.random.default_rng(0), cam, poses, 0.019, np.zeros(3), mirrored_share=1.0)
    assert 2 <= len(lamps) <= 4
    assert all(2700 <= lamp.kelvin <= 6500 for lamp in lamps)
    first = lamps[0]
    assert lamp_on_top_face(cam.position, np.array(first.position), first.radius, np.array(poses[0].centre),
                            poses[0].rotation, 0.0095)
    assert math.isclose(np.linalg.norm(FACE_NORMALS[1]), 1.0)
