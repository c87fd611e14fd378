"""Numbering the engine's reachable states for a breadth-first walk.

Both the exact edges (a Markov chain per bet) and the simulator's compiled
transition table walk every state the rules engine can reach, giving each a
row number the first time it is met. The walk iterates over ``order`` while
``number`` appends to it, which is what makes it breadth first; the bound
turns an engine bug that makes states grow without end into a clear error.
"""
from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

S = TypeVar("S", bound=Hashable)


class StateNumbering(Generic[S]):
    """Row numbers of states in the order first met, starting with ``start`` as row 0."""

    def __init__(self, start: S, limit: int, too_many: Callable[[int], Exception]) -> None:
        self.order: list[S] = [start]
        self._rows: dict[S, int] = {start: 0}
        self._limit = limit
        self._too_many = too_many

    def number(self, state: S) -> int:
        """The row of ``state``, adding it to the walk when new; raises ``too_many(limit)`` past the bound."""
        row = self._rows.get(state)
        if row is None:
            if len(self.order) >= self._limit:
                raise self._too_many(self._limit)
            row = self._rows[state] = len(self.order)
            self.order.append(state)
        return row
