"""Choose the judge's thresholds on the *tune* split: no silent misread, as many ok rolls as possible.

    .venv/bin/python training/sweep_thresholds.py [--datasets ../shared/datasets]

The networks run once per image (both looks at every die, the pip count
everywhere it could matter); the judge (pure), and the reader's choice of which
dice get a second look, are then replayed for every combination of thresholds.
A first table gives, per bar for the leaning check, how many rolls labelled
leaning (generated folders' manifests) and how many others it flags. Prints, per combination, ok rate, silent misreads
and per-die accuracy summed over every folder. Held-out images are never read.
The close-up look (``read._as_close_up``) is not replayed: on these photos it
changes no read (docs/vision.md, "Close-ups").

The networks were trained on the tune photos, so their confidence there is
higher than on unseen pictures; ``--extra`` adds folders they never saw
(generated scenes of other seeds than the training ones) to keep the
thresholds honest.
"""
from __future__ import annotations

import argparse
import itertools
import pickle
import re
import sys
from pathlib import Path

import cv2

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vision.benchtool.labels import load_folder  # noqa: E402
from vision.benchtool.score import score  # noqa: E402
from vision.benchtool.split import select  # noqa: E402
from vision.reader import judge as J  # noqa: E402
from vision.reader.detect import find_candidates  # noqa: E402
from vision.reader.nets import default_nets  # noqa: E402
from vision.reader.read import first_look, second_look  # noqa: E402

GRID = {
    "DIE_PEAK": [0.2, 0.3],
    "FAINT_PEAK": [0.1, 0.15],
    "NOT_A_DIE": [0.5],
    "DOUBT": [0.4, 0.6, 0.8],
    "TOUCHING": [0.9],  # what counts as touching is the rule's, not a trade-off to tune
    "SURE_ALONE": [0.8, 0.9, 0.95, 0.98],
    "SURE_WITH_PIPS": [0.5, 0.7, 0.85, 0.9],
    "SURE_DOUBTED": [0.9, 0.95, 0.98, 0.99, 1.01],
    "SURE_DOUBTED_SECOND_LOOK": [0.9, 0.92, 0.95, 0.98],
}


def collect(datasets: Path, extra: list[Path]) -> list:
    """Run the networks once over every tune image, and every image of the ``extra`` folders:
    per image, the first look's evidence and the evidence with every die given a second look."""
    cv2.setNumThreads(1)
    nets = default_nets()
    cases = []
    folders = [(p, "tune") for p in sorted(datasets.iterdir()) if p.is_dir()] + [(p, "all") for p in extra]
    bars = J.SURE_DOUBTED, J.SURE_DOUBTED_SECOND_LOOK
    J.SURE_DOUBTED = J.SURE_DOUBTED_SECOND_LOOK = 1.01  # count pips wherever any bar could make them matter
    try:
        for folder, split in folders:
            for item in select(load_folder(folder), split):
                frame = cv2.imread(str(item.path), cv2.IMREAD_COLOR)
                if frame is not None:
                    cands = find_candidates(frame, nets, None, J.FAINT_PEAK)
                    look = first_look(frame, nets, cands, len(item.dice))
                    dice = [i for i, e in enumerate(look.evidence) if J.is_die(e.peak, e.probs)]
                    cases.append((folder.name, item, frame.shape, look.evidence, second_look(frame, nets, look, dice)))
            print(f"{folder.name}: {len(cases)} images", file=sys.stderr, flush=True)
    finally:
        J.SURE_DOUBTED, J.SURE_DOUBTED_SECOND_LOOK = bars
    return cases


def replay(first: list, second: list) -> list:
    """The evidence the reader would judge: the second look only for the dice the first left unsure."""
    return [s if J.is_die(f.peak, f.probs) and not J.is_sure(f) else f for f, s in zip(first, second)]


#: Bars tried for the leaning check (``judge.LEANING`` and ``judge.LEANING_DOUBT``).
LEAN_GRID = (0.3, 0.5, 0.7, 0.9)


def leaning_table(cases: list) -> list[str]:
    """Per bar for the leaning check: per folder, how many rolls labelled leaning
    (manifest column, see vision.benchtool.labels) have a die at or above it, and
    how many other rolls do. Its own table: the ok/silent figures cannot see it,
    as a leaning die read ok usually has the right value."""
    lines = []
    for bar in LEAN_GRID:
        per: dict[str, list[int]] = {}
        for name, item, _, first, second in cases:
            dice = [e for e in replay(first, second) if J.is_die(e.peak, e.probs)]
            flagged = max((e.leaning for e in dice), default=0.0) >= bar
            t = per.setdefault(name, [0, 0, 0, 0])
            k = 0 if "leaning" in item.not_to_settle else 2
            t[k] += 1
            t[k + 1] += flagged
        lines.append(f"leaning bar {bar}: " + "; ".join(
            f"{n}: {t[1]} of {t[0]} leaning rolls, {t[3]} of {t[2]} others" for n, t in per.items()))
    return lines


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--datasets", type=Path, default=ROOT.parent / "shared" / "datasets")
    ap.add_argument("--extra", type=Path, action="append", default=[],
                    help="a labelled folder used whole, e.g. generated scenes of a seed the networks never saw")
    ap.add_argument("--cache", type=Path, default=None,
                    help="keep the networks' evidence in this pickle and reuse it (same models only)")
    args = ap.parse_args(argv)
    if args.cache and args.cache.is_file():
        cases = pickle.loads(args.cache.read_bytes())
    else:
        cases = collect(args.datasets, args.extra)
        if args.cache:
            args.cache.write_bytes(pickle.dumps(cases))
    print("\n".join(leaning_table(cases)))
    reasons: dict[str, int] = {}
    rows = []
    keys = list(GRID)
    for combo in itertools.product(*(GRID[k] for k in keys)):
        bars = dict(zip(keys, combo))
        if not (bars["SURE_WITH_PIPS"] < bars["SURE_ALONE"] < bars["SURE_DOUBTED_SECOND_LOOK"]
                <= bars["SURE_DOUBTED"]):
            continue  # a cue that agrees must never raise the bar, one that disagrees never lower it;
            # more views never call for a higher bar
        for k, v in zip(keys, combo):
            setattr(J, k, v)
        per = {}
        for name, item, shape, first, second in cases:
            read = J.judge(replay(first, second), len(item.dice), shape)
            if read.reason:
                key = f"{name[:6]} {re.sub(r'[0-9]+', 'N', read.reason)}"
                reasons[key] = reasons.get(key, 0) + 1
            s = score(item, read, shape[1], shape[0])
            t = per.setdefault(name, [0, 0, 0, 0, 0])
            t[0] += 1
            t[1] += read.status.value == "ok"
            t[2] += s.silent
            t[3] += s.correct
            t[4] += s.labelled
        silent = sum(t[2] for t in per.values())
        ok = {n: t[1] / t[0] for n, t in per.items()}
        rows.append((silent, -min(ok.values()), combo, ok, {n: t[3] / t[4] for n, t in per.items()}))
    rows.sort(key=lambda r: (r[0], r[1]))
    print("reasons over the whole grid:", sorted(reasons.items(), key=lambda kv: -kv[1])[:12])
    for silent, _, combo, ok, acc in rows[:15]:
        print(dict(zip(keys, combo)), "silent", silent, "ok", {k: round(v, 3) for k, v in ok.items()},
              "die-acc", {k: round(v, 4) for k, v in acc.items()})
    return 0


if __name__ == "__main__":
    sys.exit(main())
