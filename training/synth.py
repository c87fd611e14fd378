"""Generated training scenes: dice of random colours on random surfaces.

The two public photo sets show white, coloured and a few translucent dice on
a grey tray and a wooden desk; the real table has translucent red casino dice
with white pips on green felt, sometimes behind the hazard cage's wire. These
drawn scenes widen what the networks see (colours, felt, wire, glare, blur)
so they learn "a square face with pips" rather than the two photo sets.
Drawing only: no file is read, everything comes from the seeded ``rng``.
"""
from __future__ import annotations

import cv2
import numpy as np

from vision.scenes.die import PIP_GRID


def _background(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    kind = rng.integers(4)
    if kind == 0:  # felt: green or other saturated cloth
        hue = rng.choice([rng.integers(45, 85), rng.integers(0, 180)])
        base = cv2.cvtColor(np.uint8([[[hue, rng.integers(80, 230), rng.integers(50, 170)]]]), cv2.COLOR_HSV2BGR)[0, 0]
    else:
        base = rng.integers(20, 240, 3)
    img = np.empty((h, w, 3), np.float32)
    img[:] = base
    small = rng.normal(0, 1, (max(2, h // rng.integers(8, 64)), max(2, w // rng.integers(8, 64)), 3))
    img += cv2.resize(small.astype(np.float32), (w, h)) * rng.uniform(2, 18)
    if kind == 3:  # wood-like stripes
        ys = np.arange(h, dtype=np.float32)[:, None]
        stripes = np.sin(ys / rng.uniform(3, 15) + np.sin(np.arange(w)[None, :] / rng.uniform(30, 90)) * 2)
        img += stripes[..., None] * rng.uniform(5, 20)
    img += rng.normal(0, rng.uniform(1, 8), img.shape)
    gx, gy = np.meshgrid(np.linspace(-1, 1, w), np.linspace(-1, 1, h))
    img *= (1 + rng.uniform(-0.3, 0.3) * gx + rng.uniform(-0.3, 0.3) * gy)[..., None]
    return img


def _rounded_square(cx, cy, side, angle, radius_frac=0.18, n=6):
    half, r = side / 2, side * radius_frac
    pts = []
    for qx, qy, a0 in ((1, 1, 0), (-1, 1, 90), (-1, -1, 180), (1, -1, 270)):
        ox, oy = qx * (half - r), qy * (half - r)
        for t in np.linspace(np.radians(a0), np.radians(a0 + 90), n):
            pts.append((ox + r * np.cos(t), oy + r * np.sin(t)))
    pts = np.array(pts)
    c, s = np.cos(angle), np.sin(angle)
    rot = pts @ np.array([[c, s], [-s, c]])
    return rot + (cx, cy)


def draw_die(img: np.ndarray, rng: np.random.Generator, cx: float, cy: float, side: float, value: int) -> float:
    """Draw one die's top face (and a hint of its sides); returns its bounding-box side."""
    angle = rng.uniform(0, np.pi / 2)
    style = rng.integers(5)
    if style == 0:  # casino: translucent red, white pips
        body = np.array([rng.uniform(10, 60), rng.uniform(10, 50), rng.uniform(150, 235)])
        pip = np.array([235, 235, 235]) + rng.uniform(-25, 15, 3)
        alpha = rng.uniform(0.55, 0.85)
    elif style == 1:  # white die, dark pips
        body = rng.uniform(190, 250, 3)
        pip = rng.uniform(0, 60, 3)
        alpha = 1.0
    elif style == 2:  # dark die, light pips
        body = rng.uniform(0, 70, 3)
        pip = rng.uniform(190, 255, 3)
        alpha = 1.0
    else:  # any colour, contrasting pips
        body = rng.uniform(0, 255, 3)
        lum = body @ (0.11, 0.59, 0.3)
        pip = rng.uniform(0, 50, 3) if lum > 128 else rng.uniform(200, 255, 3)
        alpha = 1.0 if rng.random() < 0.7 else rng.uniform(0.6, 0.9)
    h, w = img.shape[:2]
    # sides seen in perspective: a darker copy shifted away from the optical centre
    shift = (np.array([cx - w / 2, cy - h / 2]) / max(w, h)) * side * rng.uniform(0.0, 0.5)
    sides = _rounded_square(cx + shift[0], cy + shift[1], side, angle)
    top = _rounded_square(cx, cy, side, angle, radius_frac=rng.uniform(0.08, 0.25))
    if rng.random() < 0.6:  # soft shadow
        shadow = np.zeros((h, w), np.float32)
        off = rng.uniform(-0.2, 0.2, 2) * side
        cv2.fillPoly(shadow, [np.round((top + off) * 4).astype(np.int32)], 1.0, cv2.LINE_AA, shift=2)
        shadow = cv2.GaussianBlur(shadow, (0, 0), side * 0.12 + 0.5)
        img *= (1 - rng.uniform(0.2, 0.5) * shadow)[..., None]
    mask = np.zeros((h, w), np.float32)
    cv2.fillPoly(mask, [np.round(sides * 4).astype(np.int32)], 0.7, cv2.LINE_AA, shift=2)
    cv2.fillPoly(mask, [np.round(top * 4).astype(np.int32)], 1.0, cv2.LINE_AA, shift=2)
    shade = np.where(mask < 0.85, 0.7, 1.0)[..., None]
    cover = (np.minimum(mask / 0.7, 1.0) * alpha)[..., None]
    layer = body[None, None, :] * shade
    if alpha < 1.0:  # light through the body: the surface shows, tinted
        layer = layer * 0.6 + img * (body / 255.0) * 0.8
    img[:] = img * (1 - cover) + layer * cover
    c, s = np.cos(angle), np.sin(angle)
    spread, pr = side * rng.uniform(0.24, 0.3), side * rng.uniform(0.07, 0.11)
    for px, py in PIP_GRID[value]:
        x = cx + (px * c - py * s) * spread
        y = cy + (px * s + py * c) * spread
        cv2.circle(img, (int(round(x * 4)), int(round(y * 4))), int(round(pr * 4)), pip.tolist(), -1, cv2.LINE_AA, shift=2)
    if rng.random() < 0.3:  # glare
        gx, gy = cx + rng.uniform(-0.4, 0.4) * side, cy + rng.uniform(-0.4, 0.4) * side
        spot = np.zeros((h, w), np.float32)
        cv2.circle(spot, (int(gx), int(gy)), max(1, int(side * rng.uniform(0.05, 0.2))), 1.0, -1)
        spot = cv2.GaussianBlur(spot, (0, 0), side * 0.05 + 0.5)
        img += spot[..., None] * rng.uniform(60, 160)
    box = np.vstack([sides, top])
    return float(max(np.ptp(box[:, 0]), np.ptp(box[:, 1])))


def scene(rng: np.random.Generator, h: int = 320, w: int = 320) -> tuple[np.ndarray, list[tuple[float, float, float, int]]]:
    """One scene: a BGR uint8 image and its dice as ``(cx, cy, bbox_side, value)``."""
    img = _background(rng, h, w)
    side = rng.uniform(18, 70)
    dice = []
    for _ in range(rng.integers(1, 7)):
        s = side * rng.uniform(0.9, 1.1)
        for _attempt in range(20):
            cx, cy = rng.uniform(s * 0.8, w - s * 0.8), rng.uniform(s * 0.8, h - s * 0.8)
            if all(np.hypot(cx - x, cy - y) > (s + bs) * 0.8 for x, y, bs, _ in dice):
                break
        else:
            continue
        value = int(rng.integers(1, 7))
        bside = draw_die(img, rng, cx, cy, s, value)
        dice.append((cx, cy, bside, value))
    if rng.random() < 0.25:  # hazard cage wire in front of everything
        step = rng.uniform(15, 40)
        col = rng.uniform(100, 220)
        thick = int(rng.integers(1, 3))
        for x in np.arange(rng.uniform(0, step), w, step):
            cv2.line(img, (int(x), 0), (int(x + rng.uniform(-20, 20)), h), (col, col, col), thick, cv2.LINE_AA)
    if rng.random() < 0.5:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.3, 1.5))
    img += rng.normal(0, rng.uniform(0, 6), img.shape)
    out = np.clip(img, 0, 255).astype(np.uint8)
    if rng.random() < 0.5:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(40, 95))])
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out, dice
