"""Write a folder of labelled generated stills, in the layout of ``../shared/datasets``.

``images/NAME.png`` with ``labels_yolo/NAME.txt`` (``class cx cy w h``
normalised, class = face - 1 as ``labels_yolo/classes.txt`` says, one line per die) and a ``manifest.csv``
(``image,values,setting,touching,leaning``) so the reader's bench and training
scripts take generated folders and real photographs alike.

    python -m vision.benchtool.dataset OUT_DIR --count 200 --seed 1 [--size 2560x1920]

Dice scale with the frame's width, so a large ``--size`` draws them sharp and
big: ``vision.benchtool.altered --close-up`` cuts close-ups out of such a folder.
"""
from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

import cv2
import numpy as np

from vision.benchtool.labels import LabelError, boxed_die, write_class_names, yolo_line
from vision.model import frame_size
from vision.scenes.render import SceneLabel, render_scene
from vision.scenes.table import DICE_SHOWN


def yolo_lines(label: SceneLabel, width: int, height: int) -> list[str]:
    """YOLO rows for a label: ``class cx cy w h`` with class = face value - 1."""
    return [yolo_line(boxed_die(d.value, d.box, width, height)) for d in label.dice]


def write_dataset(out_dir: str | Path, count: int, seed: int = 0, size: tuple[int, int] = (640, 480)) -> Path:
    """Render ``count`` varied stills (rail and cage, some touching or leaning) into ``out_dir``."""
    out = Path(out_dir)
    (out / "images").mkdir(parents=True, exist_ok=True)
    (out / "labels_yolo").mkdir(exist_ok=True)
    write_class_names(out / "labels_yolo")
    rng = np.random.default_rng(seed)
    with open(out / "manifest.csv", "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["image", "values", "setting", "touching", "leaning"])
        for i in range(count):
            setting = "cage" if rng.random() < 0.35 else "rail"
            n = DICE_SHOWN[setting]
            kind = rng.random()
            image, label = render_scene(
                rng, setting=setting, size=size,
                touching=bool(kind < 0.12),
                leaning=int(rng.integers(n)) if 0.12 <= kind < 0.22 else None,
            )
            name = f"gen_{seed:03d}_{i:05d}.png"
            cv2.imwrite(str(out / "images" / name), image)
            (out / "labels_yolo" / f"{Path(name).stem}.txt").write_text("\n".join(yolo_lines(label, *size)) + "\n")
            writer.writerow([
                f"images/{name}", " ".join(str(v) for v in label.values), setting,
                int(label.touching), int(any(d.leaning for d in label.dice)),
            ])
    return out


def _size(text: str) -> tuple[int, int]:
    """``WxH`` -> (W, H), each at least 64 px."""
    size = frame_size(text.lower())
    if size is None:
        raise argparse.ArgumentTypeError(f"size must be WIDTHxHEIGHT, got {text!r}")
    if min(size) < 64:
        raise argparse.ArgumentTypeError(f"size must be at least 64x64, got {text!r}")
    return size


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir")
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--size", type=_size, default=(640, 480), metavar="WxH",
                        help="frame size (default 640x480); dice scale with the width")
    args = parser.parse_args(argv)
    try:
        write_dataset(args.out_dir, args.count, args.seed, args.size)
    except LabelError as exc:  # a folder labelled otherwise already
        print(f"vision.benchtool.dataset: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
