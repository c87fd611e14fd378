"""Write a labelled folder's photos as if taken otherwise, to bench the reader on pictures the public sets lack.

The public photos show dice at one distance each (byler's about 39 px in
640, matteop65's 60-100 px), under one light, from one camera; photos nobody
here has seen may not. This writes a copy of a folder (one split of it) in
the layout of ``../shared/datasets`` (``images/`` and ``labels_yolo/``),
each photo altered in the frame of its own size:

- ``--factor`` under 1, from farther: the photo shrunk and centred, the
  border filled by repeating its edge pixels; over 1, closer: the middle of
  the photo around the dice, enlarged (a photo whose dice would not all fit
  whole is left out: its labels would be wrong). The labels move with the dice;
- ``--close-up`` FILL: each die cut out into a frame of its own (640x480),
  the die filling FILL of the frame's height, as a photo taken close to one
  die would show it. Only dice whose frame holds no part of another die are
  cut out, only where the frame fits in the photo, and none from a photo
  labelled touching or leaning (a generated folder's manifest). Enlarged from small
  photographed dice, such frames are blurred and their compression shows;
  for sharp ones, cut them from generated scenes rendered large
  (``python -m vision.benchtool.dataset OUT --size 2560x1920``);
- ``--turn`` 90, 180 or 270 (degrees clockwise) and ``--mirror``: a camera
  mounted otherwise, or a photo turned; the labels turn with the dice;
- ``--stretch`` S: the photo's width S times what it was, its height kept,
  as a labelling tool does that resizes every photo to one size whatever its
  shape (a 4:3 photo made square, 640x480 to 640x640, is ``--stretch 0.75``:
  every die narrower than tall); YOLO labels, given in fractions of the
  frame, stay as they are;
- ``--gamma`` (over 1 darker, under 1 brighter), ``--blur`` (Gaussian sigma,
  px), ``--noise`` (Gaussian sigma, grey levels), ``--jpeg`` (quality 1-100):
  the camera's exposure, focus, sensor and compression;
- ``--grey`` (a monochrome camera) and ``--swap-channels`` (blue and red
  swapped: red dice turn blue, green felt stays green): dice and cloth of
  colours the public photos lack.

    python -m vision.benchtool.altered ../shared/datasets/byler-d6-tray ../byler-half \
        --split tune --factor 0.5

The copies are for benching only and stay outside the project, like the
photos themselves. Copy one split and bench the copy whole: the held-out
split is decided by file names and folders, and the copy puts every photo in
one folder.
"""
from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import get_args

import cv2
import numpy as np

from vision.benchtool.labels import LabelError, LabelledDie, LabelledImage, load_folder, write_class_names, yolo_line
from vision.benchtool.split import Split, select


def rescale(image: np.ndarray, dice: tuple[LabelledDie, ...], factor: float) -> tuple[np.ndarray, list[LabelledDie]] | None:
    """The photo as if seen ``factor`` times larger, same frame size, and its
    dice' boxes moved with it; None when, enlarged, a die would be cut."""
    h, w = image.shape[:2]
    if factor < 1:
        nw, nh = round(w * factor), round(h * factor)
        small = cv2.resize(image, (nw, nh), interpolation=cv2.INTER_AREA)
        x0, y0 = (w - nw) // 2, (h - nh) // 2
        out = cv2.copyMakeBorder(small, y0, h - nh - y0, x0, w - nw - x0, cv2.BORDER_REPLICATE)
        moved = [LabelledDie(d.value, (cx * nw + x0) / w, (cy * nh + y0) / h, dw * factor, dh * factor)
                 for d in dice for cx, cy, dw, dh in [d.box]]
        return out, moved
    cw, ch = w / factor, h / factor  # the part of the photo kept, in its pixels
    mx, my = np.mean([d.box[0] for d in dice]) * w, np.mean([d.box[1] for d in dice]) * h
    x0, y0 = float(np.clip(mx - cw / 2, 0, w - cw)), float(np.clip(my - ch / 2, 0, h - ch))
    moved = [LabelledDie(d.value, (cx * w - x0) / cw, (cy * h - y0) / ch, dw * factor, dh * factor)
             for d in dice for cx, cy, dw, dh in [d.box]]
    if any(cx - dw / 2 < 0 or cy - dh / 2 < 0 or cx + dw / 2 > 1 or cy + dh / 2 > 1
           for cx, cy, dw, dh in (d.box for d in moved)):
        return None
    m = np.array([[factor, 0, -x0 * factor], [0, factor, -y0 * factor]], np.float32)
    return cv2.warpAffine(image, m, (w, h), flags=cv2.INTER_LINEAR), moved


