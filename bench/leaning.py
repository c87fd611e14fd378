"""Leaning dice: how often the reader refuses a roll with a leaning die, and wrongly refuses a flat one.

A die leaning on the rail or on another die has no face up: its roll must not
be settled (the issue's ``no_read``). The public photos have no leaning dice
with labels, so this renders pairs of casino scenes (``vision.scenes.render``)
from the same seed: one with a die leaning, one with every die flat, a die
lying against the rail in every other rail scene (a flat die where the
leaning ones are). Seeds start at 20000, away from the ones the leaning check
was trained on.

Usage::

    .venv/bin/python bench/leaning.py [--scenes 200] [--json]

Reports, over the leaning scenes: the share read ``ok`` (should be none), the
share refused because the check saw the lean (``no_read``) or suspected it
(``uncertain``); over the flat scenes: the share the check flagged.
"""
from __future__ import annotations

import argparse
import json
import sys

import cv2

from vision.model import ReadStatus
from vision.reader import read_dice
from vision.scenes.render import render_scene
from vision.scenes.table import DICE_SHOWN

FIRST_SEED = 20000


def _outcome(read) -> str:
    reason = read.reason or ""
    if read.status == ReadStatus.OK:
        return "ok"
    if "is leaning" in reason:
        return "seen leaning"
    if "may be leaning" in reason:
        return "may be leaning"
    return f"{read.status.value} for another reason"


def run(scenes: int) -> dict:
    leaning: dict[str, int] = {}
    flat: dict[str, int] = {}
    for k in range(scenes):
        seed = FIRST_SEED + k
        setting = "cage" if k % 3 == 0 else "rail"
        n = DICE_SHOWN[setting]
        image, label = render_scene(seed, setting=setting, leaning=k % n)
        out = _outcome(read_dice(image, expect=len(label.dice)))
        leaning[out] = leaning.get(out, 0) + 1
        image, label = render_scene(seed, setting=setting, at_rail=k % n if k % 2 else None)
        out = _outcome(read_dice(image, expect=len(label.dice)))
        flat[out] = flat.get(out, 0) + 1
    flagged = flat.get("seen leaning", 0) + flat.get("may be leaning", 0)
    return {
        "scenes": scenes,
        "leaning_ok_rate": leaning.get("ok", 0) / scenes,
        "leaning_caught_rate": (leaning.get("seen leaning", 0) + leaning.get("may be leaning", 0)) / scenes,
        "flat_flagged_rate": flagged / scenes,
        "leaning_outcomes": leaning,
        "flat_outcomes": flat,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenes", type=int, default=200, help="pairs of scenes (leaning, flat)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    result = run(args.scenes)
    if args.json:
        print(json.dumps(result))
    else:
        print(f"{args.scenes} scenes with a leaning die: {result['leaning_ok_rate']:.1%} read ok, "
              f"{result['leaning_caught_rate']:.1%} refused for the lean; {result['leaning_outcomes']}")
        print(f"{args.scenes} scenes of flat dice: {result['flat_flagged_rate']:.1%} flagged as leaning; "
              f"{result['flat_outcomes']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
