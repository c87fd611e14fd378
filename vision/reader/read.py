"""One still frame in, one ``DiceRead`` out: detector, classifiers, leaning check, pip counter, judge."""
from __future__ import annotations

import time
from dataclasses import dataclass, replace

import cv2
import numpy as np

from vision.model import Calibration, DiceRead, ReadStatus, is_pixel_size
from vision.reader import geometry as G
from vision.reader.detect import Candidate, close_up_candidates, find_candidates
from vision.reader.ground import face_against_ground
from vision.reader.judge import DIE_PEAK, FAINT_PEAK, SAME_DIE, Evidence, face, is_die, is_sure, judge, pips_can_matter
from vision.reader.nets import DiceNets, ModelMissing, default_nets
from vision.reader.pips import PipCount, agreed_count, count_pips, count_pips_fine

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
#: A pip seen alone as a die comes out a third of its die or less (4.5 to 5.5
#: times smaller on the close-ups of docs/vision.md); a die found whole at
#: both scales comes out up to 2.8 times bigger at the close-up one (on the
#: tune photos). Between the two: 1s inside a die this many times their size
#: may be its pips.
PIPS_INSIDE = 3.5
#: ... and only a place the close-up look is sure is a die (its "not a die"
#: probability at most this): dice showing 1 laid out like the pips of a 4
#: (matteop65's held-out ``dice_32`` and ``dice_33``) are seen at the coarse
#: scale as a 4, with doubt (0.13 and 0.22 "not a die"; groups of five 1s
#: in the tune photos 0.2 to 0.37), while the big dice whose pips had been
#: read as 1s, in the three close-ups of docs/vision.md where that happened,
#: were dice beyond doubt (0.0 to 0.01).
PIPS_HOLDER_NOT_A_DIE = 0.05
#: Two dice of the usual look inside one die of the close-up look, each at
#: least this fraction of its size and read surely, are two dice the close-up
#: look merged (matteop65's ``three_38`` enlarged twice: two touching dice of
#: 170 and 187 px inside one close-up die of 205 px, read as one), not pieces
#: of one die (on the generated close-ups, pieces that big were never sure).
MERGED = 0.5
#: A die of the usual look at least ``MERGED`` of a close-up die's size whose
#: centre is within this fraction of its own side of the close-up die's is
#: the same die seen whole by both looks (the two looks place a die they both
#: read alike 0.08 of its side apart at the median). Where they read it
#: otherwise, neither read is settled: matteop65's tune photo ``valid_35`` in
#: grey, a die of 107 px boxed at 186 px by the coarse scale, read 6 from a
#: side face where the usual look read its top 5 (docs/vision.md, "Close-ups").
SAME_PLACE = 0.1
#: A close-up die read 1 holds its pip in the middle: a die of the usual look
#: whose centre lies in the square of this fraction of its side, centred on
#: its centre, is what the usual look made of that pip.
PIP_ZONE = 0.6
#: ... and when the usual look read that "pip" as another value, the close-up
#: 1 may be a small die lying alone on a plain ground, boxed with the ground
#: around it as the pip of a big die (byler's held-out ``IMG_20191208_112556``
#: turned, grey, swapped or squeezed: a 5 settled as a 1). Such a box is ground through
#: and through: its face ring differs from the ground beyond its corners by
#: 0.36-0.37 Delta E there (``ground.face_against_ground``), and by 1.65 to 101
#: for the 107 true close-ups of a 1 whose pip the usual look read otherwise
#: (tune photos cut out at fills 0.3-0.8, generated seed 21), the lowest a
#: white die on matteop65's light desk. Under 1 Delta E two colours look the
#: same to the eye.
GROUND_LIKE = 1.0


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
    looked), the straight crop, and the pip counts on the networks' crop and
    on the fine one (None where not taken)."""

    evidence: list[Evidence]
    views: list[tuple[np.ndarray, np.ndarray] | None]
    straight: list[np.ndarray]
    pips: list[tuple[PipCount, PipCount] | None]


def _evidence(frame: np.ndarray, nets: DiceNets, cands: list[Candidate], expect: int | None) -> list[Evidence]:
    """Evidence at the strongest candidate places: a first look at each, and a
    second look at the dice the first did not make sure of."""
    look = first_look(frame, nets, cands, expect)
    doubtful = [i for i, e in enumerate(look.evidence) if is_die(e.peak, e.probs) and not is_sure(e)]
    return second_look(frame, nets, look, doubtful)


def first_look(frame: np.ndarray, nets: DiceNets, cands: list[Candidate], expect: int | None) -> Look:
    """Detector candidates (strongest first), each read by the first classifier and, where that
    takes it for a die, by the second one turned by ``SECOND_VIEW_DEG``; the
    places counted as dice are also checked for leaning.

    Only ``expect + EXTRA_CANDIDATES`` places are read (all up to
    ``MAX_CANDIDATES`` without a count): with more, the count check fails
    anyway, and every crop read costs time. The pip count is spent only on
    the places the judge will count as dice and only where it could change
    the verdict (``judge.pips_can_matter``).
    """
    cands = cands[: (expect + EXTRA_CANDIDATES) if expect else MAX_CANDIDATES]
    if not cands:
        return Look([], [], [], [])
    straight = [G.crop_die(frame, c.cx, c.cy, c.side) for c in cands]
    first = nets.classify(G.to_blob(straight))
    likely = [i for i in range(len(cands)) if first[i][0] < SECOND_LOOK]
    second: np.ndarray | list[np.ndarray] = nets.classify(
        G.to_blob([G.crop_die(frame, cands[i].cx, cands[i].cy, cands[i].side, SECOND_VIEW_DEG) for i in likely]),
        second=True) if likely else []
    turned = dict(zip(likely, second))
    evidence, views, counts, dice = [], [], [], []
    for i, c in enumerate(cands):
        a, b = first[i], turned.get(i)
        probs, agree = (a, True) if b is None else ((a + b) / 2, face(a) == face(b))
        die = is_die(c.score, probs)
        both = _pip_counts(frame, straight[i], c) if b is not None and die and pips_can_matter(probs, agree) else None
        views.append(None if b is None else (a, b))
        counts.append(both)
        shown = agreed_count(*both, face(probs)) if both else PipCount(0)
        evidence.append(Evidence(c.cx, c.cy, c.side, c.score, tuple(float(p) for p in probs), agree,
                                 shown.count, shown.highlight))
        if die:
            dice.append(i)
    if dice:  # only a place counted as a die can lean
        lean = nets.leaning(G.to_blob([straight[i] for i in dice]))
        for i, p in zip(dice, lean):
            evidence[i] = replace(evidence[i], leaning=float(p))
    return Look(evidence, views, straight, counts)


def _pip_counts(frame: np.ndarray, straight: np.ndarray, place: Candidate | Evidence) -> tuple[PipCount, PipCount]:
    """The pips of the die at ``place`` counted on its ``straight`` crop and on
    the fine one (``pips.agreed_count`` weighs the two against the networks)."""
    return count_pips(straight), count_pips_fine(frame, place.cx, place.cy, place.side)


def second_look(frame: np.ndarray, nets: DiceNets, look: Look, which: list[int]) -> list[Evidence]:
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
    more = {net: nets.classify(G.to_blob([G.crop_die(frame, out[i].cx, out[i].cy, out[i].side, deg)
                                          for i in which for deg in MORE_VIEWS_DEG[net]]), second=net)
            for net in (False, True)}
    for k, i in enumerate(which):
        e, views = out[i], look.views[i]
        assert views is not None  # ``which`` keeps the places both networks looked at
        a0, b0 = views
        a = (a0 + more[False][k * n:(k + 1) * n].sum(axis=0)) / (n + 1)
        b = (b0 + more[True][k * n:(k + 1) * n].sum(axis=0)) / (n + 1)
        probs, agree = (a + b) / 2, face(a) == face(b)
        both = look.pips[i]
        if both is None and pips_can_matter(probs, agree, second_look=True):  # not taken on the first look
            both = _pip_counts(frame, look.straight[i], e)
        shown = agreed_count(*both, face(probs)) if both else PipCount(0)
        out[i] = replace(e, probs=tuple(float(p) for p in probs), views_agree=agree, pips=shown.count,
                         highlight=shown.highlight, second_look=True)
    return out


def read_dice(frame: np.ndarray, expect: int | None = None, calibration: Calibration | None = None,
              nets: DiceNets | None = None, close_up: bool = True) -> DiceRead:
    """Read the dice in one still BGR frame. Never raises on a bad frame: returns ``no_read``.

    ``ms`` counts the reading only: loading the networks (once per process,
    on the first call) happens before the clock starts. ``close_up=False``
    leaves out the close-up look (``_as_close_up``), so that a bench can
    measure what that look adds; a table always reads with it.
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
        evidence = _evidence(frame, nets, find_candidates(frame, nets, die_size, FAINT_PEAK), expect)
        read = judge(evidence, expect, frame.shape, mask, die_size)
        if close_up and die_size is None and (read.status is not ReadStatus.OK or _all_ones(read)):
            read = _as_close_up(frame, nets, expect, mask, evidence, read)
    except cv2.error as exc:
        return done(DiceRead(ReadStatus.NO_READ, (), f"could not process the frame: {exc}".splitlines()[0]))
    return done(read)


