"""Money and payout arithmetic in integer cents.

The regulations state payouts two ways, and mixing them up is the classic
mistake: "X to 1" means the player wins X per unit and keeps the stake
(paid back = stake + X * stake), while "X for 1" means the X already includes
the stake (paid back = X * stake, net win (X - 1) * stake). A :class:`Payout`
is built with :func:`to_one` or :func:`for_one` so that the source text can be
copied literally into the rule tables.

Fractional odds (6-5, 7-5, 2-3 ...) can produce a win that is not a whole
cent (or not a whole payout unit). The win is rounded *down* to the table's
payout unit: the house pays to the lowest chip, as a New York dealer does
(see docs/rules.md, "Rounding").
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction


@dataclass(frozen=True, slots=True)
class Payout:
    """The net win per unit staked, ``win`` to ``per`` (kept as two integers so
    that settling a bet stays integer arithmetic)."""

    win: int
    per: int = 1

    @property
    def net(self) -> Fraction:
        """The exact net win per unit staked."""
        return Fraction(self.win, self.per)

    def paid(self, stake: int, unit: int = 1) -> int:
        """Cents handed back on a win: the stake plus the win rounded down to ``unit``."""
        return stake + (stake * self.win // (self.per * unit)) * unit


def to_one(numerator: int, denominator: int = 1) -> Payout:
    """A payout quoted "numerator to denominator": the win, the stake comes back on top."""
    return Payout(numerator, denominator)


def for_one(x: int) -> Payout:
    """A payout quoted "x for 1": x units back in all, the stake included."""
    return Payout(x - 1, 1)


EVEN_MONEY = to_one(1)
