"""Die crops from small scenes: for the classifiers (``python -m training.render crops``).

Each crop is a whole small render (``CROP_SIZE`` square) with the camera aimed at one die, so
that die is in the middle, 24-72 px across, with whatever lies around it (other dice, the rail,
the cage's wire, the print). Few samples and the denoiser keep a crop to a second or two.
"""
from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from training.render.looks import camera_look, photo_look
from training.render.photo import apply_camera
from training.render.records import CropsFolder, die_record

CROP_SIZE = 96
CAGE_SHARE = 0.25


def crop_name(seed: int) -> str:
    return f"crop-{seed:07d}.png"


def render_crops(out: Path, count: int, seed: int, samples: int, threads: int) -> Iterator[tuple[int, int, str, float]]:
    """Render crops of seeds ``seed`` .. ``seed + count - 1`` into ``out``, skipping those done."""
    from training.render.scene import render_scene  # Blender: only when rendering

    folder = CropsFolder(out)
    for i in range(count):
        s = seed + i
        name = crop_name(s)
        if folder.done(name):
            continue
        start = time.monotonic()
        rng = np.random.default_rng([s, 20])
        kind = "cage" if rng.random() < CAGE_SHARE else "rail"
        n = int(rng.integers(1, 4))
        cam = camera_look(rng, kind, CROP_SIZE)
        cam = replace(cam, die_px=float(rng.uniform(24, 64)), tilt_deg=float(rng.uniform(0, 50)),
                      aim_jitter=(0.0, 0.0), denoise=True, fov_deg=float(rng.uniform(20, 45)))
        target = int(rng.integers(n))
        scene = render_scene(s, kind, (CROP_SIZE, CROP_SIZE), samples, threads, dice_count=n, camera=cam,
                             target=target, ray_count=120, cage_top=False)
        look = photo_look(np.random.default_rng([s, 7]))
        bgr = apply_camera(scene.bgr, look, np.random.default_rng([s, 8]))
        ok, jpeg = cv2.imencode(".jpg", bgr, [cv2.IMWRITE_JPEG_QUALITY, look.jpeg_quality])
        bgr = cv2.imdecode(jpeg, cv2.IMREAD_COLOR)  # the JPEG's losses, kept in a lossless file
        ok, png = cv2.imencode(".png", bgr)
        die = scene.dice[scene.target]
        folder.add(name, png.tobytes(), die.value, die.top_px, die.tilt_deg, die.visible, scene.look.material, s,
                   {**die_record(die), "kind": kind, "dice": n, **scene.extra})
        yield i + 1, count, name, time.monotonic() - start