def _all_ones(read: DiceRead) -> bool:
    """Every die read shows 1: what the usual look makes of a close-up die, each pip seen as a die."""
    return bool(read.dice) and all(d.value == 1 for d in read.dice)


def _as_close_up(frame: np.ndarray, nets: DiceNets, expect: int | None, mask: np.ndarray | None,
                 seen: list[Evidence], read: DiceRead) -> DiceRead:
    """The frame's read once it has also been looked at as a close-up.

    The detector sees about 60 px around a place, so a die much bigger than
    that at the guessed scale is found as its pips or faces, which may come
    out the size of dice (docs/vision.md, "Close-ups"), and a pip alone looks
    like a die showing 1. Uncalibrated, a frame the usual look could not read
    (``read`` not ``ok``), or read as nothing but 1s, is looked at once more
    with the frame shrunk so that such dice show whole
    (``detect.close_up_candidates``), through the same classifiers and judge.

    That read replaces ``read`` only when it is ``ok``, every die it counts is
    bigger than the usual look could have seen whole (every strong candidate
    is, or the look gave up before reading a crop), every place the usual
    look counted as a die lies inside one of them (it misses nothing the usual
    look saw), and none of them holds two dice the usual look saw whole and
    apart (it merged no dice). A die of it that holds a die the usual look
    saw whole and read as another value is held to the judge's bar for a
    die a cue speaks against (``_gainsaid``); if the two looks saw that die
    in the same place (``_read_otherwise``), or if a die of it read 1 may be
    a small die alone on a plain ground taken for its pip
    (``_lone_die_as_a_pip``), the usual read stands, ``uncertain`` if it was
    ``ok``. Short of a read that
    stands in, 1s that all lie inside one die much bigger than they are,
    beyond doubt a die and with at least as many pips as they are 1s, make
    the roll ``uncertain``: they may be its pips (``_holds_as_pips``). A
    calibrated table never takes this path. Before any crop is read, the
    close-up look gives up when it cannot change the read: a strong
    candidate smaller than a close-up die (the frame is not a close-up),
    fewer strong big ones than the dice thrown, or a die of the usual look
    outside all of them.
    """
    cands, big = close_up_candidates(frame, nets, FAINT_PEAK)
    strong = [c for c in cands if c.score >= DIE_PEAK]
    seen_dice = [e for e in seen if is_die(e.peak, e.probs)]
    if (not strong or any(c.side < big for c in strong)
            or (read.status is not ReadStatus.OK and expect is not None and len(strong) < expect)
            or not all(any(_covers(c.cx, c.cy, c.side, e) for c in strong) for e in seen_dice)):
        return read
    evidence = [replace(e, gainsaid=True) if _gainsaid(e, seen_dice) else e
                for e in _evidence(frame, nets, cands, expect)]
    close = judge(evidence, expect, frame.shape, mask, None)
    squares: list[tuple[float, float, float]] = [(x + w / 2, y + h / 2, w) for x, y, w, h in (d.box for d in close.dice)]
    if (close.status is ReadStatus.OK and all(any(_covers(*sq, e) for sq in squares) for e in seen_dice)
            and not any(_merges(sq, seen_dice) for sq in squares)):
        otherwise = (_read_otherwise(close.values, squares, seen_dice)
                     or _lone_die_as_a_pip(frame, close.values, squares, seen_dice))
        if otherwise is None:
            return close
        return read if read.status is not ReadStatus.OK else DiceRead(ReadStatus.UNCERTAIN, read.dice, otherwise)
    if read.status is ReadStatus.OK and any(_holds_as_pips(h, seen_dice, len(read.dice)) for h in evidence):
        return DiceRead(ReadStatus.UNCERTAIN, read.dice, "the 1s may be the pips of one big die (a close-up?)")
    return read


