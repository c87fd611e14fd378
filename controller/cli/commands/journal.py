"""``dicetable journal verify|audit|export|recall N|frames``: audit a table's journal.

The journal is opened read-only, so an operator can run this beside the
live table. ``verify`` exits 1 when the chain is broken (and names the
row), ``audit`` exits 1 when the rules engine alone, under the journal's
own rules, does not give back its settlements (and names the row),
``export`` writes JSON lines, ``recall N`` prints the last N rolls
with their reads and settlements for a dispute, ``frames`` writes the
``manifest.csv`` that makes the saved frames a labelled folder for
``dicetable bench`` (with ``--yolo DIR``, a folder labelled die by die, for
training as well).
"""
from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from controller.cli.argtypes import at_least

if TYPE_CHECKING:
    from controller.journal import Journal

NAME = "journal"
HELP = "audit the table's journal: verify the hash chain, export it, recall the last rolls"


def configure(parser: argparse.ArgumentParser) -> None:
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--config", metavar="FILE", help="the table's configuration (its table.state_dir)")
    where.add_argument("--state-dir", metavar="DIR", help="the state directory holding journal.sqlite3 (default ./var)")
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    actions.add_parser("verify", help="check the hash chain; exit 1 and name the row if it is broken")
    actions.add_parser("audit", help="recompute every settlement with the rules engine alone, under the journal's "
                                     "own rules; exit 1 and name the first row that differs")
    export = actions.add_parser("export", help="every row as JSON lines")
    export.add_argument("--events", action="store_true", help="bare events only (the docs/events.md format)")
    export.add_argument("--inputs", action="store_true", help="input rows only (bets, buttons, reads)")
    export.add_argument("--game-events", action="store_true",
                        help="only what the rules engine saw (accepted bets, removals, settled rolls): "
                             "input for `dicetable replay`, to recompute every settlement")
    recall = actions.add_parser("recall", help="the last N rolls with their reads and settlements")
    recall.add_argument("n", type=at_least(1), metavar="N")
    recall.add_argument("--json", action="store_true", help="one JSON line per roll")
    frames = actions.add_parser(
        "frames", help="a manifest.csv for `dicetable bench`: each saved frame the dealer ruled on "
                       "(confirmed or entered by hand), labelled with the dice settled")
    frames.add_argument("--all", action="store_true",
                        help="also the rolls the camera settled at once (their label is the reader's own answer)")
    frames.add_argument("--yolo", metavar="DIR",
                        help="instead, copy those frames to DIR/images with a YOLO label per die in DIR/labels "
                             "(for `dicetable bench` and training), where the read's boxes tell which die is which")


def _state_dir(args: argparse.Namespace):
    from controller.config import load

    if args.state_dir:
        return args.state_dir
    return load(args.config).state_dir


def _suggest_demo_journals(state_dir) -> None:
    """The demo keeps one journal per game under the state directory: name them."""
    from pathlib import Path

    from controller.journal.store import JOURNAL_FILE

    found = sorted(p.parent for p in Path(state_dir).glob(f"*/{JOURNAL_FILE}"))
    if found:
        print("  journals found below it: " + ", ".join(f"--state-dir {p}" for p in found), file=sys.stderr)


def _print_recall(records) -> None:
    for r in records:
        read = r.read
        if read:
            frame = f"frame {read['frame']}" if read.get("frame") else "no frame saved"
            seen = f"read {read.get('status')} {read.get('dice')} confidence {read.get('confidence')} {frame}"
        else:
            seen = "no camera read"
        print(f"#{r.seq} {r.ts} {r.game or ''} dice {r.dice} by {r.source}; {seen}")
        for s in r.settlements:
            number = f" {s['number']}" if s.get("number") is not None else ""
            print(f"    seat {s.get('seat')} {s.get('bet')}{number} {s.get('amount')}c {s.get('result')} paid {s.get('paid')}c")
        if not r.settlements:
            print("    (no settlements)")


