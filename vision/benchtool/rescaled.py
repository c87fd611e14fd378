"""Write a labelled folder's photos as if taken from farther or closer, to bench the reader at other scales.

The public photos show dice at one distance each (byler's about 39 px in
640, matteop65's 60-100 px); photos nobody here has seen may not. This
writes a copy of a folder (one split of it) in the layout of
``../shared/datasets`` (``images/`` and ``labels_yolo/``) with every photo
scaled by ``--factor`` inside a frame of its own size:

- under 1, from farther: the photo shrunk and centred, the border filled by
  repeating its edge pixels;
- over 1, closer: the middle of the photo around the dice, enlarged; a photo
  whose dice would not all fit whole is left out (its labels would be wrong).

    python -m vision.benchtool.rescaled ../shared/datasets/byler-d6-tray /tmp/byler-half \\
        --split tune --factor 0.5

The copies are for benching only and stay outside the project, like the
photos themselves. Copy one split and bench the copy whole: the held-out
split is decided by file names and folders, and the copy puts every photo in
one folder.
"""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import get_args

import cv2
import numpy as np

from vision.benchtool.labels import LabelledDie, LabelledImage, load_folder
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
        moved = [LabelledDie(d.value, (d.cx * nw + x0) / w, (d.cy * nh + y0) / h, d.w * factor, d.h * factor)
                 for d in dice]
        return out, moved
    cw, ch = w / factor, h / factor  # the part of the photo kept, in its pixels
    mx, my = np.mean([d.cx for d in dice]) * w, np.mean([d.cy for d in dice]) * h
    x0, y0 = float(np.clip(mx - cw / 2, 0, w - cw)), float(np.clip(my - ch / 2, 0, h - ch))
    moved = [LabelledDie(d.value, (d.cx * w - x0) / cw, (d.cy * h - y0) / ch, d.w * factor, d.h * factor) for d in dice]
    if any(d.cx - d.w / 2 < 0 or d.cy - d.h / 2 < 0 or d.cx + d.w / 2 > 1 or d.cy + d.h / 2 > 1 for d in moved):
        return None
    m = np.float32([[factor, 0, -x0 * factor], [0, factor, -y0 * factor]])
    return cv2.warpAffine(image, m, (w, h), flags=cv2.INTER_LINEAR), moved


def write_rescaled(items: list[LabelledImage], out_dir: Path, factor: float) -> int:
    """Write each item rescaled as ``images/NAME.png`` + ``labels_yolo/NAME.txt``; how many were written."""
    (out_dir / "images").mkdir(parents=True, exist_ok=True)
    (out_dir / "labels_yolo").mkdir(exist_ok=True)
    written = 0
    for item in items:
        image = cv2.imread(str(item.path), cv2.IMREAD_COLOR)
        if image is None or not item.positional:
            continue  # unreadable, or labels without boxes to move
        done = rescale(image, item.dice, factor)
        if done is None:
            continue
        frame, dice = done
        cv2.imwrite(str(out_dir / "images" / f"{item.path.stem}.png"), frame)
        (out_dir / "labels_yolo" / f"{item.path.stem}.txt").write_text(
            "".join(f"{d.value - 1} {d.cx:.6f} {d.cy:.6f} {d.w:.6f} {d.h:.6f}\n" for d in dice))
        written += 1
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--factor", type=float, required=True, help="under 1: from farther; over 1: closer")
    parser.add_argument("--split", choices=get_args(Split), default="all")
    args = parser.parse_args(argv)
    if args.factor <= 0:
        parser.error("--factor must be positive")
    n = write_rescaled(select(load_folder(args.folder), args.split), args.out_dir, args.factor)
    print(f"{args.out_dir}: {n} images")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
