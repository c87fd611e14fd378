"""`dicetable simulate`: millions of seeded random rolls with a set of bets kept in action.

The engine is compiled once into a transition table
(:mod:`controller.analysis.compile`), the rolls are played through it with
numpy (:mod:`controller.analysis.runner`), and the measured edge of each bet
and of all of them together comes with a 95% confidence interval
(:mod:`controller.analysis.stats`).

The report also gives the *expected* long-run edge of each bet under the same
re-betting, computed from the same table: the stationary distribution of the
compiled chain weighs each state's expected net result and action. It can
differ from ``dicetable edges`` for bets that can push, because there the bet
is made at one chosen moment while here it is made again wherever the
previous one ended (see docs/analysis.md); for bets that cannot push they
agree exactly.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from controller.analysis.betspec import BetSpec
from controller.analysis.compile import PlannedBet, compile_table, plan
from controller.analysis.edges import analysis_config
from controller.analysis.runner import TransitionTable, play
from controller.analysis.stats import EdgeEstimate, ratio_edge
from controller.rules import TableConfig

MAX_STATES_FOR_EXPECTATION = 4_000  # dense stationary solve beyond this costs more than the run


@dataclass(frozen=True)
class BetResult:
    """One requested bet: its measured edge and the long-run edge expected from the engine."""

    label: str
    amount: int | None  # None: odds at the maximum allowed behind the flat bet
    measured: EdgeEstimate
    expected: float | None


@dataclass(frozen=True)
class SimulationReport:
    game: str
    rolls: int
    played_out: int  # rolls played beyond ``rolls`` so that no table stopped with a bet open
    seed: int
    tables: int
    states: int
    compile_seconds: float
    roll_seconds: float
    bets: tuple[BetResult, ...]
    total: EdgeEstimate
    expected_total: float | None

    @property
    def rolls_per_second(self) -> float:
        """Rolls played over the whole run (the played-out ones too), compiling the engine included."""
        return (self.rolls + self.played_out) / (self.compile_seconds + self.roll_seconds)

    def to_json(self) -> dict[str, Any]:
        def number(x: float | None) -> float | None:
            return x if x is not None and math.isfinite(x) else None  # JSON has no NaN or infinity

        def estimate(e: EdgeEstimate, expected: float | None) -> dict[str, Any]:
            return {"edge": number(e.edge), "ci95": [number(e.low), number(e.high)],
                    "expected": number(expected), "action": e.action, "net": e.net}

        return {
            "game": self.game,
            "rolls": self.rolls,
            "played_out": self.played_out,
            "seed": self.seed,
            "tables": self.tables,
            "states": self.states,
            "compile_seconds": self.compile_seconds,
            "roll_seconds": self.roll_seconds,
            "rolls_per_second": self.rolls_per_second,
            "bets": [{"bet": b.label, "amount": b.amount, **estimate(b.measured, b.expected)} for b in self.bets],
            "total": estimate(self.total, self.expected_total),
        }


def long_run_edges(table: TransitionTable) -> tuple[list[float], float] | None:
    """Expected edge per bet and overall under re-betting, from the chain's stationary distribution.

    None when the table is too large for a dense solve."""
    s, d = table.states, table.outcomes
    if s > MAX_STATES_FOR_EXPECTATION:
        return None
    transition = np.zeros((s, s))
    np.add.at(transition, (np.repeat(np.arange(s), d), table.next_state.reshape(-1)), 1.0 / d)
    # pi P = pi with sum(pi) = 1, solved in the least-squares sense (transient states get 0).
    system = np.vstack([transition.T - np.eye(s), np.ones((1, s))])
    rhs = np.zeros(s + 1)
    rhs[-1] = 1.0
    pi = np.linalg.lstsq(system, rhs, rcond=None)[0]
    net = pi @ table.net.mean(axis=1)
    action = pi @ table.action.mean(axis=1)
    per_bet = [float(-n / a) if a > 0 else float("nan") for n, a in zip(net, action)]
    return per_bet, float(-net.sum() / action.sum())


def simulate(game: str, specs: list[BetSpec], rolls: int, seed: int,
             config: TableConfig | None = None, tables: int | None = None) -> SimulationReport:
    """Compile the engine for ``specs`` and play ``rolls`` random rolls; see the module docstring."""
    config = analysis_config(config)
    started = time.perf_counter()
    planned: list[PlannedBet] = plan(game, specs, config)
    table = compile_table(game, planned, config)
    compile_seconds = time.perf_counter() - started
    totals = play(table, rolls, seed, tables)
    expectation = long_run_edges(table)
    per_bet, overall = expectation if expectation else ([None] * len(planned), None)
    bets = tuple(
        BetResult(p.spec.label, p.amount, ratio_edge(totals.net[:, b], totals.action[:, b]), per_bet[b])
        for b, p in enumerate(planned)
    )
    total = ratio_edge(totals.net.sum(axis=1), totals.action.sum(axis=1))
    return SimulationReport(game, rolls, totals.played_out, seed, totals.net.shape[0], table.states, compile_seconds,
                            totals.seconds, bets, total, overall)
