"""Close-ups: the reader with and without its close-up look, paired frame by frame.

The close-up look (``vision.reader.read._as_close_up``) reads again, at a
coarse scale, an uncalibrated frame the usual look could not read or read as
nothing but 1s. This reads each labelled image twice, once with the usual
look only (``read_dice(..., close_up=False)``) and once as the reader is,
scores both as ``dicetable bench`` does (dice matched to labels by place),
and prints per folder: per-die accuracy, ``ok`` rolls, silent misreads
(``ok`` but wrong) and the mean time, for each, and the images whose read
changed. Make close-up folders with ``python -m vision.benchtool.altered
FOLDER OUT --close-up 0.6``.

Usage::

    .venv/bin/python bench/close_up_look.py FOLDER... [--split tune] [--no-count] [--json]
"""
from __future__ import annotations

import argparse
import json
import sys
from functools import partial
from typing import get_args

import cv2

from vision.benchtool.labels import load_folder
from vision.benchtool.run import ImageResult, run, summarise
from vision.benchtool.split import Split, select
from vision.reader import read_dice


def compare(folder: str, split: Split, count: bool) -> dict:
    """Both readers on one folder, scored as ``dicetable bench`` scores them:
    their figures and the images read differently."""
    items = select(load_folder(folder), split)
    usual = run(items, partial(read_dice, close_up=False), give_count=count)
    new = run(items, read_dice, give_count=count)
    changed = [{"image": a.item.path.name, "labels": list(a.item.values),
                "usual": [a.read.status.value, list(a.read.values)],
                "with_close_up": [b.read.status.value, list(b.read.values)]}
               for a, b in zip(usual, new, strict=True)
               if (a.read.status, a.read.values) != (b.read.status, b.read.values)]
    return {"folder": folder, "split": split, "count_given": count, "changed": changed,
            "usual": _figures(usual), "with_close_up": _figures(new)}


def _figures(results: list[ImageResult]) -> dict:
    """The bench's own figures (``summarise``) that this comparison prints; 0 for a folder without images."""
    bench = summarise(results)
    return {"rolls": bench["images"], "per_die_accuracy": bench["per_die_accuracy"] or 0.0,
            "ok_rate": bench["ok_rate"] or 0.0, "silent_misread_rolls": bench["silent_misread_images"],
            "ms_mean": sum(r.read.ms for r in results) / max(len(results), 1)}


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
