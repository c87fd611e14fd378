"""Compile the rules engine into a transition table for one set of bets.

The simulator's speed comes from here, and so does its honesty: the table is
built once by calling the real :func:`controller.rules.apply` on every state
the table can reach with these bets and every dice outcome, so each payout in
it is the engine's. A state is the engine's own immutable state between rolls
(before re-betting); from it, the re-betting policy puts back every requested
bet that is not on the layout and that the engine accepts, then each dice
outcome is applied, and the table records the next state and what each
requested bet won or lost.

Re-betting keeps one of each requested bet in action: ``pass`` is made again
on the next come-out after it is decided, ``come`` again once the previous
come bet is decided, ``place:6`` again after it wins, loses or is returned, and
``odds:pass`` / ``odds:come`` behind the flat bet as soon as it stands on a
number. A bet the engine refuses at that moment (a place bet on the point, a
come bet on a come-out) simply waits for a state where it is accepted; odds
refused behind their flat bet would stay off on that number, so that is an
error. Stakes made at the maximum are rounded down to the payout unit.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from controller.analysis.betspec import BetSpec
from controller.analysis.edges import ODDS_BACKS, analysis_config, largest_stake, standing_number
from controller.analysis.runner import TransitionTable
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
from controller.rules.craps import WRONG
from controller.rules.dice import all_rolls

MAX_STATES = 50_000


class CompileError(ValueError):
    """The bets cannot be simulated (unknown bet, never accepted, too many states)."""


@dataclass(frozen=True)
class PlannedBet:
    """A requested bet checked against the game's catalogue, with the stake it is made with.

    ``amount`` None (odds without ``=CENTS``) means the maximum odds behind the
    flat bet, which depends on the number it stands on.
    """

    spec: BetSpec
    amount: int | None

    @property
    def is_odds(self) -> bool:
        return self.spec.bet == "odds"


def plan(game: str, specs: list[BetSpec], config: TableConfig) -> list[PlannedBet]:
    """Check each spec against ``BET_KINDS[game]`` and give it its stake (the table maximum by default)."""
    if game not in BET_KINDS:
        raise CompileError(f"unknown game {game!r} (expected {', '.join(BET_KINDS)})")
    if not specs:
        raise CompileError("no bets: give at least one --bet")
    kinds = {kind.name: kind for kind in BET_KINDS[game]}
    planned, labels = [], set()
    for spec in specs:
        kind = kinds.get(spec.bet)
        if kind is None:
            raise CompileError(f"{game} has no bet {spec.bet!r} (bets: {', '.join(kinds)})")
        if spec.label in labels:
            raise CompileError(f"{spec.label} is given twice")
        labels.add(spec.label)
        if kind.name == "odds":
            if spec.number not in ODDS_BACKS:
                raise CompileError(f"say which bet the odds back: odds:{'|odds:'.join(ODDS_BACKS)}")
            planned.append(PlannedBet(spec, spec.amount))
            continue
        if kind.numbers == (None,):
            if spec.number is not None:
                raise CompileError(f"{spec.bet} takes no number (got {spec.number})")
        elif spec.number not in kind.numbers:
            raise CompileError(f"{spec.bet} needs a number among {', '.join(map(str, kind.numbers))}, "
                               f"e.g. {spec.bet}:{kind.numbers[0]}")
        amount = spec.amount or largest_stake(config, config.maximum(spec.bet, spec.number))
        planned.append(PlannedBet(spec, amount))
    _check_odds_have_their_flat_bet(planned)
    return planned


def _check_odds_have_their_flat_bet(planned: list[PlannedBet]) -> None:
    """Refuse odds whose flat bet is not requested: they could never be made,
    and the engine, never asked, would give no reason."""
    flats = {p.spec.bet for p in planned if not p.is_odds}
    for p in planned:
        if p.is_odds and p.spec.number not in flats:
            raise CompileError(f"{p.spec.label} stands behind a {p.spec.number} bet: "
                               f"request {p.spec.number} too (--bet {p.spec.number})")


class _BetKeeper:
    """Keeps the requested bets in action: puts each back on the layout once it is decided, and
    remembers why the engine refused any."""

    def __init__(self, bets: list[PlannedBet], seat: str, config: TableConfig) -> None:
        self.bets, self.seat, self.config = bets, seat, config
        self.accepted = [False] * len(bets)
        self.refusal: list[str | None] = [None] * len(bets)

    def __call__(self, state: GameState) -> GameState:
        for phase in (False, True):  # flat bets first, then the odds behind them
            for i, bet in enumerate(self.bets):
                if bet.is_odds != phase:
                    continue
                event = self._event(state, bet)
                if event is None:
                    continue
                try:
                    state = apply(state, event).state
                    self.accepted[i] = True
                except BetRejected as no:
                    if bet.is_odds:
                        raise CompileError(self._odds_refused(bet, event, no)) from no
                    self.refusal[i] = self.refusal[i] or f"{no.reason} ({no.rule})"
        return state

    @staticmethod
    def _odds_refused(bet: PlannedBet, event: Bet, no: BetRejected) -> str:
        """Odds are only offered behind a flat bet standing on its number, where a
        refusal is no matter of waiting: they would silently stay off on that
        number, so the run would not measure the bet asked for."""
        hint = "" if bet.amount is None else "; give a stake every number accepts, or none for the maximum"
        return f"{bet.spec.label} refused on {event.number}: {no.reason} ({no.rule}){hint}"

    def _event(self, state: GameState, bet: PlannedBet) -> Bet | None:
        spec, up = bet.spec, open_bets(state)
        if not bet.is_odds:
            if any(_same_space(o, spec) for o in up):
                return None
            # plan() gave a flat bet its stake and checked its number against the catalogue.
            assert bet.amount is not None and not isinstance(spec.number, str)
            return Bet(self.seat, spec.bet, bet.amount, spec.number)
        on = str(spec.number)
        if any(o.bet == "odds" and o.on == on for o in up):
            return None
        for flat in up:
            number = standing_number(state, flat)
            if flat.bet == on and number is not None:
                amount = bet.amount or largest_stake(self.config,
                                                     self.config.max_odds(on in WRONG, number, flat.amount))
                return Bet(self.seat, "odds", amount, number, on)
        return None


def _same_space(open_bet: OpenBet, spec: BetSpec) -> bool:
    return open_bet.bet == spec.bet and (spec.number is None or open_bet.number == spec.number)


def _owner(settlement: Settlement, bets: list[PlannedBet], odds_up: list[OpenBet]) -> int:
    """Which requested bet a settlement belongs to.

    Odds are recognised by the odds that stood before the roll (number and
    stake): a settlement names the number but not the flat bet behind it.
    """
    if settlement.bet == "odds":
        for k, stood in enumerate(odds_up):
            if stood.number == settlement.number and stood.amount == settlement.amount:
                del odds_up[k]
                return next(i for i, b in enumerate(bets) if b.is_odds and b.spec.number == stood.on)
    else:
        for i, bet in enumerate(bets):
            if not bet.is_odds and bet.spec.bet == settlement.bet and (
                    bet.spec.number is None or bet.spec.number == settlement.number):
                return i
    raise CompileError(f"a settlement matches none of the requested bets: {settlement}")


def compile_table(game: str, bets: list[PlannedBet], config: TableConfig | None = None,
                  max_states: int = MAX_STATES) -> TransitionTable:
    """Walk every state reachable with ``bets`` (re-betting as they resolve) through the engine."""
    config = analysis_config(config)
    keeper = _BetKeeper(bets, config.seats[0], config)
    outcomes = all_rolls(DICE[game])
    start = new_game(game, config)
    states = StateNumbering(
        start, max_states, lambda n: CompileError(f"more than {n} reachable states; simulate fewer bets at once"))
    next_rows, net_rows, action_rows, idle = [], [], [], []
    for state in states.order:  # grows while walked: breadth first over the reachable states
        betted = keeper(state)
        odds_before = [o for o in open_bets(betted) if o.bet == "odds"]
        nxt = np.empty(len(outcomes), dtype=np.int32)
        net = np.zeros((len(outcomes), len(bets)), dtype=np.int64)
        action = np.zeros_like(net)
        for d, dice in enumerate(outcomes):
            step = apply(betted, Roll(dice))
            odds_up = list(odds_before)
            for effect in step.effects:
                if isinstance(effect, Settlement):
                    b = _owner(effect, bets, odds_up)
                    net[d, b] += effect.paid - effect.amount
                    action[d, b] += effect.amount
            nxt[d] = states.number(step.state)
        next_rows.append(nxt)
        net_rows.append(net)
        action_rows.append(action)
        idle.append(not open_bets(state))
    never = [b.spec.label + (f": {why}" if why else "")
             for b, ok, why in zip(bets, keeper.accepted, keeper.refusal) if not ok]
    if never:
        raise CompileError("never accepted at this table: " + "; ".join(never))
    table = TransitionTable(
        next_state=np.stack(next_rows),
        net=np.stack(net_rows),
        action=np.stack(action_rows),
        idle=np.array(idle, dtype=bool),
        labels=tuple(b.spec.label for b in bets),
    )
    _check_bets_all_settle(table)
    return table


def _check_bets_all_settle(table: TransitionTable) -> None:
    """Refuse a set of bets that can keep some bet open for ever.

    The runner plays each table on until none of its bets is open (so that no
    bet is left uncounted); that ends only if such a state can be reached from
    every state."""
    settles = table.idle.copy()
    while True:
        grown = settles | settles[table.next_state].any(axis=1)
        if (grown == settles).all():
            break
        settles = grown
    if not settles.all():
        raise CompileError(f"with {', '.join(table.labels)} some bet is always open, so a run "
                           "could never stop with every bet settled; simulate fewer bets at once")
