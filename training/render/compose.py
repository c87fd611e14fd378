"""Where the camera and the lamps go once the dice have come to rest (pure geometry).

The camera is aimed at the dice so they are always in view: its distance gives the die the
drawn size in pixels, or more room when the dice lie far apart. Lamps hang from the ceiling;
some are hung where a die's top face mirrors them into the camera, as casino lamps often are.
"""
from __future__ import annotations

import math

import numpy as np

from training.render.geometry import FACE_NORMALS, PinholeCamera, mirror_lamp_position, top_face
from training.render.looks import CameraLook, Lamp
from training.render.physics import DiePose


def place_camera(look: CameraLook, poses: list[DiePose], die_size: float, width: int, height: int,
                 kind: str, min_height: float = 0.0) -> PinholeCamera:
    """A camera aimed near the dice's middle, from ``look``'s direction; never lower than
    ``min_height`` (the cage's top), so it looks in from outside."""
    centres = np.array([p.centre for p in poses])
    middle = centres.mean(axis=0)
    spread = float(np.max(np.linalg.norm(centres[:, :2] - middle[:2], axis=1))) if len(poses) > 1 else 0.0
    focal = width / (2 * math.tan(math.radians(look.fov_deg) / 2))
    distance = focal * die_size / look.die_px
    room = 2 * spread + 2.5 * die_size if len(poses) > 1 else 1.4 * die_size
    distance = max(distance, focal * room / (0.75 * min(width, height)))
    tilt = math.radians(look.tilt_deg)
    heading = look.heading if kind == "cage" else -abs(look.heading)  # over the table, not behind the rail
    offset = np.array([math.cos(heading) * math.sin(tilt), math.sin(heading) * math.sin(tilt), math.cos(tilt)])
    if min_height and middle[2] + distance * offset[2] < min_height:
        distance = (min_height - middle[2]) / offset[2]
    view_w = distance * width / focal  # metres the frame spans at the aim point
    aim = middle + np.array([look.aim_jitter[0], look.aim_jitter[1], 0.0]) * max(view_w - 2 * spread, 0) * 0.5
    return PinholeCamera.looking_at(aim + offset * distance, aim, focal, width, height, look.roll)


def place_lamps(rng: np.random.Generator, camera: PinholeCamera, poses: list[DiePose], die_size: float,
                centre: np.ndarray, mirrored_share: float = 0.35) -> list[Lamp]:
    """Two to four ceiling lamps at 2700-6500 K (mostly 2800-5200 K); with ``mirrored_share``
    chance one of them hangs where a die's top face mirrors it into the camera."""
    count = int(rng.integers(2, 5))
    lamps = []
    for i in range(count):
        height = float(rng.uniform(1.3, 2.8))
        radius = float(rng.uniform(0.04, 0.3))
        kelvin = float(rng.uniform(2800, 5200) if rng.random() < 0.85 else rng.uniform(2700, 6500))
        position = None
        if i == 0 and poses and rng.random() < mirrored_share:
            pose = poses[int(rng.integers(len(poses)))]
            n = pose.rotation @ FACE_NORMALS[top_face(pose.rotation)]
            face = np.array(pose.centre) + n * die_size / 2 + rng.normal(0, die_size * 0.25, 3) * [1, 1, 0]
            position = mirror_lamp_position(camera.position, face, height)
        if position is None:
            position = np.asarray(centre, dtype=float) + np.array([*rng.uniform(-1.3, 1.3, 2), 0.0])
            position[2] = height
        watts = float(rng.uniform(12, 60)) * (height / 2.0) ** 2 * (3.0 / count)
        lamps.append(Lamp(tuple(float(c) for c in position), radius, kelvin, watts))
    return lamps
