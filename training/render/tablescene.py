"""A table set's scene in Blender: the table built once (cloth and print, rail or cage, lamps,
room light, camera, and the dice set), then for each throw the dice moved to where the physics
left them, rendered with the table's exposure and measured for their labels; for an empty frame
the dice are left out of the render.

Nothing of one throw carries over into the next: each render sees the table and the dice where
this throw put them, so a throw's picture is the same whether its set was rendered in one go or
started again after a stop (``tests/render/test_render_blender.py`` checks it).
"""
from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from training.render import blender
from training.render.diemesh import die_mesh
from training.render.physics import DiePose
from training.render.rules import DieFacts
from training.render.scene import die_facts
from training.render.table import Table, empty_seed, table_stream
from training.render.tableposes import settle_throw

#: Where the dice wait, hidden, while the empty table is rendered.
AWAY = (0.0, 0.0, -5.0)


@dataclass
class Throw:
    """A rendered throw: its picture (8-bit BGR, before the camera model), the dice's facts, how
    they rest and the scenario."""

    bgr: np.ndarray
    dice: list[DieFacts]
    poses: list[DiePose]
    scenario: str
    seed: int


class TableScene:
    """The table of a set in Blender, built once; :meth:`empty` and :meth:`throw` render it."""

    def __init__(self, table: Table, samples: int, threads: int, ray_count: int = 300) -> None:
        self.table, self.samples, self.threads, self.rays = table, samples, threads, ray_count
        t = table
        blender.reset()
        aim = t.mount.aim
        if t.kind == "rail":
            blender.add_cloth(t.cloth, 2.0, (float(aim[0]), float(aim[1])))
            blender.add_rail(t.rail, 0.0, t.side_x, table_stream(t.seed, 5))
        else:
            felt = blender.add_cloth(t.cloth, 2.0, (0.0, 0.0), print_density=0.3)
            felt.location.z = -0.002
            blender.add_cage(t.cage)
        self.dice = [blender.add_die(t.die, i, AWAY, np.eye(3)) for i in range(t.dice)]
        blender.add_lamps(list(t.lamps), t.ambient, t.ambient_rgb)
        blender.add_camera(t.camera)
        self.mesh = die_mesh(t.die.size_m / 2, t.die.rounded).vertices

    def _render(self, seed: int, ev: float | None) -> tuple[np.ndarray, float]:
        t = self.table
        with tempfile.TemporaryDirectory(prefix="dicetable-render-") as tmp:
            path = Path(tmp) / "frame.png"
            ev = blender.render(path, t.camera, self.samples, seed, t.mount.denoise, self.threads, t.mount.view,
                                t.mount.exposure_offset, t.ground_rgb, ev)
            bgr = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if bgr is None:
            raise RuntimeError(f"table {t.seed}: Blender wrote no picture")
        return bgr, ev

    def empty(self, index: int, ev: float | None = None) -> tuple[np.ndarray, float]:
        """Empty frame ``index`` and its exposure: ``ev``, or without it the exposure metered on
        this frame (the table's offset added), as a camera is set up on the empty table."""
        blender.set_dice(self.dice, None, AWAY)
        return self._render(empty_seed(self.table.seed, index), ev)

    def throw(self, index: int, ev: float) -> Throw:
        """Throw ``index``: the dice thrown (or dropped into the dish) and settled, rendered at the
        table's exposure ``ev``, each die measured."""
        t = self.table
        seed, scenario, poses = settle_throw(t, index)
        half = t.die.size_m / 2
        blender.set_dice(self.dice, poses, AWAY)
        bgr, _ = self._render(seed, ev)
        rays = np.random.default_rng([seed, 6])
        facts = [die_facts(p, obj, t.camera, self.mesh, half, list(t.lamps), rays, self.rays)
                 for p, obj in zip(poses, self.dice)]
        return Throw(bgr, facts, poses, scenario, seed)
