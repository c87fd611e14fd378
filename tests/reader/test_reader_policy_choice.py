"""Choosing a model's policy (``training/thresholds.py``): the most ``ok`` rolls with no silent
misread, within the orderings every policy keeps."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from training.thresholds import Case, choose
from vision.benchtool.labels import LabelledDie, LabelledImage
from vision.reader.judge import Evidence
from vision.reader.policy import DEFAULT_POLICY as P


def die(value: int, x: float, leaning: float = 0.0) -> Evidence:
    probs = [0.0] * 7
    probs[value] = 0.99
    return Evidence(x, 200.0, 50.0, 0.9, tuple(probs), True, 0, leaning=leaning)


def case(values: tuple[int, int], leaning: float) -> Case:
    dice = [die(values[0], 150.0, leaning), die(values[1], 450.0)]
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
