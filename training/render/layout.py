"""The print on a table's cloth: a craps-like layout's lines, boxes and lettering, drawn as a mask.

The camera sees a small patch of the table, so what matters is that dice land on and beside
printed lines, letters and numbers in the cloth's print colour, not that the layout is a real one.
"""
from __future__ import annotations

import cv2
import numpy as np

WORDS = ("PASS LINE", "DON'T PASS BAR", "COME", "DON'T COME", "FIELD", "BIG 6", "BIG 8", "ODDS",
         "2 3 4 9 10 11 12", "SEVEN", "ANY CRAPS", "HARDWAYS", "4", "5", "SIX", "8", "NINE", "10",
         "PAYS DOUBLE", "HAZARD", "MAIN", "CHANCE", "NICK")
FONTS = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_TRIPLEX, cv2.FONT_HERSHEY_COMPLEX)


def layout_mask(seed: int, size_px: int = 2048, metres: float = 2.0, density: float = 1.0) -> np.ndarray:
    """A ``size_px`` square mask (float32 0..1, 1 where ink is) of a layout spanning ``metres``."""
    rng = np.random.default_rng(seed)
    px_per_m = size_px / metres
    mask = np.zeros((size_px, size_px), np.uint8)
    for _ in range(int(rng.integers(4, 10) * density)):
        thick = max(1, int(rng.uniform(0.004, 0.015) * px_per_m))
        if rng.random() < 0.6:  # a straight line across much of the table
            p0 = rng.uniform(0, size_px, 2)
            angle = rng.choice([0.0, np.pi / 2]) + rng.normal(0, 0.05)
            d = np.array([np.cos(angle), np.sin(angle)]) * size_px
            cv2.line(mask, tuple(int(v) for v in p0 - d), tuple(int(v) for v in p0 + d), 255, thick, cv2.LINE_AA)
        else:  # an arc, as around the pass line's curve
            centre = tuple(int(v) for v in rng.uniform(0, size_px, 2))
            radius = int(rng.uniform(0.2, 1.0) * px_per_m)
            start = rng.uniform(0, 360)
            cv2.ellipse(mask, centre, (radius, radius), 0, start, start + rng.uniform(40, 180), 255, thick,
                        cv2.LINE_AA)
    for _ in range(int(rng.integers(3, 9) * density)):  # boxes, as the place numbers sit in
        x, y = rng.uniform(0, size_px, 2)
        w, h = rng.uniform(0.08, 0.3, 2) * px_per_m
        cv2.rectangle(mask, (int(x), int(y)), (int(x + w), int(y + h)), 255,
                      max(1, int(rng.uniform(0.003, 0.01) * px_per_m)), cv2.LINE_AA)
    for _ in range(int(rng.integers(6, 16) * density)):
        word = WORDS[int(rng.integers(len(WORDS)))]
        height_m = rng.uniform(0.015, 0.08)
        font = FONTS[int(rng.integers(len(FONTS)))]
        scale = height_m * px_per_m / 22.0
        thick = max(1, int(scale * rng.uniform(1.5, 3.5)))
        text = np.zeros_like(mask)
        org = (int(rng.uniform(0, size_px)), int(rng.uniform(0, size_px)))
        cv2.putText(text, word, org, font, scale, 255, thick, cv2.LINE_AA)
        angle = float(rng.choice([0, 90, 180, 270]) + rng.normal(0, 3))
        turn = cv2.getRotationMatrix2D((float(org[0]), float(org[1])), angle, 1.0)
        mask = np.maximum(mask, cv2.warpAffine(text, turn, (size_px, size_px)))
    return mask.astype(np.float32) / 255.0
