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

from vision.scenes.die import DieLook, draw_die, orientation, top_value
from vision.scenes.table import DICE_SHOWN, Table, cage_wires, draw_wires, make_table


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
        self.look = look or random_look(rng, table.tint)
        self.camera = camera or Camera(noise=float(rng.uniform(1.5, 4.5)))
        h, w = table.background.shape[:2]
        self._noise = [
            (rng.standard_normal((h, w, 3), dtype=np.float32) * self.camera.noise).astype(np.int16) for _ in range(3)
        ] if self.camera.noise > 0 else []
        self.glare = 0.6 if rng.random() < 0.3 else 0.0  # the lamp's reflection on the dice: fixed per scene
        self._last: tuple[SceneState | None, np.ndarray | None, SceneLabel | None] = (None, None, None)
        self._static_wires: tuple[np.ndarray, np.ndarray] | None = None

    def render(self, state: SceneState, glare: float | None = None) -> tuple[np.ndarray, SceneLabel]:
        """The frame (uint8 BGR) and its label.

        A scene identical to the previous one (dice at rest, the idle table)
        reuses the previous drawing; only the camera's noise is new.
        """
        last, clean, last_label = self._last
        if glare is None and last is not None and _same_scene(last, state):
            assert clean is not None and last_label is not None  # drawn together with ``last``
            return self._camera(clean), replace(last_label, moving=state.moving)
        clean, label = self._draw(state, glare)
        if glare is None:
            self._last = (state, clean, label)
        return self._camera(clean), label

    def reference(self, state: SceneState) -> np.ndarray:
        """``state`` as the camera films it but without its noise, and drawing no random number (the
        frames that follow stay as they were): a picture of the empty table, as calibration makes
        one by averaging frames."""
        return self._camera(self._draw(state, None)[0], noise=False)

    def _draw(self, state: SceneState, glare: float | None) -> tuple[np.ndarray, SceneLabel]:
        t = self.table
        img = t.background.copy()
        h, w = img.shape[:2]
        boxes: dict[int, DieLabel] = {}
        for i, die in sorted(enumerate(state.dice), key=lambda item: item[1].y):  # far dice first
            xi, yi = int(np.clip(die.x, 0, w - 1)), int(np.clip(die.y, 0, h - 1))
            g = float(t.gain[yi, xi])
            gl = self.glare if glare is None else glare
            box = draw_die(img, (die.x, die.y), t.die_size, die.rot, self.look, t.light, g, die.velocity, gl)
            if box is not None:
                boxes[i] = DieLabel(die.value, box, die.leaning)
        labels = [boxes[i] for i in sorted(boxes)]  # in the order of the scene's dice
        if state.hand is not None:
            draw_hand(img, state.hand, t.die_size)
        if t.setting == "cage":
            self._draw_cage(img, state.cage_phase)
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

    def _camera(self, img: np.ndarray, noise: bool = True) -> np.ndarray:
        cam = self.camera
        if cam.defocus > 0:
            img = cv2.GaussianBlur(img, (0, 0), cam.defocus)
        if noise and self._noise:
            img = cv2.add(img, self._noise[int(self.rng.integers(len(self._noise)))], dtype=cv2.CV_8U)
        elif img is not None and cam.defocus <= 0:
            img = img.copy()  # never hand out the cached drawing itself
        if cam.jpeg_quality:
            ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(cam.jpeg_quality)])
            decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR)
            assert decoded is not None  # a JPEG just encoded
            img = decoded
        return img


def _same_scene(a: SceneState, b: SceneState) -> bool:
    return (
        a.hand == b.hand
        and a.cage_phase == b.cage_phase
        and len(a.dice) == len(b.dice)
        and all(x is y or (x.x == y.x and x.y == y.y and x.velocity == y.velocity and np.array_equal(x.rot, y.rot)) for x, y in zip(a.dice, b.dice))
    )


