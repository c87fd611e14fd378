"""The close-up pass: an uncalibrated frame looked at again with the frame shrunk.

The detector sees about 60 px around a place, so a die much bigger than that at the guessed
scale (a close-up) is found as its pips or faces, and a pip alone looks like a die showing 1.
An uncalibrated frame that the standard scale could not read, or read as nothing but 1s, is
looked at once more with its long side shrunk to ``detect.CLOSE_UP_LONG_SIDE`` px, through the
same classifiers and judge. A calibrated table never takes this path.

Terms: the *standard* pass is the first read of the frame at the detector's usual scale; a
*whole* die of it is one at least ``policy.whole_share`` of a close-up die's size (not one of
its pips); a close-up die is *contradicted* when it holds a whole die that the standard pass
read as another value.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from vision.model import DiceRead, ReadStatus
from vision.reader.detect import Candidate, close_up_candidates
from vision.reader.ground import face_against_ground
from vision.reader.judge import Evidence, is_die, is_sure, judge
from vision.reader.look import Reading, evidence_at

#: A square as (centre x, centre y, side) in frame pixels.
Square = tuple[float, float, float]


def read_as_close_up(frame: np.ndarray, reading: Reading, expect: int | None, mask: np.ndarray | None,
                     seen: list[Evidence], read: DiceRead) -> DiceRead:
    """The frame's read once it has also been looked at as a close-up.

    The close-up read replaces the standard one (``read``, from the evidence ``seen``) only when
    it is ``ok``, covers every die the standard pass counted and merges none of them
    (``_stands_in``), and no die of it was read otherwise in the same place or may be a small die
    alone on a plain ground (``_why_not_instead``); where one was, the standard read stands and is
    not ``ok``. When the close-up read cannot stand in, 1s that may be the pips of one big die make
    an ``ok`` standard read ``uncertain`` (``_holds_as_pips``).
    """
    policy = reading.policy
    seen_dice = [e for e in seen if is_die(e.peak, e.probs, policy)]
    cands, big = close_up_candidates(frame, reading.nets, policy)
    if not _worth_a_look(cands, big, seen_dice, read, expect, reading):
        return read
    evidence = [replace(e, contradicted=True) if _contradicted(e, seen_dice, reading) else e
                for e in evidence_at(frame, reading, cands, expect)]
    close = judge(evidence, expect, frame.shape, mask, None, policy)
    squares = [(x + w / 2, y + h / 2, float(w)) for x, y, w, h in (d.box for d in close.dice)]
    if _stands_in(close, squares, seen_dice, reading):
        why_not = _why_not_instead(frame, close.values, squares, seen_dice, reading)
        if why_not is None:
            return close
        return read if read.status is not ReadStatus.OK else DiceRead(ReadStatus.UNCERTAIN, read.dice, why_not)
    if read.status is ReadStatus.OK and any(_holds_as_pips(h, seen_dice, len(read.dice), reading) for h in evidence):
        return DiceRead(ReadStatus.UNCERTAIN, read.dice, "the 1s may be the pips of one big die (a close-up?)")
    return read


def _worth_a_look(cands: list[Candidate], big: float, seen_dice: list[Evidence], read: DiceRead,
                  expect: int | None, reading: Reading) -> bool:
    """Whether the close-up pass can change the read, decided before any crop is read: not when a
    strong candidate is smaller than a close-up die (the frame is no close-up), when fewer strong
    ones than the dice thrown are found, or when a die of the standard pass lies outside all of them."""
    strong = [c for c in cands if c.score >= reading.policy.die_peak]
    if not strong or any(c.side < big for c in strong):
        return False
    if read.status is not ReadStatus.OK and expect is not None and len(strong) < expect:
        return False
    return all(any(_covers((c.cx, c.cy, c.side), e) for c in strong) for e in seen_dice)


def _stands_in(close: DiceRead, squares: list[Square], seen_dice: list[Evidence], reading: Reading) -> bool:
    """Whether the close-up read may replace the standard one: ``ok``, missing no die the standard
    pass saw, and holding no two dice it saw whole and apart."""
    return (close.status is ReadStatus.OK and all(any(_covers(sq, e) for sq in squares) for e in seen_dice)
            and not any(_merges(sq, seen_dice, reading) for sq in squares))


def _why_not_instead(frame: np.ndarray, values: tuple[int, ...], squares: list[Square],
                     seen_dice: list[Evidence], reading: Reading) -> str | None:
    """Why a close-up read that could stand in may not: a die read otherwise in the same place,
    or a 1 that may be a small die alone on a plain ground. None when nothing speaks against it."""
    return (_read_otherwise(values, squares, seen_dice, reading)
            or _lone_die_as_a_pip(frame, values, squares, seen_dice, reading))


def _read_otherwise(values: tuple[int, ...], squares: list[Square], seen_dice: list[Evidence],
                    reading: Reading) -> str | None:
    """A close-up die that the standard pass saw whole at the same place (``policy.same_place``)
    and read as another value: two reads of one die that disagree are a doubt for the dealer,
    whichever is right."""
    for value, (cx, cy, side) in zip(values, squares, strict=True):
        for e in seen_dice:
            if (_whole_and_other(e, side, value, reading)
                    and np.hypot(e.cx - cx, e.cy - cy) <= reading.policy.same_place * e.side):
                return f"the die at ({cx:.0f}, {cy:.0f}) reads {value} as a close-up but {e.value} at the standard scale"
    return None


def _lone_die_as_a_pip(frame: np.ndarray, values: tuple[int, ...], squares: list[Square],
                       seen_dice: list[Evidence], reading: Reading) -> str | None:
    """A close-up 1 whose pip the standard pass read as a die of another value, and whose square
    has the colour of the ground around it (``policy.ground_like``): that "pip" may be a small die
    lying alone on a plain ground. A true close-up 1 on a face of the ground's colour is caught
    too; the dealer then looks, which is the safe way to be wrong."""
    policy = reading.policy
    for value, (cx, cy, side) in zip(values, squares, strict=True):
        if value != 1:
            continue
        inside = [e for e in seen_dice if _covers((cx, cy, policy.pip_zone * side), e) and e.value != 1]
        if inside and face_against_ground(frame, cx, cy, side) < policy.ground_like:
            return (f"the 1 at ({cx:.0f}, {cy:.0f}) may be a die alone on a plain ground, "
                    f"read {inside[0].value} at the standard scale")
    return None


def _contradicted(e: Evidence, seen_dice: list[Evidence], reading: Reading) -> bool:
    """Whether the close-up place ``e`` holds a die the standard pass saw whole and read as another
    value. Off its centre that may be a piece of it, or the die boxed with its side faces; the
    close-up read of it then needs the bar of a doubted die (``policy.sure_doubted``)."""
    return any(_covers((e.cx, e.cy, e.side), u) and _whole_and_other(u, e.side, e.value, reading) for u in seen_dice)


def _whole_and_other(seen: Evidence, side: float, value: int, reading: Reading) -> bool:
    """Whether the standard pass's die ``seen`` is whole beside a close-up die of ``side`` and reads
    another value than its ``value``."""
    return seen.side >= reading.policy.whole_share * side and seen.value != value


def _merges(square: Square, seen_dice: list[Evidence], reading: Reading) -> bool:
    """Whether the close-up die ``square`` holds two dice the standard pass saw whole, each read
    surely and far enough apart to be two dice (``policy.same_die``): dice side by side seen as one
    big die. The pieces of one big die come out smaller or unsure, one die seen twice in one place."""
    policy = reading.policy
    whole = [e for e in seen_dice
             if _covers(square, e) and e.side >= policy.whole_share * square[2] and is_sure(e, policy)]
    return any(np.hypot(a.cx - b.cx, a.cy - b.cy) >= policy.same_die * (a.side + b.side) / 2
               for i, a in enumerate(whole) for b in whole[i + 1:])


def _holds_as_pips(holder: Evidence, seen_dice: Sequence[Evidence], ones: int, reading: Reading) -> bool:
    """Whether the close-up place ``holder`` is a die that could show the ``ones`` dice the standard
    pass read as 1 as its pips: a die beyond doubt (``policy.pips_holder_not_a_die``),
    ``policy.pips_inside`` times the biggest of them, with at least as many pips, all inside it."""
    policy = reading.policy
    return (is_die(holder.peak, holder.probs, policy) and holder.probs[0] <= policy.pips_holder_not_a_die
            and holder.side >= policy.pips_inside * max(e.side for e in seen_dice)
            and holder.value >= ones and all(_covers((holder.cx, holder.cy, holder.side), e) for e in seen_dice))


def _covers(square: Square, e: Evidence) -> bool:
    """Whether the centre of the place ``e`` lies in ``square``."""
    cx, cy, side = square
    return abs(e.cx - cx) <= side / 2 and abs(e.cy - cy) <= side / 2
