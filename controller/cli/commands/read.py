"""`dicetable read`: read the dice in image files, one JSON line per image.

A file that is missing or not a decodable image gives a ``no_read`` line with
the reason and the command goes on with the next one; the exit status is 0
when every file could be read as an image, 1 otherwise.
"""
from __future__ import annotations

import argparse
import json
import sys

from controller.cli.argtypes import positive_number
from controller.rules import DICE

NAME = "read"
HELP = "read the dice in still images (one JSON line per image)"


def configure(parser: argparse.ArgumentParser) -> None:
    count = parser.add_mutually_exclusive_group()
    count.add_argument("--game", choices=sorted(DICE), help="game being played (sets the dice count)")
    count.add_argument("--expect", type=int, metavar="N", help="number of dice thrown")
    parser.add_argument("--json", action="store_true", help="print JSON lines (the default prints a short line)")
    parser.add_argument("--die-size", type=positive_number, metavar="PX", default=None,
                        help="side of a die's top face in pixels, as a table calibration gives it")
    parser.add_argument("images", nargs="+", metavar="IMAGE")


def expected_count(args: argparse.Namespace) -> int | None:
    if args.game:
        return DICE[args.game]
    return args.expect


def run(args: argparse.Namespace) -> int:
    from vision.model import Calibration, DiceRead, ReadStatus
    from vision.reader import read_dice
    from vision.sources.folder import decode_image_file

    if args.expect is not None and args.expect < 1:
        print(f"dicetable read: --expect must be at least 1, got {args.expect}", file=sys.stderr)
        return 2
    expect = expected_count(args)
    calibration = Calibration(die_size_px=args.die_size) if args.die_size else None
    status = 0
    for path in args.images:
        frame, problem = decode_image_file(path)
        if frame is None:
            read = DiceRead(ReadStatus.NO_READ, (), problem)
            status = 1
        else:
            read = read_dice(frame, expect=expect, calibration=calibration)
        out = {"image": path, **read.to_json()}
        if args.json:
            print(json.dumps(out), flush=True)
        else:
            values = " ".join(str(v) for v in read.values) or "-"
            reason = f"  ({read.reason})" if read.reason else ""
            print(f"{path}: {read.status.value} {values}  [{read.ms:.1f} ms]{reason}", flush=True)
    return status
