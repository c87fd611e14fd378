"""The exact absorbing-chain solver, on chains whose answers are known in closed form."""
from __future__ import annotations

from fractions import Fraction as F

import pytest

from controller.analysis.markov import AbsorbingChain, ChainNeverAbsorbs, expected_rewards


def test_gamblers_ruin_probability_of_reaching_the_top():
    """A fair walk on 0..4 absorbed at both ends: from i it reaches 4 with probability i/4."""
    half = F(1, 2)
    # transient states 1, 2, 3 are indices 0, 1, 2; reward 1 when stepping onto 4.
    chain = AbsorbingChain(
        transitions=[{1: half}, {0: half, 2: half}, {1: half}],
        rewards=[F(0), F(0), half],
    )
    assert expected_rewards(chain) == [F(1, 4), F(2, 4), F(3, 4)]


def test_biased_walk_matches_the_closed_form():
    p, q = F(2, 5), F(3, 5)  # up, down; ruin at 0, target 5
    n = 5
    transitions = []
    rewards = []
    for i in range(1, n):
        row = {}
        if i + 1 < n:
            row[i] = p  # index of state i+1 is i
        if i - 1 > 0:
            row[i - 2] = q
        transitions.append(row)
        rewards.append(p if i + 1 == n else F(0))
    r = q / p
    closed = [(1 - r**i) / (1 - r**n) for i in range(1, n)]
    assert expected_rewards(AbsorbingChain(transitions, rewards)) == closed


def test_self_loops_and_expected_steps():
    """Expected number of rolls to see a 7: 6 (reward 1 per step, stay with 5/6)."""
    chain = AbsorbingChain(transitions=[{0: F(5, 6)}], rewards=[F(1)])
    assert expected_rewards(chain) == [F(6)]


def test_a_state_that_never_absorbs_is_an_error():
    chain = AbsorbingChain(transitions=[{1: F(1)}, {0: F(1)}], rewards=[F(0), F(0)])
    with pytest.raises(ChainNeverAbsorbs):
        expected_rewards(chain)


def test_rows_that_are_not_probabilities_are_refused():
    with pytest.raises(ValueError):
        AbsorbingChain(transitions=[{0: F(3, 2)}], rewards=[F(0)])
    with pytest.raises(ValueError):
        AbsorbingChain(transitions=[{0: F(1, 2)}], rewards=[])