def reorient(image: np.ndarray, dice: Sequence[LabelledDie], turn: int,
             mirror: bool) -> tuple[np.ndarray, list[LabelledDie]]:
    """The photo mirrored left to right (if ``mirror``), then turned ``turn``
    degrees clockwise (0, 90, 180 or 270), and its dice' boxes with it."""
    out, moved = image, list(dice)
    if mirror:
        out = cv2.flip(out, 1)
        moved = [LabelledDie(d.value, 1 - cx, cy, dw, dh) for d in moved for cx, cy, dw, dh in [d.box]]
    for _ in range(turn // 90):  # a quarter turn clockwise: (x, y) -> (1 - y, x)
        out = cv2.rotate(out, cv2.ROTATE_90_CLOCKWISE)
        moved = [LabelledDie(d.value, 1 - cy, cx, dh, dw) for d in moved for cx, cy, dw, dh in [d.box]]
    return out, moved


def stretch(image: np.ndarray, factor: float) -> np.ndarray:
    """The photo ``factor`` times as wide, as tall as it was (YOLO labels are
    fractions of the frame, so they hold as they are)."""
    if factor == 1.0:
        return image
    h, w = image.shape[:2]
    nw = max(1, round(w * factor))
    return cv2.resize(image, (nw, h), interpolation=cv2.INTER_AREA if nw < w else cv2.INTER_LINEAR)


#: A close-up's frame (width, height): the size the issue's latency target names.
CLOSE_UP_FRAME = (640, 480)


def close_ups(image: np.ndarray, dice: tuple[LabelledDie, ...], fill: float) -> list[tuple[np.ndarray, LabelledDie]]:
    """Each die that can stand alone, cut out into a ``CLOSE_UP_FRAME`` frame
    whose height is its side over ``fill``, and its label in that frame. The
    frame is centred on the die, moved inward where it would leave the photo;
    a die whose frame would not fit in the photo, or would hold any part of
    another die, is left out."""
    h, w = image.shape[:2]
    fw, fh = CLOSE_UP_FRAME
    out = []
    for d in dice:
        cx, cy, dw, dh = d.box
        ch = round(max(dw * w, dh * h) / fill)
        cw = round(ch * fw / fh)
        if cw > w or ch > h:
            continue
        x0 = int(np.clip(round(cx * w - cw / 2), 0, w - cw))
        y0 = int(np.clip(round(cy * h - ch / 2), 0, h - ch))
        if any(o is not d and _overlaps(o, w, h, (x0, y0, cw, ch)) for o in dice):
            continue
        shrink = ch > fh
        frame = cv2.resize(image[y0:y0 + ch, x0:x0 + cw], (fw, fh),
                           interpolation=cv2.INTER_AREA if shrink else cv2.INTER_LINEAR)
        out.append((frame, LabelledDie(d.value, (cx * w - x0) / cw, (cy * h - y0) / ch, dw * w / cw, dh * h / ch)))
    return out


def _overlaps(d: LabelledDie, w: int, h: int, window: tuple[float, float, float, float]) -> bool:
    """Whether any part of the labelled die (in a photo ``w`` x ``h``) lies in ``window`` (x, y, width, height, px)."""
    x, y, ww, wh = window
    cx, cy, dw, dh = d.box
    return ((cx - dw / 2) * w < x + ww and (cx + dw / 2) * w > x
            and (cy - dh / 2) * h < y + wh and (cy + dh / 2) * h > y)


@dataclass(frozen=True)
class Alteration:
    """How to alter each photo; the defaults leave it as it is."""

    factor: float = 1.0
    gamma: float = 1.0
    blur: float = 0.0
    noise: float = 0.0
    jpeg: int | None = None
    close_up: float | None = None  # fill: each lone die cut out into a frame of its own
    turn: int = 0  # degrees clockwise: 0, 90, 180 or 270
    mirror: bool = False
    grey: bool = False
    swap_channels: bool = False
    stretch: float = 1.0  # the width's factor, the height kept


def retouch(image: np.ndarray, how: Alteration, rng: np.random.Generator) -> np.ndarray:
    """The photometric part of ``how``: colour, exposure, focus, sensor noise, then compression."""
    out = image
    if how.grey:
        out = cv2.cvtColor(cv2.cvtColor(out, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    if how.swap_channels:
        out = np.ascontiguousarray(out[:, :, ::-1])
    if how.gamma != 1.0:
        out = cv2.LUT(out, np.clip(255.0 * (np.arange(256) / 255.0) ** how.gamma + 0.5, 0, 255).astype(np.uint8))
    if how.blur > 0:
        out = cv2.GaussianBlur(out, (0, 0), how.blur)
    if how.noise > 0:
        out = np.clip(out + rng.normal(0.0, how.noise, out.shape), 0, 255).astype(np.uint8)
    if how.jpeg is not None:
        decoded = cv2.imdecode(cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, how.jpeg])[1], cv2.IMREAD_COLOR)
        assert decoded is not None  # a JPEG just encoded
        out = decoded
    return out


def write_altered(items: list[LabelledImage], out_dir: Path, how: Alteration, seed: int = 0) -> int:
    """Write each item altered as ``images/NAME.png`` + ``labels_yolo/NAME.txt``
    (with ``close_up``, each die cut out as ``NAME_K``); how many were written."""
    rng = np.random.default_rng(seed)
    (out_dir / "images").mkdir(parents=True, exist_ok=True)
    (out_dir / "labels_yolo").mkdir(exist_ok=True)
    write_class_names(out_dir / "labels_yolo")
    written = 0
    for item in items:
        image = cv2.imread(str(item.path), cv2.IMREAD_COLOR)
        if image is None or not item.positional:
            continue  # unreadable, or labels without boxes to move
        if how.close_up is not None:
            if item.not_to_settle:
                continue  # a leaning die cut out alone would still be labelled with a face up
            shots = [(f"{item.path.stem}_{k}", frame, [die])
                     for k, (frame, die) in enumerate(close_ups(image, item.dice, how.close_up))]
        else:
            done = rescale(image, item.dice, how.factor) if how.factor != 1.0 else (image, list(item.dice))
            shots = [] if done is None else [(item.path.stem, *done)]
        for name, frame, dice in shots:
            frame, dice = reorient(stretch(frame, how.stretch), dice, how.turn, how.mirror)
            cv2.imwrite(str(out_dir / "images" / f"{name}.png"), retouch(frame, how, rng))
            (out_dir / "labels_yolo" / f"{name}.txt").write_text("".join(yolo_line(d) + "\n" for d in dice))
            written += 1
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--split", choices=get_args(Split), default="all")
    parser.add_argument("--factor", type=float, default=1.0, help="under 1: from farther; over 1: closer")
    parser.add_argument("--close-up", type=float, default=None, metavar="FILL",
                        help="cut each lone die out into a 640x480 frame, the die FILL of its height (0-1)")
    parser.add_argument("--turn", type=int, choices=(0, 90, 180, 270), default=0, help="degrees clockwise")
    parser.add_argument("--mirror", action="store_true", help="mirror left to right (before the turn)")
    parser.add_argument("--stretch", type=float, default=1.0, metavar="S",
                        help="the width S times what it was, the height kept (0.75: a 4:3 photo made square)")
    parser.add_argument("--grey", action="store_true", help="as a monochrome camera sees it")
    parser.add_argument("--swap-channels", action="store_true", help="blue and red swapped (red dice turn blue)")
    parser.add_argument("--gamma", type=float, default=1.0, help="over 1: darker; under 1: brighter")
    parser.add_argument("--blur", type=float, default=0.0, help="Gaussian blur sigma, px")
    parser.add_argument("--noise", type=float, default=0.0, help="Gaussian noise sigma, grey levels")
    parser.add_argument("--jpeg", type=int, default=None, help="re-encode as JPEG of this quality (1-100)")
    parser.add_argument("--seed", type=int, default=0, help="for the noise")
    args = parser.parse_args(argv)
    if args.factor <= 0 or args.gamma <= 0 or args.stretch <= 0 or args.blur < 0 or args.noise < 0:
        parser.error("--factor, --gamma and --stretch must be positive, --blur and --noise not negative")
    if args.jpeg is not None and not 1 <= args.jpeg <= 100:
        parser.error("--jpeg must be 1-100")
    if args.close_up is not None and not (0 < args.close_up <= 1 and args.factor == 1.0):
        parser.error("--close-up must be over 0 and at most 1, and cannot go with --factor")
    how = Alteration(args.factor, args.gamma, args.blur, args.noise, args.jpeg, args.close_up,
                     args.turn, args.mirror, args.grey, args.swap_channels, args.stretch)
    try:
        n = write_altered(select(load_folder(args.folder), args.split), args.out_dir, how, args.seed)
    except LabelError as exc:  # the folder's labels, or an output folder labelled otherwise already
        print(f"vision.benchtool.altered: {exc}", file=sys.stderr)
        return 2
    print(f"{args.out_dir}: {n} images")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
