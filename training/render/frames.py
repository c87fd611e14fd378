"""Whole labelled frames: for the detector and for evaluation (``python -m training.render frames``)."""
from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from training.render.looks import photo_look
from training.render.photo import apply_camera, jpeg_bytes
from training.render.records import FramesFolder, image_record

#: Share of cage frames in a mixed batch.
CAGE_SHARE = 0.35


def frame_kind(seed: int, kind: str) -> str:
    """The kind of the frame of ``seed``: ``kind`` itself, or for ``"mixed"`` one drawn from the seed."""
    if kind != "mixed":
        return kind
    return "cage" if np.random.default_rng([seed, 0]).random() < CAGE_SHARE else "rail"


def frame_name(kind: str, size: tuple[int, int], seed: int) -> str:
    return f"{kind}-{size[0]}x{size[1]}-{seed:07d}.jpg"


def render_frames(out: Path, count: int, seed: int, kind: str, size: tuple[int, int], samples: int,
                  threads: int) -> Iterator[tuple[int, int, str, float]]:
    """Render frames of seeds ``seed`` .. ``seed + count - 1`` into ``out``, skipping those done;
    yields (number done, count, name, seconds) after each."""
    from training.render.scene import render_scene  # Blender: only when rendering

    folder = FramesFolder(out)
    for i in range(count):
        s = seed + i
        k = frame_kind(s, kind)
        name = frame_name(k, size, s)
        if folder.done(name):
            continue
        start = time.monotonic()
        scene = render_scene(s, k, size, samples, threads)
        look = photo_look(np.random.default_rng([s, 7]))
        bgr = apply_camera(scene.bgr, look, np.random.default_rng([s, 8]))
        record = image_record(name, k, size, s, scene.dice, **scene.extra, jpeg_quality=look.jpeg_quality)
        folder.add(record, jpeg_bytes(bgr, look.jpeg_quality))
        yield i + 1, count, name, time.monotonic() - start
