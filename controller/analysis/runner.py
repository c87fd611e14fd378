"""Play random rolls through a compiled transition table with numpy.

The table (see :mod:`controller.analysis.compile`) says, for every reachable
state of the rules engine and every dice outcome, which state comes next and
what each tracked bet won or lost on that roll. Playing a roll is then two
array look-ups instead of a call into the engine, which is what makes
millions of rolls per second possible while every payout still comes from the
engine itself.

A single table's rolls depend on one another (the next state depends on the
last), so they cannot be vectorised; instead several independent tables play
side by side, and numpy advances all of them by one roll per step. The tables
also serve as independent replicates for the confidence interval
(:mod:`controller.analysis.stats`).

Once its share of the rolls is played, a table that still has bets open plays
on until none is (and stops at once if none is). Dropping the open bets
instead would bias the estimate: the bets still open are the long-lasting
ones, whose results lean one way (a don't pass with a point set is worth more
than one just made), and with many tables and few rolls each that bias is
larger than the interval. Played to the end, every bet made is counted with
its whole result, and the extra rolls are reported (``RunTotals.played_out``).
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

# How many tables share the rolls by default. More tables means fewer numpy
# steps (faster) and more replicates for the interval, but more rolls played on
# to settle the bets open at the end of each table's share (see above).
MIN_TABLES = 32
MAX_TABLES = 4096
_CHUNK_ELEMENTS = 1 << 20  # rolls drawn and gathered at once (bounds memory)


@dataclass(frozen=True)
class TransitionTable:
    """The engine compiled over its reachable states, for one set of bets.

    ``next_state[s, d]``: index of the state after outcome ``d`` from state ``s``
    (re-betting included). ``net[s, d, b]``: the player's net result in cents
    of tracked bet ``b`` settled on that roll (paid minus stake); ``action[s,
    d, b]``: the stakes of the bets ``b`` settled on that roll (pushes
    included). ``idle[s]``: no tracked bet is open in state ``s`` (before
    re-betting), where a table may stop without leaving a bet uncounted.
    Outcomes are equally likely (every ordered face combination).
    """

    next_state: np.ndarray
    net: np.ndarray
    action: np.ndarray
    idle: np.ndarray
    labels: tuple[str, ...]
    start: int = 0

    @property
    def states(self) -> int:
        return self.next_state.shape[0]

    @property
    def outcomes(self) -> int:
        return self.next_state.shape[1]


@dataclass(frozen=True)
class RunTotals:
    """Per-table sums of a run: ``net[k, b]`` and ``action[k, b]`` in cents.

    ``rolls`` is the number asked for; ``played_out`` the rolls played beyond
    it so that no table stopped with a bet open."""

    net: np.ndarray
    action: np.ndarray
    rolls: int
    played_out: int
    seconds: float


def table_count(rolls: int) -> int:
    """How many independent tables share ``rolls`` (see ``MIN_TABLES``)."""
    return int(min(MAX_TABLES, max(MIN_TABLES, math.isqrt(rolls) // 4), max(1, rolls)))


def check_tables(tables: int, rolls: int) -> None:
    """Refuse a table count that leaves tables without a roll or exceeds ``MAX_TABLES``.

    A table with no roll adds nothing but a replicate that says nothing; past
    ``MAX_TABLES`` the per-step arrays stop paying for themselves."""
    if not 1 <= tables <= MAX_TABLES:
        raise ValueError(f"tables must be between 1 and {MAX_TABLES}, got {tables}")
    if tables > rolls:
        raise ValueError(f"{tables} tables for {rolls} rolls: give at most one table per roll")


def play(table: TransitionTable, rolls: int, seed: int, tables: int | None = None) -> RunTotals:
    """Play ``rolls`` random rolls in total, spread over ``tables`` tables, seeded by
    ``seed``, then play on at each table until none of its bets is open."""
    if rolls < 1:
        raise ValueError("rolls must be at least 1")
    k = tables or table_count(rolls)
    check_tables(k, rolls)
    started = time.perf_counter()
    rng = np.random.default_rng(seed)
    n_out = table.outcomes
    # States are carried pre-multiplied by the number of outcomes, so that one
    # roll is one addition (row start + outcome) and one look-up.
    flat_next = np.ascontiguousarray(table.next_state, dtype=np.intp).reshape(-1) * n_out
    flat_net = np.ascontiguousarray(table.net, dtype=np.int64).reshape(flat_next.size, -1)
    flat_action = np.ascontiguousarray(table.action, dtype=np.int64).reshape(flat_next.size, -1)
    state = np.full(k, table.start * n_out, dtype=np.intp)
    net = np.zeros((k, flat_net.shape[1]), dtype=np.int64)
    action = np.zeros_like(net)

    steps, extra = divmod(rolls, k)
    chunk = max(1, _CHUNK_ELEMENTS // k)
    done = 0
    while done < steps:
        count = min(chunk, steps - done)
        dice = rng.integers(0, n_out, size=(count, k), dtype=np.intp)
        index = np.empty_like(dice)
        for t in range(count):
            np.add(state, dice[t], out=index[t])
            np.take(flat_next, index[t], out=state)
        net += flat_net[index].sum(axis=0)
        action += flat_action[index].sum(axis=0)
        done += count
    if extra:  # the remainder: one more roll at the first `extra` tables
        index = state[:extra] + rng.integers(0, n_out, size=extra, dtype=np.intp)
        state[:extra] = flat_next[index]
        net[:extra] += flat_net[index]
        action[:extra] += flat_action[index]
    played_out = _play_out(table, state, net, action, flat_next, flat_net, flat_action, rng)
    return RunTotals(net, action, rolls, played_out, time.perf_counter() - started)


def _play_out(table: TransitionTable, state: np.ndarray, net: np.ndarray, action: np.ndarray,
              flat_next: np.ndarray, flat_net: np.ndarray, flat_action: np.ndarray,
              rng: np.random.Generator) -> int:
    """Roll on at every table that has a bet open until none has; returns the rolls added.

    Updates ``state``, ``net`` and ``action`` in place. Ends with probability
    one because the compiled table has an idle state reachable from every state
    (:func:`controller.analysis.compile.compile_table` checks it)."""
    n_out = table.outcomes
    busy = np.flatnonzero(~table.idle[state // n_out])
    added = 0
    while busy.size:
        index = state[busy] + rng.integers(0, n_out, size=busy.size, dtype=np.intp)
        state[busy] = flat_next[index]
        net[busy] += flat_net[index]
        action[busy] += flat_action[index]
        added += busy.size
        busy = busy[~table.idle[state[busy] // n_out]]
    return added
