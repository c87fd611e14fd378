"""The dice's honesty: the chi-square tail against known values and exact identities, and the
sequential test's behaviour on dice made to order (its rates are bench/dice_honesty.py's)."""
from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, strategies as st

from controller.pit.honesty import THRESHOLD, DiceWatch, chi_square, chi_square_tail, gamma_q

# Critical values of the chi-square distribution, as printed in statistical tables (NIST/SEMATECH
# e-Handbook, table 1.3.6.7.4): P(X >= x) for df degrees of freedom.
TABLE = [
    (1, 3.841, 0.05), (1, 6.635, 0.01), (2, 5.991, 0.05), (3, 7.815, 0.05), (4, 9.488, 0.05),
    (5, 1.145, 0.95), (5, 11.070, 0.05), (5, 15.086, 0.01), (5, 20.515, 0.001), (10, 18.307, 0.05),
    (10, 23.209, 0.01), (30, 43.773, 0.05), (100, 124.342, 0.05),
]


@pytest.mark.parametrize("df, x, tail", TABLE)
def test_the_chi_square_tail_gives_the_tables_values(df, x, tail):
    assert chi_square_tail(x, df) == pytest.approx(tail, abs=2e-4 * max(tail, 0.05) + 2e-5)


@given(st.floats(min_value=0, max_value=700))
def test_q_of_one_is_the_exponential_tail(x):
    assert gamma_q(1.0, x) == pytest.approx(math.exp(-x), rel=1e-12, abs=1e-300)


@given(st.floats(min_value=0, max_value=600))
def test_q_of_one_half_is_the_complementary_error_function(x):
    """Q(1/2, x) = erfc(sqrt(x)): the chi-square tail with one degree of freedom."""
    assert gamma_q(0.5, x) == pytest.approx(math.erfc(math.sqrt(x)), rel=1e-10, abs=1e-300)


@given(st.integers(min_value=1, max_value=40), st.floats(min_value=0, max_value=200))
def test_q_of_a_whole_number_is_a_poisson_sum(n, x):
    """Q(n, x) = e^-x (1 + x + x^2/2! + ... + x^(n-1)/(n-1)!): the series and the continued fraction both."""
    expected = math.exp(-x) * sum(x ** k / math.factorial(k) for k in range(n))
    assert gamma_q(float(n), x) == pytest.approx(expected, rel=1e-9, abs=1e-300)


def test_q_falls_from_one_to_zero():
    assert gamma_q(2.5, 0.0) == 1.0 and gamma_q(2.5, math.inf) == 0.0
    values = [gamma_q(2.5, x / 4) for x in range(200)]
    assert all(a >= b for a, b in zip(values, values[1:]))
    with pytest.raises(ValueError):
        gamma_q(0.0, 1.0)


def test_the_chi_square_of_faces_is_none_before_a_die_and_zero_for_even_counts():
    assert chi_square([0] * 6) is None
    statistic, p = chi_square([10] * 6)
    assert statistic == 0 and p == 1.0


def test_fair_dice_raise_no_alarm_and_a_face_that_keeps_coming_raises_one_naming_it():
    rng = random.Random(3)
    fair = DiceWatch()
    for seq in range(300):
        fair.add([rng.randint(1, 6), rng.randint(1, 6)], seq)
    assert fair.alarm is None and fair.rolls == 300 and sum(fair.pooled) == 600

    loaded = DiceWatch(since=7, name="set 4411")
    seq = 0
    while loaded.alarm is None:
        seq += 1
        loaded.add([6, rng.randint(1, 6)], seq)
    assert loaded.alarm == {"seq": seq, "face": 6, "rolls": seq}
    shown = loaded.to_json()
    assert shown["since"] == 7 and shown["set"] == "set 4411" and shown["cusum"]["face"] == 6
    assert shown["cusum"]["peak"] >= THRESHOLD and shown["p_value"] < 0.001


def test_what_is_not_a_face_is_passed_over():
    watch = DiceWatch()
    watch.add([True, 7, "6", None], 1)
    assert watch.rolls == 0 and watch.by_place == []
    watch.add([3, True], 2)
    assert watch.rolls == 1 and watch.pooled == [0, 0, 1, 0, 0, 0] and watch.by_place[1] == [0] * 6
