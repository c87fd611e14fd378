"""The close-up pass: dice too big for the detector's usual scale are read at a coarse one.

The drawn close-ups check the whole reader; the stubbed ones check when the
close-up read may stand in for the standard one, whatever the networks say.
"""
from __future__ import annotations

import importlib.util
import json
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.model import Calibration, DiceRead, Die, ReadStatus
from vision.reader import closeup as C
from vision.reader import read as read_module
from vision.reader import read_dice
from vision.reader.detect import CLOSE_UP_LONG_SIDE, Candidate
from vision.reader.policy import DEFAULT_POLICY as P
from vision.reader.geometry import DET_LONG_SIDE
from vision.reader.judge import Evidence
from vision.reader.look import Reading
from vision.reader.model_dir import load_model

SHAPE = (480, 640, 3)
BIG = P.die_px_band[1] * 640 / DET_LONG_SIDE  # the smallest close-up die in a 640x480 frame


@pytest.mark.parametrize("value", range(1, 7))
def test_a_die_filling_half_the_frame_is_read(draw_table, value):
    frame = draw_table([(320, 240, value)], side=250, seed=value)
    for expect in (1, None):
        read = read_dice(frame, expect=expect)
        assert read.status == ReadStatus.OK, read.reason
        assert read.values == (value,)
        assert read.dice[0].box[2] >= BIG
    # the standard scale alone sees its pips, not the die
    assert read_dice(frame, expect=1, close_up=False).status != ReadStatus.OK


def test_a_calibrated_table_never_looks_for_close_ups(draw_table, monkeypatch):
    frame = draw_table([(320, 240, 5)], side=250, seed=5)
    nets = load_model().nets
    runs = []
    real = nets.detect
    monkeypatch.setattr(nets, "detect", lambda blob: runs.append(blob.shape) or real(blob))
    read_dice(frame, expect=1, calibration=Calibration(die_size_px=40.0), nets=nets)
    assert len(runs) == 1
    read_dice(frame, expect=1, nets=nets)
    assert len(runs) > 1 and runs[-1][3] == CLOSE_UP_LONG_SIDE  # uncalibrated: the standard scale, then the close-up one


def place(cx: float, cy: float, side: float, value: int, peak: float = 0.9, p: float = 0.99,
          not_a_die: float = 0.0) -> Evidence:
    probs = np.full(7, (1 - p - not_a_die) / 5)
    probs[0], probs[value] = not_a_die, p
    return Evidence(cx, cy, side, peak, tuple(float(v) for v in probs), True, 0)


def ok_read(places: list[Evidence]) -> DiceRead:
    return DiceRead(ReadStatus.OK, tuple(Die(e.value, 0.99, e.box()) for e in places))


class CloseUpStub:
    """Stands in for the close-up pass's detector and classifiers: the given
    candidates, and the given evidence at them; records whether crops were read."""

    def __init__(self, monkeypatch, cands: list[Candidate], evidence: list[Evidence]):
        self.read_crops = False
        monkeypatch.setattr(C, "close_up_candidates", lambda frame, nets, policy: (cands, BIG))

        def evidence_at(*args):
            self.read_crops = True
            return evidence
        monkeypatch.setattr(C, "evidence_at", evidence_at)


FRAME = np.zeros(SHAPE, np.uint8)
#: The networks are stubbed out; the policy is the default one.
STUBBED = Reading(nets=None)  # type: ignore[arg-type]
PIPS_OF_A_FOUR = [place(280, 200, 40, 1), place(360, 200, 40, 1), place(280, 280, 40, 1), place(360, 280, 40, 1)]
THE_FOUR = place(320, 240, 200, 4)


def test_the_close_up_read_stands_in_when_sure(monkeypatch):
    """The close-up read stands in when it is ok, big, and holds what the standard scale saw."""
    CloseUpStub(monkeypatch, [Candidate(320, 240, 200, 0.9)], [THE_FOUR])
    read = C.read_as_close_up(FRAME, STUBBED, None, None, PIPS_OF_A_FOUR, ok_read(PIPS_OF_A_FOUR))
    assert read.status == ReadStatus.OK and read.values == (4,)


