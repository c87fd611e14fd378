"""Only the top face, uncalibrated: tell from the dice's own outlines whether the camera sees
them off the vertical, and then read their top faces or refuse to settle the roll.

A cube of side s turned by a yaw, seen at an angle t off the vertical, shows its top face
foreshortened by cos t at the far end of its outline and its side faces, s sin t long, at the near
end, towards the camera's nadir. :func:`outline_of` separates a die from the ground around it
(colour unlike the ground's, or much lighter or darker; a shadow is the ground's colour, darker)
and fits such a cube to its outline's extents in every direction (:func:`fit_cube`): its tilt,
the direction its side faces show in, and where its top face lies.

An outline is only evidence when the cube fits it closely and it is convex; a single die's
outline on a real photograph is often not (glare, a translucent body, a shadow). So the reader
acts on the roll as a whole: where every die's outline is clear and shows a side face of
``side_face_deg`` or more, stretched within ``side_face_axis_deg`` of the frame's vertical, the
camera is off the vertical and looks up the frame (a table camera from the players' side, a
cage camera): the top faces are at the far ends, higher in the frame. Then a roll whose dice
disagree on the angle by more than ``side_face_spread_deg`` (a cocked die among flat ones), or
are seen beyond ``max_view_tilt_deg`` (side faces as large as the top), is not settled, and every
other die is read again from its top face alone, stretched back square (``topface.TopFaceView``),
never from the side face turned to the camera. Otherwise the evidence stays as it was, and the
leaning check and the two-places rule (``judge.py``) keep guarding the roll.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

import cv2
import numpy as np

from vision.reader.detect import Candidate
from vision.reader.judge import Evidence, is_die
from vision.reader.look import Reading, evidence_at
from vision.reader.topface import TopFaceView

#: The window an outline is looked for in, in die sides around the die's centre.
WINDOW = 2.2
#: The outer share of that window whose median colour is the ground's.
RING = 0.12
#: A pixel is the die's when its chromaticity (colour share of each channel) differs from the
#: ground's by this much (L1), or its brightness is above or below these shares of the ground's.
CHROMA = 0.09
LIGHTER, DARKER = 1.3, 0.4
#: An outline whose area is outside these multiples of the detector box's area is not the die's.
AREA_BAND = (0.35, 2.2)
#: An outline is trusted when the cube fits its extents this closely (root mean square, share of
#: the mean extent) and it fills this share of its convex hull (a die's outline is convex).
MISFIT, SOLIDITY = 0.035, 0.92
#: The outline is measured at most this many pixels across the die (larger dice are shrunk first).
WORK_PX = 64.0
#: The directions an outline's extent is measured along: half a turn (an extent is the same both ways).
_DIRECTIONS = np.radians(np.arange(0.0, 180.0, 3.0))
_QUARTER = len(_DIRECTIONS) // 2
#: The cubes an outline is compared with: turned by a yaw (-45..45 degrees) and seen at a tilt (0..50).
_YAWS = np.radians(np.arange(-45.0, 45.0, 3.0))
_TILTS = np.radians(np.arange(0.0, 51.0, 1.0))
#: The most an outline is taken to be widened (both sides together), in sides of the cube (rounded edges, blur).
ROUNDING = 0.12
#: How far (in steps of ``_DIRECTIONS``) the fitted axis may lie from the outline's most stretched one.
_AXIS_SLACK = 3


def _cube_table() -> tuple[np.ndarray, np.ndarray]:
    """Extents (side 1) of every cube of ``_YAWS`` x ``_TILTS`` along every direction of
    ``_DIRECTIONS`` measured from the image's x axis, its side faces showing along +y; and
    the offset along +y of its top face's centre from the middle of its outline's extent."""
    corners = np.array([[x, y, z] for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (0.0, 1.0)])
    u = np.stack([np.cos(_DIRECTIONS), np.sin(_DIRECTIONS)])
    ext = np.empty((len(_YAWS), len(_TILTS), len(_DIRECTIONS)))
    top = np.empty((len(_YAWS), len(_TILTS)))
    for i, yaw in enumerate(_YAWS):
        c, s = math.cos(yaw), math.sin(yaw)
        xy = corners[:, :2] @ np.array([[c, s], [-s, c]])
        for j, t in enumerate(_TILTS):
            pts = np.stack([xy[:, 0], xy[:, 1] * math.cos(t) - corners[:, 2] * math.sin(t)], axis=1)
            proj = pts @ u
            ext[i, j] = proj.max(axis=0) - proj.min(axis=0)
            top[i, j] = -math.sin(t) - (pts[:, 1].max() + pts[:, 1].min()) / 2
    return ext, top


_EXTENTS, _TOP_OFFSET = _cube_table()
_EXTENTS_SQUARED, _EXTENTS_SUM = np.einsum("ijk,ijk->ij", _EXTENTS, _EXTENTS), _EXTENTS.sum(axis=2)


def fit_cube(extents: np.ndarray, axis: int) -> tuple[float, float, float, int, float, float, float]:
    """The cube whose outline best has ``extents`` (px, along ``_DIRECTIONS``), its side faces
    showing along a direction within ``_AXIS_SLACK`` steps of ``axis`` (either way along it).
    Its outline is widened by a margin ``c`` (both sides together: rounded edges, blur; a die seen
    from above is a rounded square, not a hexagon seen from the side), at most ``ROUNDING`` sides.
    Returns (side px, yaw degrees, tilt degrees, the direction's index, the top face's offset in
    sides, the margin px, the root mean square misfit as a share of the mean extent)."""
    best: tuple[float, float, float, int, float, float, float] | None = None
    best_err = math.inf
    n = len(_DIRECTIONS)
    x = extents
    xx, sx = float(x @ x), float(x.sum())
    ee, se = _EXTENTS_SQUARED, _EXTENTS_SUM
    for d in range(axis - _AXIS_SLACK, axis + _AXIS_SLACK + 1):
        ex = _EXTENTS @ np.roll(x, -((d - _QUARTER) % n))  # the outline turned so that direction d is the table's +y
        det = ee * n - se * se
        s = (ex * n - se * sx) / det
        c = (ee * sx - se * ex) / det
        low, high = c < 0, c > ROUNDING * s
        s = np.where(low, ex / ee, s)
        c = np.where(low, 0.0, c)
        wide = ee + 2 * ROUNDING * se + ROUNDING * ROUNDING * n  # (E + R) . (E + R)
        s = np.where(high, (ex + ROUNDING * sx) / wide, s)
        c = np.where(high, ROUNDING * s, c)
        err = s * s * ee + 2 * s * c * se + n * c * c - 2 * s * ex - 2 * c * sx + xx
        i, j = np.unravel_index(int(np.argmin(err)), err.shape)
        if err[i, j] < best_err:
            best_err = float(err[i, j])
            misfit = math.sqrt(max(0.0, best_err) / n) / float(x.mean())
            best = (float(s[i, j]), math.degrees(_YAWS[i]), math.degrees(_TILTS[j]), d % n,
                    float(_TOP_OFFSET[i, j]), float(c[i, j]), misfit)
    assert best is not None
    return best


@dataclass(frozen=True)
class Outline:
    """A die's outline and the cube that fits it: the middle of its extent, the unit direction
    ``toward`` along which its side faces show (the sign is set later, towards the nadir), the
    cube's side, its yaw, the angle ``tilt_deg`` it is seen at off the vertical, and where its
    top face's centre lies from the middle, in sides along ``toward``."""

    cx: float
    cy: float
    toward: tuple[float, float]
    side: float
    yaw_deg: float
    tilt_deg: float
    top_offset: float
    margin: float = 0.0
    misfit: float = 0.0
    solidity: float = 1.0

    @property
    def width(self) -> float:
        """The die's box as a camera straight above would see it: a side turned by the yaw."""
        y = math.radians(self.yaw_deg)
        return self.side * (abs(math.cos(y)) + abs(math.sin(y))) + self.margin

    def facing(self, toward: tuple[float, float]) -> Outline:
        """The same outline with ``toward`` pointing the way of ``toward`` (a sign, not a turn)."""
        if self.toward[0] * toward[0] + self.toward[1] * toward[1] >= 0:
            return self
        return replace(self, toward=(-self.toward[0], -self.toward[1]))

    def top_face(self) -> tuple[float, float]:
        """The top face's centre: at the far end of the outline, away from ``toward``."""
        d = self.top_offset * self.side
        return self.cx + self.toward[0] * d, self.cy + self.toward[1] * d


