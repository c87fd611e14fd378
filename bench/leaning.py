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
    .venv/bin/python bench/leaning.py --frames DIR [--frames DIR ...] [--model MODEL_DIR] [--json]

Reports, over the leaning scenes: the share read ``ok`` (should be none), the
share refused because the check saw the lean (``no_read``) or suspected it
(``uncertain``); over the flat scenes: the share the check flagged.

With ``--frames``, the leaning checks alone are measured on path-traced frames (``training/render``
folders, whose ``meta.jsonl`` says how each die lies): each die at least half in view is cropped
at its labelled box and given to both checks as the reader gives them (``vision.reader.leaning``),
and the report gives the share of cocked dice (on the rail, on another die) and of eligible dice
(flat, clear: the dice a reader must read) that the policy doubts (``uncertain``: either check at
its doubt bar) and refuses (``no_read``: the pair check at its leaning bar). That is the checks'
trade on casino scenes, apart from the detector's boxes and the rest of the judge.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2

from vision.benchtool.targets import cocked, half_in_view, load_meta
from vision.model import ReadStatus
from vision.reader import ReaderModel, load_model, read_dice
from vision.reader import geometry as G
from vision.reader.judge import leaning_verdict
from vision.reader.leaning import leaning_checks
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


#: A camera within this many degrees of the vertical looks at the dice from nearly straight above.
STEEP_DEG = 15.0
#: The kinds of die ``on_frames`` reports, and what puts a die (of a frame's record) in each. Eligible
#: dice are also counted by their camera's angle: off the vertical, a flat die shows a side face.
KINDS = {
    "cocked on the rail": lambda d, r: cocked(d) and bool(d.get("on_rail")),
    "cocked on a die": lambda d, r: cocked(d) and not d.get("on_rail") and bool(d.get("on_die")),
    "cocked, tilted": lambda d, r: cocked(d) and not d.get("on_rail") and not d.get("on_die"),
    "eligible": lambda d, r: bool(d.get("eligible")),
    f"eligible, camera within {STEEP_DEG:.0f} deg of vertical":
        lambda d, r: bool(d.get("eligible")) and r.get("camera_tilt_deg", 0.0) < STEEP_DEG,
    "eligible, camera further off": lambda d, r: bool(d.get("eligible")) and r.get("camera_tilt_deg", 0.0) >= STEEP_DEG,
}


def on_frames(folders: list[Path], model: ReaderModel) -> dict:
    """Per folder: for each kind of die, how many there are and the share reaching each bar."""
    policy = model.policy
    out = {}
    for folder in folders:
        verdicts: dict[str, list[ReadStatus | None]] = {kind: [] for kind in KINDS}
        for path, record in load_meta(folder).items():
            dice = [d for d in record.get("dice", []) if half_in_view(d)]
            image = cv2.imread(str(path), cv2.IMREAD_COLOR) if dice else None
            if image is None:
                continue
            crops = [G.crop_die(image, x + w / 2, y + h / 2, max(w, h)) for x, y, w, h in (d["box"] for d in dice)]
            for d, lean, alone in zip(dice, *leaning_checks(G.to_blob(crops), model.nets)):
                for kind, belongs in KINDS.items():
                    if belongs(d, record):
                        verdicts[kind].append(leaning_verdict(float(lean), float(alone), policy))
        out[str(folder)] = {kind: {"dice": len(vs),
                                   "doubted": sum(v is not None for v in vs) / len(vs) if vs else None,
                                   "refused": sum(v is ReadStatus.NO_READ for v in vs) / len(vs) if vs else None}
                            for kind, vs in verdicts.items()}
    return out


def _frames_text(result: dict, model: ReaderModel) -> list[str]:
    def pct(v: float | None) -> str:
        return "-" if v is None else f"{v:.0%}"

    p = model.policy
    lines = [f"leaning checks at the labelled box: share of dice doubted (pair check {p.leaning_doubt}, "
             f"single-crop check {p.leaning_alone_doubt}) / refused (pair check {p.leaning})"]
    for folder, kinds in result.items():
        lines.append(f"  {folder}: " + "; ".join(f"{kind} {pct(k['doubted'])} / {pct(k['refused'])} of {k['dice']}"
                                                  for kind, k in kinds.items()))
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenes", type=int, default=200, help="pairs of scenes (leaning, flat)")
    ap.add_argument("--frames", type=Path, action="append", default=[],
                    help="measure the check on this folder of rendered frames instead (repeatable)")
    ap.add_argument("--model", type=Path, default=None, help="model folder (default: the bundled one)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    if args.frames:
        model = load_model(args.model)
        figures = on_frames(args.frames, model)
        print(json.dumps(figures) if args.json else "\n".join(_frames_text(figures, model)))
        return 0
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
