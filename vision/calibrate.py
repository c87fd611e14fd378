"""Per-table calibration: the landing area, the size of a die, the colours of dice and felt.

Measured once at installation (``dicetable calibrate``) from a few frames
of the empty table and a few of dice lying at rest, so the reader and the
settle detector know what this table looks like to this camera:

- **landing area**: the felt. Its colour is taken from the middle of the
  empty picture (the camera is aimed at the landing area), the pixels of that
  colour are gathered into one region, thin interruptions (the cage's wires,
  printed layout lines) are closed and holes filled, and a small margin is
  taken off the edge.
- **die size**: the dice are what differs from the empty picture, except
  shadows (the felt's own colour, darker); the side of each lone die's
  rotated box is measured, the median kept.
- **full resolution**: where the camera gives a full-resolution frame beside the small one,
  the die's size is measured on it too (``full_die_size_px``): the reader reads dice there.
- **camera tilt**: a camera off the vertical shows each die's outline longer one way (the top
  face and the side face turned to it); the lone dice's outlines give the tilt
  (``view_tilt_deg``), which the reader uses to read the top face only (``reader/topface.py``).
- **dice colours**: the median colour of each die's body (pips are a small
  minority of the face), hue averaged on the circle so red dice, whose hue
  wraps around 0, come out right; dice of different colours give several.

The result is a :class:`vision.model.Calibration`, saved as a TOML table
with the mask and the empty picture as PNG files beside it, and a check image
for the installer.
"""
from __future__ import annotations

import datetime as _dt
import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Mapping, Sequence

import cv2
import numpy as np

from vision.model import Calibration, is_pixel_size
from vision.reader.model_dir import bundled_policy
from vision.settle import SettleConfig
from messages import ConfigError

CALIBRATION_FILE = "calibration.toml"
MASK_FILE = "landing_mask.png"
EMPTY_FILE = "empty.png"
CHECK_FILE = "calibration_check.png"

#: A lone blob this many times the area of the smallest lone blob is not one die. Three
#: dice flush in an L or a triangle are square enough to pass for one die of twice the
#: size, and their box is 0.61 to 0.75 full, no emptier than some single dice (down to
#: 0.74 on generated scenes, with a wire or glare across), so no shape rule tells them
#: apart; but single dice of one set differ in area by under 1.3 times on generated scenes.
#: So does something else than dice that differs from the empty picture (a chip taken
#: away between the empty frames and the dice frames).
MAX_LONE_AREA_RATIO = 1.7

#: Blobs up to this many dice in area are dice (touching ones included) when the dice
#: frames are compared with the empty picture away from the dice; larger ones are not.
MAX_CLUSTER_DICE = 5

#: A landing area over this share of the frame probably takes in more than the felt:
#: the camera is aimed at the landing area with the rail or the table around in view.
MAX_LANDING_SHARE = 0.9

#: Said when dice go unseen: dice of the felt's colour (red dice on red felt) differ too
#: little from the empty picture to be found, and the installer sees them plainly there.
UNSEEN_DICE_HINT = "dice close in colour to the felt are not seen: use dice that stand out from it"


class CalibrationError(ValueError):
    """The frames given cannot calibrate a table; the message says what to do.

    A calibration that is wrong (a file or a ``[calibration]`` table with wrong keys) is a
    :class:`~messages.ConfigError` instead, with every problem named by its dotted key
    (``calibration.dice_hsv``, or ``(file)`` for a file that cannot be read), as a configuration's are.
    """


@dataclass
class DieBlob:
    """One die found in a calibration frame: its rotated box, side and body colour."""

    box: tuple[int, int, int, int]
    rect: tuple[Sequence[float], Sequence[float], float]  # cv2.minAreaRect: centre, size, angle
    side: float
    hsv: tuple[int, int, int]
    alone: bool  # square enough to be a single die (not two touching)


@dataclass
class CalibrationResult:
    """The calibration with what it was measured from, for the check image and the report."""

    calibration: Calibration
    empty: np.ndarray
    dice: list[list[DieBlob]] = field(default_factory=list)  # per dice frame
    dice_frames: list[np.ndarray] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


# --- colour helpers -----------------------------------------------------------


def hue_distance(a: np.ndarray | int, b: np.ndarray | int) -> np.ndarray:
    """Distance between OpenCV hues (0..179) on the colour circle."""
    d = np.abs(np.asarray(a, np.int16) - np.asarray(b, np.int16))
    return np.minimum(d, 180 - d)


def mean_hsv(hsv_pixels: np.ndarray) -> tuple[int, int, int]:
    """Typical colour of ``(n, 3)`` HSV pixels: circular mean hue, median saturation and value."""
    ang = hsv_pixels[:, 0].astype(np.float64) * (2 * np.pi / 180.0)
    hue = int(round(np.degrees(np.arctan2(np.sin(ang).mean(), np.cos(ang).mean())) / 2.0)) % 180
    return hue, int(np.median(hsv_pixels[:, 1])), int(np.median(hsv_pixels[:, 2]))


