"""From a described scene (where each die lies, how it is turned) to a labelled frame.

A :class:`SceneState` says what is in one frame: the dice (position,
orientation, speed), a hand reaching in, the angle of the hazard cage. A
:class:`SceneRenderer` draws it over its :class:`~vision.scenes.table.Table`
with the camera's noise, and returns the frame with its :class:`SceneLabel`
(values and boxes), so the same description feeds still images for the reader,
frame sequences for the settle detector and the demo camera.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from vision.scenes.die import DieLook, draw_die, footprint, orientation, top_value
from vision.scenes.table import Table, cage_wires, draw_wires, make_table


@dataclass(frozen=True)
class DieState:
    """One die in one frame: centre in pixels, orientation, motion in pixels per frame."""

    x: float
    y: float
    rot: np.ndarray
    velocity: tuple[float, float] = (0.0, 0.0)
    leaning: bool = False

    @property
    def value(self) -> int:
        return top_value(self.rot)


@dataclass(frozen=True)
class Hand:
    """A dealer's hand reaching in: wrist at the frame edge, fingertips at ``tip``."""

    tip: tuple[float, float]
    angle: float  # direction the fingers point, radians (image coordinates)
    scale: float = 1.0


@dataclass(frozen=True)
class SceneState:
    """Everything that changes from frame to frame."""

    dice: tuple[DieState, ...] = ()
    hand: Hand | None = None
    cage_phase: float | None = None  # None: the cage's wires stay where the table put them
    moving: bool = False  # ground truth: something in the landing area is in motion


@dataclass(frozen=True)
class DieLabel:
    """Ground truth for one die: its top value and box ``(x, y, w, h)``."""

    value: int
    box: tuple[int, int, int, int]
    leaning: bool = False

    def to_json(self) -> dict:
        return {"value": self.value, "box": list(self.box), "leaning": self.leaning}


@dataclass(frozen=True)
class SceneLabel:
    """Ground truth for one frame."""

    setting: str
    dice: tuple[DieLabel, ...]
    moving: bool = False
    hand: bool = False
    touching: bool = False

    @property
    def values(self) -> tuple[int, ...]:
        return tuple(d.value for d in self.dice)

    def to_json(self) -> dict:
        return {
            "setting": self.setting,
            "dice": [d.to_json() for d in self.dice],
            "moving": self.moving,
            "hand": self.hand,
            "touching": self.touching,
        }


@dataclass
class Camera:
    """What the camera adds: sensor noise, focus blur, JPEG compression."""

    noise: float = 3.0  # standard deviation in grey levels
    defocus: float = 0.0  # Gaussian sigma in pixels, 0 = sharp
    jpeg_quality: int | None = None


class SceneRenderer:
    """Draws :class:`SceneState` frames over one table with one camera.

    Seeded: the same seed, table and states give the same frames. Noise comes
    from a small bank of precomputed fields so that a 640x480 frame costs a
    few milliseconds.
    """

    def __init__(self, table: Table, rng: np.random.Generator, look: DieLook | None = None, camera: Camera | None = None):
        self.table = table
        self.rng = rng
        self.look = look or random_look(rng)
        self.camera = camera or Camera(noise=float(rng.uniform(1.5, 4.5)))
        h, w = table.background.shape[:2]
        self._noise = [
            (rng.standard_normal((h, w, 3), dtype=np.float32) * self.camera.noise).astype(np.int16) for _ in range(3)
        ] if self.camera.noise > 0 else []
        self._static_wires: tuple[np.ndarray, np.ndarray] | None = None

    def render(self, state: SceneState, glare: float | None = None) -> tuple[np.ndarray, SceneLabel]:
        """The frame (uint8 BGR) and its label."""
        t = self.table
        img = t.background.copy()
        h, w = img.shape[:2]
        labels = []
        for die in sorted(state.dice, key=lambda d: d.y):
            xi, yi = int(np.clip(die.x, 0, w - 1)), int(np.clip(die.y, 0, h - 1))
            g = float(t.gain[yi, xi])
            gl = glare if glare is not None else (0.6 if self.rng.random() < 0.3 else 0.0)
            box = draw_die(img, (die.x, die.y), t.die_size, die.rot, self.look, t.light, g, die.velocity, gl)
            if box is not None:
                labels.append(DieLabel(die.value, box, die.leaning))
        if state.hand is not None:
            draw_hand(img, state.hand, t.die_size)
        if t.setting == "cage":
            self._draw_cage(img, state.cage_phase)
        img = self._camera(img)
        label = SceneLabel(
            setting=t.setting, dice=tuple(labels), moving=state.moving, hand=state.hand is not None,
            touching=_any_touching(state.dice, t.die_size),
        )
        return img, label

    def _draw_cage(self, img: np.ndarray, phase: float | None) -> None:
        if phase is None:
            if self._static_wires is None:
                layer = np.zeros_like(img)
                draw_wires(layer, self.table.wires, float(self.table.gain.mean()))
                self._static_wires = (layer, (layer.max(axis=2) > 0).astype(np.uint8) * 255)
            cv2.copyTo(self._static_wires[0], self._static_wires[1], img)
        else:
            draw_wires(img, cage_wires(self.table, phase % 1.0), float(self.table.gain.mean()))

    def _camera(self, img: np.ndarray) -> np.ndarray:
        cam = self.camera
        if cam.defocus > 0:
            img = cv2.GaussianBlur(img, (0, 0), cam.defocus)
        if self._noise:
            img = cv2.add(img, self._noise[int(self.rng.integers(len(self._noise)))], dtype=cv2.CV_8U)
        if cam.jpeg_quality:
            ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(cam.jpeg_quality)])
            img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        return img


