"""The two settings a table camera sees: the rail table and the hazard cage.

``rail``: a camera above the landing end of a craps / Bang table looks down on
green felt with the rail's rubber pyramids across the top of the frame, where
the dice bounce back from. ``cage``: a camera looks down into the bottom of a
hazard cage, a felt dish seen through the cage's wires, where three dice lie.

A :class:`Table` is drawn once (background, lighting and the landing area);
frames then only draw what moves over it, which keeps a frame to a few
milliseconds.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import cv2
import numpy as np

Setting = Literal["rail", "cage"]
SETTINGS: tuple[Setting, ...] = ("rail", "cage")
#: How many dice a scene of each setting shows unless told: two on a craps or Bang rail, three in
#: the hazard cage. A game's count is the rules' (``controller.rules.DICE``); the app passes it on.
DICE_SHOWN: dict[str, int] = {"rail": 2, "cage": 3}


@dataclass
class Table:
    """A drawn, lit, empty setting and where dice may come to rest on it."""

    setting: str
    size: tuple[int, int]  # (width, height)
    background: np.ndarray  # lit, empty scene, uint8 BGR
    gain: np.ndarray  # lighting gain per pixel (float32, HxW), to light the dice alike
    landing: np.ndarray  # uint8 mask, 255 where a die may rest
    die_size: float  # side of a die's top face in pixels
    light: np.ndarray  # unit vector towards the main light
    rail_y: int = 0  # bottom edge of the rail (rail setting)
    dish: tuple[tuple[int, int], tuple[int, int]] | None = None  # cage bottom ellipse (centre, axes)
    wires: list[dict] = field(default_factory=list)  # cage wire geometry
    tint: tuple[float, float, float] = (1.0, 1.0, 1.0)  # colour of the light (B, G, R gains)


def _texture(rng: np.random.Generator, h: int, w: int, scale: int, amp: float) -> np.ndarray:
    small = rng.normal(0, 1, (max(2, h // scale), max(2, w // scale))).astype(np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC) * amp


def _felt(rng: np.random.Generator, h: int, w: int, colour: np.ndarray) -> np.ndarray:
    img = np.empty((h, w, 3), np.float32)
    img[:] = colour
    img += _texture(rng, h, w, 40, 6.0)[:, :, None]
    img += rng.standard_normal((h, w, 1), dtype=np.float32) * np.float32(4.0)  # the nap of the cloth
    return img


def _light_colour(rng: np.random.Generator) -> tuple[float, float, float]:
    """B, G, R gains of the lamp: from warm tungsten to cool daylight LEDs."""
    warmth = rng.uniform(-1.0, 1.0)
    return (1.0 - 0.12 * warmth, 1.0, 1.0 + 0.08 * warmth)


def _lighting(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """Vignette times a gentle gradient: how an overhead lamp lights the felt."""
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    lx, ly = rng.uniform(0.2, 0.8) * w, rng.uniform(0.1, 0.7) * h
    r2 = ((xx - lx) ** 2 + (yy - ly) ** 2) / float(w * w + h * h)
    level = rng.uniform(0.8, 1.15)
    return (level * (1.0 - rng.uniform(0.3, 0.7) * r2)).astype(np.float32)


def _rail(img: np.ndarray, rng: np.random.Generator, rail_y: int) -> None:
    """Rubber pyramids along the back wall, with the padded rail above them."""
    w = img.shape[1]
    pad = int(rail_y * rng.uniform(0.25, 0.4))
    img[:pad] = np.array([30, 45, 70], np.float32) + _texture(rng, pad, w, 12, 5.0)[:, :, None]
    img[pad - 2 : pad] *= 0.5
    step = max(6, int(rng.uniform(18, 26) * w / 640))
    rubber = np.array([rng.uniform(35, 60)] * 3, np.float32)
    img[pad:rail_y] = rubber
    for top in range(pad, rail_y, step):
        for left in range(-step, w + step, step):
            ox = left + (step // 2 if ((top - pad) // step) % 2 else 0)
            cx, cy, hs = ox + step / 2, top + step / 2, step / 2
            tri = [
                ((cx, cy), (cx - hs, cy - hs), (cx + hs, cy - hs), 1.35),
                ((cx, cy), (cx + hs, cy - hs), (cx + hs, cy + hs), 0.75),
                ((cx, cy), (cx + hs, cy + hs), (cx - hs, cy + hs), 0.55),
                ((cx, cy), (cx - hs, cy + hs), (cx - hs, cy - hs), 1.1),
            ]
            for a, b, c, k in tri:
                pts = np.array([a, b, c], np.float32).round().astype(np.int32)
                cv2.fillConvexPoly(img, pts, tuple(float(v) for v in rubber * k), cv2.LINE_AA)
    img[rail_y - 3 : rail_y] *= 0.45  # the shadowed foot of the wall


def _layout_print(img: np.ndarray, rng: np.random.Generator, top: int) -> None:
    """A printed layout line (e.g. the edge of the pass line) crossing the felt."""
    h, w = img.shape[:2]
    colour = (235, 235, 235) if rng.random() < 0.6 else (60, 200, 230)
    centre = (int(rng.uniform(-0.3, 1.3) * w), int(h + rng.uniform(0.3, 1.2) * h))
    radius = int(np.hypot(centre[0] - w / 2, centre[1] - (top + h) / 2) * rng.uniform(0.9, 1.1))
    cv2.circle(img, centre, radius, colour, int(rng.uniform(3, 7)), cv2.LINE_AA)


def rail_table(rng: np.random.Generator, size: tuple[int, int] = (640, 480), die_size: float | None = None) -> Table:
    """Green felt below the rail; the landing area is the felt."""
    w, h = size
    rail_y = int(h * rng.uniform(0.1, 0.2))
    felt = np.array([rng.uniform(40, 70), rng.uniform(95, 130), rng.uniform(10, 40)], np.float32)
    img = _felt(rng, h, w, felt)
    _rail(img, rng, rail_y)
    if rng.random() < 0.5:
        _layout_print(img, rng, rail_y)
    gain = _lighting(rng, h, w)
    if rng.random() < 0.35:  # the reflection of a lamp on the felt
        glare = np.zeros((h, w), np.float32)
        cv2.ellipse(glare, (int(rng.uniform(0, w)), int(rng.uniform(rail_y, h))), (int(rng.uniform(30, 90)), int(rng.uniform(20, 60))), rng.uniform(0, 180), 0, 360, 1.0, -1)
        gain = gain + cv2.GaussianBlur(glare, (0, 0), 25) * rng.uniform(0.15, 0.35)
    tint = _light_colour(rng)
    img = np.clip(img * gain[:, :, None] * np.array(tint, np.float32), 0, 255).astype(np.uint8)
    landing = np.zeros((h, w), np.uint8)
    landing[rail_y + 2 :] = 255
    light = np.array([rng.uniform(-0.4, 0.4), rng.uniform(-0.5, 0.1), 1.0])
    return Table(
        setting="rail", size=size, background=img, gain=gain, landing=landing,
        die_size=die_size or float(rng.uniform(38, 56)) * w / 640, light=light / np.linalg.norm(light), rail_y=rail_y,
        tint=tint,
    )


def cage_wires(table: Table, phase: float) -> list[dict]:
    """The cage's wires in front of the dish, turned by ``phase`` (0..1 of a wire spacing)."""
    (cx, cy), (ax, ay) = table.dish  # type: ignore[misc]
    w, h = table.size
    n = 9
    spacing = w * 1.3 / n
    wires = []
    for k in range(-1, n + 1):
        x = -0.15 * w + (k + phase) * spacing
        bend = (x - cx) * 0.25
        pts = np.array([(x + bend * ((y - cy) / h) ** 2 * 4, y) for y in np.linspace(-10, h + 10, 9)], np.float32)
        wires.append({"points": pts, "thickness": 3})
    return wires


