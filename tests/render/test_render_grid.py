"""Crops renders' grids: each die lands in the middle of its own crop, no die but its pair's
partner reaches into another's crop, and everything drawn follows from the seed (pure numpy: no
Blender, no physics)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from training.render.crops import crop_name, crop_names
from training.render.geometry import cube_corners, image_box, rotation_with_face_up
from training.render.grid import (CROP, GridPlan, Pair, box_overlap, crop_window, draw_grid_scene, draw_pairs,
                                  plan_grid)


def _boxes(plan: GridPlan, halves: list[float], rng: np.random.Generator, tilted: bool = False) -> list:
    """The image boxes of dice at the plan's positions, each turned at random (and, with
    ``tilted``, leaning 45 degrees on an edge, as a cocked die reaches furthest)."""
    boxes = []
    for p, h in zip(plan.positions, halves):
        rot = rotation_with_face_up(int(rng.integers(1, 7)), float(rng.uniform(0, 2 * math.pi)))
        if tilted:
            c, s = math.cos(math.pi / 4), math.sin(math.pi / 4)
            rot = np.array([[1, 0, 0], [0, c, -s], [0, s, c]]) @ rot
        px = plan.camera.project(cube_corners(p, rot, h))
        boxes.append(image_box(px, *plan.size)[0])
    return boxes


@pytest.mark.parametrize("tilt", [0.0, 30.0, 50.0])
@pytest.mark.parametrize("edge", [24.0, 64.0])
def test_each_die_lands_in_the_middle_of_its_cell(tilt, edge):
    halves = [0.0095, 0.006, 0.008, 0.0095, 0.0095, 0.007]
    plan = plan_grid(3, 2, halves, edge, tilt, -1.2, 0.05, 35.0)
    for (cx, cy), p in zip(plan.centres_px, plan.positions):
        px = plan.camera.project(p[None])[0]
        assert px == pytest.approx([cx, cy], abs=1e-6)
    assert plan.edge_px.max() <= edge * 1.6
    assert plan.size == ((3 - 1) * plan.pitch + CROP + 32, (2 - 1) * plan.pitch + CROP + 32)


@pytest.mark.parametrize("seed", range(40))
def test_no_die_reaches_into_another_dice_crop(seed):
    scene = draw_grid_scene(seed)
    plan = scene.plan
    halves = [d.size_m / 2 for d in scene.dice]
    rng = np.random.default_rng(seed)
    for tilted in (False, True):
        boxes = _boxes(plan, halves, rng, tilted)
        for i, centre in enumerate(plan.centres_px):
            corner = crop_window(centre, plan.size)
            assert all(box_overlap(corner, b) == 0.0 for j, b in enumerate(boxes) if j != i)


def test_pairs_are_neighbours_and_no_die_is_in_two():
    rng = np.random.default_rng(4)
    kinds = set()
    for _ in range(50):
        pairs = draw_pairs(rng, 4, 3)
        dice = [i for p in pairs for i in (p.a, p.b)]
        assert len(dice) == len(set(dice))
        assert all(p.b in (p.a + 1, p.a + 4) and (p.b != p.a + 1 or p.a % 4 < 3) for p in pairs)
        kinds |= {p.kind for p in pairs}
    assert kinds == {"touching", "near", "cocked"}


def test_a_crop_window_stays_in_the_picture():
    assert crop_window(np.array([100.0, 60.0]), (300, 200)) == (52, 12)
    assert crop_window(np.array([10.0, 190.0]), (300, 200)) == (0, 200 - CROP)
    assert box_overlap((0, 0), (48.0, 48.0, 100.0, 100.0)) == pytest.approx(0.25)
    assert box_overlap((0, 0), (96.0, 0.0, 10.0, 10.0)) == 0.0


def test_a_render_is_drawn_from_its_seed_with_a_look_for_each_die():
    a, b = draw_grid_scene(31), draw_grid_scene(31)
    assert (a.dice, a.faces, a.yaws, a.cloth, a.plan.pairs) == (b.dice, b.faces, b.yaws, b.cloth, b.plan.pairs)
    assert np.array_equal(a.plan.positions, b.plan.positions)
    scenes = [draw_grid_scene(s) for s in range(120)]
    assert 0.12 < sum(s.kind == "cage" for s in scenes) / len(scenes) < 0.4
    assert all(6 <= len(s.dice) <= 16 for s in scenes)
    assert sum(len({d.material for d in s.dice}) > 1 for s in scenes) > 0.9 * len(scenes)
    edges = np.concatenate([s.plan.edge_px for s in scenes])
    assert np.percentile(edges, 5) >= 22 and np.percentile(edges, 95) <= 68
    assert {s.view for s in scenes} == {"Standard", "AgX", "Filmic"}
    assert len({round(s.exposure_offset, 3) for s in scenes}) > 100


def test_crop_names_follow_from_the_render_seed_and_the_slot():
    assert crop_name(1234, 7) == "crop-0001234-07.png"
    names = crop_names(5)
    assert names == [crop_name(5, i) for i in range(len(draw_grid_scene(5).dice))]


def test_a_pair_keeps_its_partner_between_the_two_cells():
    pairs = (Pair(0, 1, "touching"),)
    plan = plan_grid(2, 1, [0.0095, 0.0095], 40.0, 0.0, -math.pi / 2, 0.0, 30.0, pairs)
    assert plan.pairs == pairs
    gap = np.linalg.norm(plan.positions[1] - plan.positions[0])
    assert gap > 2 * 0.0095  # the cells leave room, the physics brings them together
