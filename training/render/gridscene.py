"""One crops render from start to finish: the grid drawn (``grid.py``), the dice set down and
settled, lamps hung, the scene built and rendered once in Blender, and every die measured in
its own crop. A render of N dice costs about what one small scene did, and gives N crops.
"""
from __future__ import annotations

import math
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from training.render import blender
from training.render.compose import place_lamps
from training.render.diemesh import die_mesh
from training.render.grid import CROP, REACH, GridScene, box_overlap, crop_window, draw_grid_scene
from training.render.geometry import image_box
from training.render.physics import GridDie, settle_grid
from training.render.rules import DieFacts
from training.render.scene import CODE_VERSION, die_facts


#: Rail renders: the share of the dice of the row by the wall leant on it.
WALL_LEAN_SHARE = 0.35


@dataclass(frozen=True)
class Crop:
    """One die's crop of a render: where it is cut (top-left corner), the die's facts measured in
    it, and what else is seen there."""

    slot: int
    corner: tuple[int, int]
    facts: DieFacts
    material: str
    scenario: str  # single, touching, near, cocked (leant on a die or the wall), support (leant on)
    others: int  # other dice whose box reaches into the crop
    others_share: float  # share of the crop their boxes cover
    view_tilt_deg: float  # the ray from the camera to the die, from vertical


@dataclass
class GridRendered:
    bgr: np.ndarray
    crops: list[Crop]
    extra: dict


def _stream(seed: int, stage: int) -> np.random.Generator:
    return np.random.default_rng([seed, stage])


def _wall_leans(rng: np.random.Generator, scene: GridScene, placed: list[GridDie], wall_y: float) -> frozenset[int]:
    """Which dice of the row by the wall lean on it: a share of those not paired, where the die,
    moved to the wall, stays whole in the picture."""
    plan = scene.plan
    back = max(d.xy[1] + d.half for d in placed)
    paired = {i for p in plan.pairs for i in (p.a, p.b)}
    width, height = plan.size
    leans = set()
    for i, d in enumerate(placed):
        if i in paired or d.xy[1] + d.half < back - 1.5 * d.half or rng.random() >= WALL_LEAN_SHARE:
            continue
        x, y = plan.camera.project(np.array([d.xy[0], wall_y - 1.3 * d.half, 1.2 * d.half]))[0]
        room = REACH * plan.edge_px[i] + 2
        if room <= x <= width - room and room <= y <= height - room:
            leans.add(i)
    return frozenset(leans)


def _scenarios(scene: GridScene, on_wall: frozenset[int]) -> list[str]:
    roles = ["cocked" if i in on_wall else "single" for i in range(len(scene.dice))]
    for pair in scene.plan.pairs:
        roles[pair.a] = "support" if pair.kind == "cocked" else pair.kind
        roles[pair.b] = pair.kind
    return roles


def render_grid(seed: int, samples: int, threads: int, ray_count: int = 120) -> GridRendered:
    """Render the crops render of ``seed`` and measure each die in its crop."""
    scene = draw_grid_scene(seed)
    plan = scene.plan
    halves = [d.size_m / 2 for d in scene.dice]
    big = max(d.size_m for d in scene.dice)
    placed = [GridDie((float(p[0]), float(p[1])), h, v, y)
              for p, h, v, y in zip(plan.positions, halves, scene.faces, scene.yaws)]
    side = _stream(seed, 5)
    wall_y = side_x = None
    leans: frozenset[int] = frozenset()
    cage = scene.cage
    if scene.kind == "rail":
        # the wall close behind the back row, so its crops show it
        wall_y = max(d.xy[1] + d.half for d in placed) + float(side.uniform(0.05, 0.8)) * big
        gap = float(side.uniform(0.05, 0.8)) * big
        if plan.camera.position[0] > 0:  # the side wall on the side away from the camera
            side_x = min(d.xy[0] - d.half for d in placed) - gap
        else:
            side_x = max(d.xy[0] + d.half for d in placed) + gap
        leans = _wall_leans(side, scene, placed, wall_y)
    else:
        reach = max(math.hypot(*d.xy) + d.half * 1.5 for d in placed) + float(side.uniform(0.5, 2.0)) * big
        if reach > cage.dish_radius:
            grow = reach / cage.dish_radius
            cage = replace(cage, dish_radius=reach, waist_radius=cage.waist_radius * grow)
    poses = settle_grid(_stream(seed, 3), placed, plan.pairs, wall_y, scene.rail.wall_height, leans,
                        cage.dish_radius if scene.kind == "cage" else None)
    cam = plan.camera
    middle = np.mean([p.centre for p in poses], axis=0)
    lamps = place_lamps(_stream(seed, 4), cam, poses, big, middle, mirrored_share=0.5, most=5, mirror_each=True)

    blender.reset()
    if scene.kind == "rail":
        blender.add_cloth(scene.cloth, 2.0, (float(middle[0]), float(middle[1])))
        blender.add_rail(scene.rail, wall_y, side_x, side)
    else:
        felt = blender.add_cloth(scene.cloth, 2.0, (0.0, 0.0), print_density=0.3)
        felt.location.z = -0.002
        blender.add_cage(cage, upper=False)
    objects = [blender.add_die(look, i, p.centre, p.rotation) for i, (look, p) in enumerate(zip(scene.dice, poses))]
    blender.add_lamps(lamps, scene.ambient, scene.ambient_rgb)
    blender.add_camera(cam)
    with tempfile.TemporaryDirectory(prefix="dicetable-render-") as tmp:
        path = Path(tmp) / "grid.png"
        ground = scene.cloth.rgb if scene.kind == "rail" else cage.dish_rgb
        ev = blender.render(path, cam, samples, seed, True, threads, scene.view, scene.exposure_offset, ground)
        bgr = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if bgr is None:
        raise RuntimeError(f"seed {seed}: Blender wrote no picture")

    width, height = plan.size
    boxes = []
    for p, h in zip(poses, halves):
        world = np.asarray(p.centre) + die_mesh(h, 0.0).vertices @ p.rotation.T
        boxes.append(image_box(cam.project(world), width, height)[0])
    vis_rng = _stream(seed, 6)
    roles = _scenarios(scene, leans)
    crops = []
    for i, (pose, obj, look) in enumerate(zip(poses, objects, scene.dice)):
        corner = crop_window(cam.project(np.asarray(pose.centre))[0], plan.size)
        mesh = die_mesh(halves[i], look.rounded).vertices
        facts = die_facts(pose, obj, cam, mesh, halves[i], lamps, vis_rng, ray_count, (*corner, CROP, CROP))
        shares = [box_overlap(corner, tuple(b)) for j, b in enumerate(boxes) if j != i]
        ray = cam.position - np.asarray(pose.centre)
        crops.append(Crop(i, corner, facts, look.material, roles[i], sum(s > 0 for s in shares),
                          min(1.0, sum(shares)), math.degrees(math.acos(ray[2] / np.linalg.norm(ray)))))
    extra = {"code": CODE_VERSION, "kind": scene.kind, "dice": len(poses), "cloth": scene.cloth.name,
             "camera_tilt_deg": round(cam.look_from_vertical_deg(), 1),
             "lamps_k": [round(lamp.kelvin) for lamp in lamps], "samples": samples, "exposure_ev": round(ev, 2),
             "exposure_offset_ev": round(scene.exposure_offset, 2), "view": scene.view,
             "grid": [plan.cols, plan.rows], "render_size": list(plan.size)}
    return GridRendered(bgr, crops, extra)