def test_a_strong_small_candidate_means_no_close_up_and_no_crop_is_read(monkeypatch):
    stub = CloseUpStub(monkeypatch, [Candidate(320, 240, 200, 0.9), Candidate(40, 40, BIG - 1, 0.5)], [THE_FOUR])
    refused = DiceRead(ReadStatus.NO_READ, (), "found 4 dice, expected 1")
    assert C.read_as_close_up(FRAME, STUBBED, 1, None, PIPS_OF_A_FOUR, refused) is refused
    assert not stub.read_crops


def test_a_die_of_the_standard_scale_outside_every_big_candidate_keeps_the_usual_read(monkeypatch):
    stub = CloseUpStub(monkeypatch, [Candidate(320, 240, 200, 0.9)], [THE_FOUR])
    elsewhere = PIPS_OF_A_FOUR + [place(600, 60, 40, 1)]
    refused = DiceRead(ReadStatus.NO_READ, (), "found 5 dice, expected 1")
    assert C.read_as_close_up(FRAME, STUBBED, 1, None, elsewhere, refused) is refused
    assert not stub.read_crops


def test_fewer_big_candidates_than_dice_thrown_read_no_crop(monkeypatch):
    stub = CloseUpStub(monkeypatch, [Candidate(320, 240, 200, 0.9)], [THE_FOUR])
    refused = DiceRead(ReadStatus.NO_READ, (), "found 4 dice, expected 2")
    assert C.read_as_close_up(FRAME, STUBBED, 2, None, PIPS_OF_A_FOUR, refused) is refused
    assert not stub.read_crops


@pytest.mark.parametrize("close", [
    place(320, 240, 200, 4, p=0.6),  # not sure: the close-up read is uncertain
    replace(THE_FOUR, leaning=0.9),  # leaning: the close-up read is no_read
])
def test_ones_inside_a_die_of_as_many_pips_are_uncertain(monkeypatch, close):
    """Ones inside a die with as many pips are uncertain when the close-up read is not ok."""
    CloseUpStub(monkeypatch, [Candidate(320, 240, 200, 0.9)], [close])
    read = C.read_as_close_up(FRAME, STUBBED, None, None, PIPS_OF_A_FOUR, ok_read(PIPS_OF_A_FOUR))
    assert read.status == ReadStatus.UNCERTAIN and read.values == (1, 1, 1, 1)
    assert "pips" in read.reason


@pytest.mark.parametrize("holder", [
    place(320, 240, 200, 3, p=0.6),  # three pips cannot show as four 1s
    place(320, 240, 200, 4, p=0.6, not_a_die=0.2),  # in doubt whether it is a die: four dice laid out as a 4
    place(320, 240, 120, 4, p=0.6),  # not PIPS_INSIDE times the 1s: dice found whole at both scales
    place(320, 240, 200, 4, peak=0.15, p=0.6),  # a faint place, not a die
])
def test_ones_that_cannot_be_its_pips_stay_ok(monkeypatch, holder):
    CloseUpStub(monkeypatch, [Candidate(320, 240, holder.side, 0.9)], [holder])
    usual = ok_read(PIPS_OF_A_FOUR)
    assert C.read_as_close_up(FRAME, STUBBED, None, None, PIPS_OF_A_FOUR, usual) is usual


def test_a_close_up_die_that_holds_two_dice_the_standard_scale_saw_whole_merged_them(monkeypatch):
    """Two touching dice, found whole and read surely by the standard scale, seen as one by the close-up pass."""
    pair = [place(200, 240, 110, 3), place(300, 240, 110, 3)]
    CloseUpStub(monkeypatch, [Candidate(250, 240, 210, 0.9)], [place(250, 240, 210, 3)])
    touching = DiceRead(ReadStatus.NO_READ, ok_read(pair).dice, "dice touching or stacked")
    assert C.read_as_close_up(FRAME, STUBBED, None, None, pair, touching) is touching


@pytest.mark.parametrize("pieces", [
    [replace(e, side=90) for e in [place(200, 240, 110, 3), place(300, 240, 110, 3)]],  # under half its size
    [place(200, 240, 110, 2, p=0.6), place(300, 240, 110, 4, p=0.6)],  # big but unsure: pieces
    [place(240, 240, 110, 3), place(260, 240, 110, 3)],  # sure, but one die seen twice
])
def test_pieces_of_one_big_die_are_not_dice_it_merged(monkeypatch, pieces):
    CloseUpStub(monkeypatch, [Candidate(250, 240, 210, 0.9)], [place(250, 240, 210, 3)])
    unsure = DiceRead(ReadStatus.UNCERTAIN, ok_read(pieces).dice, "a die shows two faces equally (which is on top?)")
    assert C.read_as_close_up(FRAME, STUBBED, None, None, pieces, unsure).values == (3,)


