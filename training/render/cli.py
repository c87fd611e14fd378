"""``python -m training.render frames|crops|tableset``: render seeded frames, die crops or a table
set into a folder, skipping what is there already, so a stopped batch goes on where it left off;
``tableset-poses DIR``: add the dice's rest poses to a table set rendered without them.

Seeds from ``HELD_OUT_FROM`` up are kept for held-out evaluation sets: a training batch may not
reach them, and a held-out batch (``--held-out``) may use nothing else. A table set's seed is
its table's: one seed, whatever the number of throws.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

HELD_OUT_FROM = 900_000
#: Beside the checkout (``../.cache/dicetable-render``), where training/README.md's commands look.
DEFAULT_CACHE = Path(os.environ.get("DICETABLE_RENDER_CACHE",
                                    Path(__file__).resolve().parents[3] / ".cache" / "dicetable-render"))
SIZES = ((640, 480), (1280, 960))
#: A table set's frame size when none is given: rail tables at 960x720, the cage at 640x480.
TABLE_SIZES = {"rail": (960, 720), "cage": (640, 480)}


def _size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"size must be WIDTHxHEIGHT, got {text!r}") from None
    if w < 64 or h < 64:
        raise argparse.ArgumentTypeError(f"size must be at least 64x64, got {text!r}")
    return w, h


def check_seeds(seed: int, count: int, held_out: bool) -> str | None:
    """Why a batch's seeds are not allowed, or None: training seeds stay below ``HELD_OUT_FROM``,
    held-out ones at or above it."""
    if seed < 0 or count < 0:
        return "seed and count must not be negative"
    if held_out and seed < HELD_OUT_FROM:
        return f"a held-out set uses seeds from {HELD_OUT_FROM} up (got --seed {seed})"
    if not held_out and seed + count > HELD_OUT_FROM:
        return (f"seeds {seed}..{seed + count - 1} reach the held-out seeds ({HELD_OUT_FROM} and up); "
                "pass --held-out for an evaluation set")
    return None


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m training.render", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="product", required=True)
    for name, what in (("frames", "whole labelled frames (detector, evaluation)"),
                       ("crops", "die crops cut from renders of a grid of dice (classifiers)")):
        s = sub.add_parser(name, help=what)
        s.add_argument("--out", type=Path, help=f"folder to fill (default: under {DEFAULT_CACHE})")
        s.add_argument("--count", type=int, required=True,
                       help="frames to render" if name == "frames" else "renders (each gives 6-16 crops)")
        s.add_argument("--seed", type=int, required=True,
                       help="first seed; image (or render) i has seed SEED + i")
        s.add_argument("--threads", type=int, default=1, help="Blender's render threads (default 1)")
        s.add_argument("--held-out", action="store_true", help=f"an evaluation set (seeds {HELD_OUT_FROM}+)")
        if name == "frames":
            s.add_argument("--kind", choices=("rail", "cage", "mixed"), default="mixed")
            s.add_argument("--size", type=_size, default=(640, 480), metavar="WxH")
            s.add_argument("--samples", type=int, default=12)
        else:
            s.add_argument("--samples", type=int, default=4)
    t = sub.add_parser("tableset", help="one fixed table: frames of it empty and of each throw (the calibrated reader)")
    t.add_argument("--out", type=Path, help=f"folder to fill (default: under {DEFAULT_CACHE})")
    t.add_argument("--kind", choices=("rail", "cage"), required=True)
    t.add_argument("--size", type=_size, metavar="WxH", help="default 960x720 for a rail, 640x480 for a cage")
    t.add_argument("--seed", type=int, required=True, help="the table's seed: everything fixed for the set")
    t.add_argument("--count", type=int, required=True, help="throws to render (throw i: the table's seed and i)")
    t.add_argument("--empty", type=int, default=2, help="frames of the empty table (default 2)")
    t.add_argument("--samples", type=int, default=12)
    t.add_argument("--threads", type=int, default=1, help="Blender's render threads (default 1)")
    t.add_argument("--held-out", action="store_true", help=f"an evaluation set (table seeds {HELD_OUT_FROM}+)")
    t.add_argument("--describe", action="store_true",
                   help="print what the seed's table is (camera, dice size, looks) and render nothing")
    poses = sub.add_parser("tableset-poses", help="add each die's rest pose to table sets' meta.jsonl, "
                           "the physics run again from each throw's seed (nothing rendered)")
    poses.add_argument("dirs", type=Path, nargs="+", metavar="DIR", help="a table set's folder")
    return p


def _tableset_poses(args: argparse.Namespace) -> int:
    try:
        import pybullet  # noqa: F401 - only the renderer's own environment has it
    except ImportError:
        print("error: tableset-poses runs the physics: it needs pybullet (the renderer's venv, "
              "training/render/README.md)", file=sys.stderr)
        return 2
    from training.render.tableposes import PoseMismatch, add_poses

    status = 0
    for folder in args.dirs:
        try:
            done = add_poses(folder)
        except PoseMismatch as e:
            print(f"error: {e}", file=sys.stderr)
            status = 2
            continue
        print(f"{folder}: {done['throws']} throws, poses added to {done['added']}, {done['had']} had them", flush=True)
    return status


def _tableset(args: argparse.Namespace) -> int:
    size = args.size or TABLE_SIZES[args.kind]
    if args.describe:
        import json

        from training.render.table import describe, draw_table, table_facts

        table = draw_table(args.seed, args.kind, size)
        print(describe(table))
        print(json.dumps(table_facts(table), sort_keys=True))
        return 0
    from training.render.tableset import TableMismatch, render_tableset

    prefix = "heldout-table" if args.held_out else "table"
    out = args.out or DEFAULT_CACHE / f"{prefix}-{args.kind}-{size[0]}x{size[1]}-s{args.seed}"
    try:
        for done, total, name, seconds in render_tableset(out, args.seed, args.kind, size, args.count, args.empty,
                                                          args.samples, args.threads):
            print(f"[{done}/{total}] {name} {seconds:.1f}s", flush=True)
    except TableMismatch as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.product == "tableset-poses":
        return _tableset_poses(args)
    table = args.product == "tableset"
    problem = check_seeds(args.seed, 1 if table else args.count, args.held_out)
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    if args.samples < 1 or args.threads < 1:
        print("error: --samples and --threads must be at least 1", file=sys.stderr)
        return 2
    if table:
        if args.count < 0 or args.empty < 0:
            print("error: --count and --empty must not be negative", file=sys.stderr)
            return 2
        return _tableset(args)
    # Blender and pybullet are imported only now: --help and the seed checks need neither.
    if args.product == "frames":
        from training.render.frames import render_frames

        out = args.out or DEFAULT_CACHE / f"frames-{args.kind}-{args.size[0]}x{args.size[1]}"
        todo = render_frames(out, args.count, args.seed, args.kind, args.size, args.samples, args.threads)
    else:
        from training.render.crops import render_crops

        out = args.out or DEFAULT_CACHE / "crops-grid"
        todo = render_crops(out, args.count, args.seed, args.samples, args.threads)
    for done, total, name, seconds in todo:
        print(f"[{done}/{total}] {name} {seconds:.1f}s", flush=True)
    return 0
