"""One pass over a frame's candidate places: each die crop read by both classifiers, the two
leaning checks and the pip counter, and a second look at the dice left in doubt."""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from vision.reader import geometry as G
from vision.reader.detect import Candidate
from vision.reader.judge import Evidence, face, is_die, is_sure, pips_can_matter
from vision.reader.leaning import leaning_checks
from vision.reader.nets import DiceNets
from vision.reader.pips import PipCount, agreed_count, count_pips, count_pips_fine
from vision.reader.policy import DEFAULT_POLICY, ReadPolicy
from vision.reader.topface import TopFaceView

#: The second classifier reads each likely die turned by this angle: a value only
#: one network, or one angle, sees is not a value to settle on.
SECOND_VIEW_DEG = 45.0
#: A die not sure after those two views is read by each network at three more angles
#: (a die's value does not change when it turns, a network's mistakes often do) and the
#: eight views are averaged. Only doubtful dice pay for it.
MORE_VIEWS_DEG = {False: (90.0, 180.0, 270.0), True: (135.0, 225.0, 315.0)}
#: With a known count, this many places beyond it are read (enough to notice an extra die).
EXTRA_CANDIDATES = 3
#: Without a count, at most this many places are read.
MAX_CANDIDATES = 30


@dataclass(frozen=True)
class Look:
    """The evidence at every candidate place, and what a second look reuses of
    it, per place: each network's probabilities (None where only one network
    looked), the straight crop, and the pip counts on the networks' crop and
    on the fine one (None where not taken)."""

    evidence: list[Evidence]
    views: list[tuple[np.ndarray, np.ndarray] | None]
    straight: list[np.ndarray]
    pips: list[tuple[PipCount, PipCount] | None]


@dataclass(frozen=True)
class Reading:
    """What one pass over a frame needs: the networks, the thresholds, and how the camera
    sees a die's top face (straight down unless the calibration says otherwise)."""

    nets: DiceNets
    policy: ReadPolicy = DEFAULT_POLICY
    view: TopFaceView | None = None

    def crop(self, frame: np.ndarray, cx: float, cy: float, side: float, angle: float = 0.0,
             size: int = G.CLS_SIZE) -> np.ndarray:
        """A die's crop for the networks: the top face's place and shape where the camera is tilted."""
        if self.view is None:
            return G.crop_die(frame, cx, cy, side, angle, size)
        return self.view.crop(frame, cx, cy, side, angle, size)


def evidence_at(frame: np.ndarray, reading: Reading, cands: list[Candidate], expect: int | None) -> list[Evidence]:
    """Evidence at the strongest candidate places: a first look at each, and a
    second look at the dice the first did not make sure of."""
    look = first_look(frame, reading, cands, expect)
    policy = reading.policy
    doubtful = [i for i, e in enumerate(look.evidence) if is_die(e.peak, e.probs, policy) and not is_sure(e, policy)]
    return second_look(frame, reading, look, doubtful)


def first_look(frame: np.ndarray, reading: Reading, cands: list[Candidate], expect: int | None) -> Look:
    """Detector candidates (strongest first), each read by the first classifier and, where that
    takes it for a die, by the second one turned by ``SECOND_VIEW_DEG``; the
    places counted as dice are also checked for leaning, against the others and alone (``leaning.py``).

    Only ``expect + EXTRA_CANDIDATES`` places are read (all up to
    ``MAX_CANDIDATES`` without a count): with more, the count check fails
    anyway, and every crop read costs time. The pip count is spent only on
    the places the judge will count as dice and only where it could change
    the verdict (``judge.pips_can_matter``).
    """
    nets, policy = reading.nets, reading.policy
    cands = cands[: (expect + EXTRA_CANDIDATES) if expect else MAX_CANDIDATES]
    if not cands:
        return Look([], [], [], [])
    straight = [reading.crop(frame, c.cx, c.cy, c.side) for c in cands]
    first = nets.classify(G.to_blob(straight))
    likely = [i for i in range(len(cands)) if first[i][0] < policy.second_view]
    turned_crops = [reading.crop(frame, cands[i].cx, cands[i].cy, cands[i].side, SECOND_VIEW_DEG) for i in likely]
    second: np.ndarray | list[np.ndarray] = nets.classify(G.to_blob(turned_crops), second=True) if likely else []
    turned = dict(zip(likely, second))
    evidence, views, counts, dice = [], [], [], []
    for i, c in enumerate(cands):
        a, b = first[i], turned.get(i)
        probs, agree = (a, True) if b is None else ((a + b) / 2, face(a) == face(b))
        die = is_die(c.score, probs, policy)
        both = (_pip_counts(frame, reading, straight[i], c)
                if b is not None and die and pips_can_matter(probs, agree, policy=policy) else None)
        views.append(None if b is None else (a, b))
        counts.append(both)
        shown = agreed_count(*both, face(probs)) if both else PipCount(0)
        evidence.append(Evidence(c.cx, c.cy, c.side, c.score, tuple(float(p) for p in probs), agree,
                                 shown.count, shown.highlight))
        if die:
            dice.append(i)
    if dice:  # only a place counted as a die can lean
        lean, alone = leaning_checks(G.to_blob([straight[i] for i in dice]), nets)
        for i, p, q in zip(dice, lean, alone):
            evidence[i] = replace(evidence[i], leaning=float(p), leaning_alone=float(q))
    return Look(evidence, views, straight, counts)


def _pip_counts(frame: np.ndarray, reading: Reading, straight: np.ndarray,
                place: Candidate | Evidence) -> tuple[PipCount, PipCount]:
    """The pips of the die at ``place`` counted on its ``straight`` crop and on
    the fine one (``pips.agreed_count`` weighs the two against the networks)."""
    policy = reading.policy
    fine = (count_pips_fine(frame, place.cx, place.cy, place.side, policy) if reading.view is None
            else count_pips(reading.crop(frame, place.cx, place.cy, place.side, size=2 * G.CLS_SIZE), policy))
    return count_pips(straight, policy), fine


def second_look(frame: np.ndarray, reading: Reading, look: Look, which: list[int]) -> list[Evidence]:
    """The evidence with the places at ``which`` read again at ``MORE_VIEWS_DEG``:
    their probabilities become the average of all eight views, and the views
    agree when the two networks' averages name the same value. The pip counts
    of the first look are kept, and taken where they were not and can now
    change the verdict; they are weighed again against the new value."""
    out = list(look.evidence)
    which = [i for i in which if look.views[i] is not None]
    if not which:
        return out
    n = len(MORE_VIEWS_DEG[False])
    more = {net: reading.nets.classify(G.to_blob([reading.crop(frame, out[i].cx, out[i].cy, out[i].side, deg)
                                                  for i in which for deg in MORE_VIEWS_DEG[net]]), second=net)
            for net in (False, True)}
    for k, i in enumerate(which):
        e = out[i]
        views = look.views[i]
        assert views is not None  # kept in ``which`` above
        a = (views[0] + more[False][k * n:(k + 1) * n].sum(axis=0)) / (n + 1)
        b = (views[1] + more[True][k * n:(k + 1) * n].sum(axis=0)) / (n + 1)
        probs, agree = (a + b) / 2, face(a) == face(b)
        both = look.pips[i]
        if both is None and pips_can_matter(probs, agree, second_look=True, policy=reading.policy):
            both = _pip_counts(frame, reading, look.straight[i], e)
        shown = agreed_count(*both, face(probs)) if both else PipCount(0)
        out[i] = replace(e, probs=tuple(float(p) for p in probs), views_agree=agree, pips=shown.count,
                         highlight=shown.highlight, second_look=True)
    return out