UNCLEAR_FIVE = place(320, 240, 110, 5, p=0.75)  # seen whole (over MERGED of 200 px) and centred


def test_a_die_both_looks_saw_whole_in_one_place_and_read_otherwise_is_not_settled(monkeypatch):
    """A die of 110 px boxed at 200 px by the coarse scale, read from a side face (matteop65 ``valid_35`` in grey)."""
    CloseUpStub(monkeypatch, [Candidate(320, 240, 200, 0.9)], [place(320, 240, 200, 6)])
    unclear = DiceRead(ReadStatus.UNCERTAIN, ok_read([UNCLEAR_FIVE]).dice, "the die at (320, 240) is not clear")
    assert C.read_as_close_up(FRAME, STUBBED, 1, None, [UNCLEAR_FIVE], unclear) is unclear
    ace = place(323, 236, 110, 1)  # within P.same_place of its side
    read = C.read_as_close_up(FRAME, STUBBED, 1, None, [ace], ok_read([ace]))
    assert read.status == ReadStatus.UNCERTAIN and read.values == (1,)
    assert "6 as a close-up but 1 at the standard scale" in read.reason


@pytest.mark.parametrize("side, p, settled", [
    (135, P.sure_doubted - 0.01, False),  # under the bar of a die a cue speaks against
    (135, 0.99, True),  # over it
    (100, P.sure_doubted - 0.01, True),  # under whole_share of the close-up die: a piece of it, which says nothing
])
def test_a_die_seen_whole_and_read_otherwise_raises_the_bar(
        monkeypatch, side, p, settled):
    """A die the standard scale saw whole inside a close-up die, and read otherwise, raises the close-up's
    bar. matteop65 ``five_5`` stretched a third wider: a 5 of 135 px boxed at 215 px with its side
    faces, read 6 by the close-up pass, the centres 0.125 of a side apart (beyond P.same_place)."""
    five = place(335, 250, side, 5, p=0.65)
    assert np.hypot(five.cx - 320, five.cy - 240) > P.same_place * five.side
    CloseUpStub(monkeypatch, [Candidate(320, 240, 215, 0.9)], [place(320, 240, 215, 6, p=p)])
    unclear = DiceRead(ReadStatus.UNCERTAIN, ok_read([five]).dice, "the die at (335, 250) is not clear")
    read = C.read_as_close_up(FRAME, STUBBED, 1, None, [five], unclear)
    assert (read.status, read.values) == ((ReadStatus.OK, (6,)) if settled else (ReadStatus.UNCERTAIN, (5,)))


@pytest.mark.parametrize("seen", [
    place(320, 240, 110, 6, p=0.75),  # read alike
    place(290, 210, 110, 2, p=0.6),  # off the close-up die's centre: a piece of it (two pips of its face)
    place(320, 240, 90, 2, p=0.6),  # under whole_share of its size: a piece
])
def test_a_close_up_read_stands_in_where_nothing_contradicts_it(
        monkeypatch, seen):
    """A close-up read stands in where the standard scale saw no die whole in its place, or read it alike."""
    CloseUpStub(monkeypatch, [Candidate(320, 240, 200, 0.9)], [place(320, 240, 200, 6)])
    unclear = DiceRead(ReadStatus.UNCERTAIN, ok_read([seen]).dice, "not clear")
    read = C.read_as_close_up(FRAME, STUBBED, 1, None, [seen], unclear)
    assert read.status == ReadStatus.OK and read.values == (6,)


LONE_FIVE = place(320, 240, 36, 5, p=0.6)  # a small die the standard scale saw, not sure of its value


