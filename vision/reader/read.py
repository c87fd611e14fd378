"""One still frame in, one ``DiceRead`` out: detector, classifiers, leaning check, pip counter, judge."""
from __future__ import annotations

import time
from dataclasses import dataclass, replace

import cv2
import numpy as np

from vision.model import Calibration, DiceRead, ReadStatus, is_pixel_size
from vision.reader import geometry as G
from vision.reader.detect import find_candidates
from vision.reader.judge import FAINT_PEAK, Evidence, face, is_die, is_sure, judge, pips_can_matter
from vision.reader.nets import DiceNets, ModelMissing, default_nets
from vision.reader.pips import PipCount, count_pips

#: Each likely die is read twice: by the first classifier, then turned by this
#: angle by the second classifier. A value only one network, or one angle, sees
#: is not a value to settle on.
SECOND_VIEW_DEG = 45.0
#: The second view is spent only on crops whose "not a die" probability is below this.
SECOND_LOOK = 0.7
#: A die not sure after those two views gets a second look: each network reads
#: it at three more angles (a die's value does not change when it turns, a
#: network's mistakes often do), and the eight views are averaged. Only the
#: doubtful dice pay for it, so a clear roll costs no more.
MORE_VIEWS_DEG = {False: (90.0, 180.0, 270.0), True: (135.0, 225.0, 315.0)}
#: With a known count, this many places beyond it are read (enough to notice an extra die).
EXTRA_CANDIDATES = 3
#: Without a count, at most this many places are read.
MAX_CANDIDATES = 30


def _bad_frame(frame: object) -> str | None:
    if not isinstance(frame, np.ndarray):
        return "frame is not an image array"
    if frame.ndim != 3 or frame.shape[2] != 3:
        return f"frame must be HxWx3 BGR, got shape {frame.shape}"
    if frame.dtype != np.uint8:
        return f"frame must be uint8, got {frame.dtype}"
    if min(frame.shape[:2]) < 32:
        return f"frame too small: {frame.shape[1]}x{frame.shape[0]}"
    return None


@dataclass(frozen=True)
class Look:
    """The evidence at every candidate place, and what a second look reuses of
    it, per place: each network's probabilities (None where only one network
    looked), the straight crop, and the pip count (None where not taken)."""

    evidence: list[Evidence]
    views: list[tuple[np.ndarray, np.ndarray] | None]
    straight: list[np.ndarray]
    pips: list[PipCount | None]


def _evidence(frame: np.ndarray, nets: DiceNets, die_size_px: float | None, expect: int | None) -> list[Evidence]:
    """Evidence at the strongest candidate places: a first look at each, and a
    second look at the dice the first did not make sure of."""
    look = first_look(frame, nets, die_size_px, expect)
    doubtful = [i for i, e in enumerate(look.evidence) if is_die(e.peak, e.probs) and not is_sure(e)]
    return second_look(frame, nets, look, doubtful)


def first_look(frame: np.ndarray, nets: DiceNets, die_size_px: float | None, expect: int | None) -> Look:
    """Detector candidates, each read by the first classifier and, where that
    takes it for a die, by the second one turned by ``SECOND_VIEW_DEG``; the
    places counted as dice are also checked for leaning.

    Only ``expect + EXTRA_CANDIDATES`` places are read (all up to
    ``MAX_CANDIDATES`` without a count): with more, the count check fails
    anyway, and every crop read costs time. The pip count is spent only on
    the places the judge will count as dice and only where it could change
    the verdict (``judge.pips_can_matter``).
    """
    cands = find_candidates(frame, nets, die_size_px, FAINT_PEAK)
    cands = cands[: (expect + EXTRA_CANDIDATES) if expect else MAX_CANDIDATES]
    if not cands:
        return Look([], [], [], [])
    straight = [G.crop_die(frame, c.cx, c.cy, c.side) for c in cands]
    first = nets.classify(G.to_blob(straight))
    likely = [i for i in range(len(cands)) if first[i][0] < SECOND_LOOK]
    second = nets.classify(G.to_blob([G.crop_die(frame, cands[i].cx, cands[i].cy, cands[i].side, SECOND_VIEW_DEG)
                                      for i in likely]), second=True) if likely else []
    turned = dict(zip(likely, second))
    evidence, views, counts, dice = [], [], [], []
    for i, c in enumerate(cands):
        a, b = first[i], turned.get(i)
        probs, agree = (a, True) if b is None else ((a + b) / 2, face(a) == face(b))
        die = is_die(c.score, probs)
        pips = count_pips(straight[i]) if b is not None and die and pips_can_matter(probs, agree) else None
        views.append(None if b is None else (a, b))
        counts.append(pips)
        shown = pips or PipCount(0)
        evidence.append(Evidence(c.cx, c.cy, c.side, c.score, tuple(float(p) for p in probs), agree,
                                 shown.count, shown.highlight))
        if die:
            dice.append(i)
    if dice:  # only a place counted as a die can lean
        lean = nets.leaning(G.to_blob([straight[i] for i in dice]))
        for i, p in zip(dice, lean):
            evidence[i] = replace(evidence[i], leaning=float(p))
    return Look(evidence, views, straight, counts)


