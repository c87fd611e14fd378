"""The bets on the layout: an immutable, canonically ordered tuple of wagers.

Wagers are kept sorted by (seat, bet, number) so that two states holding the
same bets are equal and hash alike whatever order the bets were made in;
that is what lets the edge calculation enumerate reachable states.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Iterable

from messages.money import dollars
from controller.rules.records import BetRejected


@dataclass(frozen=True, slots=True)
class Wager:
    """One seat's stake on one betting space.

    ``odds`` is the odds taken or laid behind a line or come bet (craps
    only); it lives on its flat bet because it is decided with it. A come
    bet in the come box has ``number`` None; once the dealer moves it to a
    point box ``number`` is that point.
    """

    seat: str
    bet: str
    number: int | None
    amount: int
    odds: int = 0

    @property
    def key(self) -> tuple[str, str, int]:
        return (self.seat, self.bet, self.number or 0)


@dataclass(frozen=True, slots=True)
class OpenBet:
    """One stake on the layout as a player or the analysis sees it.

    ``on`` is set for odds: the flat bet (``pass``, ``dont_pass``, ``come``,
    ``dont_come``) they back.
    """

    seat: str
    bet: str
    number: int | None
    amount: int
    on: str | None = None


Layout = tuple[Wager, ...]


def find(layout: Layout, seat: str, bet: str, number: int | None) -> Wager | None:
    for wager in layout:
        if wager.seat == seat and wager.bet == bet and wager.number == number:
            return wager
    return None


def put(layout: Layout, wager: Wager) -> Layout:
    """The layout with ``wager`` replacing any wager on the same space."""
    rest = [w for w in layout if w.key != wager.key]
    return tuple(sorted([*rest, wager], key=lambda w: w.key))


def without(layout: Layout, wager: Wager) -> Layout:
    return tuple(w for w in layout if w.key != wager.key)


def merged(layout: Layout, wagers: Iterable[Wager]) -> Layout:
    """Add wagers, joining stakes that land on a space already taken (come bets
    moving to a box where the seat already has one)."""
    out = layout
    for wager in wagers:
        there = find(out, wager.seat, wager.bet, wager.number)
        if there is not None:
            wager = replace(wager, amount=there.amount + wager.amount, odds=there.odds + wager.odds)
        out = put(out, wager)
    return out


def check_stake(total: int, minimum: int, maximum: int, what: str, rule: str) -> None:
    """Refuse a stake under the table minimum or (with what is already there) over the maximum."""
    if total < minimum:
        raise BetRejected(f"{what}: {dollars(total)} is under the table minimum of {dollars(minimum)}", rule)
    if total > maximum:
        raise BetRejected(f"{what}: {dollars(total)} is over the maximum of {dollars(maximum)}", rule)


def open_bets(layout: Layout, point: int | None = None) -> tuple[OpenBet, ...]:
    """The layout as a flat list, odds listed right after the bet they back.

    Odds behind a line bet (number None) carry the shooter's ``point``.
    """
    out = []
    for w in layout:
        out.append(OpenBet(w.seat, w.bet, w.number, w.amount))
        if w.odds:
            out.append(OpenBet(w.seat, "odds", w.number if w.number is not None else point, w.odds, on=w.bet))
    return tuple(out)
