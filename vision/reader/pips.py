"""A second opinion on a die's value that shares nothing with the network: count the pips.

The classifier is accurate but can be confidently wrong on something it never
saw; this counter uses plain image morphology, so its mistakes are of another
kind. The reader trusts a die without hesitation only when both agree.

Pips are small round blobs that differ from the face around them, darker on
a light die or lighter on a dark or translucent one; a long streak (glare on
a translucent die) is not a pip. Both polarities are
tried on the centre of the crop; the one whose blobs are alike in size wins.
"""
from __future__ import annotations

import cv2
import numpy as np

from vision.reader import geometry as G

_KERNEL = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (11, 11))


def _blobs(response: np.ndarray, face: np.ndarray, pip_area: float) -> list[float]:
    """Areas of the round blobs of one polarity inside the face."""
    vals = response[face > 0]
    if vals.size == 0 or vals.max() < 25:
        return []
    thresh = max(20.0, 0.45 * float(np.percentile(vals, 99.5)))
    binary = ((response >= thresh) & (face > 0)).astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(binary, connectivity=8)
    areas = []
    for i in range(1, n):
        x, y, w, h, a = stats[i]
        if not (0.25 * pip_area <= a <= 3.0 * pip_area):
            continue
        if max(w, h) > 2.2 * min(w, h) or a < 0.45 * w * h or _elongation(labels[y:y + h, x:x + w] == i) > 2.0:
            continue
        areas.append(float(a))
    return areas


def _elongation(blob: np.ndarray) -> float:
    """Ratio of a blob's long axis to its short one (1 for a disc): a streak of
    glare lying diagonally fills its bounding box like a pip does, but is long."""
    m = cv2.moments(blob.astype(np.uint8), binaryImage=True)
    if m["m00"] < 3:
        return 1.0
    a, b, c = m["mu20"] / m["m00"], m["mu02"] / m["m00"], m["mu11"] / m["m00"]
    root = np.sqrt(max((a - b) ** 2 + 4 * c * c, 0.0))
    big, small = (a + b + root) / 2, (a + b - root) / 2
    return float(np.sqrt(max(big, 1e-6) / max(small, 1e-6)))


def count_pips(crop: np.ndarray) -> int:
    """Pips seen on a CLS_SIZE crop centred on a die (0 when no clear count, 1..6 otherwise)."""
    gray = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY) if crop.ndim == 3 else crop
    gray = cv2.GaussianBlur(gray, (3, 3), 0)
    size = G.CLS_SIZE
    side = size / G.CROP_FACTOR
    face = np.zeros_like(gray)
    cv2.circle(face, (size // 2, size // 2), int(side * 0.42), 255, -1)
    pip_area = np.pi * (side * 0.085) ** 2
    best: list[float] = []
    for response in (cv2.morphologyEx(gray, cv2.MORPH_BLACKHAT, _KERNEL), cv2.morphologyEx(gray, cv2.MORPH_TOPHAT, _KERNEL)):
        areas = _blobs(response, face, pip_area)
        if not areas:
            continue
        spread = (max(areas) - min(areas)) / max(areas)
        if spread <= 0.6 and len(areas) > len(best):
            best = areas
    return len(best) if 1 <= len(best) <= 6 else 0