def die_mask(window: np.ndarray) -> np.ndarray:
    """Pixels of ``window`` (BGR) unlike the ground around its border: another colour, or much
    lighter or darker than it (a shadow keeps the ground's colour and is only darker)."""
    img = cv2.GaussianBlur(window, (3, 3), 0).astype(np.float32) + 1.0
    h, w = img.shape[:2]
    r = max(1, int(round(RING * min(h, w))))
    ring = np.concatenate([img[:r].reshape(-1, 3), img[-r:].reshape(-1, 3),
                           img[:, :r].reshape(-1, 3), img[:, -r:].reshape(-1, 3)])
    ground = np.median(ring, axis=0)
    total = img.sum(axis=2)
    chroma = np.abs(img / total[..., None] - ground / ground.sum()).sum(axis=2)
    bright = total / float(ground.sum())
    return ((chroma > CHROMA) | (bright > LIGHTER) | (bright < DARKER)).astype(np.uint8)


def outline_of(frame: np.ndarray, cx: float, cy: float, side: float) -> Outline | None:
    """The fitted outline of the die boxed ``side`` px at (cx, cy), or None where it cannot be
    told from the ground (it touches the window's edge, is cut by the frame's, or is far from
    the size of the box)."""
    half = WINDOW * side / 2
    x0, y0 = int(math.floor(cx - half)), int(math.floor(cy - half))
    x1, y1 = int(math.ceil(cx + half)), int(math.ceil(cy + half))
    fh, fw = frame.shape[:2]
    if x0 < 0 or y0 < 0 or x1 > fw or y1 > fh or side < 8:
        return None
    window = frame[y0:y1, x0:x1]
    k = min(1.0, WORK_PX / side)
    if k < 1.0:
        window = cv2.resize(window, None, fx=k, fy=k, interpolation=cv2.INTER_AREA)
    mask = die_mask(window)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    centre = ((cx - x0) * k, (cy - y0) * k)
    inside = [c for c in contours if cv2.pointPolygonTest(c, centre, False) >= 0]
    if not inside:
        return None
    contour = max(inside, key=cv2.contourArea)
    area = cv2.contourArea(contour) / (k * k)
    bx, by, bw, bh = cv2.boundingRect(contour)
    if bx <= 0 or by <= 0 or bx + bw >= mask.shape[1] or by + bh >= mask.shape[0]:
        return None  # runs into the window's edge: another die, the rail, a shadow of the ground's own
    if not AREA_BAND[0] * side * side <= area <= AREA_BAND[1] * side * side:
        return None
    pts = cv2.convexHull(contour).reshape(-1, 2).astype(np.float64) / k + (x0, y0)
    u_all = np.stack([np.cos(_DIRECTIONS), np.sin(_DIRECTIONS)], axis=1)
    proj = pts @ u_all.T
    ext = proj.max(axis=0) - proj.min(axis=0) + 1.0 / k
    # side faces stretch the outline: the direction whose extent is the largest share of the
    # extent across it is where to look for them (a square seen from above has no such direction)
    axis = int(np.argmax(ext / np.roll(ext, -_QUARTER)))
    side_px, yaw, tilt, d, top, margin, misfit = fit_cube(ext, axis)
    u, v = u_all[d], u_all[(d + _QUARTER) % len(_DIRECTIONS)]
    along, across = proj[:, d], pts @ v
    mid = u * (along.max() + along.min()) / 2 + v * (across.max() + across.min()) / 2
    return Outline(float(mid[0]), float(mid[1]), (float(u[0]), float(u[1])), side_px, yaw, tilt, top, margin,
                   misfit, area / float(cv2.contourArea(cv2.convexHull(contour)) / (k * k) or 1.0))


