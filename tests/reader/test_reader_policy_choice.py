"""Choosing a model's policy (``training/thresholds.py``): the most ``ok`` rolls with no silent
misread, within the orderings every policy keeps."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from training.thresholds import GRID, Case, choose, no_laxer_than
from vision.benchtool.labels import LabelledDie, LabelledImage
from vision.reader.judge import Evidence
from vision.reader.policy import DEFAULT_POLICY as P


def die(value: int, x: float, leaning: float = 0.0, sure: float = 0.99) -> Evidence:
    probs = [0.0] * 7
    probs[value] = sure
    return Evidence(x, 200.0, 50.0, 0.9, tuple(probs), True, 0, leaning=leaning)


def case(values: tuple[int, int], leaning: float, sure: float = 0.99) -> Case:
    dice = [die(values[0], 150.0, leaning, sure), die(values[1], 450.0, sure=sure)]
    item = LabelledImage(Path("roll.jpg"), tuple(LabelledDie(v) for v in values), positional=False)
    return Case("rolls", item, (480, 640, 3), dice, dice)


def test_a_die_that_may_lean_is_always_asked_about_whatever_it_would_settle():
    # every roll is read right, one die in each leaning at 0.6: no bar misreads, and a leaning
    # doubt bar at the leaning bar itself would settle them all; the band is kept all the same
    cases = [case((3, 5), 0.6), case((2, 6), 0.6), case((1, 4), 0.0)]
    chosen, fig = choose(cases, P)
    assert chosen.leaning_doubt < chosen.leaning
    assert fig.silent == 0


def test_the_choice_settles_the_most_rolls_without_a_silent_misread():
    cases = [case((3, 5), 0.0), case((2, 6), 0.0)]
    chosen, fig = choose(cases, replace(P, sure_alone=0.98))
    assert fig.ok == 2 and fig.silent == 0


def test_bars_no_laxer_than_the_base_keep_the_base_bar_where_a_lower_one_would_settle_more():
    # every die read right at 0.85: a "sure" bar of 0.8 settles both rolls, the base's 0.9 none
    cases = [case((3, 5), 0.0, sure=0.85), case((2, 6), 0.0, sure=0.85)]
    base = replace(P, sure_alone=0.9)
    assert choose(cases, base)[0].sure_alone == 0.8
    chosen, fig = choose(cases, base, no_laxer_than(base))
    assert chosen.sure_alone >= 0.9 and fig.ok == 0


def test_bars_no_laxer_than_the_base_keep_asking_about_dice_the_base_thinks_may_lean():
    # a die leaning at 0.4 in every roll: the base asks from 0.3, a doubt bar of 0.5 would settle them
    cases = [case((3, 5), 0.4), case((2, 6), 0.4)]
    base = replace(P, leaning_doubt=0.3)
    assert choose(cases, base)[0].leaning_doubt > 0.4
    chosen, fig = choose(cases, base, no_laxer_than(base))
    assert chosen.leaning_doubt <= 0.3 and fig.ok == 0


def test_the_base_bar_is_among_those_tried_even_off_the_grid():
    base = replace(P, sure_alone=0.93, leaning_doubt=0.45)
    cut = no_laxer_than(base)
    assert cut["sure_alone"] == (0.93, 0.95, 0.98)
    assert cut["leaning_doubt"] == (0.3, 0.45)
    assert set(cut) == set(GRID)


def test_among_equals_the_lowest_leaning_doubt_is_chosen():
    # no die leans: every leaning doubt bar settles the same rolls; the strictest asks about the most
    cases = [case((3, 5), 0.0), case((2, 6), 0.0)]
    chosen, fig = choose(cases, P)
    assert fig.ok == 2
    assert chosen.leaning_doubt == min(GRID["leaning_doubt"])
