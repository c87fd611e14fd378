"""`dicetable bench DIR`: score the dice reader on a labelled folder of images.

Prints the figures (per-die and per-roll accuracy, silent misreads, the
rates of uncertain and no_read, latency median and p95, and the machine
they were measured on), writes an HTML report with every miss drawn, and
shows a progress bar on stderr.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from controller.cli.argtypes import at_least

NAME = "bench"
HELP = "measure the dice reader on a labelled folder (YOLO labels or manifest.csv)"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("folder", metavar="DIR", help="folder of images with YOLO labels or a manifest.csv")
    parser.add_argument("--split", choices=("all", "heldout", "tune"), default="all",
                        help="all images, only the held-out runs, or only the tuning runs (vision.benchtool.split)")
    parser.add_argument("--no-count", action="store_true",
                        help="do not tell the reader how many dice each image holds")
    parser.add_argument("--report", metavar="OUT", default=None,
                        help="folder for the HTML report (default: bench-report/<folder name>-<split>)")
    parser.add_argument("--threads", type=int, default=1,
                        help="OpenCV threads (default 1: the figures are per core)")
    parser.add_argument("--die-size", type=float, metavar="PX", default=None,
                        help="side of a die's top face in pixels, as a table calibration gives it")
    parser.add_argument("--limit", type=at_least(1), default=None, help="read only the first N images")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON instead of text")


def run(args: argparse.Namespace) -> int:
    import cv2

    from vision.benchtool import machine, report
    from vision.benchtool.labels import LabelError, load_folder
    from vision.benchtool.progress import Progress
    from vision.benchtool.run import run as run_bench
    from vision.benchtool.run import summarise
    from vision.benchtool.split import select
    from vision.model import Calibration
    from vision.reader import read_dice

    cv2.setNumThreads(max(1, args.threads))
    folder = Path(args.folder)
    try:
        items = select(load_folder(folder), args.split)
    except (LabelError, OSError) as exc:
        print(f"dicetable bench: {exc}", file=sys.stderr)
        return 2
    if args.limit is not None:
        items = items[: args.limit]
    if not items:
        print(f"dicetable bench: no labelled images in {folder} (split {args.split})", file=sys.stderr)
        return 2
    probe = machine.SpeedProbe()
    with Progress(len(items), label=f"bench {folder.name}") as bar:
        calibration = Calibration(die_size_px=args.die_size) if args.die_size else None
        results = run_bench(items, machine.probed(read_dice, probe), give_count=not args.no_count,
                            calibration=calibration, progress=bar)
    summary = summarise(results)
    summary["machine"] = machine.describe(probe)
    count = "count not given" if args.no_count else "count given"
    title = f"{folder.name} ({args.split}, {count})"
    out = Path(args.report) if args.report else Path("bench-report") / f"{folder.name}-{args.split}"
    page = report.write_html(out, summary, results, folder, title)
    if args.json:
        print(json.dumps({"folder": str(folder), "split": args.split, "count_given": not args.no_count,
                          "report": str(page), **summary}))
    else:
        print(report.text(summary, title))
        print(f"  report: {page}")
    return 0
