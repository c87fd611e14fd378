"""`dicetable read`: read the dice in image files, one line per image (``--json``: JSON lines).

A folder stands for every image under it, as ``dicetable bench`` finds them.
A file that is missing or not a decodable image (too large, a pipe, not an
image) gives a ``no_read`` line with the reason and the command goes on with
the next one; the exit status is 0 when every file could be read as an image,
1 otherwise, 2 for a model folder that cannot be loaded. ``--json`` lines name
the model by its digest.
"""
from __future__ import annotations

import argparse
import sys

from controller.cli.argtypes import positive_number
from controller.rules import DICE

NAME = "read"
HELP = "read the dice in still images (a line per image; --json: JSON lines)"


def configure(parser: argparse.ArgumentParser) -> None:
    count = parser.add_mutually_exclusive_group()
    count.add_argument("--game", choices=sorted(DICE), help="game being played (sets the dice count)")
    count.add_argument("--expect", type=int, metavar="N", help="number of dice thrown")
    parser.add_argument("--json", action="store_true", help="print JSON lines (the default prints a short line)")
    parser.add_argument("--die-size", type=positive_number, metavar="PX", default=None,
                        help="side of a die's top face in pixels, as a table calibration gives it")
    parser.add_argument("--model", metavar="MODEL_DIR", default=None,
                        help="read with this model folder (`dicetable learn` writes one); default: the bundled model")
    parser.add_argument("images", nargs="+", metavar="IMAGE",
                        help="image files, or folders: every image under a folder, in name order (as bench finds them)")


def expected_count(args: argparse.Namespace) -> int | None:
    if args.game:
        return DICE[args.game]
    return args.expect


def run(args: argparse.Namespace) -> int:
    from controller.jsonlines import json_line
    from vision.model import Calibration, DiceRead, ReadStatus
    from vision.reader import load_model, read_dice
    from vision.reader.nets import ModelMissing
    from vision.sources.folder import decode_image_file

    if args.expect is not None and args.expect < 1:
        print(f"dicetable read: --expect must be at least 1, got {args.expect}", file=sys.stderr)
        return 2
    try:
        model = load_model(args.model)
    except ModelMissing as exc:
        print(f"dicetable read: --model: {exc}", file=sys.stderr)
        return 2
    expect = expected_count(args)
    calibration = Calibration(die_size_px=args.die_size) if args.die_size else None
    status = 0
    for path in _image_paths(args.images):
        frame, problem = decode_image_file(path)
        if frame is None:
            read = DiceRead(ReadStatus.NO_READ, (), problem)
            status = 1
        else:
            read = read_dice(frame, expect=expect, calibration=calibration, model=model)
        out = {"image": path, **read.to_json(), "model": model.digest}
        if args.json:
            print(json_line(out), flush=True)
        else:
            values = " ".join(str(v) for v in read.values) or "-"
            reason = f"  ({read.reason})" if read.reason else ""
            print(f"{path}: {read.status.value} {values}  [{read.ms:.1f} ms]{reason}", flush=True)
    return status


def _image_paths(given: list[str]) -> list[str]:
    """The files to read: each one given, and for each folder every image file under it (by its
    suffix, in natural name order), as ``dicetable bench`` finds a folder's images. A folder
    with none gives itself, so that its line says so."""
    from pathlib import Path

    from vision.sources.folder import IMAGE_SUFFIXES, natural_key

    paths: list[str] = []
    for name in given:
        folder = Path(name)
        found = sorted((p for p in folder.rglob("*") if p.suffix.lower() in IMAGE_SUFFIXES and p.is_file()),
                       key=lambda p: natural_key(str(p.relative_to(folder)))) if folder.is_dir() else []
        paths += [str(p) for p in found] or [name]
    return paths
