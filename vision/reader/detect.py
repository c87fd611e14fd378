"""Where the dice are: peaks of the detector's heat map, turned into frame pixels.

Without a calibration the reader cannot know how big the dice are: it guesses
from the frame (``geometry.detector_scale``), and the detector was trained on
photos zoomed by 0.6 to 3 around that guess. Dice in a photo taken from
farther come out small once shrunk, and small dice are missed or misread; in
a photo taken much closer they come out big, and the detector, which sees
about 60 px around a place, may find their faces or pips instead.
So the dice found at the guess tell the scale: when their median side at
the detector's input is outside the policy's ``die_px_band``, the frame is looked
at once more, resized so that they show at ``rescaled_die_px``. A calibrated table
(``die_size_px``) and a frame of dice in the band pay nothing more.

Where the detector does find such pieces of a big die, they come out small,
and the frame is enlarged instead of shrunk, or they come out in the band and
no second scale is tried. Close-ups (dice of a fifth of the frame or more) are
therefore read by a separate pass at a coarse scale, ``close_up_candidates``,
which ``closeup.py`` spends only on an uncalibrated frame the standard scale
could not read or read as nothing but 1s.
"""
from __future__ import annotations

import statistics
from dataclasses import dataclass

import cv2
import numpy as np

from vision.reader import geometry as G
from vision.reader.nets import DiceNets
from vision.reader.policy import DEFAULT_POLICY, ReadPolicy

#: The other scale makes the detector's input at most this long (px; a photo
#: of tiny dice would otherwise cost seconds) and at least this long (a frame
#: shrunk further has nothing left to read).
RESCALED_SIDE_LIMITS = (64, 1024)
#: The close-up pass shrinks the frame's long side to this many px: a die of a
#: fifth to four fifths of a 4:3 frame's height then shows at about 10 to 38 px.
CLOSE_UP_LONG_SIDE = 64


@dataclass(frozen=True)
class Candidate:
    """A place that may hold a die: centre and bounding-box side in frame pixels."""

    cx: float
    cy: float
    side: float
    score: float


def find_candidates(frame: np.ndarray, nets: DiceNets, die_size_px: float | None,
                    policy: ReadPolicy = DEFAULT_POLICY, finding: np.ndarray | None = None) -> list[Candidate]:
    """Every local maximum of the heat map of at least the policy's ``faint_peak``, strongest
    first, in pixels of ``frame``. ``finding``: a smaller picture of the same view (a camera's
    low-resolution stream), which the detector looks at instead of shrinking ``frame``."""
    scale = G.detector_scale(frame.shape, die_size_px)
    found = candidates_at(frame, nets, scale, policy.faint_peak, finding)
    other = rescale_for(found, scale, frame.shape, policy) if die_size_px is None else None
    return found if other is None else candidates_at(frame, nets, other, policy.faint_peak, finding)


def close_up_candidates(frame: np.ndarray, nets: DiceNets,
                        policy: ReadPolicy = DEFAULT_POLICY) -> tuple[list[Candidate], float]:
    """The detector's peaks with the frame's long side at ``CLOSE_UP_LONG_SIDE``,
    strongest first, and the smallest die side (frame px) the standard scale could
    not have seen whole: the top of the policy's ``die_px_band`` at the guessed scale.
    The close-up pass trusts only dice bigger than that."""
    big = policy.die_px_band[1] / G.detector_scale(frame.shape, None)
    long_side = max(frame.shape[0], frame.shape[1])
    return candidates_at(frame, nets, CLOSE_UP_LONG_SIDE / long_side, policy.faint_peak), big


def rescale_for(found: list[Candidate], scale: float, shape: tuple[int, ...],
                policy: ReadPolicy = DEFAULT_POLICY) -> float | None:
    """The detector scale that would show these dice at the policy's ``rescaled_die_px``, or
    None when they are in its ``die_px_band`` already (or none is a clear die, or
    the limits leave the scale where it is)."""
    sides = [c.side for c in found if c.score >= policy.die_peak]
    if not sides:
        return None
    side = statistics.median(sides)  # np.median's value, without its cost on a few numbers every frame
    low, high = policy.die_px_band
    if low <= side * scale <= high:
        return None
    lo, hi = (px / max(shape[0], shape[1]) for px in RESCALED_SIDE_LIMITS)
    other = float(np.clip(policy.rescaled_die_px / side, lo, hi))
    return None if np.isclose(other, scale) else other


def candidates_at(frame: np.ndarray, nets: DiceNets, scale: float, min_peak: float,
                  finding: np.ndarray | None = None) -> list[Candidate]:
    """The detector's peaks of at least ``min_peak`` with the frame resized by ``scale``, strongest first.
    ``finding``, a smaller picture of the same view, is resized instead where it is at least as
    big as the detector's input (so the detector sees what it would have seen of ``frame``)."""
    small = G.detector_view(frame, scale, finding)
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