def _write_yolo(journal, frames_dir: Path, out: Path, dealer_only: bool) -> int:
    """Copy each frame :func:`boxed_frames` labels into ``out/images`` with its YOLO label in
    ``out/labels`` (class = face - 1); say how many frames were labelled and why the others were not.

    A frame the bench could not load from there (a name without an image suffix, or one whose label
    would be taken for the folder's class names) is left out, or it would spoil the whole folder."""
    import shutil

    from controller.journal import boxed_frames, frame_labels
    from vision.benchtool.labels import CLASS_NAME_FILES, IMAGE_SUFFIXES, boxed_die, yolo_line

    ruled = sum(1 for _ in frame_labels(journal, dealer_only=dealer_only))
    written = missing = 0
    try:
        (out / "images").mkdir(parents=True, exist_ok=True)
        (out / "labels").mkdir(exist_ok=True)
        for boxed in boxed_frames(journal, dealer_only=dealer_only):
            name = Path(boxed.frame)
            label = f"{name.stem}.txt"
            source = frames_dir / boxed.frame
            if name.suffix.lower() not in IMAGE_SUFFIXES or label in CLASS_NAME_FILES or not source.is_file():
                missing += 1
                continue
            shutil.copyfile(source, out / "images" / boxed.frame)
            width, height = boxed.size
            (out / "labels" / label).write_text(
                "".join(yolo_line(boxed_die(face, box, width, height)) + "\n" for box, face in boxed.dice))
            written += 1
    except OSError as exc:
        print(f"dicetable journal frames: {exc}", file=sys.stderr)
        return 2
    unlabelled = ruled - written - missing
    print(f"{_frames(written)} labelled die by die in {out}"
          + (f"; {_frames(missing)} not in {frames_dir} as images" if missing else "")
          + (f"; {unlabelled} of the {ruled} rolls could not be labelled die by die (a read without boxes, "
             "or a hand entry that does not say which die was which)" if unlabelled else ""))
    return 0


def _frames(n: int) -> str:
    return f"{n} frame" if n == 1 else f"{n} frames"


def run(args: argparse.Namespace) -> int:
    from controller.config import ConfigError
    from controller.journal import Journal, JournalError

    try:
        state_dir = _state_dir(args)
        journal = Journal.open(state_dir, readonly=True)
    except (ConfigError, JournalError) as exc:
        print(f"dicetable journal: {exc}", file=sys.stderr)
        if isinstance(exc, JournalError):
            _suggest_demo_journals(state_dir)
        return 2
    try:
        return _act(args, journal, state_dir)
    except JournalError as exc:  # a file damaged past its first rows: say why, never a traceback
        print(f"dicetable journal: {exc}", file=sys.stderr)
        return 2


def _act(args: argparse.Namespace, journal: Journal, state_dir: Path) -> int:
    """The action asked for, on the open ``journal``."""
    from controller.journal import FRAME_LABEL_COLUMNS, export_lines, frame_labels, game_event_lines, recall, verify

    with journal:
        if args.action == "verify":
            report = verify(journal)
            print(json.dumps(report.to_json()))
            return 0 if report.ok else 1
        if args.action == "audit":
            from controller.audit import audit

            report = audit(journal)
            print(json.dumps(report.to_json()))
            return 0 if report.ok else 1
        if args.action == "export":
            lines = game_event_lines(journal) if args.game_events else export_lines(
                journal, events_only=args.events, inputs_only=args.inputs)
            for line in lines:
                print(line)
            return 0
        if args.action == "frames" and args.yolo:
            return _write_yolo(journal, Path(state_dir) / "frames", Path(args.yolo), dealer_only=not args.all)
        if args.action == "frames":
            writer = csv.DictWriter(sys.stdout, fieldnames=FRAME_LABEL_COLUMNS, lineterminator="\n")
            writer.writeheader()
            writer.writerows(frame_labels(journal, dealer_only=not args.all))
            return 0
        records = recall(journal, args.n)
        if args.json:
            for r in records:
                print(json.dumps(r.to_json()))
        else:
            _print_recall(records)
        return 0