def draw_wires(img: np.ndarray, wires: list[dict], gain: float = 1.0) -> None:
    """Chrome wires: a dark edge under a bright core, like polished steel."""
    for wire in wires:
        p = np.round(wire["points"] * 16).astype(np.int32)
        t = wire["thickness"]
        cv2.polylines(img, [p + np.array([16, 0])], False, (25, 25, 25), t, cv2.LINE_AA, 4)
        cv2.polylines(img, [p], False, tuple(float(min(255, c * gain)) for c in (205, 210, 215)), t - 1, cv2.LINE_AA, 4)


def cage_table(rng: np.random.Generator, size: tuple[int, int] = (640, 480), die_size: float | None = None) -> Table:
    """The felt dish at the bottom of a hazard cage, its chrome rim, the wood around."""
    w, h = size
    img = np.empty((h, w, 3), np.float32)
    img[:] = np.array([25, 45, 80], np.float32)  # wood of the stand, in shadow
    img += _texture(rng, h, w, 20, 8.0)[:, :, None]
    centre = (int(w / 2 + rng.uniform(-20, 20)), int(h / 2 + rng.uniform(-10, 25)))
    axes = (int(w * rng.uniform(0.36, 0.42)), int(h * rng.uniform(0.34, 0.4)))
    felt_colour = np.array([rng.uniform(40, 70), rng.uniform(95, 130), rng.uniform(10, 40)], np.float32)
    dish = np.zeros((h, w), np.uint8)
    cv2.ellipse(dish, centre, axes, 0, 0, 360, 255, -1, cv2.LINE_AA)
    felt = _felt(rng, h, w, felt_colour)
    a = (dish.astype(np.float32) / 255.0)[:, :, None]
    img = felt * a + img * (1 - a)
    cv2.ellipse(img, centre, (axes[0] + 6, axes[1] + 6), 0, 0, 360, (170, 175, 180), 7, cv2.LINE_AA)
    cv2.ellipse(img, centre, (axes[0] + 10, axes[1] + 10), 0, 0, 360, (60, 60, 65), 2, cv2.LINE_AA)
    gain = _lighting(rng, h, w) * np.float32(rng.uniform(0.8, 1.0))  # inside a cage is darker
    tint = _light_colour(rng)
    img = np.clip(img * gain[:, :, None] * np.array(tint, np.float32), 0, 255).astype(np.uint8)
    landing = np.zeros((h, w), np.uint8)
    cv2.ellipse(landing, centre, (axes[0] - 4, axes[1] - 4), 0, 0, 360, 255, -1)
    light = np.array([rng.uniform(-0.3, 0.3), rng.uniform(-0.3, 0.3), 1.0])
    table = Table(
        setting="cage", size=size, background=img, gain=gain, landing=landing,
        die_size=die_size or float(rng.uniform(32, 46)) * w / 640, light=light / np.linalg.norm(light),
        dish=(centre, axes), tint=tint,
    )
    table.wires = cage_wires(table, float(rng.uniform(0, 1)))
    return table


def make_table(setting: str, rng: np.random.Generator, size: tuple[int, int] = (640, 480), die_size: float | None = None) -> Table:
    """The table for ``setting`` (``"rail"`` or ``"cage"``)."""
    if setting == "rail":
        return rail_table(rng, size, die_size)
    if setting == "cage":
        return cage_table(rng, size, die_size)
    raise ValueError(f"unknown setting {setting!r}: expected one of {', '.join(SETTINGS)}")
