"""Scoring one read against its labels: which dice were right, wrong, missed or invented.

Detections are matched to labels by centre, never by box overlap: one public
set boxes only the pip pattern (a "1" is a box around one pip), so a right
detection can have almost no overlap with its label. A detection matches a
label when its centre lies within half a die of the label's centre.
Manifest labels have no positions and are matched as a multiset of values.
"""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from vision.benchtool.labels import LabelledImage
from vision.model import DiceRead, ReadStatus


@dataclass
class ImageScore:
    """The outcome of one image. ``pairs`` holds (label index, read index) of matches."""

    labelled: int
    correct: int
    wrong: int
    missed: int
    extra: int
    status: ReadStatus
    pairs: list[tuple[int, int]] = field(default_factory=list)

    @property
    def roll_correct(self) -> bool:
        return self.correct == self.labelled and self.extra == 0

    @property
    def silent(self) -> bool:
        """A wrong roll that came out ``ok``: the failure that costs money."""
        return self.status == ReadStatus.OK and not self.roll_correct

    @property
    def silent_dice(self) -> int:
        """Dice wrongly settled: wrong, missed or invented dice of an ``ok`` roll."""
        return (self.wrong + self.missed + self.extra) if self.status == ReadStatus.OK else 0


def score(item: LabelledImage, read: DiceRead, width: int, height: int) -> ImageScore:
    """Compare ``read`` with the labels of ``item`` on a ``width`` x ``height`` image."""
    if not item.positional:
        want = Counter(d.value for d in item.dice)
        got = Counter(d.value for d in read.dice)
        correct = sum((want & got).values())
        unmatched_labels = len(item.dice) - correct
        unmatched_reads = len(read.dice) - correct
        wrong = min(unmatched_labels, unmatched_reads)
        return ImageScore(len(item.dice), correct, wrong, unmatched_labels - wrong, unmatched_reads - wrong, read.status)

    options = []
    for li, d in enumerate(item.dice):
        cx, cy, dw, dh = d.box
        lx, ly = cx * width, cy * height
        lside = max(dw * width, dh * height)
        for ri, r in enumerate(read.dice):
            x, y, w, h = r.box
            rx, ry = x + w / 2, y + h / 2
            dist = ((lx - rx) ** 2 + (ly - ry) ** 2) ** 0.5
            if dist <= 0.5 * max(lside, w, h):
                options.append((dist, li, ri))
    used_l, used_r, pairs = set(), set(), []
    for _, li, ri in sorted(options):
        if li not in used_l and ri not in used_r:
            used_l.add(li)
            used_r.add(ri)
            pairs.append((li, ri))
    correct = sum(1 for li, ri in pairs if item.dice[li].value == read.dice[ri].value)
    return ImageScore(
        labelled=len(item.dice),
        correct=correct,
        wrong=len(pairs) - correct,
        missed=len(item.dice) - len(pairs),
        extra=len(read.dice) - len(pairs),
        status=read.status,
        pairs=pairs,
    )


def tally_reasons(reasons: Iterable[str]) -> dict[str, int]:
    """How often each kind of reason was given, most often first: a reason's place and counts
    are left out (``the die at (x, y) may be leaning``), so that one cause is counted once."""
    out: Counter[str] = Counter()
    for reason in reasons:
        key = re.sub(r"\(\d+, \d+\)", "(x, y)", re.sub(r"\b\d+ dice", "N dice", reason))
        out[re.sub(r"expected \d+", "expected M", key)] += 1
    return dict(out.most_common())
