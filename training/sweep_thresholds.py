"""Choose a model folder's policy on labelled folders and write it into the folder's ``policy.json``.

    .venv/bin/python -m training.sweep_thresholds vision/models --datasets ../shared/datasets \\
        --extra RENDERS_TUNE [--write]

Reads the *tune* split of every folder under ``--datasets`` and every ``--extra`` folder whole
(never a held-out split), replays the judge over ``training.thresholds.GRID``, prints the figures
of the chosen policy and of the folder's present one, and with ``--write`` stores the chosen policy
with its provenance: this command, the folders, and those figures.
"""
from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime, timezone
from pathlib import Path

import cv2

from training.thresholds import choose, collect, figures
from vision.benchtool.labels import load_folder
from vision.benchtool.split import select
from vision.reader.model_dir import load_model
from vision.reader.policy import POLICY_FILE, save_policy

ROOT = Path(__file__).resolve().parents[1]


def shown(folder: Path) -> str:
    """``folder`` as the provenance names it: from the checkout (``../shared/datasets/x``) where it
    lies beside it, otherwise by its name alone, so no machine's own paths travel with a model."""
    try:
        return str(Path("..") / folder.resolve().relative_to(ROOT.parent.resolve()))
    except ValueError:
        return folder.name


def _images(folders: list[tuple[Path, str]]):
    for folder, split in folders:
        for item in select(load_folder(folder), split):
            frame = cv2.imread(str(item.path), cv2.IMREAD_COLOR)
            if frame is not None:
                yield folder.name, item, frame


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("model", type=Path, help="the model folder whose networks are judged")
    ap.add_argument("--datasets", type=Path, default=ROOT.parent / "shared" / "datasets")
    ap.add_argument("--extra", type=Path, action="append", default=[],
                    help="a labelled folder used whole (scenes of seeds the networks never saw)")
    ap.add_argument("--write", action="store_true", help=f"write the chosen policy into MODEL/{POLICY_FILE}")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    model = load_model(args.model)
    folders = [(p, "tune") for p in sorted(args.datasets.iterdir()) if p.is_dir()] if args.datasets.is_dir() else []
    folders += [(p, "all") for p in args.extra]
    cases = collect(_images(folders), model.nets, model.policy)
    chosen, fig = choose(cases, model.policy)
    present = figures(cases, model.policy)
    print(json.dumps({"present": present.to_json(), "chosen": fig.to_json(), "thresholds": chosen.thresholds()},
                     indent=1))
    if args.write:
        provenance = {
            "chosen_by": "python -m training.sweep_thresholds " + " ".join(sys.argv[1:] if argv is None else argv),
            "when": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "data": [f"{shown(folder)} ({split})" for folder, split in folders],
            "figures": fig.to_json(),
        }
        save_policy(chosen.with_provenance(provenance), args.model / POLICY_FILE)
        print(f"wrote {args.model / POLICY_FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
