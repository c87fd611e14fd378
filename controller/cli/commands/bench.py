"""`dicetable bench DIR`: score the dice reader on a labelled folder of images.

Prints the figures (per-die and per-roll accuracy, silent misreads, the
rates of uncertain and no_read, latency median and p95, and the machine
they were measured on; with a ``meta.jsonl`` beside the images, also the
target figures of ``vision.benchtool.targets``), writes an HTML report with every miss drawn, and
shows a progress bar on stderr when that is a terminal. Exit status: 0, or 2
when nothing could be benched (labels, folder, report folder), 1 when the
figures were printed but the report could not be written.
"""
from __future__ import annotations

import argparse
import sys
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from controller.cli.argtypes import at_least, positive_number

if TYPE_CHECKING:
    from vision.benchtool.labels import LabelledFolder

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
    parser.add_argument("--die-size", type=positive_number, metavar="PX", default=None,
                        help="side of a die's top face in pixels, as a table calibration gives it")
    parser.add_argument("--limit", type=at_least(1), default=None, help="read only the first N images")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON instead of text")
    parser.add_argument("--finding", type=frame_size_arg, metavar="WxH", default=None,
                        help="give the reader each frame shrunk to WxH too, to find the dice on (as a camera's "
                             "low-resolution stream beside a full-resolution one)")
    parser.add_argument("--model", metavar="MODEL_DIR", default=None,
                        help="bench this model folder (`dicetable learn` writes one); default: the bundled model")


def frame_size_arg(text: str) -> tuple[int, int]:
    """``640x480`` -> ``(640, 480)``, else an argparse error."""
    from vision.model import frame_size

    size = frame_size(text)
    if size is None or 0 in size:
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT, such as 640x480, got {text!r}")
    return size


def run(args: argparse.Namespace) -> int:
    import cv2

    from controller.jsonlines import json_line
    from vision.benchtool import machine, report
    from vision.benchtool.labels import LabelError, load_labelled
    from vision.benchtool.progress import Progress
    from vision.benchtool.run import run as run_bench
    from vision.benchtool.run import summarise
    from vision.benchtool.split import select
    from vision.benchtool.targets import load_meta, target_figures
    from vision.model import Calibration
    from vision.reader import load_model, read_dice
    from vision.reader.nets import ModelMissing

    cv2.setNumThreads(max(1, args.threads))
    try:
        model = load_model(args.model)
    except ModelMissing as exc:
        print(f"dicetable bench: --model: {exc}", file=sys.stderr)
        return 2
    folder = Path(args.folder)
    name = folder.resolve().name  # "." names the folder it stands for
    try:
        found = load_labelled(folder)
    except (LabelError, OSError) as exc:
        print(f"dicetable bench: {exc}", file=sys.stderr)
        return 2
    labelled = found.images
    items = select(labelled, args.split)
    if args.limit is not None:
        items = items[: args.limit]
    if not items:
        why = (f"none of its {len(labelled)} labelled images is in the {args.split} split" if labelled
               else "no labelled images (YOLO labels beside the images or in a labels folder, or a manifest.csv)")
        print(f"dicetable bench: {folder}: {why}", file=sys.stderr)
        return 2
    out = Path(args.report) if args.report else Path("bench-report") / f"{name}-{args.split}"
    try:
        report.prepare(out)
    except OSError as exc:
        print(f"dicetable bench: cannot write the report to {out}: {exc}", file=sys.stderr)
        return 2
    probe = machine.SpeedProbe()
    with Progress(len(items), label=f"bench {name}") as bar:
        calibration = Calibration(die_size_px=args.die_size) if args.die_size else None
        results = run_bench(items, machine.probed(partial(read_dice, model=model), probe),
                            give_count=not args.no_count, calibration=calibration, progress=bar,
                            finding=args.finding)
    summary = summarise(results)
    summary["model"] = {"folder": str(model.folder), "digest": model.digest}
    meta = load_meta(folder)
    if meta:
        summary["targets"] = target_figures((meta[r.item.path.resolve()], r.read, r.score.silent_dice, r.score.labelled)
                                            for r in results if r.item.path.resolve() in meta)
    summary["machine"] = machine.describe(probe)
    count = "count not given" if args.no_count else "count given"
    title = f"{name} ({args.split}, {count})"
    notes = _label_notes(found, folder)
    try:
        page = report.write_html(out, summary, results, folder, title, notes)
    except OSError as exc:  # the folder went away or filled up during the run: the figures still count
        print(f"dicetable bench: the report could not be written to {out}: {exc}", file=sys.stderr)
        page = None
    if args.json:
        print(json_line({"folder": str(folder), "split": args.split, "count_given": not args.no_count,
                          "report": str(page) if page else None, "classes": list(found.classes_from),
                          "unlabelled_images": len(found.unlabelled), "orphan_labels": len(found.orphans),
                          **summary}))
    else:
        print(report.text(summary, title, notes))
        print(f"  report: {page or 'not written'}")
    return 0 if page else 1


def _label_notes(found: LabelledFolder, folder: Path) -> list[str]:
    """What the figures rest on besides the reads: how YOLO classes were read as faces (a wrong
    guess turns right reads into silent misreads), and what the folder held that was not scored."""
    from vision.benchtool.run import display_path

    notes = [f"classes: {source if source.startswith('class ') else display_path(Path(source), folder)}"
             for source in found.classes_from]
    for what, paths in (("image files without a label, not scored", found.unlabelled),
                        ("label files without an image", found.orphans)):
        if paths:
            shown = ", ".join(display_path(p, folder) for p in paths[:3])
            notes.append(f"{len(paths)} {what}: {shown}{', ...' if len(paths) > 3 else ''}")
    return notes
