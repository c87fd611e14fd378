"""``python -m training.render frames|crops``: render seeded frames or die crops into a folder,
skipping what is there already, so a stopped batch goes on where it left off.

Seeds from ``HELD_OUT_FROM`` up are kept for held-out evaluation sets: a training batch may not
reach them, and a held-out batch (``--held-out``) may use nothing else.
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
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    problem = check_seeds(args.seed, args.count, args.held_out)
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    if args.samples < 1 or args.threads < 1:
        print("error: --samples and --threads must be at least 1", file=sys.stderr)
        return 2
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