def test_a_close_up_1_that_is_ground_does_not_stand_in(
        draw_table, monkeypatch):
    """A close-up 1 that is only ground around a die the standard scale read otherwise does not stand in.
    byler's held-out ``IMG_20191208_112556`` turned, grey or swapped: a 5 of 36 px alone on the
    plain tray, boxed at 140 px by the coarse scale and read as a big die showing 1."""
    frame = draw_table([(320, 240, 5)], side=36, seed=2)
    CloseUpStub(monkeypatch, [Candidate(320, 240, 140, 0.9)], [place(320, 240, 140, 1)])
    unclear = DiceRead(ReadStatus.UNCERTAIN, ok_read([LONE_FIVE]).dice, "the die at (320, 240) is not clear")
    assert C.read_as_close_up(frame, STUBBED, 1, None, [LONE_FIVE], unclear) is unclear


@pytest.mark.parametrize("background, seen", [
    (None, place(320, 240, 60, 2, p=0.5)),  # a true close-up 1: its pip read as an unsure 2, its face not ground
    ((245, 245, 245), place(320, 240, 60, 1, p=0.5)),  # white on white, but the pip read 1 too
])
def test_a_close_up_1_stands_in_where_its_face_is_not_ground_or_its_pip_was_read_1(draw_table, monkeypatch,
                                                                                     background, seen):
    style = {"background": background} if background else {}
    frame = draw_table([(320, 240, 1)], side=200, seed=5, **style)
    CloseUpStub(monkeypatch, [Candidate(320, 240, 200, 0.9)], [place(320, 240, 200, 1)])
    unclear = DiceRead(ReadStatus.UNCERTAIN, ok_read([seen]).dice, "the die at (320, 240) is not clear")
    read = C.read_as_close_up(frame, STUBBED, 1, None, [seen], unclear)
    assert read.status == ReadStatus.OK and read.values == (1,) and read.dice[0].box[2] == 200


def test_a_close_up_1_the_colour_of_its_ground_goes_to_the_dealer(
        draw_table, monkeypatch):
    """A white die showing 1 on white ground whose pip the standard scale read as a 2: colour cannot tell it from
    a die lying alone, so the usual read stands, and it is not ok."""
    frame = draw_table([(320, 240, 1)], side=200, seed=5, background=(245, 245, 245))
    CloseUpStub(monkeypatch, [Candidate(320, 240, 200, 0.9)], [place(320, 240, 200, 1)])
    pip = place(320, 240, 60, 2, p=0.5)
    unclear = DiceRead(ReadStatus.UNCERTAIN, ok_read([pip]).dice, "the die at (320, 240) is not clear")
    assert C.read_as_close_up(frame, STUBBED, 1, None, [pip], unclear) is unclear


def test_only_a_read_not_ok_or_of_nothing_but_1s_is_looked_at_as_a_close_up(draw_table, monkeypatch):
    looked = []
    real = read_module.read_as_close_up
    monkeypatch.setattr(read_module, "read_as_close_up", lambda *args: looked.append(args[-1].values) or real(*args))
    ones, other = draw_table([(200, 240, 1), (430, 250, 1)], seed=3), draw_table([(200, 240, 2), (430, 250, 5)], seed=3)
    assert read_dice(ones, expect=2).values == (1, 1)
    assert read_dice(other, expect=2).status == ReadStatus.OK
    assert looked == [(1, 1)]  # the plain 2 and 5 were not looked at again
    read_dice(other, expect=3)
    assert len(looked) == 2  # a wrong count is


def test_the_bench_pairs_the_reader_with_and_without_its_close_up_pass(draw_table, tmp_path: Path, capsys):
    (tmp_path / "images").mkdir()
    (tmp_path / "labels_yolo").mkdir()
    cv2.imwrite(str(tmp_path / "images" / "big_1.png"), draw_table([(320, 240, 5)], side=250, seed=5))
    (tmp_path / "labels_yolo" / "big_1.txt").write_text(f"4 0.5 0.5 {250 / 640} {250 / 480}\n")
    path = Path(__file__).resolve().parents[2] / "bench" / "close_up_look.py"
    spec = importlib.util.spec_from_file_location("close_up_look", path)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    assert bench.main([str(tmp_path), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["usual"]["ok_rate"] == 0.0 and result["with_close_up"]["ok_rate"] == 1.0
    assert result["with_close_up"]["per_die_accuracy"] == 1.0
    assert [c["image"] for c in result["changed"]] == ["big_1.png"]
