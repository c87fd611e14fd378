"""One seeded scene from start to finish: looks drawn, dice thrown and settled, camera and lamps
placed, the scene built and rendered in Blender, each die measured for its label.

Every random draw comes from generators seeded by the image's seed (one stream per stage), so
the same seed gives the same scene, and a change to one stage leaves the others' draws alone.
"""
from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from training.render import blender
from training.render.compose import place_camera, place_lamps
from training.render.diemesh import die_mesh
from training.render.geometry import (PinholeCamera, image_box, lamp_on_top_face, mesh_pixels, tilt_deg,
                                      top_face, top_face_corners, top_face_px)
from training.render.looks import (DieLook, Lamp, cage_look, camera_look, cloth_look, die_look,
                                   rail_look)
from training.render.physics import CageWorld, DiePose, RailWorld, settle_cage, settle_rail
from training.render.rules import DieFacts
from training.render.scenario import DICE_PER_KIND, scenario_of
from training.render.version import CODE_VERSION


@dataclass
class Rendered:
    """A rendered scene: its picture (8-bit BGR, before the camera model), each die's facts, and
    what it was made of."""

    bgr: np.ndarray
    dice: list[DieFacts]
    camera: PinholeCamera
    look: DieLook
    scenario: str
    extra: dict


def _stream(seed: int, stage: int) -> np.random.Generator:
    return np.random.default_rng([seed, stage])


def render_scene(seed: int, kind: str, size: tuple[int, int], samples: int, threads: int,
                 ray_count: int = 300) -> Rendered:
    """Render the frame of ``seed``: a ``"rail"`` (two dice by the back wall) or a ``"cage"`` (three
    dice in the hazard cage's dish, seen through its wire)."""
    width, height = size
    looks = _stream(seed, 1)
    die = die_look(looks)
    cloth = cloth_look(looks, kind)
    rail = rail_look(looks)
    cage = cage_look(looks)
    cam_look = camera_look(looks, kind, width)
    ambient = float(looks.uniform(0.02, 0.25))
    ambient_rgb = tuple(float(c) for c in looks.uniform(0.5, 1.0, 3))
    n = DICE_PER_KIND[kind]
    scenario = scenario_of(seed)
    half = die.size_m / 2
    physics = _stream(seed, 3)
    if kind == "rail":
        poses = settle_rail(physics, RailWorld(0.0, rail.wall_height), [half] * n, scenario)
        top = 0.0
    else:
        poses = settle_cage(physics, CageWorld(cage.dish_radius), [half] * n, scenario)
        top = 2 * cage.waist_height + 0.15
    cam = place_camera(cam_look, poses, die.size_m, width, height, kind, min_height=top)
    middle = np.mean([p.centre for p in poses], axis=0)
    lamps = place_lamps(_stream(seed, 4), cam, poses, die.size_m, middle)

    blender.reset()
    if kind == "rail":
        blender.add_cloth(cloth, 2.0, (float(middle[0]), float(middle[1])))
        side_x = RailWorld(0.0, 0.0).side_x  # the side wall away from the camera, never between
        blender.add_rail(rail, 0.0, side_x if cam.position[0] < middle[0] else -side_x, _stream(seed, 5))
    else:
        felt = blender.add_cloth(cloth, 2.0, (0.0, 0.0), print_density=0.3)
        felt.location.z = -0.002
        blender.add_cage(cage)
    objects = [blender.add_die(die, i, p.centre, p.rotation) for i, p in enumerate(poses)]
    blender.add_lamps(lamps, ambient, ambient_rgb)
    blender.add_camera(cam)
    with tempfile.TemporaryDirectory(prefix="dicetable-render-") as tmp:
        path = Path(tmp) / "frame.png"
        ground = cloth.rgb if kind == "rail" else cage.dish_rgb
        ev = blender.render(path, cam, samples, seed, cam_look.denoise, threads, cam_look.view,
                            cam_look.exposure_offset, ground)
        bgr = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if bgr is None:
        raise RuntimeError(f"seed {seed}: Blender wrote no picture")
    vis_rng = _stream(seed, 6)
    mesh = die_mesh(half, die.rounded).vertices
    facts = [die_facts(p, obj, cam, mesh, half, lamps, vis_rng, ray_count) for p, obj in zip(poses, objects)]
    extra = {"code": CODE_VERSION, "scenario": scenario, "material": die.material, "cloth": cloth.name,
             "camera_tilt_deg": round(cam.look_from_vertical_deg(), 1),
             "lamps_k": [round(lamp.kelvin) for lamp in lamps], "samples": samples, "exposure_ev": round(ev, 2),
             "exposure_offset_ev": round(cam_look.exposure_offset, 2), "view": cam_look.view}
    return Rendered(bgr, facts, cam, die, scenario, extra)


def die_facts(pose: DiePose, obj, cam: PinholeCamera, mesh: np.ndarray, half: float, lamps: list[Lamp],
              rng: np.random.Generator, rays: int, window: tuple[int, int, int, int] | None = None) -> DieFacts:
    """What the label says of one die, measured from its rest pose and the camera; with ``window``
    (``x, y, w, h`` in the picture: a crop) the box, ``in_frame`` and ``visible`` are the crop's."""
    x0, y0, w, h = window or (0, 0, cam.width, cam.height)
    px = mesh_pixels(cam, pose.centre, pose.rotation, mesh)
    if px is None:  # beside or behind a camera that came in close to another die
        return DieFacts(value=top_face(pose.rotation), box=(0.0, 0.0, 0.0, 0.0), tilt_deg=tilt_deg(pose.rotation),
                        on_rail=pose.on_rail, on_die=pose.on_die, touching=pose.touching, visible=0.0,
                        lamp_on_top=False, top_px=0.0, in_frame=False)
    box, inside = image_box(px - np.array([x0, y0], float), w, h)
    corners = top_face_corners(np.asarray(pose.centre), pose.rotation, half)
    lamp_on = any(lamp_on_top_face(cam.position, np.array(lamp.position), lamp.radius, np.asarray(pose.centre),
                                   pose.rotation, half) for lamp in lamps)
    visible = blender.visible_share(obj, cam, px, rng, rays, (x0, y0, x0 + w, y0 + h))
    return DieFacts(
        value=top_face(pose.rotation), box=tuple(box), tilt_deg=tilt_deg(pose.rotation),
        on_rail=pose.on_rail, on_die=pose.on_die, touching=pose.touching, visible=visible,
        lamp_on_top=bool(lamp_on), top_px=top_face_px(cam, corners), in_frame=inside,
    )
