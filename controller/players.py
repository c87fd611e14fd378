"""Seated players who bet by simple strategies, for the demo and the scripted sessions.

Why: ``make run`` and the crash test need a table with real money moving:
line bets with odds, one-roll bets, multi-roll bets that stay up, Bang's
outside bet before the dealer's roll. Each strategy looks at the table as a
player would (the point, what it already has on the layout, whose roll is
next) and says which bets to make; the bets enter the table as ordinary
``bet`` events, so they are journaled and checked like any other.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Callable

from controller.rules import open_bets
from controller.table import Phase, TableState


def _bet(seat: str, bet: str, amount: int, number: int | None = None) -> dict[str, Any]:
    event: dict[str, Any] = {"event": "bet", "seat": seat, "bet": bet, "amount": amount}
    if number is not None:
        event["number"] = number
    return event


def _has(state: TableState, seat: str, bet: str, number: int | None = None) -> bool:
    return any(b.seat == seat and b.bet == bet and (number is None or b.number == number) for b in open_bets(state.rules))


Strategy = Callable[[TableState, str, random.Random], list[dict[str, Any]]]


def pass_line_with_odds(state: TableState, seat: str, rng: random.Random) -> list[dict[str, Any]]:
    """$5 on the pass line at the come-out, full odds behind it once a point is set (§4620.3(e)(1), (e)(3))."""
    point = state.rules.point
    if point is None:
        return [] if _has(state, seat, "pass") else [_bet(seat, "pass", 500)]
    if _has(state, seat, "pass") and not _has(state, seat, "odds"):
        return [_bet(seat, "odds", 500 if point in (4, 6, 8, 10) else 600, point)]
    return []


def darkside_and_field(state: TableState, seat: str, rng: random.Random) -> list[dict[str, Any]]:
    """Don't pass at the come-out, a field bet every roll, a hard way now and then."""
    bets = []
    if state.rules.point is None and not _has(state, seat, "dont_pass"):
        bets.append(_bet(seat, "dont_pass", 500))
    bets.append(_bet(seat, "field", 300))
    if rng.random() < 0.3 and not _has(state, seat, "hard", 8):
        bets.append(_bet(seat, "hard", 100, 8))
    return bets


def come_and_props(state: TableState, seat: str, rng: random.Random) -> list[dict[str, Any]]:
    """A come bet once a point is set, place 6 on the come-out, an any-seven or eleven hunch."""
    point = state.rules.point
    bets = []
    if point is not None and not _has(state, seat, "come"):
        bets.append(_bet(seat, "come", 500))
    if point is None and not _has(state, seat, "place", 6):
        bets.append(_bet(seat, "place", 600, 6))
    hunch = rng.random()
    if hunch < 0.25:
        bets.append(_bet(seat, "any7", 100))
    elif hunch < 0.4:
        bets.append(_bet(seat, "eleven", 100))
    return bets


def hazard_high_low(state: TableState, seat: str, rng: random.Random) -> list[dict[str, Any]]:
    """High or low at even money (§4620.12(c)(3)-(4)), a number bet now and then."""
    bets = [_bet(seat, rng.choice(("high", "low")), 500)]
    if rng.random() < 0.5:
        bets.append(_bet(seat, "number", 200, rng.choice((9, 10, 11, 12))))
    return bets


def hazard_chuck_and_raffle(state: TableState, seat: str, rng: random.Random) -> list[dict[str, Any]]:
    """Chuck-a-luck on a lucky number, and the odd specific raffle at its $1.50 maximum (§4620.12(c)(1), (c)(7))."""
    lucky = rng.randint(1, 6)
    bets = [_bet(seat, "chuck", 300, lucky), _bet(seat, rng.choice(("odd", "even")), 200)]
    if rng.random() < 0.3:
        bets.append(_bet(seat, "raffle", 150, lucky))
    return bets


def bang_beat_the_dealer(state: TableState, seat: str, rng: random.Random) -> list[dict[str, Any]]:
    """Beat the Dealer before the dealer's roll (§4620.15(d)(8)); over 7 on the shooter's roll."""
    if state.rules.roller == "dealer":
        return [] if _has(state, seat, "beat_dealer") else [_bet(seat, "beat_dealer", 500)]
    return [_bet(seat, "over7", 300)]


def bang_inside(state: TableState, seat: str, rng: random.Random) -> list[dict[str, Any]]:
    """Field or under 7 on every roll, big 6 kept up until it is decided (§4620.15(d))."""
    bets = [_bet(seat, rng.choice(("field", "under7")), 300)]
    if not _has(state, seat, "big6"):
        bets.append(_bet(seat, "big6", 500))
    return bets


STRATEGIES: dict[str, tuple[Strategy, ...]] = {
    "craps": (pass_line_with_odds, darkside_and_field, come_and_props),
    "hazard": (hazard_high_low, hazard_chuck_and_raffle),
    "bang": (bang_beat_the_dealer, bang_inside),
}


@dataclass
class Players:
    """The seated players of one game; ``bets(state)`` is what they put down before a roll."""

    game: str
    seats: tuple[str, ...]
    rng: random.Random

    @classmethod
    def seated(cls, game: str, seats: tuple[str, ...], seed: int) -> "Players":
        count = len(STRATEGIES[game])
        return cls(game, tuple(seats[:count]), random.Random(seed))

    def bets(self, state: TableState) -> list[dict[str, Any]]:
        if state.phase is not Phase.BETTING:
            return []
        out: list[dict[str, Any]] = []
        # A table with fewer seats than strategies seats fewer players.
        for seat, strategy in zip(self.seats, STRATEGIES[self.game], strict=False):
            out.extend(strategy(state, seat, self.rng))
        return out
