"""Whether a place holds a die's face or only the ground around it, by colour.

A die's top face, seen from above, is one colour from its pips to its edge,
and the ground starts beyond its corners. Where a place is ground through and
through, its colour just inside the edge is the colour just beyond the corners.
The close-up pass uses this to tell a big die showing 1 from a small die lying
alone on a plain ground, which at the coarse scale looks like the pip of a big
white 1 (``closeup.py``).
"""
from __future__ import annotations

import cv2
import numpy as np

#: Where a die's face lies around its pip, in half-sides of its square from the
#: centre: inside the circle any turn of the face covers, beyond a 1's pip.
FACE_RING = (0.55, 0.85)
#: Where the ground lies: beyond the corners (1.41 half-sides) of any turn.
GROUND_RING = (1.5, 1.9)


def face_against_ground(frame: np.ndarray, cx: float, cy: float, side: float) -> float:
    """How far the colour of the square of ``side`` centred on (cx, cy) lies
    from the ground around it: the CIE76 distance (Delta E) between the median
    CIELAB colour of its face ring and that of its ground ring. The medians
    ignore the pip and the odd speck. Where the frame's edge cuts a ring, the
    part inside the frame is used; a ring wholly outside it gives 0 (nothing
    says the place differs from its ground)."""
    reach = GROUND_RING[1] * side / 2
    h, w = frame.shape[:2]
    x0, y0 = max(0, int(cx - reach)), max(0, int(cy - reach))
    x1, y1 = min(w, int(np.ceil(cx + reach)) + 1), min(h, int(np.ceil(cy + reach)) + 1)
    if x1 <= x0 or y1 <= y0:
        return 0.0
    patch = cv2.cvtColor(frame[y0:y1, x0:x1].astype(np.float32) / 255.0, cv2.COLOR_BGR2LAB)
    yy, xx = np.mgrid[y0:y1, x0:x1]
    dist = np.hypot(xx - cx, yy - cy) / (side / 2)
    face, ground = (patch[(dist >= a) & (dist < b)] for a, b in (FACE_RING, GROUND_RING))
    if not len(face) or not len(ground):
        return 0.0
    return float(np.linalg.norm(np.median(face, axis=0) - np.median(ground, axis=0)))
