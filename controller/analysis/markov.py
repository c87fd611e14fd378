"""Exact expected rewards of absorbing Markov chains, in rational arithmetic.

A bet that lasts several rolls (a pass line bet, a place bet, a hardway) is an
absorbing Markov chain: each transient state is a position of the table with
the bet still in action, and the chain is absorbed when the bet is settled.
The expected net result ``v`` of the bet from every transient state satisfies

    v = r + Q v        that is        (I - Q) v = r

where ``Q`` holds the transient-to-transient probabilities and ``r`` the
expected net result collected on the roll that settles the bet. Solving this
system with :class:`fractions.Fraction` gives the exact value (``7/495``, not
``0.01414...``), which is what the house-edge table promises. The systems here
are small (tens of states) and sparse, so plain Gauss-Jordan elimination over
dictionaries of non-zero coefficients is both exact and fast enough.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Mapping, Sequence


class ChainNeverAbsorbs(ValueError):
    """Raised when some transient state cannot reach absorption (``I - Q`` is singular)."""


@dataclass(frozen=True)
class AbsorbingChain:
    """An absorbing chain given by its transient part.

    ``transitions[i]`` maps a transient state ``j`` to the probability of
    moving from ``i`` to ``j`` in one step; the rest of the probability mass of
    state ``i`` goes to absorption. ``rewards[i]`` is the expected reward
    collected in that one step from state ``i`` (on absorption or otherwise).
    """

    transitions: Sequence[Mapping[int, Fraction]]
    rewards: Sequence[Fraction]

    def __post_init__(self) -> None:
        if len(self.transitions) != len(self.rewards):
            raise ValueError("transitions and rewards must describe the same states")
        for i, row in enumerate(self.transitions):
            total = sum(row.values(), Fraction(0))
            if any(p < 0 for p in row.values()) or total > 1:
                raise ValueError(f"state {i}: transient probabilities {total} are not a sub-distribution")


def expected_rewards(chain: AbsorbingChain) -> list[Fraction]:
    """Solve ``(I - Q) v = r`` exactly; ``v[i]`` is the expected total reward from state ``i``.

    Raises :class:`ChainNeverAbsorbs` when some state never reaches absorption,
    since its expected reward is then undefined.
    """
    n = len(chain.rewards)
    rows: list[dict[int, Fraction]] = []
    rhs: list[Fraction] = [Fraction(r) for r in chain.rewards]
    for i, row in enumerate(chain.transitions):
        coefficients = {j: -Fraction(p) for j, p in row.items() if p}
        coefficients[i] = coefficients.get(i, Fraction(0)) + 1
        rows.append({j: c for j, c in coefficients.items() if c})

    for col in range(n):
        pivot = next((r for r in range(col, n) if rows[r].get(col)), None)
        if pivot is None:
            raise ChainNeverAbsorbs(f"state {col} cannot reach absorption")
        rows[col], rows[pivot] = rows[pivot], rows[col]
        rhs[col], rhs[pivot] = rhs[pivot], rhs[col]
        pivot_row = rows[col]
        scale = pivot_row[col]
        if scale != 1:
            pivot_row = {j: c / scale for j, c in pivot_row.items()}
            rows[col] = pivot_row
            rhs[col] /= scale
        for r in range(n):
            factor = rows[r].get(col) if r != col else None
            if not factor:
                continue
            target = rows[r]
            for j, c in pivot_row.items():
                value = target.get(j, Fraction(0)) - factor * c
                if value:
                    target[j] = value
                else:
                    target.pop(j, None)
            rhs[r] -= factor * rhs[col]
    return rhs
