"""Table sets' tables: drawn from the table's seed alone (the same for every throw of a set, another
for another seed), the camera mounted over the landing area whatever the dice do, dice of a table
camera's size, the landing area and the flat die in the image, and the camera for OpenCV (pure
numpy: no Blender, no physics)."""
from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from training.render.geometry import PinholeCamera, lamp_on_top_face, rotation_with_face_up
from training.render.table import (CAGE_TILT, RAIL_LANDING, RAIL_TILT, clip_to_view, draw_table, empty_seed,
                                   flat_die_samples, landing_area, opencv_pose, rest_boxes, table_facts,
                                   throw_name, throw_scenario, throw_seed)

RAIL = ("rail", (960, 720))
CAGE = ("cage", (640, 480))


def test_a_table_is_the_same_for_its_seed_and_another_for_another_seed():
    for kind, size in (RAIL, CAGE):
        assert table_facts(draw_table(1001, kind, size)) == table_facts(draw_table(1001, kind, size))
        facts = [table_facts(draw_table(s, kind, size)) for s in range(1000, 1040)]
        assert len({f["camera"]["fx"] for f in facts}) == 40
        assert len({str(f["camera"]["position"]) for f in facts}) == 40
        assert len({f["material"] for f in facts}) > 8
        assert len({(f["cloth"], tuple(f["cloth_rgb"])) for f in facts}) == 40


def test_a_table_draws_nothing_from_its_throws():
    """Each throw has its own seed, made of the table's and the throw's number; the table itself is
    drawn from the table's seed alone, so it is one table for every throw, however many."""
    seeds = [throw_seed(1001, i) for i in range(40)]
    assert len(set(seeds)) == 40 and seeds == [throw_seed(1001, i) for i in range(40)]
    assert not set(seeds) & {throw_seed(1002, i) for i in range(40)}
    assert not set(seeds) & {empty_seed(1001, i) for i in range(4)}
    assert empty_seed(1001, 0) != empty_seed(1001, 1)
    scenarios = [throw_scenario(7, i) for i in range(600)]
    assert 0.07 < scenarios.count("cocked") / 600 < 0.17 and 0.06 < scenarios.count("touching") / 600 < 0.15
    assert throw_name("rail", (960, 720), 900000, 17) == "rail-960x720-t0900000-017.jpg"


@pytest.mark.parametrize("kind, size", [RAIL, CAGE])
def test_the_camera_is_aimed_at_the_landing_area_from_above(kind, size):
    tilts = []
    for seed in range(200):
        table = draw_table(seed, kind, size)
        cam = table.camera
        aim = np.array(table.mount.aim)
        centre = np.array([*RAIL_LANDING, 0.0]) if kind == "rail" else np.zeros(3)
        px = cam.project(centre[None])[0]
        assert 0.25 * size[0] < px[0] < 0.75 * size[0] and 0.25 * size[1] < px[1] < 0.75 * size[1]
        assert cam.project(aim[None])[0] == pytest.approx([size[0] / 2, size[1] / 2], abs=1e-6)
        tilts.append(cam.look_from_vertical_deg())
        if kind == "rail":
            assert cam.position[1] < aim[1] + 1e-9  # from the players' side, never through the wall
            assert cam.position[2] >= 0.35 - 1e-9
        else:
            assert cam.position[2] >= table.cage_top + 0.15 - 1e-9  # above the cage, looking in
    tilts = np.array(tilts)
    lo, hi = RAIL_TILT if kind == "rail" else CAGE_TILT
    assert tilts.max() <= hi + 0.01
    if kind == "rail":
        assert 0.2 < np.mean(tilts < 0.01) < 0.4  # a share straight down
        assert tilts[tilts > 0.01].min() >= lo - 0.01 and tilts.max() > 40
    else:
        assert tilts.min() < 5 and tilts.max() > 30


@pytest.mark.parametrize("kind, size, lo, hi", [(*RAIL, 30, 60), (*CAGE, 28, 50)])
def test_dice_are_the_size_a_table_camera_shows_them(kind, size, lo, hi):
    boxes = np.concatenate([rest_boxes(draw_table(s, kind, size), 60) for s in range(60)])
    assert len(boxes) > 0.85 * 60 * 60  # the dice's rests nearly always whole in view
    p10, p50, p90 = np.percentile(boxes, [10, 50, 90])
    assert lo <= p10 and p90 <= hi and lo + 5 < p50 < hi - 5
    assert np.mean(boxes < 28) < 0.03


