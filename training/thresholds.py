"""Choose a model's policy: the thresholds that settle the most rolls with no silent misread.

The networks run once per image (both views and the pip count at every die, every die given a
second look); the judge, which is pure, and the reader's choice of which dice get that second
look are then replayed for every combination of ``GRID``. The policy chosen is the combination
with no silent misread on the images given (a roll that must not be settled counts as one when
``ok``) and the most ``ok`` rolls, the worst folder's share first; among those that settle as
many, the strictest. Its provenance records what it was chosen on and the figures it gave there.

The close-up pass is not replayed: it runs only on uncalibrated frames the standard pass could
not read, and its own thresholds stay as the base policy has them.
"""
from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from vision.benchtool.labels import LabelledImage
from vision.benchtool.score import score
from vision.reader.detect import find_candidates
from vision.reader.judge import Evidence, is_die, is_sure, judge
from vision.reader.look import Reading, first_look, second_look
from vision.reader.nets import DiceNets
from vision.reader.policy import ReadPolicy

#: The values tried for each threshold. What counts as touching is the rule's, not a trade-off.
GRID: dict[str, tuple[float, ...]] = {
    "sure_alone": (0.8, 0.9, 0.95, 0.98),
    "sure_with_pips": (0.5, 0.7, 0.85, 0.9),
    "sure_doubted": (0.95, 0.98, 0.99, 1.01),
    "sure_doubted_second_look": (0.92, 0.95, 0.98),
    "leaning_doubt": (0.3, 0.5, 0.6, 0.7, 0.8),
    "leaning_alone_doubt": (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9),
}

#: Which way each bar of ``GRID`` grows stricter: a higher "sure" bar settles fewer dice, a lower
#: leaning doubt asks the dealer about more of them.
STRICTER_WHEN_HIGHER: dict[str, bool] = {
    "sure_alone": True,
    "sure_with_pips": True,
    "sure_doubted": True,
    "sure_doubted_second_look": True,
    "leaning_doubt": False,
    "leaning_alone_doubt": False,
}


def no_laxer_than(base: ReadPolicy, grid: dict[str, tuple[float, ...]] = GRID) -> dict[str, tuple[float, ...]]:
    """``grid`` cut to the bars as strict as ``base``'s or stricter, ``base``'s own value always
    among them. A table's few frames are too few to show that a laxer bar is safe on frames not
    yet seen: bars chosen on them may only tighten the base's."""
    cut = {}
    for key, values in grid.items():
        floor = getattr(base, key)
        higher = STRICTER_WHEN_HIGHER[key]
        kept = {v for v in values if (v >= floor if higher else v <= floor)} | {floor}
        cut[key] = tuple(sorted(kept))
    return cut


@dataclass(frozen=True)
class Case:
    """One labelled image as the networks saw it: the first look's evidence, and the evidence
    with every die given a second look (the replay picks per die)."""

    folder: str
    item: LabelledImage
    shape: tuple[int, ...]
    first: list[Evidence]
    second: list[Evidence]


def collect(images: Iterable[tuple[str, LabelledImage, np.ndarray]], nets: DiceNets, base: ReadPolicy,
            die_size: Callable[[np.ndarray], float | None] = lambda frame: None) -> list[Case]:
    """Run the networks once over every ``(folder name, labelled image, frame)``."""
    # count pips wherever any bar could make them matter
    reading = Reading(nets, replace(base, sure_doubted=1.01, sure_doubted_second_look=1.01))
    cases = []
    for name, item, frame in images:
        cands = find_candidates(frame, nets, die_size(frame), reading.policy)
        look = first_look(frame, reading, cands, len(item.dice) or None)
        dice = [i for i, e in enumerate(look.evidence) if is_die(e.peak, e.probs, base)]
        cases.append(Case(name, item, frame.shape, look.evidence, second_look(frame, reading, look, dice)))
    return cases


def replay(case: Case, policy: ReadPolicy) -> list[Evidence]:
    """The evidence the reader would judge: the second look only for the dice the first left unsure."""
    return [s if is_die(f.peak, f.probs, policy) and not is_sure(f, policy) else f
            for f, s in zip(case.first, case.second)]


@dataclass(frozen=True)
class Figures:
    """What a policy gives on the cases, per folder: rolls, ok rolls, silent misreads, dice, dice right."""

    per_folder: dict[str, tuple[int, int, int, int, int]]

    @property
    def silent(self) -> int:
        return sum(t[2] for t in self.per_folder.values())

    @property
    def worst_ok_share(self) -> float:
        return min((t[1] / t[0] for t in self.per_folder.values() if t[0]), default=0.0)

    @property
    def ok(self) -> int:
        return sum(t[1] for t in self.per_folder.values())

    def to_json(self) -> dict[str, Any]:
        return {name: {"rolls": t[0], "ok": t[1], "silent_misreads": t[2], "dice": t[3], "dice_right": t[4]}
                for name, t in self.per_folder.items()}


def figures(cases: list[Case], policy: ReadPolicy) -> Figures:
    per: dict[str, list[int]] = {}
    for case in cases:
        item = case.item
        read = judge(replay(case, policy), len(item.dice) or None, case.shape, None, None, policy)
        s = score(item, read, case.shape[1], case.shape[0])
        refused = bool(item.not_to_settle) and read.status.value == "ok"
        t = per.setdefault(case.folder, [0, 0, 0, 0, 0])
        t[0] += 1
        t[1] += read.status.value == "ok"
        t[2] += s.silent or refused
        t[3] += s.labelled
        t[4] += s.correct
    return Figures({k: (t[0], t[1], t[2], t[3], t[4]) for k, t in per.items()})


def _ordered(bars: dict[str, float], base: ReadPolicy) -> bool:
    """A cue that agrees never raises the bar, one that disagrees never lowers it, and more
    views never call for a higher bar; a die that may lean is asked about below the leaning
    bar that refuses it (the band between them is never empty)."""
    bars_ok = bars["sure_with_pips"] <= bars["sure_alone"] < bars["sure_doubted_second_look"] <= bars["sure_doubted"]
    return bars_ok and bars.get("leaning_doubt", base.leaning_doubt) < bars.get("leaning", base.leaning)


def choose(cases: list[Case], base: ReadPolicy, grid: dict[str, tuple[float, ...]] = GRID) -> tuple[ReadPolicy, Figures]:
    """The policy with no silent misread on ``cases`` and the most ``ok`` rolls, and its figures.
    Where no combination is free of silent misreads, the one with the fewest (the gate of
    ``learn`` then refuses the model)."""
    keys = list(grid)
    best: tuple[tuple[float, ...], ReadPolicy, Figures] | None = None
    for combo in itertools.product(*(grid[k] for k in keys)):
        bars: dict[str, Any] = dict(zip(keys, combo))
        if not _ordered(bars, base):
            continue
        policy = replace(base, **bars)
        fig = figures(cases, policy)
        strictness = sum(v if STRICTER_WHEN_HIGHER[k] else -v for k, v in bars.items())  # ties: the stricter
        rank = (-fig.silent, fig.worst_ok_share, fig.ok, strictness)
        if best is None or rank > best[0]:
            best = (rank, policy, fig)
    if best is None:
        return base, figures(cases, base)
    return best[1], best[2]