def _read_otherwise(values: tuple[int, ...], squares: list[tuple[float, float, float]],
                    seen_dice: list[Evidence]) -> str | None:
    """Why the close-up read cannot stand in: a die of it (its ``values``, at
    ``squares``: centre x, y and side) that the usual look saw whole at the
    same place (``SAME_PLACE``) and read as another value. Two looks at one
    die that disagree are a doubt for the dealer, whichever is right. None
    when there is no such die."""
    for value, (cx, cy, side) in zip(values, squares, strict=True):
        for e in seen_dice:
            if _seen_whole_otherwise(e, side, value) and np.hypot(e.cx - cx, e.cy - cy) <= SAME_PLACE * e.side:
                return f"the die at ({cx:.0f}, {cy:.0f}) reads {value} as a close-up but {e.value} as usual"
    return None


def _lone_die_as_a_pip(frame: np.ndarray, values: tuple[int, ...], squares: list[tuple[float, float, float]],
                       seen_dice: list[Evidence]) -> str | None:
    """Why the close-up read cannot stand in: a die of it read 1 (its
    ``values``, at ``squares``) whose pip the usual look read as a die of
    another value, and whose square has the colour of the ground around it
    (``GROUND_LIKE``): that "pip" may be a die lying alone. None when there is
    no such die. A true close-up 1 whose face has the ground's colour is
    caught too; the dealer then looks, which is the safe way to be wrong."""
    for value, (cx, cy, side) in zip(values, squares, strict=True):
        if value != 1:
            continue
        inside = [e for e in seen_dice if _covers(cx, cy, PIP_ZONE * side, e) and e.value != 1]
        if inside and face_against_ground(frame, cx, cy, side) < GROUND_LIKE:
            return (f"the 1 at ({cx:.0f}, {cy:.0f}) may be a die alone on a plain ground, "
                    f"read {inside[0].value} as usual")
    return None