def test_a_lamp_hangs_where_a_flat_die_mirrors_it_on_some_tables():
    mirrored = 0
    spots = [(x, y) for x in np.linspace(-0.18, 0.18, 10) for y in np.linspace(-0.2, -0.02, 6)]
    for seed in range(80):
        table = draw_table(seed, "rail", (960, 720))
        half = table.die.size_m / 2
        rot = rotation_with_face_up(1, 0.3)
        mirrored += any(lamp_on_top_face(table.camera.position, np.array(lamp.position), lamp.radius,
                                         np.array([x, y, half]), rot, half)
                        for lamp in table.lamps for x, y in spots)
        assert 2 <= len(table.lamps) <= 4
    assert 0.25 < mirrored / 80 < 0.75


def test_clipping_to_the_view_keeps_what_the_frame_shows():
    cam = PinholeCamera.looking_at((0.0, 0.0, 1.0), (0.0, 0.0, 0.0), 500.0, 640, 480)  # 1.28 m x 0.96 m
    inside = np.array([[-0.1, -0.1, 0], [0.1, -0.1, 0], [0.1, 0.1, 0], [-0.1, 0.1, 0]], float)
    assert np.allclose(clip_to_view(cam, inside), inside)
    big = inside * 20
    clipped = clip_to_view(cam, big)
    px = cam.project(clipped)
    assert px[:, 0].min() == pytest.approx(0, abs=1e-6) and px[:, 0].max() == pytest.approx(640, abs=1e-6)
    assert px[:, 1].min() == pytest.approx(0, abs=1e-6) and px[:, 1].max() == pytest.approx(480, abs=1e-6)
    behind = inside + [0, 0, 2.0]
    assert len(clip_to_view(cam, behind)) == 0


@pytest.mark.parametrize("kind, size", [RAIL, CAGE])
def test_the_landing_area_and_the_flat_dice_lie_in_the_frame(kind, size):
    for seed in range(30):
        table = draw_table(seed, kind, size)
        world, image = landing_area(table)
        assert len(image) >= 3
        assert np.all(image >= -1e-6) and np.all(image[:, 0] <= size[0] + 1e-6) and np.all(image[:, 1] <= size[1] + 1e-6)
        assert np.allclose(world[:, 2], 0.0)
        if kind == "rail":
            assert np.all(world[:, 1] <= 1e-9)  # in front of the back wall
        else:
            assert np.all(np.hypot(world[:, 0], world[:, 1]) <= table.cage.dish_radius + 1e-9)
        area = cv2.contourArea(image.astype(np.float32))
        assert area > 0.3 * size[0] * size[1]
        samples = flat_die_samples(table)
        assert len(samples) >= 4
        for s in samples:
            top = np.array(s["top_face"])
            edges = np.linalg.norm(top - np.roll(top, 1, axis=0), axis=1)
            assert 0.5 * edges.mean() < edges.min()  # a square seen from above, not a sliver
            assert s["centre"][2] == pytest.approx(table.die.size_m / 2, abs=1e-4)


def test_the_opencv_camera_projects_as_the_renderer_does_half_a_pixel_apart():
    table = draw_table(1001, "rail", (960, 720))
    cv = opencv_pose(table.camera)
    points = np.array([[0.05, -0.1, 0.0], [-0.12, -0.2, 0.0095], [0.0, 0.0, 0.05]])
    rvec, _ = cv2.Rodrigues(np.array(cv["R"]))
    px, _ = cv2.projectPoints(points, rvec, np.array(cv["t"]), np.array(cv["K"]), np.array(cv["dist"]))
    assert px.reshape(-1, 2) == pytest.approx(table.camera.project(points) - 0.5, abs=1e-3)
    facts = table_facts(table)
    cam = facts["camera"]
    assert cam["cx"] == 480 and cam["cy"] == 360 and cam["fx"] == cam["fy"]
    rot = np.array(cam["rotation"])
    assert np.allclose(rot @ rot.T, np.eye(3), atol=1e-6)
    assert math.isclose(cam["tilt_deg"], table.camera.look_from_vertical_deg(), abs_tol=0.01)
    assert facts["plane"] == {"point": [0.0, 0.0, 0.0], "normal": [0.0, 0.0, 1.0], "surface": "felt"}
