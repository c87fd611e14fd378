"""Where the dice are: peaks of the detector's heat map, turned into frame pixels.

Without a calibration the reader cannot know how big the dice are: it guesses
from the frame (``geometry.detector_scale``), and the detector was trained on
photos zoomed by 0.6 to 3 around that guess. Dice in a photo taken from
farther come out small once shrunk, and small dice are missed or misread; in
a photo taken much closer they come out big, and the detector, which sees
about 60 px around a place, may find their faces or pips instead.
So the dice found at the guess tell the scale: when their median side at
the detector's input is outside ``DIE_PX_BAND``, the frame is looked at once
more, resized so that they show at ``RESCALED_DIE_PX``. A calibrated table
(``die_size_px``) and a frame of dice in the band pay nothing more.

Where the detector does find such pieces of a big die, they come out small,
and the frame is enlarged instead of shrunk (docs/vision.md gives the cost),
or they come out in the band and no second scale is tried. Close-ups (dice of
a fifth of the frame or more) are therefore read by a separate look at a
coarse scale, ``close_up_candidates``, which ``read.py`` spends only on an
uncalibrated frame the usual look could not read or read as nothing but 1s.
"""
from __future__ import annotations

import statistics
from dataclasses import dataclass

import cv2
import numpy as np

from vision.reader import geometry as G
from vision.reader.judge import DIE_PEAK
from vision.reader.nets import DiceNets

#: Uncalibrated: dice whose median side at the detector's input is outside
#: this band (px) are looked for again at another scale ...
DIE_PX_BAND = (14.0, 36.0)
#: ... the one that shows them this big (px). Chosen on the tune photos shrunk
#: to 0.5 and 0.7 and enlarged 1.6 and 2 times (docs/vision.md): on byler's
#: shrunk to half, 61% of the dice were read right at the guessed scale, 96%
#: with this.
RESCALED_DIE_PX = 21.0
#: The other scale makes the detector's input at most this long (px; a photo
#: of tiny dice would otherwise cost seconds) and at least this long (a frame
#: shrunk further has nothing left to read).
RESCALED_SIDE_LIMITS = (64, 1024)
#: The close-up look shrinks the frame's long side to this many px: a die of a
#: fifth to four fifths of a 4:3 frame's height then shows at about 10 to 38 px.
#: Chosen against 48 and 96 px on the tune photos' dice and generated dice cut
#: out to fill 30% and 60% of a 640x480 frame (docs/vision.md, "Close-ups").
CLOSE_UP_LONG_SIDE = 64


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
    other = rescale_for(found, scale, frame.shape) if die_size_px is None else None
    return found if other is None else candidates_at(frame, nets, other, min_peak)


def close_up_candidates(frame: np.ndarray, nets: DiceNets, min_peak: float) -> tuple[list[Candidate], float]:
    """The detector's peaks with the frame's long side at ``CLOSE_UP_LONG_SIDE``,
    strongest first, and the smallest die side (frame px) the usual look could
    not have seen whole: the top of ``DIE_PX_BAND`` at the guessed scale. The
    close-up look trusts only dice bigger than that."""
    big = DIE_PX_BAND[1] / G.detector_scale(frame.shape, None)
    return candidates_at(frame, nets, CLOSE_UP_LONG_SIDE / max(frame.shape[0], frame.shape[1]), min_peak), big


def rescale_for(found: list[Candidate], scale: float, shape: tuple[int, ...]) -> float | None:
    """The detector scale that would show these dice at ``RESCALED_DIE_PX``, or
    None when they are in ``DIE_PX_BAND`` already (or none is a clear die, or
    the limits leave the scale where it is)."""
    sides = [c.side for c in found if c.score >= DIE_PEAK]
    if not sides:
        return None
    side = statistics.median(sides)  # np.median's value, without its cost on a few numbers every frame
    if DIE_PX_BAND[0] <= side * scale <= DIE_PX_BAND[1]:
        return None
    lo, hi = (px / max(shape[0], shape[1]) for px in RESCALED_SIDE_LIMITS)
    other = float(np.clip(RESCALED_DIE_PX / side, lo, hi))
    return None if np.isclose(other, scale) else other


def candidates_at(frame: np.ndarray, nets: DiceNets, scale: float, min_peak: float) -> list[Candidate]:
    """The detector's peaks of at least ``min_peak`` with the frame resized by ``scale``, strongest first."""
    small = G.detector_input(frame, scale)
    h, w = frame.shape[:2]
    found = [c for c in peaks(nets.detect(G.to_blob([small])), scale, min_peak) if 0 <= c.cx < w and 0 <= c.cy < h]
    return sorted(found, key=lambda c: -c.score)


def peaks(out: np.ndarray, scale: float, min_peak: float) -> list[Candidate]:
    """Every local maximum of at least ``min_peak`` of the detector's output
    ``out`` (heat logit, log(size/16), dx, dy; see ``nets.DiceNets.detect``)
    for a frame resized by ``scale``, in frame pixels. Training mines the
    detector's peaks with this too, so both read its output the same way."""
    heat = 1.0 / (1.0 + np.exp(-out[0]))
    is_peak = (heat == cv2.dilate(heat, np.ones((3, 3), np.uint8))) & (heat >= min_peak)
    found = []
    for y, x in zip(*np.nonzero(is_peak)):
        gx = x + float(out[2, y, x])
        gy = y + float(out[3, y, x])
        cx = ((gx + 0.5) * G.DET_STRIDE - 0.5) / scale
        cy = ((gy + 0.5) * G.DET_STRIDE - 0.5) / scale
        side = 16.0 * float(np.exp(np.clip(out[1, y, x], -3, 3))) / scale
        found.append(Candidate(cx, cy, side, float(heat[y, x])))
    return found
