"""Where the dice are: peaks of the detector's heat map, turned into frame pixels.

Without a calibration the reader cannot know how big the dice are: it guesses
from the frame (``geometry.detector_scale``), and the detector was trained on
dice of about 9 to 70 px at its input. Dice in a photo taken from farther
than that guess come out small once shrunk, and small dice are missed or
misread. So the dice found at the guess tell the scale: when they are under
``SMALL_DIE_PX`` at the detector's input, the frame is looked at once more,
less shrunk, so that they show at ``RESCALED_DIE_PX``. A calibrated table
(``die_size_px``) and a frame of dice big enough pay nothing more.

Photos taken much closer than the guess are not shrunk further: tried on the
tune photos enlarged 1.6 and 2 times, that gave more ``ok`` rolls but read
fewer dice right. Such close-ups have a cost here too: the detector takes
the pips or faces of a big die for small dice, and the second look then
enlarges them (docs/vision.md gives what that costs).
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.reader import geometry as G
from vision.reader.judge import DIE_PEAK
from vision.reader.nets import DiceNets

#: Uncalibrated: dice whose median side at the detector's input is under this
#: (px) are looked for again at a larger scale ...
SMALL_DIE_PX = 14.0
#: ... the one that shows them this big (px). Both were chosen on the tune
#: photos shrunk to half and to 0.7 (docs/vision.md): on byler's shrunk to
#: half, 64% of the dice were read right at the guessed scale, 96% with this.
RESCALED_DIE_PX = 21.0
#: The larger scale makes the detector's input at most this long (px): a
#: photo of tiny dice would otherwise cost seconds.
MAX_RESCALED_SIDE = 1024


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
    found = candidates_at(frame, nets, scale, min_peak)
    larger = rescale_for(found, scale, frame.shape) if die_size_px is None else None
    return found if larger is None else candidates_at(frame, nets, larger, min_peak)


def rescale_for(found: list[Candidate], scale: float, shape: tuple[int, ...]) -> float | None:
    """A larger detector scale that would show these dice at ``RESCALED_DIE_PX``,
    or None when they are big enough (or none is a clear die, or the frame is
    already at ``MAX_RESCALED_SIDE``)."""
    sides = [c.side for c in found if c.score >= DIE_PEAK]
    side = float(np.median(sides)) if sides else None
    if side is None or side * scale >= SMALL_DIE_PX:
        return None
    larger = min(RESCALED_DIE_PX / side, MAX_RESCALED_SIDE / max(shape[0], shape[1]))
    return larger if larger > scale else None


def candidates_at(frame: np.ndarray, nets: DiceNets, scale: float, min_peak: float) -> list[Candidate]:
    """The detector's peaks of at least ``min_peak`` with the frame shrunk by ``scale``, strongest first."""
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