def _gainsaid(e: Evidence, seen_dice: list[Evidence]) -> bool:
    """Whether the close-up look's place ``e`` holds a die the usual look
    saw whole (at least ``MERGED`` of its size) and read as another value.
    Off its centre that may be a piece of it, or the die itself boxed
    otherwise: matteop65's held-out ``five_5`` stretched a third wider
    (docs/vision.md, "Photos made another shape"), a 5 of 135 px boxed at
    215 px with its side faces, read 6 at 0.94 by the close-up look, the two
    centres 0.125 of a side apart. The close-up read of it then needs the
    bar of a die a cue speaks against (``judge.SURE_DOUBTED``)."""
    return any(_covers(e.cx, e.cy, e.side, u) and _seen_whole_otherwise(u, e.side, e.value) for u in seen_dice)


def _seen_whole_otherwise(seen: Evidence, side: float, value: int) -> bool:
    """Whether the usual look's die ``seen`` is whole beside a close-up die of
    ``side`` (at least ``MERGED`` of it) and reads another value than its ``value``."""
    return seen.side >= MERGED * side and seen.value != value


def _merges(square: tuple[float, float, float], seen_dice: list[Evidence]) -> bool:
    """Whether the close-up die ``square`` (centre x, y and side) holds two
    dice the usual look saw whole: each at least ``MERGED`` of its size, each
    read surely, and far enough apart to be two dice (``judge.SAME_DIE``).
    Dice side by side or touching, seen as one big die; the pieces of one big
    die come out smaller or unsure, and one die seen twice comes out in one place."""
    whole = [e for e in seen_dice if _covers(*square, e) and e.side >= MERGED * square[2] and is_sure(e)]
    return any(np.hypot(a.cx - b.cx, a.cy - b.cy) >= SAME_DIE * (a.side + b.side) / 2
               for i, a in enumerate(whole) for b in whole[i + 1:])


def _holds_as_pips(holder: Evidence, seen_dice: list[Evidence], ones: int) -> bool:
    """Whether the close-up look's place ``holder`` is a die that could show
    the ``ones`` dice the usual look read as 1 (at ``seen_dice``) as its pips:
    a die beyond doubt (``PIPS_HOLDER_NOT_A_DIE``), ``PIPS_INSIDE`` times the
    biggest of them, with at least as many pips as they are, and all of them
    inside it. (A die there is a strong candidate, so a close-up die.)"""
    return (is_die(holder.peak, holder.probs) and holder.probs[0] <= PIPS_HOLDER_NOT_A_DIE
            and holder.side >= PIPS_INSIDE * max(e.side for e in seen_dice)
            and holder.value >= ones and all(_covers(holder.cx, holder.cy, holder.side, e) for e in seen_dice))


def _covers(cx: float, cy: float, side: float, e: Evidence) -> bool:
    """Whether the centre of the place ``e`` lies in the square of ``side`` centred on (cx, cy)."""
    return abs(e.cx - cx) <= side / 2 and abs(e.cy - cy) <= side / 2