def random_look(rng: np.random.Generator) -> DieLook:
    """Translucent red casino dice, as they vary between makers and lights."""
    return DieLook(
        body=(int(rng.uniform(20, 55)), int(rng.uniform(15, 45)), int(rng.uniform(170, 215))),
        pip=(int(rng.uniform(225, 245)),) * 2 + (int(rng.uniform(232, 250)),),
        translucency=float(rng.uniform(0.15, 0.35)),
        ghost=float(rng.uniform(0.1, 0.3)),
    )


def draw_hand(img: np.ndarray, hand: Hand, die_size: float) -> None:
    """A hand and forearm: palm, four fingers and a thumb, in skin tones, with a shadow."""
    s = die_size * 1.15 * hand.scale
    d = np.array([np.cos(hand.angle), np.sin(hand.angle)])
    n = np.array([-d[1], d[0]])
    tip = np.array(hand.tip, float)
    palm = tip - d * 2.4 * s
    skin = (120, 150, 200)
    shapes: list[tuple[str, tuple]] = []
    for k, off in enumerate((-1.05, -0.35, 0.35, 1.05)):
        length = (1.5, 1.75, 1.7, 1.3)[k] * s
        base = palm + n * off * s * 0.6 + d * 0.8 * s
        shapes.append(("line", (base, base + d * length, int(s * 0.42))))
    shapes.append(("line", (palm + n * 1.1 * s, palm + n * 1.9 * s + d * 0.7 * s, int(s * 0.5))))
    shapes.append(("ellipse", (palm, (int(s * 1.35), int(s * 1.2)))))
    shapes.append(("line", (palm, palm - d * 12 * s, int(s * 2.0))))  # forearm to the frame edge
    layer = np.zeros(img.shape[:2], np.uint8)
    for kind, args in shapes:
        if kind == "line":
            a, b, t = args
            cv2.line(layer, tuple(np.round(a).astype(int)), tuple(np.round(b).astype(int)), 255, max(2, t), cv2.LINE_AA)
        else:
            c, axes = args
            cv2.ellipse(layer, tuple(np.round(c).astype(int)), axes, float(np.degrees(hand.angle)), 0, 360, 255, -1, cv2.LINE_AA)
    ys, xs = np.nonzero(layer)
    if len(xs) == 0:
        return
    pad = int(s * 2)
    x0, x1 = max(0, xs.min() - pad), min(img.shape[1], xs.max() + pad)
    y0, y1 = max(0, ys.min() - pad), min(img.shape[0], ys.max() + pad)
    a = layer[y0:y1, x0:x1].astype(np.float32) / 255.0
    roi = img[y0:y1, x0:x1].astype(np.float32)
    shift = np.float32([[1, 0, s * 0.3], [0, 1, s * 0.5]])
    shadow = cv2.GaussianBlur(cv2.warpAffine(a, shift, (a.shape[1], a.shape[0])), (0, 0), s * 0.4)
    roi *= (1 - 0.5 * shadow)[:, :, None]
    shade = cv2.GaussianBlur(a, (0, 0), s * 0.3)  # rounder, darker towards the edges
    colour = np.array(skin, np.float32)[None, None, :] * (0.7 + 0.4 * shade[:, :, None])
    out = colour * a[:, :, None] + roi * (1 - a[:, :, None])
    img[y0:y1, x0:x1] = np.clip(out, 0, 255).astype(np.uint8)


