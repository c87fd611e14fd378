"""The second look: which dice get it, and how its views are combined.

A scripted stand-in for the networks (a heat map with two peaks, and each
classifier's answers call by call) makes the reader's arithmetic checkable
without depending on what the trained networks happen to say.
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from vision.model import ReadStatus
from vision.reader import geometry as G
from vision.reader import look as R
from vision.reader.model_dir import ReaderModel
from vision.reader.pips import PipCount
from vision.reader.policy import DEFAULT_POLICY
from vision.reader.read import read_dice

#: The bars the scripted answers below are set against (a model's own policy may differ).
P = replace(DEFAULT_POLICY, sure_alone=0.9, sure_with_pips=0.85, sure_doubted=0.98, sure_doubted_second_look=0.95)

SURE_DIE, DOUBTFUL_DIE = (16, 12), (40, 30)  # detector cells (x, y) of the two dice


def probs(value: int, p: float) -> np.ndarray:
    out = np.full(7, (1 - p) / 5, np.float32)
    out[0] = 0.0
    out[value] = p
    return out


class ScriptedNets:
    """Stands in for ``DiceNets``: peaks at the given detector cells (dice of
    40 px in a 640x480 frame) at the guessed scale, none at the close-up
    look's coarser one, and per classifier a queue of answers, one
    list of rows per call. Records how many crops each call was given."""

    def __init__(self, first: list[list[np.ndarray]], second: list[list[np.ndarray]]):
        self.answers = {False: list(first), True: list(second)}
        self.calls: dict[bool, list[int]] = {False: [], True: []}

    def detect(self, blob: np.ndarray) -> np.ndarray:
        out = np.zeros((4, blob.shape[2] // 4, blob.shape[3] // 4), np.float32)
        out[0] = -10.0
        out[1] = np.log(40 * 256 / 640 / 16)
        if blob.shape[3] < 256:  # the close-up look: nothing there
            return out
        for x, y in (SURE_DIE, DOUBTFUL_DIE):
            out[0, y, x] = 5.0 if (x, y) == SURE_DIE else 4.0
        return out

    def leaning(self, blob: np.ndarray) -> np.ndarray:
        return np.zeros(len(blob), np.float32)

    leaning_alone = leaning

    def classify(self, blob: np.ndarray, second: bool = False) -> np.ndarray:
        self.calls[second].append(len(blob))
        rows = self.answers[second].pop(0)
        assert len(rows) == len(blob)
        return np.stack(rows)


FRAME = np.full((480, 640, 3), 128, np.uint8)  # plain: the pip counter finds no clear count


def read_scripted(nets: ScriptedNets):
    return read_dice(FRAME, expect=2, model=ReaderModel(nets, P, Path("scripted"), "0" * 16))  # type: ignore[arg-type]


def test_only_the_doubtful_die_gets_the_second_look_and_its_views_are_averaged():
    nets = ScriptedNets(first=[[probs(2, 0.999), probs(4, 0.8)], [probs(4, 0.99)] * 3],
                        second=[[probs(2, 0.999), probs(4, 0.8)], [probs(4, 0.99)] * 3])
    read = read_scripted(nets)
    assert nets.calls == {False: [2, 3], True: [2, 3]}  # three more angles per network, one die
    assert read.status == ReadStatus.OK and sorted(read.values) == [2, 4]
    second = next(d for d in read.dice if d.value == 4)
    assert second.confidence == pytest.approx((0.8 + 3 * 0.99) / 4, abs=1e-4)
    assert (0.8 + 3 * 0.99) / 4 >= P.sure_alone > 0.8  # the second look is what made it sure


def test_the_networks_must_still_agree_after_the_second_look():
    nets = ScriptedNets(first=[[probs(2, 0.999), probs(4, 0.8)], [probs(5, 0.99)] * 3],
                        second=[[probs(2, 0.999), probs(4, 0.8)], [probs(4, 0.99)] * 3])
    read = read_scripted(nets)
    assert read.status == ReadStatus.UNCERTAIN  # the first network now says 5, the second 4


def test_a_roll_sure_at_first_sight_costs_no_second_look():
    nets = ScriptedNets(first=[[probs(2, 0.999), probs(4, 0.999)]], second=[[probs(2, 0.999), probs(4, 0.999)]])
    read = read_scripted(nets)
    assert read.status == ReadStatus.OK
    assert nets.calls == {False: [2], True: [2]}


def test_the_eight_views_are_eight_different_angles():
    angles = [0.0, R.SECOND_VIEW_DEG, *R.MORE_VIEWS_DEG[False], *R.MORE_VIEWS_DEG[True]]
    assert len({a % 360 for a in angles}) == 8


@pytest.mark.parametrize(("coarse", "fine", "status"), [
    (0, 4, ReadStatus.OK),          # only the fine crop gives a clear count, and it names the networks' 4
    (0, 0, ReadStatus.UNCERTAIN),   # no clear count: the networks alone need P.sure_alone
    (3, 4, ReadStatus.UNCERTAIN),   # the counters disagree: no clear count, not agreement
    (4, 3, ReadStatus.OK),          # the count on the networks' crop agrees: it stands
])
def test_both_pip_counts_reach_the_judge_through_agreed_count(monkeypatch, coarse, fine, status):
    # The doubtful die reads 4 at 0.87 in every view: under P.sure_alone, over P.sure_with_pips.
    monkeypatch.setattr(R, "count_pips", lambda crop, policy: PipCount(coarse if crop.shape[0] == G.CLS_SIZE else -1))
    monkeypatch.setattr(R, "count_pips_fine", lambda frame, cx, cy, side, policy: PipCount(fine))
    views = [[probs(2, 0.999), probs(4, 0.87)], [probs(4, 0.87)] * 3]
    read = read_scripted(ScriptedNets(first=views, second=views))
    assert P.sure_with_pips <= 0.87 < P.sure_alone
    assert read.status == status and sorted(read.values) == [2, 4]
