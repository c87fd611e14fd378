"""Die crops for the classifiers (``python -m training.render crops``): each render is a grid of
dice (``grid.py``), and each die's crop is cut from it.

A crop is ``CROP`` pixels square, cut from the render at its size (no rescaling) around one die,
24-64 px across mostly, with what lies around it: the die it was pushed against, lies near or
leans on, the rail, the cage's lower wires, the print, glare. Each crop then gets its own camera
model (white balance, blur, noise, vignetting) and JPEG round trip, drawn from its render's seed
and its place in the grid.
"""
from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np

from training.render.grid import CROP, draw_grid_scene
from training.render.looks import photo_look
from training.render.photo import apply_camera
from training.render.records import CropsFolder, die_record


def crop_name(seed: int, slot: int) -> str:
    return f"crop-{seed:07d}-{slot:02d}.png"


def crop_names(seed: int) -> list[str]:
    """The crops the render of ``seed`` gives (known from its drawn grid, before any rendering)."""
    return [crop_name(seed, i) for i in range(len(draw_grid_scene(seed).dice))]


def finish_crop(bgr: np.ndarray, seed: int, slot: int) -> bytes:
    """The crop as the camera would have taken it, through JPEG, stored as PNG."""
    look = photo_look(np.random.default_rng([seed, 7, slot]))
    out = apply_camera(bgr, look, np.random.default_rng([seed, 8, slot]))
    ok, jpeg = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, look.jpeg_quality])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    ok, png = cv2.imencode(".png", cv2.imdecode(jpeg, cv2.IMREAD_COLOR))  # the JPEG's losses, kept lossless
    if not ok:
        raise RuntimeError("PNG encoding failed")
    return png.tobytes()


def render_crops(out: Path, count: int, seed: int, samples: int, threads: int) -> Iterator[tuple[int, int, str, float]]:
    """Render the crops renders of seeds ``seed`` .. ``seed + count - 1`` into ``out``, skipping
    those whose crops are all there; yields (renders done, count, what was written, seconds)."""
    from training.render.gridscene import render_grid  # Blender: only when rendering

    folder = CropsFolder(out)
    for i in range(count):
        s = seed + i
        names = crop_names(s)
        if all(folder.done(name) for name in names):
            continue
        start = time.monotonic()
        grid = render_grid(s, samples, threads)
        for crop, name in zip(grid.crops, names):
            if folder.done(name):
                continue
            x, y = crop.corner
            png = finish_crop(grid.bgr[y:y + CROP, x:x + CROP], s, crop.slot)
            die = crop.facts
            meta = {**die_record(die), **grid.extra, "slot": crop.slot, "corner": list(crop.corner),
                    "scenario": crop.scenario, "material": crop.material, "others_in_crop": crop.others,
                    "others_share": round(crop.others_share, 3), "view_tilt_deg": round(crop.view_tilt_deg, 1)}
            folder.add(name, png, die.value, die.top_px, die.tilt_deg, die.visible, crop.material, s, meta)
        seconds = time.monotonic() - start
        yield i + 1, count, f"crop-{s:07d}-*.png ({len(names)} crops, {seconds / len(names):.2f}s a crop)", seconds
