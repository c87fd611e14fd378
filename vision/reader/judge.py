"""How far a read may be trusted: the policy that turns evidence into ok / uncertain / no_read.

Pure functions of the evidence (no pixels), so the policy can be tested and
audited on its own. The order of the checks is the order of severity:

1. a die the reader cannot place properly makes the whole roll ``no_read``:
   dice touching or stacked (by the top face's size too where the table is
   calibrated), a die cut by the frame's edge or outside the landing area,
   a die leaning (no face is up), a count other than the one thrown;
2. a die whose value is not sure makes the roll ``uncertain``: dice so close that they may
   touch (a die turned on its corner reaches a box away), it may be
   leaning, the two networks (two views) disagree, the die looks unlike its
   neighbours (a leaning die shows a side and looks bigger), or the
   networks' confidence is below the bar, or the die is too small in the
   picture for its pips to be sure. The bar is lower when the pip counter agrees, and
   higher when a cue speaks against the value: a clear pip count that
   disagrees, or something in the middle of the face that passes for a pip
   but looks unlike the other pips (a lamp's highlight forges a centre pip),
   or the close-up pass that read the die otherwise (``closeup.py``).
   A die the first two views leave unsure is given a second look (eight
   views averaged, ``look.py``), which sets that last bar a little lower;
3. only then is the roll ``ok``.

The thresholds are those of the model's policy (``policy.py``); when unsure, it errs
towards asking the dealer.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from vision.model import DiceRead, Die, ReadStatus
from vision.reader.policy import DEFAULT_POLICY, ReadPolicy

@dataclass(frozen=True)
class Evidence:
    """What the reader saw at one candidate place."""

    cx: float
    cy: float
    side: float
    peak: float  # detector heat at the centre, 0..1
    probs: tuple[float, ...]  # classifier: (not a die, 1..6), averaged over views
    views_agree: bool  # every view of the crop gave the same value
    pips: int  # pip counter's count, 0 = no clear count
    highlight: bool = False  # a light spot in the middle unlike the other pips (see pips.py)
    contradicted: bool = False  # the other scale saw this die whole and read another value (closeup.py)
    second_look: bool = False  # probs average eight views, not two (read.py)
    leaning: float = 0.0  # probability that the die leans (on the rail or another die), against the other dice
    leaning_alone: float = 0.0  # the same from the die's crop alone

    @property
    def value(self) -> int:
        return face(self.probs)

    def confidence(self) -> float:
        """Probability of the chosen face, lowered when the other cues disagree."""
        p = float(self.probs[self.value])
        if not self.views_agree:
            p *= 0.5
        if self.pips and self.pips != self.value:
            p *= 0.7
        return p

    def box(self) -> tuple[int, int, int, int]:
        half = self.side / 2
        return (int(round(self.cx - half)), int(round(self.cy - half)), int(round(self.side)), int(round(self.side)))


def judge(
    evidence: list[Evidence],
    expect: int | None,
    frame_shape: tuple[int, ...],
    landing_mask: np.ndarray | None = None,
    top_face_px: float | None = None,
    policy: ReadPolicy = DEFAULT_POLICY,
    toward: tuple[float, float] | None = None,
) -> DiceRead:
    """The roll's verdict from the evidence at every candidate place.
    ``top_face_px``: a die's top face in pixels where the table is calibrated; ``toward``: the
    direction in the frame in which a tilted camera sees side faces (``topface.py``)."""
    p = policy
    dice = [e for e in evidence if is_die(e.peak, e.probs, p)]
    dice, two_faces = _one_place_per_die(dice, p, toward)
    faint = [e for e in evidence if e not in dice and e.peak >= p.faint_peak and e.probs[0] < 1 - p.doubt
             and not _near_any(e, dice, p.same_die)]
    dice.sort(key=lambda e: (e.cy, e.cx))
    read = tuple(Die(e.value, round(e.confidence(), 4), e.box()) for e in dice)

    def verdict(status: ReadStatus, reason: str | None = None) -> DiceRead:
        return DiceRead(status, read, reason)

    if not dice:
        return verdict(ReadStatus.NO_READ, "no dice found")
    if expect is not None and len(dice) != expect:
        return verdict(ReadStatus.NO_READ, f"found {len(dice)} dice, expected {expect}")
    apart = p.touching_top_faces * top_face_px if top_face_px else 0.0
    for i, a in enumerate(dice):
        for b in dice[i + 1:]:
            if np.hypot(a.cx - b.cx, a.cy - b.cy) < max(p.touching * (a.side + b.side) / 2, apart):
                return verdict(ReadStatus.NO_READ, "dice touching or stacked")
    h, w = frame_shape[:2]
    for e in dice:
        half = e.side / 2
        if e.cx - half < 0 or e.cy - half < 0 or e.cx + half > w or e.cy + half > h:
            return verdict(ReadStatus.NO_READ, "a die is cut by the edge of the view")
        if landing_mask is not None and not _inside(landing_mask, e):
            return verdict(ReadStatus.NO_READ, "a die is outside the landing area")
    for e in dice:
        if leaning_verdict(e.leaning, e.leaning_alone, p) is ReadStatus.NO_READ:
            return verdict(ReadStatus.NO_READ, f"the die at ({e.cx:.0f}, {e.cy:.0f}) is leaning (on the rail or a die?)")
    for e in dice:
        if leaning_verdict(e.leaning, e.leaning_alone, p) is ReadStatus.UNCERTAIN:
            return verdict(ReadStatus.UNCERTAIN, f"the die at ({e.cx:.0f}, {e.cy:.0f}) may be leaning")
    for i, a in enumerate(dice):
        for b in dice[i + 1:]:
            if np.hypot(a.cx - b.cx, a.cy - b.cy) < p.close * max(a.side, b.side):
                return verdict(ReadStatus.UNCERTAIN, "dice close together (touching?)")
    if two_faces:
        return verdict(ReadStatus.UNCERTAIN, "a die shows two faces equally (which is on top?)")
    if faint:
        return verdict(ReadStatus.UNCERTAIN, "something that may be a die is not clear")
    sides = [e.side for e in dice]
    if max(sides) > p.size_ratio * min(sides):
        return verdict(ReadStatus.UNCERTAIN, "a die looks unlike the others (leaning?)")
    for e in dice:
        if e.side < p.min_sure_side_px:
            return verdict(ReadStatus.UNCERTAIN, f"the die at ({e.cx:.0f}, {e.cy:.0f}) is too small in the picture to read surely")
    for e in dice:
        if not is_sure(e, p):
            if e.highlight:
                return verdict(ReadStatus.UNCERTAIN, f"the die at ({e.cx:.0f}, {e.cy:.0f}) shows a spot unlike its pips (glare?)")
            return verdict(ReadStatus.UNCERTAIN, f"the die at ({e.cx:.0f}, {e.cy:.0f}) is not clear")
    return verdict(ReadStatus.OK)


def leaning_verdict(against_others: float, alone: float, policy: ReadPolicy = DEFAULT_POLICY) -> ReadStatus | None:
    """What the two leaning checks make of one die: ``NO_READ`` when the check against the frame's
    other dice is sure it leans, ``UNCERTAIN`` when either check doubts it (they miss different
    dice), None when neither does."""
    if against_others >= policy.leaning:
        return ReadStatus.NO_READ
    if against_others >= policy.leaning_doubt or alone >= policy.leaning_alone_doubt:
        return ReadStatus.UNCERTAIN
    return None


def face(probs: Sequence[float] | np.ndarray) -> int:
    """The face value a classifier's probabilities (not a die, 1..6) name: the
    first of the highest, as ``np.argmax`` gives it. In plain Python because
    it is asked a few dozen times a roll, of tuples numpy would first copy."""
    return max(range(1, len(probs)), key=probs.__getitem__)


def is_sure(e: Evidence, policy: ReadPolicy = DEFAULT_POLICY) -> bool:
    """Whether this die's value is sure enough to settle: every view agrees and
    the networks' probability clears the bar the other cues set."""
    doubted = e.highlight or e.contradicted or e.pips not in (0, e.value)
    bar = (_doubted_bar(e.second_look, policy) if doubted
           else policy.sure_with_pips if e.pips == e.value else policy.sure_alone)
    return e.views_agree and float(e.probs[e.value]) >= bar