def _median_frame(frames: Sequence[np.ndarray]) -> np.ndarray:
    if len(frames) == 1:
        return frames[0].copy()
    return np.median(np.stack(frames), axis=0).astype(np.uint8)


def _check_frames(frames: Sequence[np.ndarray], what: str) -> list[np.ndarray]:
    out = []
    for i, f in enumerate(frames):
        if not isinstance(f, np.ndarray) or f.ndim != 3 or f.shape[2] != 3 or f.dtype != np.uint8:
            raise CalibrationError(f"{what} frame {i + 1} is not a BGR image")
        out.append(f)
    if not out:
        raise CalibrationError(f"no {what} frames: give at least one")
    if any(f.shape != out[0].shape for f in out):
        raise CalibrationError(f"{what} frames differ in size; all must come from the same camera setting")
    return out


# --- the landing area -----------------------------------------------------------


def landing_mask(empty: np.ndarray, margin_px: int | None = None) -> tuple[np.ndarray, tuple[int, int, int]]:
    """The felt region of an empty-table picture (uint8, 255 inside) and the felt's HSV colour."""
    h, w = empty.shape[:2]
    hsv = cv2.cvtColor(cv2.GaussianBlur(empty, (5, 5), 0), cv2.COLOR_BGR2HSV)
    centre = hsv[h // 3 : 2 * h // 3, w // 3 : 2 * w // 3].reshape(-1, 3)
    felt = mean_hsv(centre)
    if felt[1] < 25:
        # Grey or white cloth: hue means nothing, match on brightness only.
        like = np.abs(hsv[:, :, 2].astype(np.int16) - felt[2]) < max(30, felt[2] * 0.35)
        like &= hsv[:, :, 1] < 60
    else:
        like = hue_distance(hsv[:, :, 0], felt[0]) <= 14
        like &= hsv[:, :, 1] >= felt[1] * 0.45
        like &= (hsv[:, :, 2] >= felt[2] * 0.35) & (hsv[:, :, 2] <= min(255, felt[2] * 2.2 + 10))
    m: np.ndarray = like.astype(np.uint8) * 255
    k = max(3, (min(h, w) // 40) | 1)
    m = cv2.morphologyEx(m, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    m = cv2.morphologyEx(m, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(m, connectivity=8)
    if n <= 1:
        raise CalibrationError("no felt-coloured region in the empty frames: is the camera aimed at the landing area, and is it lit?")
    biggest = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    region = (labels == biggest).astype(np.uint8) * 255
    contours, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    filled = np.zeros_like(region)
    cv2.drawContours(filled, contours, -1, 255, -1)
    margin = margin_px if margin_px is not None else max(2, min(h, w) // 80)
    if margin > 0:
        filled = cv2.erode(filled, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * margin + 1, 2 * margin + 1)))
    if np.count_nonzero(filled) < 0.05 * h * w:
        raise CalibrationError("the felt region found is under 5% of the frame: aim the camera at the landing area, or light it evenly")
    return filled, felt


def mask_warnings(mask: np.ndarray) -> list[str]:
    """Warnings for a landing area that has probably taken in more than the felt.

    Grey or black cloth is matched on brightness alone, and dark grey felt is as
    bright as the rail's black rubber, so the rail can join the felt: the area
    then covers nearly the whole frame and reaches both its top and bottom edges.
    The installer must then look at the check image.
    """
    share = np.count_nonzero(mask) / mask.size
    edge_to_edge = bool(mask[0].any() and mask[-1].any())
    if share <= MAX_LANDING_SHARE and not edge_to_edge:
        return []
    where = f"covers {100 * share:.0f}% of the frame" + (" and reaches its top and bottom edges" if edge_to_edge else "")
    return [f"the landing area {where}: it may take in the rail or the table around the felt (felt as dark as "
            "the rail, or of no colour, is told from it by brightness only); check the yellow outline in the "
            "check image and, if it goes beyond the felt, light the felt more or aim the camera closer"]


# --- the dice -------------------------------------------------------------------


def find_dice(frame: np.ndarray, empty: np.ndarray, mask: np.ndarray, felt_hsv: tuple[int, int, int], threshold: int = 40) -> list[DieBlob]:
    """Dice in ``frame``: what differs from ``empty`` inside the landing area, shadows excepted."""
    h, w = frame.shape[:2]
    diff = cv2.absdiff(cv2.GaussianBlur(frame, (3, 3), 0), cv2.GaussianBlur(empty, (3, 3), 0)).max(axis=2)
    hsv = cv2.cvtColor(frame, cv2.COLOR_BGR2HSV)
    ehsv = cv2.cvtColor(empty, cv2.COLOR_BGR2HSV)
    # A shadow is the felt's own colour, darker: not part of a die.
    shadow = (hue_distance(hsv[:, :, 0], ehsv[:, :, 0]) <= 12) & (hsv[:, :, 2] < ehsv[:, :, 2]) & (hsv[:, :, 1] > 40)
    grown = cv2.dilate(mask, np.ones((9, 9), np.uint8))  # a die on the edge of the area still counts
    fg = ((diff > threshold) & ~shadow & (grown > 0)).astype(np.uint8) * 255
    # Thin lines are not dice: a cage's wires stop elsewhere after each spin. Open them
    # away first, then close gaps as wide as a wire (a wire in front of a die splits it).
    k = max(5, (min(h, w) // 55) | 1)
    thin = max(3, (min(h, w) // 60) | 1)
    fg = cv2.morphologyEx(fg, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (thin, thin)))
    fg = cv2.morphologyEx(fg, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    contours, _ = cv2.findContours(fg, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    min_area = max(30.0, h * w * 0.0004)
    blobs = []
    for c in contours:
        area = cv2.contourArea(c)
        if area < min_area:
            continue
        rect = cv2.minAreaRect(c)
        (rw, rh) = rect[1]
        if min(rw, rh) < 4:
            continue
        aspect = max(rw, rh) / min(rw, rh)
        fill = area / (rw * rh)
        region: np.ndarray = np.zeros((h, w), np.uint8)
        cv2.drawContours(region, [c], -1, 255, -1)
        region = cv2.erode(region, np.ones((3, 3), np.uint8))
        pixels = hsv[region > 0]
        if len(pixels) == 0:
            continue
        x, y, bw, bh = cv2.boundingRect(c)
        blobs.append(DieBlob(
            box=(int(x), int(y), int(bw), int(bh)), rect=rect, side=float(np.sqrt(rw * rh)),
            hsv=mean_hsv(pixels), alone=bool(aspect < 1.3 and fill > 0.7),
        ))
    return blobs


def _merge_colours(colours: list[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
    """Group similar die colours (dice of one set) and average each group."""
    groups: list[list[tuple[int, int, int]]] = []
    for c in colours:
        for g in groups:
            ref = g[0]
            if hue_distance(c[0], ref[0]) <= 15 and abs(c[1] - ref[1]) <= 60 and abs(c[2] - ref[2]) <= 60:
                g.append(c)
                break
        else:
            groups.append([c])
    return [mean_hsv(np.array(g)) for g in sorted(groups, key=len, reverse=True)]


def changed_away_from_dice(frame: np.ndarray, empty: np.ndarray, mask: np.ndarray, blobs: Sequence[DieBlob],
                           die_px: float) -> int:
    """How many pixels of the settle detector's quarter-size picture differ from ``empty`` away from the dice.

    Measured as the detector measures presence (any colour channel beyond its
    ``presence_threshold``, after evening out the overall brightness per channel),
    so that what passes here is a table the detector will see as empty once the
    dice are gone. Dice blobs, grown by half a die to cover their shadows, are left
    out; blobs larger than :data:`MAX_CLUSTER_DICE` dice are not dice and count.
    """
    cfg = SettleConfig()
    h, w = mask.shape
    dice: np.ndarray = np.zeros((h, w), np.uint8)
    for blob in blobs:
        (rw, rh) = blob.rect[1]
        if rw * rh <= MAX_CLUSTER_DICE * die_px * die_px:
            cv2.fillPoly(dice, [cv2.boxPoints(blob.rect).round().astype(np.int32)], 255)
    grow = int(die_px / 2) * 2 + 1
    dice = cv2.dilate(dice, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (grow, grow)))
    size = (max(1, w // cfg.scale), max(1, h // cfg.scale))
    small_frame, small_empty, small_mask, small_dice = (
        cv2.resize(x, size, interpolation=cv2.INTER_AREA) for x in (frame, empty, mask, dice))
    away = (small_mask > 127) & (small_dice == 0)
    if not away.any():
        return 0
    a, b = small_frame.astype(np.float32), small_empty.astype(np.float32)
    gain = a[away].mean(axis=0) / np.maximum(b[away].mean(axis=0), 1.0)
    changed = (np.abs(a - b * gain).max(axis=2) > cfg.presence_threshold) & away
    return int(np.count_nonzero(changed))


def _check_unchanged(dice_frames: Sequence[np.ndarray], per_frame: list[list[DieBlob]], indices: list[int],
                     empty: np.ndarray, mask: np.ndarray, die_px: float | None) -> None:
    """Refuse dice frames (those at ``indices``) that differ from the empty picture away from the dice.

    On the rail the settle detector counts the table empty (and arms for the next
    roll) only while under ``empty_area`` of a die's area differs from the empty
    picture. A shadow present in one step only, or the camera nudged between them,
    already differs by more away from the dice: with that picture the detector
    would take every rest for a hand and hand out no roll. So the same bar applies here.
    """
    cfg = SettleConfig()
    die = die_px or mask.shape[1] / 12.0  # the detector's own guess without a die size
    allowed = cfg.empty_area * (die / cfg.scale) ** 2
    watched = max(1, int(np.count_nonzero(cv2.resize(mask, (mask.shape[1] // cfg.scale, mask.shape[0] // cfg.scale),
                                                     interpolation=cv2.INTER_AREA) > 127)))
    for i in indices:
        changed = changed_away_from_dice(dice_frames[i], empty, mask, per_frame[i], die)
        if changed > allowed:
            raise CalibrationError(
                f"dice frame {i + 1}: {100 * changed / watched:.1f}% of the landing area, away from the dice, differs "
                "from the empty table: the light or the camera changed between the empty table and the dice "
                "(a shadow, a lamp, the camera nudged): calibrate again, without touching the camera "
                "(a hazard cage, whose wires move, is calibrated as a cage: mode='cage', --game hazard)")


def _frames_to_measure(per_frame: list[list[DieBlob]], expect: int | None, warnings: list[str]) -> list[int]:
    """The indices of the dice frames to measure: with ``expect``, only those showing that many dice apart.

    A frame with fewer blobs than dice has dice touching (which may pass for one big
    die); one with more has something else that differs from the empty picture.
    Neither should set the die size, and when no frame shows the count, nothing can.
    """
    if expect is None:
        return list(range(len(per_frame)))
    for i, blobs in enumerate(per_frame):
        if len(blobs) != expect:
            warnings.append(f"dice frame {i + 1}: found {len(blobs)} dice, expected {expect}")
    measured = [i for i, blobs in enumerate(per_frame) if len(blobs) == expect]
    if not measured:
        found = ", ".join(str(len(blobs)) for blobs in per_frame)
        hint = f" ({UNSEEN_DICE_HINT})" if all(len(blobs) < expect for blobs in per_frame) else ""
        raise CalibrationError(f"no dice frame shows {expect} dice apart (found {found}): lay the {expect} dice "
                               f"apart from each other, nothing else in the landing area, and calibrate again{hint}")
    return measured


def die_size(lone: Sequence[DieBlob]) -> float:
    """The side of one die in pixels: the median of the lone dice near their median.

    Raises :class:`CalibrationError` when the lone blobs cannot all be single dice
    (see :data:`MAX_LONE_AREA_RATIO`): a die size twice the truth would let the settle
    detector take a creeping die for still.
    """
    sides = np.array([b.side for b in lone], np.float64)
    smallest, largest = float(sides.min()), float(sides.max())
    if (largest / smallest) ** 2 >= MAX_LONE_AREA_RATIO:
        raise CalibrationError(
            f"the lone dice differ in size ({smallest:.0f} to {largest:.0f} px across): dice touch in a cluster, "
            "or something else that differs from the empty table lies in the landing area; clear the landing "
            "area but for the dice, lay them apart, and calibrate again")
    med = float(np.median(sides))
    return positive_size(float(np.median(sides[np.abs(sides - med) < 0.25 * med])), "die size")


def positive_size(value: Any, what: str) -> float:
    """``value`` as a finite positive float, else :class:`CalibrationError` naming ``what``.

    ``nan`` passes ``> 0`` tests as false and is truthy, so it would be written, loaded,
    and crash the settle detector at its first frame; it is stopped here instead.
    """
    if not is_pixel_size(value):
        raise CalibrationError(f"{what}: {_not_a_pixel_size(value)}")
    return float(value)


def _not_a_pixel_size(value: Any) -> str:
    """What is said of a die size that is no size, alike when calibrating and when loading."""
    return f"expected a finite positive number of pixels, got {value!r}; calibrate again"


def calibrate(
    empty_frames: Sequence[np.ndarray],
    dice_frames: Sequence[np.ndarray],
    expect: int | None = None,
    mode: Literal["rail", "cage"] = "rail",
    full_dice_frames: Sequence[np.ndarray] = (),
) -> CalibrationResult:
    """Measure a table from frames of it empty and frames with dice at rest.

    ``expect``: how many dice lie in each dice frame (a warning when a frame
    shows another number, and only frames showing it are measured). ``mode``:
    the settle detector's; on the rail the dice frames must match the empty
    picture away from the dice (the detector uses it to see the dice taken
    back), in the cage they need not (its wires stop elsewhere after each spin,
    and the detector re-arms on the spin). ``full_dice_frames``: the same dice frames at the
    camera's full resolution, where it gives one (``full_die_size_px``). Raises :class:`CalibrationError` when
    the frames cannot calibrate (no felt, sizes differ, no dice anywhere, no
    frame with ``expect`` dice, lone dice of different sizes, the light or the
    camera changed between the two steps).
    """
    if mode not in ("rail", "cage"):
        raise ValueError(f"mode must be 'rail' or 'cage', not {mode!r}")
    empties = _check_frames(empty_frames, "empty-table")
    dices = _check_frames(dice_frames, "dice")
    if dices[0].shape != empties[0].shape:
        raise CalibrationError("the dice frames and the empty-table frames differ in size")
    warnings: list[str] = []
    empty = _median_frame(empties)
    if len(empties) > 1:
        # Share of the picture where a frame departs from the median: dice, hands, a light switched.
        spread = max(float(np.mean(cv2.absdiff(f, empty).max(axis=2) > 40)) for f in empties)
        if spread > 0.002:
            warnings.append("the empty-table frames differ (something moved, or the light changed): use frames of a still, empty table")
    mask, felt = landing_mask(empty)
    warnings += mask_warnings(mask)
    per_frame = [find_dice(f, empty, mask, felt) for f in dices]
    if not any(per_frame):
        raise CalibrationError("no dice found in the dice frames: place dice at rest in the landing area, then capture "
                               f"({UNSEEN_DICE_HINT})")
    indices = _frames_to_measure(per_frame, expect, warnings)
    measured = [per_frame[i] for i in indices]
    lone = [b for blobs in measured for b in blobs if b.alone]
    size = None
    least = bundled_policy().min_sure_side_px
    if lone:
        size = die_size(lone)
        if size < least and not full_dice_frames:
            warnings.append(f"dice are {size:.0f} px across: the reader asks the dealer about dice under "
                            f"{least:.0f} px; bring the camera closer or raise its resolution")
    else:
        warnings.append("no die lay alone (all touching or odd shapes): die size unknown; spread the dice apart and calibrate again")
    if mode == "rail":
        _check_unchanged(dices, per_frame, indices, empty, mask, size)
    colours = _merge_colours([b.hsv for b in (lone or [b for blobs in measured for b in blobs])])
    h, w = empty.shape[:2]
    cal = Calibration(landing_mask=mask, die_size_px=round(size, 1) if size else None, dice_hsv=colours, felt_hsv=felt,
                      frame_size=(w, h))
    if lone:
        tilt, toward = view_tilt(lone)
        cal.view_tilt_deg, cal.view_toward_deg = round(tilt, 1), round(toward, 1)
    if full_dice_frames and size:
        full_size, full = full_die_size(full_dice_frames, (w, h), size, least, warnings)
        cal.full_size, cal.full_die_size_px = full_size, full
    return CalibrationResult(cal, empty, per_frame, list(dices), warnings)


def view_tilt(lone: Sequence[DieBlob]) -> tuple[float, float]:
    """The camera's tilt off the vertical (degrees) and the direction side faces show in, from the
    lone dice's outlines: a cube seen at tilt t with a side face turned to the camera is
    cos t + sin t times as long as wide, less at other turns, so the longer outlines
    (the 80th percentile) are taken. Side faces are taken to show downwards in the frame (a camera
    looking away from its mount); ``view_toward_deg`` in the file says otherwise."""
    stretch, angles = [], []
    for b in lone:
        (_, _), (rw, rh), angle = b.rect
        if min(rw, rh) <= 0:
            continue
        stretch.append(max(rw, rh) / min(rw, rh))
        angles.append(angle + (90.0 if rh > rw else 0.0))
    if not stretch:
        return 0.0, 90.0
    e = float(np.percentile(stretch, 80))
    tilt = math.degrees(math.asin(min(1.0, e / math.sqrt(2.0)))) - 45.0 if e > 1.0 else 0.0
    toward = float(np.median(np.mod(angles, 180.0)))
    return max(0.0, tilt), toward if toward >= 0 else toward + 180.0


def full_die_size(frames: Sequence[np.ndarray], small: tuple[int, int], small_size: float, least: float,
                  warnings: list[str]) -> tuple[tuple[int, int], float]:
    """The full-resolution frames' size and the die's side in their pixels: the small frame's
    measure scaled, refined on the full frames where a die lies alone near where it was found."""
    h, w = frames[0].shape[:2]
    if any(f.shape[:2] != (h, w) for f in frames):
        raise CalibrationError("the full-resolution dice frames differ in size")
    if abs(w / h - small[0] / small[1]) > 0.01 * small[0] / small[1]:
        raise CalibrationError(f"the full-resolution frames ({w}x{h}) do not show the small frames' view "
                               f"({small[0]}x{small[1]}): configure both streams at one aspect ratio")
    size = round(small_size * w / small[0], 1)
    if size < least:
        warnings.append(f"dice are {size:.0f} px across at full resolution: the reader asks the dealer about dice "
                        f"under {least:.0f} px; bring the camera closer or raise its resolution")
    return (w, h), size


# --- the installer's check image -------------------------------------------------


def check_image(result: CalibrationResult) -> np.ndarray:
    """The first dice frame with the landing area outlined, outside darkened, each die boxed, the figures written."""
    base = (result.dice_frames[0] if result.dice_frames else result.empty).copy()
    cal = result.calibration
    mask = cal.landing_mask if cal.landing_mask is not None else np.full(base.shape[:2], 255, np.uint8)
    out = base.copy()
    out[mask == 0] = (out[mask == 0] * 0.35).astype(np.uint8)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    cv2.drawContours(out, contours, -1, (0, 255, 255), 2, cv2.LINE_AA)
    for blob in result.dice[0] if result.dice else []:
        pts = cv2.boxPoints(blob.rect).round().astype(np.int32)
        cv2.polylines(out, [pts], True, (255, 0, 255) if blob.alone else (0, 0, 255), 2, cv2.LINE_AA)
        x, y, _, _ = blob.box
        cv2.putText(out, f"{blob.side:.0f}px", (x, max(12, y - 4)), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (255, 255, 255), 1, cv2.LINE_AA)
    lines = [
        f"landing area: {100 * np.count_nonzero(mask) / mask.size:.0f}% of the frame (yellow outline)",
        f"die size: {cal.die_size_px:.1f} px" if cal.die_size_px else "die size: unknown",
        f"felt HSV {cal.felt_hsv}   dice HSV {', '.join(str(c) for c in cal.dice_hsv)}",
    ]
    for i, text in enumerate(lines):
        org = (8, 18 + 18 * i)
        cv2.putText(out, text, org, cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 3, cv2.LINE_AA)
        cv2.putText(out, text, org, cv2.FONT_HERSHEY_SIMPLEX, 0.5, (255, 255, 255), 1, cv2.LINE_AA)
    x = 8
    for hsv in ([cal.felt_hsv] if cal.felt_hsv else []) + list(cal.dice_hsv):
        swatch = cv2.cvtColor(np.array([[hsv]], np.uint8), cv2.COLOR_HSV2BGR)[0, 0].tolist()
        y0 = 18 * len(lines) + 8
        cv2.rectangle(out, (x, y0), (x + 24, y0 + 16), swatch, -1)
        cv2.rectangle(out, (x, y0), (x + 24, y0 + 16), (255, 255, 255), 1)
        x += 30
    return out


# --- storing it --------------------------------------------------------------------


def save_calibration(result: CalibrationResult, folder: str | Path) -> Path:
    """Write ``calibration.toml``, the mask, the empty picture and the check image into ``folder``.

    Returns the TOML file's path: the table configuration points at it
    (or copies its ``[calibration]`` table).
    """
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    cal = result.calibration
    h, w = result.empty.shape[:2]
    if cal.landing_mask is not None and not cv2.imwrite(str(out / MASK_FILE), cal.landing_mask):
        raise OSError(f"cannot write {out / MASK_FILE}")
    if not cv2.imwrite(str(out / EMPTY_FILE), result.empty):
        raise OSError(f"cannot write {out / EMPTY_FILE}")
    cv2.imwrite(str(out / CHECK_FILE), check_image(result))
    when = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    lines = [
        f"# Table calibration written by `dicetable calibrate` at {when}.",
        f"# Check {CHECK_FILE}: the yellow outline must follow the landing area and every die must be boxed.",
    ]
    lines += [f"# warning: {w_}" for w_ in result.warnings]
    lines += [
        "[calibration]",
        f"frame_size = [{w}, {h}]",
        f'landing_mask = "{MASK_FILE}"' if cal.landing_mask is not None else "",
        f'empty_image = "{EMPTY_FILE}"',
        f"die_size_px = {cal.die_size_px}" if cal.die_size_px else "",
        "dice_hsv = [" + ", ".join(f"[{h_}, {s}, {v}]" for h_, s, v in cal.dice_hsv) + "]",
        f"felt_hsv = [{cal.felt_hsv[0]}, {cal.felt_hsv[1]}, {cal.felt_hsv[2]}]" if cal.felt_hsv else "",
        f"full_size = [{cal.full_size[0]}, {cal.full_size[1]}]" if cal.full_size else "",
        f"full_die_size_px = {cal.full_die_size_px}" if cal.full_die_size_px else "",
        f"view_tilt_deg = {cal.view_tilt_deg}",
        f"view_toward_deg = {cal.view_toward_deg}",
    ]
    path = out / CALIBRATION_FILE
    path.write_text("\n".join(line for line in lines if line) + "\n")
    return path


def _table(path: Path) -> tuple[dict[str, Any], list[str]]:
    """The ``[calibration]`` table of the file at ``path`` (the whole file if it has none), and
    the keys found outside that table, which nothing reads.

    Read as the table's configuration is (``controller.config``): a byte order mark
    from a Windows editor is no error, and a file that is not UTF-8 text, or not TOML,
    is a :class:`~messages.ConfigError`, not a traceback.
    """
    try:
        data = tomllib.loads(path.read_bytes().decode("utf-8-sig"))
    except OSError as exc:
        reason = exc.strerror or str(exc)
    except UnicodeDecodeError as exc:
        reason = f"not UTF-8 text (TOML must be): byte {exc.start}"
    except tomllib.TOMLDecodeError as exc:
        reason = str(exc)
    except RecursionError:  # tomllib recurses into nested arrays and inline tables
        reason = "arrays or tables nested too deeply to read"
    else:
        if "calibration" not in data:
            return data, []
        if not isinstance(data["calibration"], dict):
            raise ConfigError.of([("calibration", "must be a table ([calibration])")], str(path))
        return data["calibration"], [key for key in data if key != "calibration"]
    raise ConfigError.of([("(file)", f"cannot read calibration: {reason}")], str(path))


#: The keys of a ``[calibration]`` table, in the order :func:`save_calibration` writes them.
CALIBRATION_KEYS = ("frame_size", "landing_mask", "empty_image", "die_size_px", "dice_hsv", "felt_hsv",
                    "full_size", "full_die_size_px", "view_tilt_deg", "view_toward_deg")

#: OpenCV's HSV for 8-bit pictures, the only one :func:`mean_hsv` measures in: the hue in
#: half degrees, saturation and value up to 255.
HSV_RANGES = (("hue", 179), ("saturation", 255), ("value", 255))


def _is_whole(value: Any) -> bool:
    """Whether ``value`` is a TOML integer: ``true`` is an int to Python, but no pixel count or colour level."""
    return isinstance(value, int) and not isinstance(value, bool)


def _hsv(value: Any, key: str, problems: list[tuple[str, str]]) -> tuple[int, int, int] | None:
    """``value`` as one colour ``(h, s, v)`` in OpenCV's HSV, or None with a problem about ``key``."""
    if not (isinstance(value, (list, tuple)) and len(value) == 3 and all(_is_whole(v) for v in value)):
        problems.append((key, f"expected [h, s, v] integers, got {value!r}"))
        return None
    beyond = [f"{name} {v} is outside 0..{top}" for (name, top), v in zip(HSV_RANGES, value) if not 0 <= v <= top]
    if beyond:
        problems.append((key, f"{', '.join(beyond)} (OpenCV's HSV: hue 0..179, saturation and value 0..255), "
                              f"got {value!r}"))
        return None
    return int(value[0]), int(value[1]), int(value[2])


def _frame_size(value: Any) -> tuple[int, int] | None:
    """``frame_size`` as ``(width, height)``, or None when it is not two whole numbers above 0."""
    if isinstance(value, (list, tuple)) and len(value) == 2 and all(_is_whole(v) and v > 0 for v in value):
        return int(value[0]), int(value[1])
    return None


def _size_problem(picture: np.ndarray, frame: tuple[int, int] | None, where: Path) -> str | None:
    """A picture of another size than the frames calibrated (a file from another calibration)."""
    height, width = picture.shape[:2]
    if frame is None or (width, height) == frame:
        return None
    return f"{where} is {width}x{height}, but frame_size is {frame[0]}x{frame[1]}: calibrate again"


def _check_table(table: Mapping[str, Any], base: Path, problems: list[tuple[str, str]]) -> Calibration:
    """The :class:`Calibration` a ``[calibration]`` table describes; its problems go to ``problems``.

    Each key's type and range is checked, as the table's configuration checks its own
    (``controller.config``): an unknown (misspelt) key would otherwise be ignored
    unseen, and a wrong value loaded, to fail at the first frame or in the check image.
    The calibration returned holds the valid keys only, and means nothing when a problem
    was found.
    """
    problems += [(f"calibration.{key}", f"unknown key (known: {', '.join(CALIBRATION_KEYS)})")
                 for key in sorted(set(table) - set(CALIBRATION_KEYS))]
    frame = None
    if "frame_size" in table:
        frame = _frame_size(table["frame_size"])
        if frame is None:
            problems.append(("calibration.frame_size", "expected [width, height], two whole numbers of pixels "
                                                       f"above 0, got {table['frame_size']!r}"))
    for key in ("landing_mask", "empty_image"):
        if not isinstance(table.get(key, ""), str):
            problems.append((f"calibration.{key}", f"expected the name of a PNG file, got {table[key]!r}"))
    mask = None
    if isinstance(table.get("landing_mask"), str) and table["landing_mask"]:
        mask_path = base / table["landing_mask"]
        mask = cv2.imread(str(mask_path), cv2.IMREAD_GRAYSCALE)
        if mask is None:
            problems.append(("calibration.landing_mask", f"cannot read {mask_path}"))
        else:
            mask = np.where(mask > 127, 255, 0).astype(np.uint8)
            if (problem := _size_problem(mask, frame, mask_path)) is not None:
                problems.append(("calibration.landing_mask", problem))
    size = table.get("die_size_px")
    if size is not None and not is_pixel_size(size):
        problems.append(("calibration.die_size_px", _not_a_pixel_size(size)))
        size = None
    dice = table.get("dice_hsv", [])
    if not isinstance(dice, list) or (dice and not any(isinstance(colour, list) for colour in dice)):
        # A lone colour not wrapped in its list is one mistake, not three.
        problems.append(("calibration.dice_hsv", "expected a list of [h, s, v] colours, such as [[6, 217, 119]], "
                                                 f"got {dice!r}"))
        dice = []
    colours = [_hsv(colour, "calibration.dice_hsv", problems) for colour in dice]
    felt = _hsv(table["felt_hsv"], "calibration.felt_hsv", problems) if "felt_hsv" in table else None
    full_size = None
    if "full_size" in table:
        full_size = _frame_size(table["full_size"])
        if full_size is None:
            problems.append(("calibration.full_size", "expected [width, height], two whole numbers of pixels "
                                                      f"above 0, got {table['full_size']!r}"))
    full = table.get("full_die_size_px")
    if full is not None and not is_pixel_size(full):
        problems.append(("calibration.full_die_size_px", _not_a_pixel_size(full)))
        full = None
    if (full is None) != (full_size is None) and not any(k.startswith("calibration.full") for k, _ in problems):
        problems.append(("calibration.full_die_size_px", "give full_size and full_die_size_px together"))
    tilt = _degrees(table, "view_tilt_deg", 0.0, (0.0, 89.0), problems)
    toward = _degrees(table, "view_toward_deg", 90.0, (-360.0, 360.0), problems)
    return Calibration(landing_mask=mask, die_size_px=None if size is None else float(size),
                       dice_hsv=[c for c in colours if c is not None], felt_hsv=felt, frame_size=frame,
                       full_die_size_px=None if full is None else float(full), full_size=full_size,
                       view_tilt_deg=tilt, view_toward_deg=toward)


def _degrees(table: Mapping[str, Any], key: str, default: float, bounds: tuple[float, float],
             problems: list[tuple[str, str]]) -> float:
    """An angle key of the table in degrees within ``bounds``, else ``default`` and a problem."""
    value = table.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not bounds[0] <= value <= bounds[1]:
        problems.append((f"calibration.{key}", f"expected degrees from {bounds[0]:g} to {bounds[1]:g}, got {value!r}"))
        return default
    return float(value)


def calibration_from_table(table: Mapping[str, Any], base: str | Path = ".") -> Calibration:
    """A :class:`Calibration` from a ``[calibration]`` TOML table; file names are relative to ``base``.

    Raises a :class:`~messages.ConfigError` listing every problem of the table, each naming its key.
    """
    problems: list[tuple[str, str]] = []
    calibration = _check_table(table, Path(base), problems)
    if problems:
        raise ConfigError.of(problems)
    return calibration


def load_calibration(path: str | Path) -> Calibration:
    """Read a calibration written by :func:`save_calibration` (or any TOML with a ``[calibration]`` table).

    Raises a :class:`~messages.ConfigError` listing every problem of the file, keys outside
    its ``[calibration]`` table included (a key written above the table's line would
    otherwise be ignored unseen).
    """
    path = Path(path)
    table, outside = _table(path)
    problems: list[tuple[str, str]] = []
    calibration = _check_table(table, path.parent, problems)
    problems += [(key, f"outside the [calibration] table: the calibration's keys go in it "
                       f"(known: {', '.join(CALIBRATION_KEYS)})") for key in outside]
    if problems:
        raise ConfigError.of(problems, str(path))
    return calibration


def load_empty_image(path: str | Path) -> np.ndarray | None:
    """The empty-table picture a calibration file names (for the settle detector), or ``None``.

    Read after :func:`load_calibration` has checked the file: only the picture itself
    (missing, unreadable, another size than ``frame_size``) is refused here.
    """
    path = Path(path)
    table, _ = _table(path)
    name = table.get("empty_image")
    if not name:
        return None
    where = path.parent / str(name)
    image = cv2.imread(str(where), cv2.IMREAD_COLOR)
    problem = f"cannot read {where}" if image is None else _size_problem(image, _frame_size(table.get("frame_size")), where)
    if problem is not None:
        raise ConfigError.of([("calibration.empty_image", problem)], str(path))
    return image
