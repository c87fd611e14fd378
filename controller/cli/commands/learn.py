"""`dicetable learn DIR... --out MODEL_DIR [--base MODEL_DIR]`: a model for one table, from its frames.

Fine-tunes the reader on labelled frames (any folder ``dicetable bench`` reads, as ``dicetable
journal frames`` writes them), holds back a fixed seeded share of them, prints how the new model
and the base read those, and writes MODEL_DIR only when the new one settles none of them wrongly
and at least as many as the base (``training/learn.py``). Exit status: 0 written, 1 refused by
that gate (nothing written), 2 on an error. Needs the ``learn`` extra (``make install``).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

NAME = "learn"
HELP = "fine-tune the dice reader on a table's labelled frames; write the model only if it reads them better"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("folders", nargs="+", metavar="DIR", help="labelled folders (manifest.csv and/or YOLO labels)")
    parser.add_argument("--out", required=True, metavar="MODEL_DIR", help="the model folder to write")
    parser.add_argument("--base", metavar="MODEL_DIR", default=None, help="the model to start from (default: the bundled one)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the held-out share and of training (default 0)")
    parser.add_argument("--threads", type=int, default=2, help="training threads (default 2)")


def run(args: argparse.Namespace) -> int:
    try:
        from training.learn import LearnError, learn
    except ImportError as exc:  # the training package itself is missing from this install
        print(f"dicetable learn: {exc}", file=sys.stderr)
        return 2
    try:
        return learn([Path(f) for f in args.folders], Path(args.out), Path(args.base) if args.base else None,
                     seed=args.seed, threads=args.threads, log=lambda line: print(line, flush=True))
    except LearnError as exc:
        print(f"dicetable learn: {exc}", file=sys.stderr)
        return 2