def second_look(frame: np.ndarray, nets: DiceNets, look: Look, which: list[int]) -> list[Evidence]:
    """The evidence with the places at ``which`` read again at ``MORE_VIEWS_DEG``:
    their probabilities become the average of all eight views, and the views
    agree when the two networks' averages name the same value. The pip count
    of the first look is kept, and taken where it was not and can now change
    the verdict."""
    out = list(look.evidence)
    which = [i for i in which if look.views[i] is not None]
    if not which:
        return out
    n = len(MORE_VIEWS_DEG[False])
    more = {net: nets.classify(G.to_blob([G.crop_die(frame, out[i].cx, out[i].cy, out[i].side, deg)
                                          for i in which for deg in MORE_VIEWS_DEG[net]]), second=net)
            for net in (False, True)}
    for k, i in enumerate(which):
        e = out[i]
        a0, b0 = look.views[i]
        a = (a0 + more[False][k * n:(k + 1) * n].sum(axis=0)) / (n + 1)
        b = (b0 + more[True][k * n:(k + 1) * n].sum(axis=0)) / (n + 1)
        probs, agree = (a + b) / 2, face(a) == face(b)
        pips = look.pips[i]
        if pips is None:  # not taken on the first look: take it if it can now matter
            pips = count_pips(look.straight[i]) if pips_can_matter(probs, agree, second_look=True) else PipCount(0)
        out[i] = replace(e, probs=tuple(float(p) for p in probs), views_agree=agree, pips=pips.count,
                         highlight=pips.highlight, second_look=True)
    return out


def read_dice(frame: np.ndarray, expect: int | None = None, calibration: Calibration | None = None,
              nets: DiceNets | None = None) -> DiceRead:
    """Read the dice in one still BGR frame. Never raises on a bad frame: returns ``no_read``.

    ``ms`` counts the reading only: loading the networks (once per process,
    on the first call) happens before the clock starts.
    """
    try:
        nets = nets or default_nets()
    except ModelMissing as exc:
        return DiceRead(ReadStatus.NO_READ, (), str(exc))
    t0 = time.perf_counter()

    def done(read: DiceRead) -> DiceRead:
        return DiceRead(read.status, read.dice, read.reason, (time.perf_counter() - t0) * 1000.0)

    problem = _bad_frame(frame)
    if problem:
        return done(DiceRead(ReadStatus.NO_READ, (), problem))
    if expect is not None and expect < 1:
        return done(DiceRead(ReadStatus.NO_READ, (), f"expected dice count must be at least 1, got {expect}"))
    die_size = calibration.die_size_px if calibration else None
    if die_size is not None and not is_pixel_size(die_size):
        return done(DiceRead(ReadStatus.NO_READ, (), f"calibration: die size must be a positive number of pixels, "
                                                     f"got {die_size!r}"))
    mask = calibration.landing_mask if calibration else None
    if mask is not None and mask.shape[:2] != frame.shape[:2]:
        mask = cv2.resize(mask, (frame.shape[1], frame.shape[0]), interpolation=cv2.INTER_NEAREST)
    try:
        evidence = _evidence(frame, nets, die_size, expect)
    except cv2.error as exc:
        return done(DiceRead(ReadStatus.NO_READ, (), f"could not process the frame: {exc}".splitlines()[0]))
    return done(judge(evidence, expect, frame.shape, mask, die_size))
