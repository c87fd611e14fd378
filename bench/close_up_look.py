"""Close-ups: the reader with and without its close-up look, paired frame by frame.

The close-up look (``vision.reader.read._as_close_up``) reads again, at a
coarse scale, an uncalibrated frame the usual look could not read or read as
nothing but 1s. This reads each labelled image twice, once with the usual
look only (the look replaced by one that keeps the usual read) and once as
the reader is, and prints per folder: per-die accuracy, ``ok`` rolls, silent
misreads (``ok`` but wrong) and the mean time, for each, and the images whose
read changed. Make close-up folders with ``python -m vision.benchtool.altered
FOLDER OUT --close-up 0.6`` (docs/vision.md, "Close-ups").

Usage::

    .venv/bin/python bench/close_up_look.py FOLDER... [--split tune] [--no-count] [--json]
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import get_args

import cv2

from vision.benchtool.labels import LabelledImage, load_folder
from vision.benchtool.split import Split, select
from vision.model import DiceRead, ReadStatus
from vision.reader import read as reader


@contextmanager
def usual_look_only() -> Iterator[None]:
    """The reader as it was before the close-up look: the usual read is kept."""
    real = reader._as_close_up
    reader._as_close_up = lambda *args: args[-1]
    try:
        yield
    finally:
        reader._as_close_up = real


def _tally(tally: Counter, item: LabelledImage, read: DiceRead) -> None:
    right = sum((Counter(item.values) & Counter(read.values)).values())
    tally["rolls"] += 1
    tally["dice"] += len(item.dice)
    tally["dice_right"] += right
    tally["ok"] += read.status == ReadStatus.OK
    tally["silent"] += read.status == ReadStatus.OK and sorted(read.values) != sorted(item.values)
    tally["ms"] += read.ms


def compare(folder: str, split: Split, count: bool) -> dict:
    """Both readers on one folder: their tallies and the images read differently."""
    tallies = {"usual": Counter(), "with_close_up": Counter()}
    changed = []
    for item in select(load_folder(folder), split):
        frame = cv2.imread(str(item.path), cv2.IMREAD_COLOR)
        if frame is None:
            continue
        expect = len(item.dice) if count else None
        with usual_look_only():
            usual = reader.read_dice(frame, expect=expect)
        new = reader.read_dice(frame, expect=expect)
        _tally(tallies["usual"], item, usual)
        _tally(tallies["with_close_up"], item, new)
        if (usual.status, usual.values) != (new.status, new.values):
            changed.append({"image": item.path.name, "labels": list(item.values),
                            "usual": [usual.status.value, list(usual.values)],
                            "with_close_up": [new.status.value, list(new.values)]})
    return {"folder": folder, "split": split, "count_given": count, "changed": changed,
            **{name: _figures(t) for name, t in tallies.items()}}


def _figures(t: Counter) -> dict:
    rolls, dice = max(t["rolls"], 1), max(t["dice"], 1)
    return {"rolls": t["rolls"], "per_die_accuracy": t["dice_right"] / dice, "ok_rate": t["ok"] / rolls,
            "silent_misread_rolls": t["silent"], "ms_mean": t["ms"] / rolls}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--split", choices=get_args(Split), default="all")
    ap.add_argument("--no-count", action="store_true", help="do not tell the reader how many dice were thrown")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    for folder in args.folders:
        result = compare(folder, args.split, not args.no_count)
        if args.json:
            print(json.dumps(result))
            continue
        print(f"{folder} ({args.split}, count {'not ' if args.no_count else ''}given)")
        for name in ("usual", "with_close_up"):
            f = result[name]
            print(f"  {name:>13}: {f['rolls']} rolls, per die {f['per_die_accuracy']:.1%}, ok {f['ok_rate']:.1%}, "
                  f"silent misreads {f['silent_misread_rolls']}, mean {f['ms_mean']:.1f} ms")
        for c in result["changed"]:
            print(f"    {c['image']}: labels {c['labels']}, usual {c['usual']}, with the close-up look {c['with_close_up']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
