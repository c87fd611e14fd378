"""The exact house edge of every bet, computed from the rules engine itself.

Nothing here knows a payout. For each bet of the engine's catalogue
(:data:`controller.rules.BET_KINDS`) the bet is made on a table with one
seat, then every dice outcome (36 for two dice, 216 for three) is fed to the
engine's own :func:`controller.rules.apply`, from every state the table can
reach while the bet is still up. That gives an absorbing Markov chain whose
transient states are the engine's reachable states and whose absorption is
the bet's settlement; :mod:`controller.analysis.markov` solves it exactly.
A one-roll bet is the chain with a single state, i.e. a direct expectation.

The edge is per unit bet made: ``-E[paid - amount] / amount`` over the bet's
whole life, where a push (``paid == amount``) counts as a bet made that
neither won nor lost. ``push`` is the probability that the bet ends that way,
so the edge per bet *decided* is ``edge / (1 - push)``. See docs/analysis.md.

Where the bet is made matters for bets that can push (at a table that calls
place bets off on the come-out, one is returned when a come-out roll makes
its number the point): the bet is made
at the first moment the engine accepts it on a fresh table with nothing else
on it, trying the start first and then the states one roll away in the order
of the dice outcomes (so a come bet is made once a point of 4 is
established). Odds are made at their maximum behind a line or come bet at
the table maximum, in the first such state where that bet stands on the
number.
"""
from __future__ import annotations

from collections import Counter, deque
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, Callable, Iterable, Iterator

from controller.analysis.markov import AbsorbingChain, expected_rewards
from controller.analysis.states import StateNumbering
from controller.rules import (
    BET_KINDS,
    DICE,
    Bet,
    BetRejected,
    GameState,
    OpenBet,
    Roll,
    Settlement,
    TableConfig,
    apply,
    new_game,
    open_bets,
)
from controller.rules.craps import LINE, ODDS_RULE, WRONG
from controller.rules.dice import all_rolls

GAMES = tuple(BET_KINDS)
ODDS_BACKS = tuple(ODDS_RULE)  # the flat bets odds can stand behind: pass, dont_pass, come, dont_come
MAX_STATES = 20_000  # a bet whose chain grows past this is a bug in the engine or here, not a big chain
SEARCH_DEPTH = 3  # rolls tried from a fresh table to find where a bet is accepted


class EdgeError(RuntimeError):
    """A bet the analysis could not make or follow to its settlement (names the bet)."""


@dataclass(frozen=True)
class BetEdge:
    """The exact edge of one bet: ``edge`` per unit bet made, ``push`` the chance it is returned."""

    game: str
    bet: str
    number: int | None
    edge: Fraction
    push: Fraction
    amount: int
    on: str | None = None
    states: int = 1

    def to_json(self) -> dict[str, Any]:
        """The ``dicetable edges --json`` row; ``edge`` and ``push`` as exact fraction strings."""
        return {
            "game": self.game,
            "bet": self.bet,
            "number": self.number,
            "edge": str(self.edge),
            "on": self.on,
            "push": str(self.push),
        }


@dataclass(frozen=True)
class Opening:
    """A state with the studied bet just made, and how to recognise its settlement."""

    state: GameState
    amount: int
    settles: Callable[[Settlement], bool]


def analysis_config(config: TableConfig | None = None) -> TableConfig:
    """The table's configuration with a single seat: who shoots never changes a payout,
    and one seat keeps the shooter from multiplying the reachable states."""
    config = config or TableConfig()
    return replace(config, seats=config.seats[:1])


def largest_stake(config: TableConfig, cents: int) -> int:
    """``cents`` rounded down to the table's payout unit: the largest stake the engine accepts
    under that maximum (it refuses a stake that is not a whole number of units, and a limit or
    a maximum odds computed from one need not be)."""
    return cents - cents % config.payout_unit


def _anywhere(_: Any) -> bool:
    return True


def _first_accepting(start: GameState, event: Bet, outcomes: list[tuple[int, ...]], what: str,
                     keep: Callable[[Any], bool] = _anywhere,
                     where: Callable[[GameState], bool] = _anywhere) -> GameState:
    """The first state, breadth first in dice order, that accepts ``event``.

    ``keep(step)`` says whether a roll's result leaves the table usable (for
    odds: it must not settle the flat bet); the bet is offered only in states
    where ``where(state)`` holds (for odds: the flat bet stands on their
    number). Raises :class:`EdgeError` naming ``what`` and the engine's reason
    when no state within ``SEARCH_DEPTH`` rolls accepts it, since "not
    accepted" alone does not say what to change: the reason given most often,
    as the ones given in a few states only are about the moment (the wrong
    point), not the bet."""
    queue, seen = deque([(start, 0)]), {start}
    reasons: Counter[str] = Counter()
    while queue:
        state, depth = queue.popleft()
        if where(state):
            try:
                return apply(state, event).state
            except BetRejected as no:
                reasons[f"{no.reason} ({no.rule})"] += 1
        if depth == SEARCH_DEPTH:
            continue
        for dice in outcomes:
            step = apply(state, Roll(dice))
            if keep(step) and step.state not in seen:
                seen.add(step.state)
                queue.append((step.state, depth + 1))
    why = reasons.most_common(1)[0][0] if reasons else "it is never offered"
    raise EdgeError(f"{what}: no state within {SEARCH_DEPTH} rolls accepts it: {why}")