def pips_can_matter(probs: Sequence[float] | np.ndarray, views_agree: bool, second_look: bool = False,
                    policy: ReadPolicy = DEFAULT_POLICY) -> bool:
    """Whether a pip count could change this die's verdict. Not when the views
    disagree (uncertain whatever the count) nor when the networks are sure
    beyond the highest bar (``ok`` whatever the count): the reader spends the
    pip counter only on the others."""
    return views_agree and max(probs[1:]) < _doubted_bar(second_look, policy)


def _doubted_bar(second_look: bool, policy: ReadPolicy) -> float:
    return policy.sure_doubted_second_look if second_look else policy.sure_doubted


def is_die(peak: float, probs: Sequence[float] | np.ndarray, policy: ReadPolicy = DEFAULT_POLICY) -> bool:
    """A candidate counted as a die: a clear detector peak the classifier does
    not reject. (The reader spends the pip count only on these.)"""
    return peak >= policy.die_peak and probs[0] < policy.not_a_die


def _near_any(e: Evidence, others: list[Evidence], factor: float) -> bool:
    return any(o is not e and np.hypot(e.cx - o.cx, e.cy - o.cy) < factor * (e.side + o.side) / 2 for o in others)


def _one_place_per_die(dice: list[Evidence], policy: ReadPolicy,
                       toward: tuple[float, float] | None = None) -> tuple[list[Evidence], bool]:
    """Keep the strongest of places that are one die seen twice; say whether a
    dropped one was nearly as strong (then the top face is in doubt).

    Under a tilted camera (``toward``), the top face and the side face turned to the camera
    may both be found, the side face nearer the camera (along ``toward``): of two such
    places the far one is the top face, whatever their strength, and no doubt remains."""
    kept: list[Evidence] = []
    doubt = False
    for e in sorted(dice, key=lambda e: -e.peak):
        rival = next((k for k in kept if np.hypot(e.cx - k.cx, e.cy - k.cy) < policy.same_die * (e.side + k.side) / 2), None)
        along = 0.0 if rival is None or toward is None else (
            (rival.cx - e.cx) * toward[0] + (rival.cy - e.cy) * toward[1]) / rival.side
        if rival is None:
            kept.append(e)
        elif along > policy.side_face_apart:  # e lies beyond the rival: e is the top face, the rival the side turned to us
            kept[kept.index(rival)] = e
        elif along < -policy.side_face_apart:  # e is the side face below the rival's top face
            continue
        elif e.peak >= policy.same_die_clear * rival.peak:
            doubt = True
    return kept, doubt



def _inside(mask: np.ndarray, e: Evidence) -> bool:
    """The die's centre and its whole box lie in the landing area."""
    h, w = mask.shape[:2]
    x0, y0, bw, bh = e.box()
    corners = [(x0, y0), (x0 + bw, y0), (x0, y0 + bh), (x0 + bw, y0 + bh), (int(e.cx), int(e.cy))]
    for x, y in corners:
        if not (0 <= x < w and 0 <= y < h) or mask[y, x] == 0:
            return False
    return True
