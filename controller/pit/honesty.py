"""The dice's honesty: the faces they showed against the exact odds (pure; no SciPy at the table).

A loaded die and a camera that misreads a face both show the same way: one face comes up more often
than one time in six. Two tests look at the faces of every roll the table settled (the ``roll``
effect's ``dice``, however they were read), pooled over the dice, since a die's place in a roll is
where the camera found it, not which die it is:

- **The chi-square test** of the pooled counts against 1/6 each (5 degrees of freedom), with its
  p-value from the regularized upper incomplete gamma function (:func:`gamma_q`): a verdict on all
  the rolls at once, for the report.
- **The sequential test**, a CUSUM for each face (Page's, on the log-likelihood ratio of the face
  at :data:`ALTERNATIVE` against 1/6, die read by die read): ``S = max(0, S + log(p1/p0))`` when
  the face shows, ``S = max(0, S + log((1-p1)/(1-p0)))`` when another does. It raises an alarm the
  first time one face's ``S`` reaches :data:`THRESHOLD`, and keeps it until the watch starts again
  (a new shift, a new dice set). Why a CUSUM: it watches while the dice roll, forgets a lucky
  streak that ends, and its alarm says which face.

The constants were chosen with ``bench/dice_honesty.py``, which measures the test on simulated
dice (docs/operation.md, "The dice's honesty", has its figures): at a craps table it flags dice of
which one die shows 6 one time in four within 1,000 rolls in about 97 % of runs, and flags fair dice
in about 0.1 % of 500-roll shifts; fair dice never changed raise a false alarm after some
thousands of rolls (the bench says how many), which is why the watch starts again with each shift
and each new set of dice.

    >>> round(chi_square_tail(11.0705, 5), 4), round(gamma_q(1.0, 2.0), 6)
    (0.05, 0.135335)
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

FACES = (1, 2, 3, 4, 5, 6)
#: The degrees of freedom of the pooled counts' chi-square: six faces, their total given.
DF = len(FACES) - 1
#: The sequential test's alternative: one face at this probability (rather than 1/6)...
ALTERNATIVE = 0.185
#: ...and the statistic at which it raises its alarm.
THRESHOLD = 5.0
_SHOWN = math.log(ALTERNATIVE * 6)
_NOT_SHOWN = math.log((1 - ALTERNATIVE) / (5 / 6))
#: Where the series and the continued fraction of the incomplete gamma function stop: the next
#: term changes the sum by less than this, relatively (a double's precision).
_EPSILON = 1e-15
_MAX_TERMS = 10_000
_TINY = 1e-300


def is_face(value: Any) -> bool:
    """A whole number 1 to 6 (not a bool: ``True == 1``), as a journal row's die should be."""
    return isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 6


def gamma_q(a: float, x: float) -> float:
    """The regularized upper incomplete gamma function Q(a, x) = Γ(a, x) / Γ(a), for a > 0, x >= 0.

    Below ``x = a + 1`` it is 1 - P(a, x), P by its power series
    ``P = x^a e^-x / Γ(a+1) · Σ x^n / ((a+1)(a+2)···(a+n))``, which converges fast there; above, Q by
    its continued fraction ``Q = x^a e^-x / Γ(a) · 1/(x+1-a- 1(1-a)/(x+3-a- 2(2-a)/(x+5-a- ...)))``,
    evaluated from the front with the modified Lentz method, which converges fast there. Both are
    summed in doubles to a relative ``1e-15``; the prefactor is taken in logarithms, so no power
    or gamma function overflows."""
    if not a > 0 or not x >= 0 or math.isinf(a):
        raise ValueError(f"gamma_q needs a > 0 and x >= 0, got a={a}, x={x}")
    if x == 0:
        return 1.0
    if math.isinf(x):
        return 0.0
    log_front = a * math.log(x) - x
    if x < a + 1:
        term = total = 1.0 / a
        n = 0
        while abs(term) > abs(total) * _EPSILON and n < _MAX_TERMS:
            n += 1
            term *= x / (a + n)
            total += term
        return max(0.0, 1.0 - total * math.exp(log_front - math.lgamma(a)))
    # Lentz: f = b0 + a1/(b1 + a2/(b2 + ...)), with b_n = x + 2n + 1 - a and a_n = -n(n - a).
    b = x + 1 - a
    c = 1.0 / _TINY
    d = 1.0 / b
    fraction = d
    for n in range(1, _MAX_TERMS):
        an = -n * (n - a)
        b += 2
        d = an * d + b
        d = _TINY if abs(d) < _TINY else d
        c = b + an / c
        c = _TINY if abs(c) < _TINY else c
        d = 1.0 / d
        delta = d * c
        fraction *= delta
        if abs(delta - 1) < _EPSILON:
            break
    return min(1.0, fraction * math.exp(log_front - math.lgamma(a)))


