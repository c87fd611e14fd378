"""Drawn dice for the reader's tests: plain pictures whose values are known by construction.

The style (flat squares, round pips, no shading) differs on purpose from the
generated scenes the networks were trained on, so these tests check that the
reader knows dice, not the training pictures.
"""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.scenes.die import PIP_GRID


FELT = (40, 110, 30)  # BGR green cloth
WOOD = (150, 190, 220)


def draw_die(img: np.ndarray, cx: float, cy: float, side: float, value: int, angle_deg: float = 0.0,
             body=(245, 245, 245), pip=(20, 20, 20)) -> None:
    """A flat die face: rounded square and round pips, turned by ``angle_deg``."""
    rect = ((cx, cy), (side, side), angle_deg)
    corners = cv2.boxPoints(rect)
    cv2.fillConvexPoly(img, np.round(corners).astype(np.int32), body, cv2.LINE_AA)
    a = np.radians(angle_deg)
    c, s = np.cos(a), np.sin(a)
    spread, r = side * 0.27, max(1, int(round(side * 0.09)))
    for px, py in PIP_GRID[value]:
        x = cx + (px * c - py * s) * spread
        y = cy + (px * s + py * c) * spread
        cv2.circle(img, (int(round(x)), int(round(y))), r, pip, -1, cv2.LINE_AA)


def table(dice: list[tuple[float, float, int]], side: float = 40, size=(480, 640), background=WOOD,
          seed: int = 0, **style) -> np.ndarray:
    """A frame of ``size`` (h, w) with the given dice ``(cx, cy, value)`` drawn on a noisy surface."""
    rng = np.random.default_rng(seed)
    img = np.empty((*size, 3), np.uint8)
    img[:] = background
    noise = rng.normal(0, 4, img.shape)
    img = np.clip(img + noise, 0, 255).astype(np.uint8)
    for cx, cy, v in dice:
        draw_die(img, cx, cy, side, v, angle_deg=float(rng.uniform(0, 90)), **style)
    return cv2.GaussianBlur(img, (3, 3), 0)


@pytest.fixture
def draw_table():
    return table