@dataclass(frozen=True)
class TopFaces:
    """The evidence with every die that shows a side face read from its top face, and why the
    roll may not be settled (None: nothing against it)."""

    evidence: list[Evidence]
    refusal: str | None


def _angle_deg(u: tuple[float, float], w: tuple[float, float]) -> float:
    """Angle between two axes (unsigned lines), degrees, 0..90."""
    return math.degrees(math.acos(min(1.0, abs(u[0] * w[0] + u[1] * w[1]))))


def top_faces(frame: np.ndarray, reading: Reading, evidence: list[Evidence]) -> TopFaces:
    """Look at the outline of every place counted as a die (module docstring): where they show
    a camera off the vertical, read each die again from its top face, or say why the roll must
    not be settled; otherwise leave the evidence as it is."""
    p = reading.policy
    dice = [i for i, e in enumerate(evidence) if is_die(e.peak, e.probs, p)]
    down = (0.0, 1.0)  # a camera off the vertical looks up the frame: side faces show below the top ones
    showing: dict[int, Outline] = {}
    for i in dice if len(dice) >= 2 else ():  # the first die that does not show the tilt ends the look
        o = outline_of(frame, evidence[i].cx, evidence[i].cy, evidence[i].side)
        if (o is None or o.misfit > MISFIT or o.solidity < SOLIDITY or o.tilt_deg < p.side_face_deg
                or _angle_deg(o.toward, down) > p.side_face_axis_deg):
            return TopFaces(evidence, None)
        showing[i] = o
    if not showing:
        return TopFaces(evidence, None)
    tilts = [o.tilt_deg for o in showing.values()]
    if max(tilts) - min(tilts) > p.side_face_spread_deg:
        return TopFaces(evidence, "the dice are seen at unlike angles (one leaning?): confirm the top faces")
    if max(tilts) > p.max_view_tilt_deg:
        return TopFaces(evidence, f"the camera looks about {np.median(tilts):.0f} degrees off the vertical: "
                                  "confirm the top faces")
    out = list(evidence)
    for i, o in showing.items():
        o = o.facing(down)
        tx, ty = o.top_face()
        view = TopFaceView(o.tilt_deg, o.toward, o.width)
        again = evidence_at(frame, Reading(reading.nets, p, view), [Candidate(tx, ty, o.width, evidence[i].peak)], None)
        out[i] = replace(again[0], cx=evidence[i].cx, cy=evidence[i].cy, side=evidence[i].side)
    return TopFaces(out, None)