def chi_square_tail(statistic: float, df: int) -> float:
    """P(X >= ``statistic``) for X chi-square with ``df`` degrees of freedom: Q(df/2, statistic/2)."""
    return gamma_q(df / 2, max(0.0, statistic) / 2)


def chi_square(counts: Sequence[int]) -> tuple[float, float] | None:
    """The chi-square statistic of face ``counts`` (faces 1 to 6) against 1/6 each, and its p-value;
    None before any die."""
    total = sum(counts)
    if total == 0:
        return None
    expected = total / len(FACES)
    statistic = sum((count - expected) ** 2 for count in counts) / expected
    return statistic, chi_square_tail(statistic, DF)


class DiceWatch:
    """The faces of the rolls since a start (a shift opened, a dice set put in play, the first row
    of a report's range), by place in the roll and pooled, with the CUSUM of each face.

    ``since`` is the journal row the watch began at (None: the first row it saw), ``name`` the dice
    set's. Fed roll by roll (:meth:`add`), in the journal's order."""

    def __init__(self, since: int | None = None, name: str | None = None):
        self.since = since
        self.name = name
        self.rolls = 0
        self.by_place: list[list[int]] = []
        self.pooled = [0] * len(FACES)
        self.cusum = [0.0] * len(FACES)
        self.peak = 0.0
        self.peak_face: int | None = None
        self.alarm: dict[str, int] | None = None

    def add(self, dice: Sequence[Any], seq: int) -> None:
        """One settled roll's ``dice`` (journal row ``seq``); what is not a face is passed over."""
        faces = [die if is_face(die) else None for die in dice]
        if not any(faces):
            return
        self.rolls += 1
        while len(self.by_place) < len(faces):
            self.by_place.append([0] * len(FACES))
        for place, die in enumerate(faces):
            if die is not None:
                self.by_place[place][die - 1] += 1
                self._watch(die, seq)

    def _watch(self, die: int, seq: int) -> None:
        """One die read: its pooled count, and every face's CUSUM a step on."""
        self.pooled[die - 1] += 1
        for index in range(len(FACES)):
            step = _SHOWN if index == die - 1 else _NOT_SHOWN
            self.cusum[index] = max(0.0, self.cusum[index] + step)
            if self.cusum[index] > self.peak:
                self.peak, self.peak_face = self.cusum[index], index + 1
            if self.alarm is None and self.cusum[index] >= THRESHOLD:
                self.alarm = {"seq": seq, "face": index + 1, "rolls": self.rolls}

    def to_json(self) -> dict[str, Any]:
        """What the report, the pit and the floor show of the watch; numbers rounded to six places,
        the same wherever the rows are read."""
        tested = chi_square(self.pooled)
        dice = sum(self.pooled)
        return {
            "since": self.since,
            "set": self.name,
            "rolls": self.rolls,
            "dice": dice,
            "faces": list(self.pooled),
            "expected": round(dice / len(FACES), 6),
            "chi_square": None if tested is None else round(tested[0], 6),
            "df": DF,
            "p_value": None if tested is None else round(tested[1], 6),
            "cusum": {"face": self.peak_face, "peak": round(self.peak, 6),
                      "now": [round(value, 6) for value in self.cusum], "threshold": THRESHOLD},
            "alarm": self.alarm,
        }
