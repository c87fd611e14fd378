"""The crops renders' physics: dice set down flat stay where they were put, with the face they
were given; pairs end up touching or leaning as drawn, and leaning dice show any face. Runs only
where pybullet is (the renderer's own venv, training/render/README.md)."""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pybullet", reason="pybullet is only in the renderer's own venv (training/render/README.md)")

from training.render.geometry import tilt_deg, top_face  # noqa: E402
from training.render.grid import Pair  # noqa: E402
from training.render.physics import GridDie, RailWorld, settle_grid, settle_rail  # noqa: E402

HALF = 0.0095


def _row(n: int, first_face: int = 1, pitch: float = 0.05) -> list[GridDie]:
    return [GridDie((i * pitch, 0.0), HALF, 1 + (first_face - 1 + i) % 6, 0.3 * i) for i in range(n)]


def test_dice_set_down_flat_stay_where_they_were_put_with_their_face_up():
    dice = _row(4)
    poses = settle_grid(np.random.default_rng(1), dice, ())
    for d, p in zip(dice, poses):
        assert np.hypot(p.centre[0] - d.xy[0], p.centre[1] - d.xy[1]) < 0.001
        assert top_face(p.rotation) == d.value and tilt_deg(p.rotation) < 1.0
        assert not (p.touching or p.on_die or p.on_rail)


def test_a_touching_pair_touches_and_a_near_pair_does_not():
    dice = _row(4)
    poses = settle_grid(np.random.default_rng(2), dice, (Pair(0, 1, "touching"), Pair(2, 3, "near")))
    assert poses[0].touching and poses[1].touching
    assert not poses[2].touching and not poses[3].touching
    assert np.hypot(*(np.array(poses[3].centre[:2]) - poses[2].centre[:2])) < 0.05  # brought nearer


def test_leaning_dice_lean_on_a_die_or_the_wall_and_show_any_face():
    leaning, faces = 0, set()
    for seed in range(12):
        dice = _row(3, first_face=1 + seed % 6)
        poses = settle_grid(np.random.default_rng(seed), dice, (Pair(0, 1, "cocked"),), wall_y=0.02,
                            wall_leans=frozenset({2}))
        for i, rested in ((1, "on_die"), (2, "on_rail")):
            if tilt_deg(poses[i].rotation) > 8.0:
                leaning += 1
                assert getattr(poses[i], rested)
                faces.add(top_face(poses[i].rotation))
    assert leaning >= 16  # of 24
    assert len(faces) >= 4


def test_a_cocked_die_of_a_frame_shows_any_face():
    faces = set()
    for seed in range(10):
        poses = settle_rail(np.random.default_rng(seed), RailWorld(0.0, 0.1), [HALF, HALF], "cocked")
        faces |= {top_face(p.rotation) for p in poses if tilt_deg(p.rotation) > 8.0}
    assert len(faces) >= 3