def openings(game: str, config: TableConfig | None = None) -> Iterator[tuple[str, int | None, str | None, Opening]]:
    """Every bet of ``game`` made once, as ``(bet, number, on, Opening)``."""
    config = analysis_config(config)
    seat = config.seats[0]
    outcomes = all_rolls(DICE[game])
    fresh = new_game(game, config)
    for kind in BET_KINDS[game]:
        for number in kind.numbers:
            if kind.name == "odds":
                assert number is not None  # odds are made on a point
                for on in ODDS_BACKS:
                    yield kind.name, number, on, _odds_opening(fresh, seat, on, number, config, outcomes)
                continue
            amount = largest_stake(config, config.maximum(kind.name, number))
            made = _first_accepting(fresh, Bet(seat, kind.name, amount, number), outcomes,
                                    f"{game} {kind.name}" + ("" if number is None else f" {number}"))
            yield kind.name, number, None, Opening(made, amount, _settles(kind.name))


def _odds_opening(fresh: GameState, seat: str, on: str, number: int, config: TableConfig,
                  outcomes: list[tuple[int, ...]]) -> Opening:
    """Odds at their maximum on ``number`` behind an ``on`` bet at the table maximum."""
    flat = largest_stake(config, config.maximum(on, None))
    base = _first_accepting(fresh, Bet(seat, on, flat), outcomes, f"craps {on}")
    amount = largest_stake(config, config.max_odds(on in WRONG, number, flat))
    odds = Bet(seat, "odds", amount, number, on)
    made = _first_accepting(base, odds, outcomes, f"craps odds {number} on {on}",
                            keep=lambda step: not step.effects, where=lambda state: _stands_on(state, on, number))
    return Opening(made, amount, _settles("odds"))


def _settles(bet: str) -> Callable[[Settlement], bool]:
    """How to recognise the settlement of a ``bet``."""
    return lambda e: e.bet == bet


def _stands_on(state: GameState, on: str, number: int) -> bool:
    """Whether an ``on`` bet stands on ``number``, i.e. a state where odds on ``number`` behind it
    belong: only there is a refusal worth reporting."""
    return any(flat.bet == on and standing_number(state, flat) == number for flat in open_bets(state))


def standing_number(state: GameState, flat: OpenBet) -> int | None:
    """The number a flat bet stands on, where odds behind it belong: a line bet's is the shooter's
    point, a come bet's its own; None for a line bet on the come-out and a come bet still in the
    come box, which have no number yet."""
    if flat.number is not None:
        return flat.number
    return getattr(state, "point", None) if flat.bet in LINE else None


def edge_of(opening: Opening, outcomes: list[tuple[int, ...]]) -> tuple[Fraction, Fraction, int]:
    """``(edge, push probability, number of states)`` of the bet in ``opening``, exactly."""
    p = Fraction(1, len(outcomes))
    states = StateNumbering(
        opening.state, MAX_STATES, lambda n: EdgeError(f"more than {n} states reachable before the bet settles"))
    transitions: list[dict[int, Fraction]] = []
    net: list[Fraction] = []
    pushed: list[Fraction] = []
    for state in states.order:  # grows while we walk it: a breadth-first walk of the reachable states
        row: dict[int, Fraction] = {}
        reward = push = Fraction(0)
        for dice in outcomes:
            step = apply(state, Roll(dice))
            settled = [e for e in step.effects if isinstance(e, Settlement) and opening.settles(e)]
            if settled:
                reward += p * sum(e.paid - e.amount for e in settled)
                if all(e.result == "push" for e in settled):
                    push += p
                continue
            j = states.number(step.state)
            row[j] = row.get(j, Fraction(0)) + p
        transitions.append(row)
        net.append(reward)
        pushed.append(push)
    value = expected_rewards(AbsorbingChain(transitions, net))[0]
    push_probability = expected_rewards(AbsorbingChain(transitions, pushed))[0]
    return -value / opening.amount, push_probability, len(states.order)


def house_edges(games: Iterable[str] = GAMES, config: TableConfig | None = None) -> list[BetEdge]:
    """The exact edge of every bet of every game in ``games``, in catalogue order."""
    rows = []
    for game in games:
        if game not in BET_KINDS:
            raise ValueError(f"unknown game {game!r} (expected {', '.join(BET_KINDS)})")
        outcomes = all_rolls(DICE[game])
        for bet, number, on, opening in openings(game, config):
            try:
                edge, push, states = edge_of(opening, outcomes)
            except (EdgeError, ValueError) as exc:
                raise EdgeError(f"{game} {bet} {number or ''} {on or ''}: {exc}".replace("  ", " ")) from exc
            rows.append(BetEdge(game, bet, number, edge, push, opening.amount, on, states))
    return rows