def _any_touching(dice: tuple[DieState, ...], size: float) -> bool:
    for i, a in enumerate(dice):
        for b in dice[i + 1 :]:
            if np.hypot(a.x - b.x, a.y - b.y) < size * 1.12:
                return True
    return False


# --- placing dice at rest ---------------------------------------------------


def place_dice(
    rng: np.random.Generator,
    table: Table,
    values: tuple[int, ...],
    touching: bool = False,
    leaning: int | None = None,
) -> tuple[DieState, ...]:
    """Dice at rest showing ``values`` inside the landing area, apart unless ``touching``.

    ``leaning``: index of a die that leans (on the rail in the rail setting,
    on the die before it otherwise), so a side face shows.
    """
    s = table.die_size
    ys, xs = np.nonzero(table.landing)
    placed: list[DieState] = []
    for i, v in enumerate(values):
        yaw = float(rng.uniform(0, np.pi / 2))
        for _ in range(400):
            if touching and placed and i == 1:
                prev = placed[0]
                ang = rng.uniform(0, 2 * np.pi)
                x, y = prev.x + np.cos(ang) * s * 1.02, prev.y + np.sin(ang) * s * 1.02
                yaw = float(np.arctan2(np.sin(ang), np.cos(ang)))  # faces flush along the touching side
            else:
                k = int(rng.integers(len(xs)))
                x, y = float(xs[k]), float(ys[k])
            if not _inside(table, x, y, s):
                continue
            gap = s * (0.95 if touching and i == 1 else 1.6)
            if all(np.hypot(x - p.x, y - p.y) >= gap for p in placed):
                break
        else:
            raise ValueError("no room for the dice on this table")
        tilt, tilt_dir = 0.0, 0.0
        is_leaning = leaning == i
        if is_leaning:
            tilt = float(rng.uniform(0.3, 0.55))
            if table.setting == "rail":
                y = table.rail_y + s * 0.7
                tilt_dir = 0.0  # tipped about the rail's line: the side facing the rail rises
            else:
                tilt_dir = float(rng.uniform(0, 2 * np.pi))
        placed.append(DieState(x, y, orientation(v, yaw, tilt, tilt_dir), leaning=is_leaning))
    return tuple(placed)


def _inside(table: Table, x: float, y: float, s: float) -> bool:
    h, w = table.landing.shape
    r = s * 0.75
    for dx, dy in ((-r, -r), (r, -r), (-r, r), (r, r), (0, 0)):
        xi, yi = int(x + dx), int(y + dy)
        if not (0 <= xi < w and 0 <= yi < h) or table.landing[yi, xi] == 0:
            return False
    return True


def render_scene(
    seed: int | np.random.Generator,
    values: tuple[int, ...] | None = None,
    setting: str = "rail",
    size: tuple[int, int] = (640, 480),
    touching: bool = False,
    leaning: int | None = None,
    hand: bool = False,
    camera: Camera | None = None,
) -> tuple[np.ndarray, SceneLabel]:
    """One labelled still scene: dice at rest on a freshly drawn table.

    ``values`` defaults to two random dice (three in the cage). Everything not
    given (table colours, light, die size, dice colour, noise, blur) is drawn
    from ``seed``.
    """
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    if values is None:
        values = tuple(int(v) for v in rng.integers(1, 7, 3 if setting == "cage" else 2))
    table = make_table(setting, rng, size)
    if camera is None:
        camera = Camera(
            noise=float(rng.uniform(1.0, 6.0)),
            defocus=float(rng.choice([0.0, 0.0, 0.6, 1.0])),
            jpeg_quality=int(rng.choice([0, 75, 90])) or None,
        )
    renderer = SceneRenderer(table, rng, camera=camera)
    dice = place_dice(rng, table, tuple(values), touching=touching, leaning=leaning)
    state = SceneState(dice=dice)
    if hand:
        h, w = table.background.shape[:2]
        state = replace(state, hand=Hand((rng.uniform(0.2, 0.8) * w, rng.uniform(0.4, 0.7) * h), -np.pi / 2 + rng.uniform(-0.5, 0.5)))
    return renderer.render(state, glare=float(rng.choice([0.0, 0.0, 0.5, 0.9])))


__all__ = [
    "Camera", "DieLabel", "DieState", "Hand", "SceneLabel", "SceneRenderer", "SceneState",
    "draw_hand", "footprint", "place_dice", "random_look", "render_scene",
]
