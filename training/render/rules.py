"""Which dice and which rolls a reader is held to, as issue #36's targets define them.

A die is *eligible* when it lies flat (tilted at most 8 degrees and resting neither on the
rail nor on another die), at least 80% of it is unhidden, no lamp is mirrored on its top face,
and it is at least 28 px across in the image (the larger side of its box: about 20 px of top
face). A die cut by the frame's edge is never eligible either: the reader must never call such
a roll ``ok``, so it cannot count in the rolls that must be ``ok``.

A roll is *settleable* when every die is eligible and no two dice are closer, centre to
centre, than 1.15 times the larger side of their image boxes.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import combinations

MAX_TILT_DEG = 8.0
MIN_VISIBLE = 0.8
MIN_ACROSS_PX = 28.0
MIN_GAP_FACTOR = 1.15


@dataclass(frozen=True)
class DieFacts:
    """What the renderer measured about one die in one image."""

    value: int
    box: tuple[float, float, float, float]  # x, y, w, h in pixels, cut to the frame
    tilt_deg: float
    on_rail: bool
    on_die: bool
    touching: bool
    visible: float
    lamp_on_top: bool
    top_px: float
    in_frame: bool

    @property
    def across_px(self) -> float:
        """How many pixels across the die is in the image (the larger side of its box)."""
        return max(self.box[2], self.box[3])

    @property
    def flat(self) -> bool:
        return not cocked(self.tilt_deg, self.on_rail, self.on_die)


def cocked(tilt_deg: float, on_rail: bool, on_die: bool) -> bool:
    """Whether a die has no face up: tilted more than ``MAX_TILT_DEG``, or resting on the rail or on
    another die (the bench's ``vision.benchtool.targets.cocked`` reads the same from a record)."""
    return tilt_deg > MAX_TILT_DEG or on_rail or on_die


def eligible(die: DieFacts) -> bool:
    """Whether a reader is held to reading this die right (see the module's docstring)."""
    return (die.flat and die.visible >= MIN_VISIBLE and not die.lamp_on_top
            and die.across_px >= MIN_ACROSS_PX and die.in_frame)


def too_close(a: DieFacts, b: DieFacts) -> bool:
    """Whether two dice are closer, centre to centre, than 1.15 times the larger side of their boxes."""
    ax, ay = a.box[0] + a.box[2] / 2, a.box[1] + a.box[3] / 2
    bx, by = b.box[0] + b.box[2] / 2, b.box[1] + b.box[3] / 2
    larger = max(a.box[2], a.box[3], b.box[2], b.box[3])
    return math.hypot(ax - bx, ay - by) < MIN_GAP_FACTOR * larger


def settleable(dice: list[DieFacts]) -> bool:
    """Whether a roll must come out ``ok``: some dice, every one eligible, none too close to another."""
    if not dice or not all(eligible(d) for d in dice):
        return False
    return not any(too_close(a, b) for a, b in combinations(dice, 2))
