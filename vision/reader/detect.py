"""Where the dice are: peaks of the detector's heat map, turned into frame pixels."""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.reader import geometry as G
from vision.reader.nets import DiceNets


@dataclass(frozen=True)
class Candidate:
    """A place that may hold a die: centre and bounding-box side in frame pixels."""

    cx: float
    cy: float
    side: float
    score: float


def find_candidates(frame: np.ndarray, nets: DiceNets, die_size_px: float | None, min_peak: float) -> list[Candidate]:
    """Every local maximum of the heat map of at least ``min_peak``, strongest first."""
    scale = G.detector_scale(frame.shape, die_size_px)
    small = G.detector_input(frame, scale)
    out = nets.detect(G.to_blob([small]))
    heat = 1.0 / (1.0 + np.exp(-out[0]))
    peaks = (heat == cv2.dilate(heat, np.ones((3, 3), np.uint8))) & (heat >= min_peak)
    ys, xs = np.nonzero(peaks)
    h, w = frame.shape[:2]
    found = []
    for y, x in zip(ys, xs):
        gx = x + float(out[2, y, x])
        gy = y + float(out[3, y, x])
        cx = ((gx + 0.5) * G.DET_STRIDE - 0.5) / scale
        cy = ((gy + 0.5) * G.DET_STRIDE - 0.5) / scale
        side = 16.0 * float(np.exp(np.clip(out[1, y, x], -3, 3))) / scale
        if 0 <= cx < w and 0 <= cy < h:
            found.append(Candidate(cx, cy, side, float(heat[y, x])))
    return sorted(found, key=lambda c: -c.score)