def random_look(rng: np.random.Generator, tint: tuple[float, float, float] = (1.0, 1.0, 1.0)) -> DieLook:
    """Translucent red casino dice, as they vary between makers and lights (``tint``: the light's colour)."""
    body = (rng.uniform(20, 55), rng.uniform(15, 45), rng.uniform(170, 215))
    pip = (rng.uniform(225, 245),) * 2 + (rng.uniform(232, 250),)
    return DieLook(
        body=tuple(int(min(255, c * t)) for c, t in zip(body, tint)),  # type: ignore[arg-type]
        pip=tuple(int(min(255, c * t)) for c, t in zip(pip, tint)),  # type: ignore[arg-type]
        translucency=float(rng.uniform(0.15, 0.35)),
        ghost=float(rng.uniform(0.1, 0.3)),
        corner=float(rng.uniform(0.03, 0.09)),
    )


def draw_hand(img: np.ndarray, hand: Hand, die_size: float) -> None:
    """A hand and forearm: palm, four fingers and a thumb, in skin tones, with a shadow.

    Drawn at a third of the resolution and scaled up: a hand is large and
    soft-edged, and this keeps it to about a millisecond.
    """
    s = die_size * 1.15 * hand.scale
    d = np.array([np.cos(hand.angle), np.sin(hand.angle)])
    n = np.array([-d[1], d[0]])
    tip = np.array(hand.tip, float)
    palm = tip - d * 2.4 * s
    lines: list[tuple[np.ndarray, np.ndarray, float]] = []
    for k, off in enumerate((-1.05, -0.35, 0.35, 1.05)):
        base = palm + n * off * s * 0.6 + d * 0.8 * s
        lines.append((base, base + d * (1.5, 1.75, 1.7, 1.3)[k] * s, s * 0.42))
    lines.append((palm + n * 1.1 * s, palm + n * 1.9 * s + d * 0.7 * s, s * 0.5))
    lines.append((palm, palm - d * 12 * s, s * 2.0))  # forearm, out past the frame's edge
    pts = np.array([p for a, b, _ in lines for p in (a, b)] + [palm])
    pad = 2.5 * s
    h, w = img.shape[:2]
    x0, y0 = max(0, int(pts[:, 0].min() - pad)), max(0, int(pts[:, 1].min() - pad))
    x1, y1 = min(w, int(pts[:, 0].max() + pad)), min(h, int(pts[:, 1].max() + pad))
    if x0 >= x1 or y0 >= y1:
        return
    f = 3.0
    sw, sh = max(1, int(np.ceil((x1 - x0) / f))), max(1, int(np.ceil((y1 - y0) / f)))
    small: np.ndarray = np.zeros((sh, sw), np.uint8)  # OpenCV smooths edges on 8-bit images only
    org = np.array([x0, y0], float)

    def at(p: np.ndarray) -> tuple[int, int]:
        q = (p - org) / f * 16
        return int(round(q[0])), int(round(q[1]))

    for a, b, t in lines:
        cv2.line(small, at(a), at(b), 255, max(1, int(t / f)), cv2.LINE_AA, 4)
    cv2.ellipse(small, at(palm), (int(s * 1.35 / f * 16), int(s * 1.2 / f * 16)), float(np.degrees(hand.angle)), 0, 360, 255, -1, cv2.LINE_AA, 4)
    small = small.astype(np.float32) * np.float32(1 / 255)
    shift = np.array([[1, 0, s * 0.3 / f], [0, 1, s * 0.5 / f]], np.float32)
    shadow = cv2.GaussianBlur(cv2.warpAffine(small, shift, (sw, sh)), (0, 0), s * 0.4 / f)
    shade = cv2.GaussianBlur(small, (0, 0), s * 0.3 / f)  # rounder, darker towards the edges
    skin = cv2.convertScaleAbs(cv2.multiply(cv2.merge([0.7 + 0.4 * shade] * 3), (120.0, 150.0, 200.0, 0.0)))  # type: ignore[call-overload]  # a per-channel scalar, which OpenCV's stubs lack
    # Back to full size and blended with per-pixel weights: one pass each, in 8 bits.
    size = (x1 - x0, y1 - y0)
    a = cv2.resize(small, size, interpolation=cv2.INTER_LINEAR)
    dark = 0.5 * cv2.resize(shadow, size, interpolation=cv2.INTER_LINEAR)
    roi = np.ascontiguousarray(img[y0:y1, x0:x1])
    roi = cv2.blendLinear(roi, np.zeros_like(roi), 1.0 - dark, dark)
    skin = cv2.resize(skin, size, interpolation=cv2.INTER_LINEAR)
    img[y0:y1, x0:x1] = cv2.blendLinear(skin, roi, a, 1.0 - a)


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
    at_rail: int | None = None,
) -> tuple[DieState, ...]:
    """Dice at rest showing ``values`` inside the landing area, apart unless ``touching``.

    ``leaning``: index of a die that leans (on the rail in the rail setting,
    on the die before it otherwise), so a side face shows. ``at_rail``: index
    of a die lying flat against the rail (rail setting only), as thrown dice
    often end: what a leaning die must not be confused with.
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
        elif at_rail == i and table.setting == "rail":
            y = table.rail_y + s * 0.55
            yaw = float(rng.normal(0, 0.08))  # flush with the rail
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
    at_rail: int | None = None,
    hand: bool = False,
    camera: Camera | None = None,
    glare: float | None = None,
    tilt: float | None = None,
) -> tuple[np.ndarray, SceneLabel]:
    """One labelled still scene: dice at rest on a freshly drawn table.

    ``values`` defaults to random dice, as many as the setting shows (:data:`DICE_SHOWN`). Everything not
    given (table colours, light, die size, dice colour, noise, blur, how far
    the camera leans back from straight above: ``tilt`` in radians) is drawn
    from ``seed``.
    """
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    if values is None:
        values = tuple(int(v) for v in rng.integers(1, 7, DICE_SHOWN[setting]))
    table = make_table(setting, rng, size)
    if camera is None:
        camera = Camera(
            noise=float(rng.uniform(1.0, 6.0)),
            defocus=float(rng.choice([0.0, 0.0, 0.6, 1.0])),
            jpeg_quality=int(rng.choice([0, 75, 90])) or None,
        )
    renderer = SceneRenderer(table, rng, camera=camera)
    dice = place_dice(rng, table, tuple(values), touching=touching, leaning=leaning, at_rail=at_rail)
    state = SceneState(dice=dice)
    if hand:
        h, w = table.background.shape[:2]
        state = replace(state, hand=Hand((rng.uniform(0.2, 0.8) * w, rng.uniform(0.4, 0.7) * h), -np.pi / 2 + rng.uniform(-0.5, 0.5)))
    image, label = renderer.render(state, glare=float(rng.choice([0.0, 0.0, 0.5, 0.9])) if glare is None else glare)
    if tilt is None:
        tilt = float(rng.uniform(0.0, 0.3)) if rng.random() < 0.5 else 0.0
    return tilted(image, label, tilt) if tilt else (image, label)


def tilted(image: np.ndarray, label: SceneLabel, tilt: float) -> tuple[np.ndarray, SceneLabel]:
    """The scene as a camera leaning back by ``tilt`` radians sees it: the far side (top) shrinks.

    A perspective warp of the finished frame, then the part every output pixel
    of which comes from the drawn frame is cropped and scaled back to the
    frame's size (nothing is invented at the borders, so nothing unlabelled
    appears). The labels' boxes are carried through; a die pushed out of view
    loses its label.
    """
    h, w = image.shape[:2]
    dx = w * 0.25 * np.sin(tilt)
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    dst = np.array([[dx, 0], [w - dx, 0], [w, h], [0, h]], np.float32)
    crop = np.array([[w / (w - 2 * dx), 0, -dx * w / (w - 2 * dx)], [0, 1, 0], [0, 0, 1]])
    m = crop @ cv2.getPerspectiveTransform(src, dst)
    out = cv2.warpPerspective(image, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    dice = []
    for d in label.dice:
        x, y, bw, bh = d.box
        corners = cv2.perspectiveTransform(np.array([[[x, y], [x + bw, y], [x + bw, y + bh], [x, y + bh]]], np.float32), m)[0]
        x0, y0 = np.floor(corners.min(axis=0)).astype(int)
        x1, y1 = np.ceil(corners.max(axis=0)).astype(int)
        x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
        if x1 - x0 >= 4 and y1 - y0 >= 4:
            dice.append(replace(d, box=(int(x0), int(y0), int(x1 - x0), int(y1 - y0))))
    return out, replace(label, dice=tuple(dice))


__all__ = [
    "Camera", "DieLabel", "DieState", "Hand", "SceneLabel", "SceneRenderer", "SceneState",
    "draw_hand", "place_dice", "random_look", "render_scene", "tilted",
]
