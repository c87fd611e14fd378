"""Drawing one die: a cube seen from above, with any orientation.

A die is drawn as a real cube (orthographic projection, camera looking
straight down) rather than as a flat square, so the same code gives a die
lying flat, a die leaning on the rail or on another die (a side face shows),
and a die tumbling through the air (two or three faces show). Casino dice are
translucent: the felt shows through the body and the pips of the bottom face
show faintly as "ghost" pips, which a reader must learn to ignore.

Geometry only depends on numpy; pixels are drawn with OpenCV in a small
region of interest so that a die costs well under a millisecond.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

# Canonical die: the face value whose outward normal is each axis. Opposite
# faces sum to seven, as on every real die.
_FACES: dict[int, tuple[tuple[float, float, float], tuple[float, float, float], tuple[float, float, float]]] = {
    # value: (normal, in-face axis u, in-face axis w)
    1: ((0, 0, 1), (1, 0, 0), (0, 1, 0)),
    6: ((0, 0, -1), (1, 0, 0), (0, -1, 0)),
    2: ((1, 0, 0), (0, 1, 0), (0, 0, 1)),
    5: ((-1, 0, 0), (0, -1, 0), (0, 0, 1)),
    3: ((0, 1, 0), (0, 0, 1), (1, 0, 0)),
    4: ((0, -1, 0), (0, 0, -1), (1, 0, 0)),
}

#: Where the pips of each face sit, on a grid of -1 / 0 / +1 from the face centre
#: (x right, y down). The one statement of it: the renderer scales it, and the
#: training scenes and the reader's drawn test dice draw from it too.
PIP_GRID: dict[int, tuple[tuple[int, int], ...]] = {
    1: ((0, 0),),
    2: ((-1, -1), (1, 1)),
    3: ((-1, -1), (0, 0), (1, 1)),
    4: ((-1, -1), (-1, 1), (1, -1), (1, 1)),
    5: ((-1, -1), (-1, 1), (0, 0), (1, -1), (1, 1)),
    6: ((-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)),
}
_G = 0.27  # pip offset from the face centre, in units of the die's side
PIP_LAYOUT: dict[int, tuple[tuple[float, float], ...]] = {
    value: tuple((_G * gx, _G * gy) for gx, gy in grid) for value, grid in PIP_GRID.items()
}
PIP_RADIUS = 0.085
_SHIFT = 4  # sub-pixel bits for OpenCV drawing
_SCALE = 1 << _SHIFT


def rot_x(a: float) -> np.ndarray:
    c, s = np.cos(a), np.sin(a)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])


def rot_y(a: float) -> np.ndarray:
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])


def rot_z(a: float) -> np.ndarray:
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


_VALUE_UP = {
    1: np.eye(3),
    6: rot_x(np.pi),
    2: rot_y(-np.pi / 2),
    5: rot_y(np.pi / 2),
    3: rot_x(np.pi / 2),
    4: rot_x(-np.pi / 2),
}


def orientation(value: int, yaw: float, tilt: float = 0.0, tilt_dir: float = 0.0) -> np.ndarray:
    """Rotation that puts ``value`` on top, turned by ``yaw`` and tipped by ``tilt``.

    ``tilt`` (radians) tips the die about a horizontal axis at angle
    ``tilt_dir``: a die leaning on the rail or on another die.
    """
    r = rot_z(yaw) @ _VALUE_UP[value]
    if tilt:
        axis = np.array([np.cos(tilt_dir), np.sin(tilt_dir), 0.0])
        r = _axis_angle(axis, tilt) @ r
    return r


def random_rotation(rng: np.random.Generator) -> np.ndarray:
    """A uniformly random orientation (a die in the air)."""
    q = rng.normal(size=4)
    q /= np.linalg.norm(q)
    w, x, y, z = q
    return np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
        ]
    )


def _axis_angle(axis: np.ndarray, angle: float) -> np.ndarray:
    axis = axis / np.linalg.norm(axis)
    k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    return np.eye(3) + np.sin(angle) * k + (1 - np.cos(angle)) * (k @ k)


def top_value(rot: np.ndarray) -> int:
    """The face that points most nearly up under ``rot``."""
    return max(_FACES, key=lambda v: (rot @ np.array(_FACES[v][0], float))[2])


@lru_cache(maxsize=16)
def _rounded_square(r: float, n_arc: int = 3) -> np.ndarray:
    """Outline of a face in face coordinates (side 1, centred), corners rounded with radius ``r``."""
    pts = []
    half = 0.5
    for cx, cy, start in ((half - r, half - r, 0), (-half + r, half - r, 90), (-half + r, -half + r, 180), (half - r, -half + r, 270)):
        for k in range(n_arc + 1):
            a = np.radians(start + 90 * k / n_arc)
            pts.append((cx + r * np.cos(a), cy + r * np.sin(a)))
    return np.array(pts)


_CIRCLE = np.stack([np.cos(np.linspace(0, 2 * np.pi, 14, endpoint=False)), np.sin(np.linspace(0, 2 * np.pi, 14, endpoint=False))], 1)


@dataclass(frozen=True)
class DieLook:
    """Colours of one set of dice (BGR, 0-255) and how much of the felt shows through."""

    body: tuple[int, int, int] = (38, 28, 196)
    pip: tuple[int, int, int] = (238, 240, 244)
    translucency: float = 0.25  # share of the background seen through the body
    ghost: float = 0.22  # strength of the bottom face's pips seen through the top
    corner: float = 0.05  # corner radius / side: casino dice are "razor edged", store dice rounder


def _face_points(rot: np.ndarray, value: int, uv: np.ndarray, lift: float = 0.5) -> np.ndarray:
    n, u, w = (np.array(a, float) for a in _FACES[value])
    local = lift * n + uv[:, :1] * u + uv[:, 1:2] * w
    return local @ rot.T  # (k, 3) in camera space, side = 1


def project(rot: np.ndarray, size: float, corner: float = 0.05) -> list[tuple[int, np.ndarray, float]]:
    """Visible faces: (value, outline in pixels relative to the centre, facing)."""
    out = []
    outline = _rounded_square(round(corner, 3))
    for value, (n, _, _) in _FACES.items():
        facing = float((rot @ np.array(n, float))[2])
        if facing > 0.02:
            pts = _face_points(rot, value, outline)[:, :2] * size
            out.append((value, pts, facing))
    return out


def _poly(img: np.ndarray, pts: np.ndarray, origin: np.ndarray, colour) -> None:
    p = np.round((pts + origin) * _SCALE).astype(np.int32)
    cv2.fillPoly(img, [p], colour, lineType=cv2.LINE_AA, shift=_SHIFT)


def draw_die(
    canvas: np.ndarray,
    centre: tuple[float, float],
    size: float,
    rot: np.ndarray,
    look: DieLook,
    light: np.ndarray,
    gain: float = 1.0,
    velocity: tuple[float, float] = (0.0, 0.0),
    glare: float = 0.0,
) -> tuple[int, int, int, int] | None:
    """Composite one die onto ``canvas`` (uint8 BGR, modified in place).

    ``light`` is the unit direction towards the light (camera space, z up);
    ``gain`` the scene brightness at the die; ``velocity`` in pixels per frame
    smears the die (and its shadow) into motion blur; ``glare`` (0..1) adds a
    specular highlight of the overhead light on the top face. Returns the
    die's box ``(x, y, w, h)`` clipped to the frame, or ``None`` when the die
    is entirely outside it.
    """
    h_img, w_img = canvas.shape[:2]
    faces = project(rot, size, look.corner)
    allpts = np.concatenate([p for _, p, _ in faces])
    blur = float(np.hypot(*velocity))
    shadow_off = np.array([-light[0], -light[1]]) / max(light[2], 0.3) * size * 0.35
    margin = int(blur + np.abs(shadow_off).max() + size * 0.25 + 4)
    cx, cy = centre
    x0 = int(np.floor(cx + allpts[:, 0].min())) - margin
    y0 = int(np.floor(cy + allpts[:, 1].min())) - margin
    x1 = int(np.ceil(cx + allpts[:, 0].max())) + margin
    y1 = int(np.ceil(cy + allpts[:, 1].max())) + margin
    rx0, ry0, rx1, ry1 = max(x0, 0), max(y0, 0), min(x1, w_img), min(y1, h_img)
    if rx0 >= rx1 or ry0 >= ry1:
        return None
    origin = np.array([cx - rx0, cy - ry0])
    rh, rw = ry1 - ry0, rx1 - rx0
    colour = np.zeros((rh, rw, 3), np.uint8)
    alpha = np.zeros((rh, rw), np.uint8)

    body = np.array(look.body, float) * gain
    pip = np.array(look.pip, float) * gain
    for value, pts, _facing in faces:
        n = rot @ np.array(_FACES[value][0], float)
        shade = 0.5 + 0.5 * max(0.0, float(n @ light))
        _poly(colour, pts, origin, tuple(np.clip(body * shade, 0, 255).tolist()))
        _poly(alpha, pts, origin, 255)
    # Ghost pips of the face pointing down, seen through the translucent body.
    bottom = min(_FACES, key=lambda v: (rot @ np.array(_FACES[v][0], float))[2])
    if look.ghost > 0:
        ghost = tuple(np.clip(body * 0.9 * (1 - look.ghost) + pip * look.ghost * 0.8, 0, 255).tolist())
        for gx, gy in PIP_LAYOUT[bottom]:
            circle = _CIRCLE * PIP_RADIUS * 1.1 + (gx, gy)
            pts = _face_points(rot, bottom, circle, lift=-0.5)[:, :2] * size
            _poly(colour, pts, origin, ghost)
    for value, pts, facing in faces:
        if facing < 0.12:
            continue  # a face seen edge-on shows no readable pips
        n = rot @ np.array(_FACES[value][0], float)
        shade = 0.62 + 0.38 * max(0.0, float(n @ light))
        col = tuple(np.clip(pip * shade, 0, 255).tolist())
        for px, py in PIP_LAYOUT[value]:
            circle = _CIRCLE * PIP_RADIUS + (px, py)
            _poly(colour, _face_points(rot, value, circle, lift=0.5)[:, :2] * size, origin, col)
        # A thin darker rim where the face meets the next one.
        rim = np.round((pts + origin) * _SCALE).astype(np.int32)
        cv2.polylines(colour, [rim], True, tuple(np.clip(body * 0.55, 0, 255).tolist()), 1, cv2.LINE_AA, _SHIFT)

    # Compositing with same-shape arrays (numpy broadcasting over a last axis
    # of 3 is slow) and OpenCV's per-channel scalars.
    roi = canvas[ry0:ry1, rx0:rx1].astype(np.float32)
    a = alpha.astype(np.float32) * np.float32(1.0 / 255.0)
    # Shadow: the die's silhouette shifted away from the light, softened.
    m = np.array([[1, 0, shadow_off[0]], [0, 1, shadow_off[1]]], np.float32)
    shadow = cv2.warpAffine(a, m, (rw, rh))
    k = max(3, int(size * 0.18) | 1)
    shadow = cv2.GaussianBlur(shadow, (k, k), 0)
    roi *= cv2.merge([1.0 - 0.45 * shadow] * 3)
    t = float(look.translucency)
    scalar = (0.25 * t, 0.25 * t, 0.95 * t, 0.0)
    body_px = colour.astype(np.float32) * (1 - t) + cv2.multiply(roi, scalar)  # type: ignore[call-overload]  # a per-channel scalar, which OpenCV's stubs lack
    a3 = cv2.merge([a, a, a])
    if glare > 0:
        top = max(faces, key=lambda f: f[2])
        gx, gy = top[1].mean(0) + origin + np.array([light[0], light[1]]) * size * 0.25
        spot = np.zeros((rh, rw), np.float32)
        cv2.ellipse(spot, (int(gx), int(gy)), (max(1, int(size * 0.16)), max(1, int(size * 0.07))), float(np.degrees(np.arctan2(light[1], light[0]))), 0, 360, 1.0, -1, cv2.LINE_AA)
        spot = cv2.GaussianBlur(spot, (k, k), 0) * a * np.float32(glare)
        body_px += (255.0 - body_px) * cv2.merge([spot] * 3)
    premult = body_px * a3
    if blur > 1.5:
        # Smear the die (colour and coverage), not the felt under it.
        premult = _motion_blur(premult, velocity)
        a3 = _motion_blur(a3, velocity)
    out = premult + roi * (1 - a3)
    canvas[ry0:ry1, rx0:rx1] = cv2.convertScaleAbs(out)
    bx0 = max(0, int(round(cx + allpts[:, 0].min())))
    by0 = max(0, int(round(cy + allpts[:, 1].min())))
    bx1 = min(w_img, int(round(cx + allpts[:, 0].max())))
    by1 = min(h_img, int(round(cy + allpts[:, 1].max())))
    if bx1 <= bx0 or by1 <= by0:
        return None
    return bx0, by0, bx1 - bx0, by1 - by0


def _motion_blur(img: np.ndarray, velocity: tuple[float, float]) -> np.ndarray:
    """Smear along ``velocity``: what a 1/60 s exposure does to a die in flight.

    The mean of a few shifted copies: close enough to a line kernel at this
    size and ten times cheaper than ``filter2D`` with a large kernel.
    """
    length = min(float(np.hypot(*velocity)), 24.0)
    steps = int(min(max(3, length // 2), 9))
    ux, uy = np.array(velocity, float) / max(np.hypot(*velocity), 1e-6)
    h, w = img.shape[:2]
    out = np.zeros_like(img)
    for off in np.linspace(-length / 2, length / 2, steps):
        dx, dy = int(round(ux * off)), int(round(uy * off))
        ys, yd = (slice(0, h - dy), slice(dy, h)) if dy >= 0 else (slice(-dy, h), slice(0, h + dy))
        xs, xd = (slice(0, w - dx), slice(dx, w)) if dx >= 0 else (slice(-dx, w), slice(0, w + dx))
        out[yd, xd] += img[ys, xs]
    return out * np.float32(1.0 / steps)
