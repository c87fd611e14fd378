"""The trust policy on its own: evidence in, status out (no pixels, no networks)."""
from __future__ import annotations

import itertools
from dataclasses import replace

import numpy as np
import pytest

from vision.model import ReadStatus
from vision.reader.judge import Evidence, judge
from vision.reader.policy import DEFAULT_POLICY as P

FRAME = (480, 640, 3)


def sure(value: int, cx: float, cy: float, side: float = 40, p: float = 0.999, pips: int | None = None,
         peak: float = 0.9, agree: bool = True, rest: int = 0) -> Evidence:
    """A die read ``value`` with probability ``p``; the rest goes to class ``rest`` (0: not a die)."""
    probs = [0.0] * 7
    probs[value] = p
    probs[rest] = 1 - p
    return Evidence(cx, cy, side, peak, tuple(probs), agree, value if pips is None else pips)


def test_clear_dice_are_ok_with_values_and_boxes():
    read = judge([sure(3, 100, 100), sure(5, 300, 200)], expect=2, frame_shape=FRAME)
    assert read.status == ReadStatus.OK
    assert sorted(read.values) == [3, 5]
    assert read.dice[0].box == (80, 80, 40, 40)


def test_wrong_count_is_no_read():
    read = judge([sure(3, 100, 100), sure(5, 300, 200)], expect=3, frame_shape=FRAME)
    assert read.status == ReadStatus.NO_READ
    assert "expected 3" in read.reason


def test_no_dice_is_no_read_even_without_expect():
    assert judge([], expect=None, frame_shape=FRAME).status == ReadStatus.NO_READ


def test_touching_dice_are_no_read():
    read = judge([sure(3, 100, 100), sure(5, 125, 100)], expect=2, frame_shape=FRAME)
    assert read.status == ReadStatus.NO_READ
    assert "touching" in read.reason


def test_dice_lying_flush_are_touching_where_the_top_face_size_is_known():
    # Square to the camera, a die's box is its top face: two lying flush are one box apart.
    flush = [sure(3, 100, 100), sure(5, 141, 100)]
    uncalibrated = judge(flush, expect=2, frame_shape=FRAME)
    assert uncalibrated.status == ReadStatus.UNCERTAIN and "touching?" in uncalibrated.reason
    read = judge(flush, expect=2, frame_shape=FRAME, top_face_px=40)
    assert read.status == ReadStatus.NO_READ
    assert "touching" in read.reason
    apart = [sure(3, 100, 100), sure(5, 100 + P.touching_top_faces * 40 + 2, 100)]
    assert judge(apart, expect=2, frame_shape=FRAME, top_face_px=40).status == ReadStatus.OK


@pytest.mark.parametrize("turned", [False, True])
def test_dice_that_may_touch_corner_to_corner_are_never_ok(turned):
    # two dice of side 40 turned by 45 degrees (boxes of 56.6 px) touching corner to corner lie
    # 56.6 px apart; square to the camera and flush, 40 px: both within the "close" band
    side, gap = (56.6, 56.6) if turned else (40.0, 40.0)
    read = judge([replace(sure(3, 100, 100), side=side), replace(sure(5, 100 + gap, 100), side=side)], 2, FRAME)
    assert read.status != ReadStatus.OK
    far = [replace(sure(3, 100, 100), side=side), replace(sure(5, 100 + P.close * side + 1, 100), side=side)]
    assert judge(far, 2, FRAME).status == ReadStatus.OK


def test_flush_dice_found_a_little_small_are_never_ok():
    # two dice of 40 px flush side by side, each found 10% smaller than it is (the cage's wire
    # across its edge): centres 40 px apart, boxes of 36
    read = judge([replace(sure(3, 100, 100), side=36.0), replace(sure(5, 140, 100), side=36.0)], 2, FRAME)
    assert read.status != ReadStatus.OK


def test_die_cut_by_the_frame_edge_is_no_read():
    read = judge([sure(3, 10, 100), sure(5, 300, 200)], expect=2, frame_shape=FRAME)
    assert read.status == ReadStatus.NO_READ


def test_die_outside_the_landing_area_is_no_read():
    mask = np.zeros(FRAME[:2], np.uint8)
    mask[:, :320] = 255
    read = judge([sure(3, 100, 100), sure(5, 500, 200)], expect=2, frame_shape=FRAME, landing_mask=mask)
    assert read.status == ReadStatus.NO_READ
    assert "landing area" in read.reason


def test_views_disagreeing_make_it_uncertain():
    read = judge([sure(3, 100, 100), sure(5, 300, 200, agree=False)], expect=2, frame_shape=FRAME)
    assert read.status == ReadStatus.UNCERTAIN
    assert read.dice[1].confidence < read.dice[0].confidence


def test_middling_confidence_needs_the_pip_counter():
    p = (P.sure_alone + P.sure_with_pips) / 2
    with_pips = judge([sure(4, 100, 100, p=p)], expect=1, frame_shape=FRAME)
    without = judge([sure(4, 100, 100, p=p, pips=0)], expect=1, frame_shape=FRAME)
    against = judge([sure(4, 100, 100, p=p, pips=5)], expect=1, frame_shape=FRAME)
    assert with_pips.status == ReadStatus.OK
    assert without.status == ReadStatus.UNCERTAIN
    assert against.status == ReadStatus.UNCERTAIN


def test_a_disagreeing_pip_count_needs_near_certain_networks():
    """A disagreeing pip count is overruled only by networks that agree and are near certain."""
    below = (P.sure_alone + P.sure_doubted) / 2
    assert judge([sure(6, 100, 100, p=below, pips=5)], expect=1, frame_shape=FRAME).status == ReadStatus.UNCERTAIN
    certain = judge([sure(6, 100, 100, p=P.sure_doubted, pips=5)], expect=1, frame_shape=FRAME)
    assert certain.status == ReadStatus.OK and certain.values == (6,)
    assert certain.dice[0].confidence < P.sure_doubted  # the doubt still shows in the confidence
    views_apart = judge([sure(6, 100, 100, p=0.9999, pips=5, agree=False)], expect=1, frame_shape=FRAME)
    assert views_apart.status == ReadStatus.UNCERTAIN


def test_after_a_second_look_a_disagreeing_count_is_overruled_at_a_lower_bar():
    q = replace(P, sure_alone=0.9, sure_doubted=0.98, sure_doubted_second_look=0.95)  # a policy with the two bars apart
    between = sure(6, 100, 100, p=(q.sure_doubted_second_look + q.sure_doubted) / 2, pips=5)
    below = sure(6, 100, 100, p=(q.sure_alone + q.sure_doubted_second_look) / 2, pips=5)
    assert judge([between], expect=1, frame_shape=FRAME, policy=q).status == ReadStatus.UNCERTAIN
    assert judge([replace(between, second_look=True)], expect=1, frame_shape=FRAME, policy=q).status == ReadStatus.OK
    assert judge([replace(below, second_look=True)], expect=1, frame_shape=FRAME, policy=q).status == ReadStatus.UNCERTAIN


def test_a_leaning_die_is_no_read_and_a_die_that_may_lean_is_for_the_dealer():
    flat, other = sure(4, 100, 100), sure(2, 300, 200)
    assert judge([flat, other], 2, FRAME).status == ReadStatus.OK
    leaning = judge([replace(flat, leaning=P.leaning), other], 2, FRAME)
    assert leaning.status == ReadStatus.NO_READ and "leaning" in leaning.reason
    maybe = judge([replace(flat, leaning=(P.leaning_doubt + P.leaning) / 2), other], 2, FRAME)
    assert maybe.status == ReadStatus.UNCERTAIN and "may be leaning" in maybe.reason
    assert judge([replace(flat, leaning=P.leaning_doubt * 0.9), other], 2, FRAME).status == ReadStatus.OK


def test_either_leaning_check_may_doubt_a_die():
    """The check against the other dice and the single-crop check miss different dice: a die
    either one doubts goes to the dealer, though the other finds it flat."""
    flat, other = sure(4, 100, 100), sure(2, 300, 200)
    alone = judge([replace(flat, leaning_alone=P.leaning_alone_doubt), other], 2, FRAME)
    assert alone.status == ReadStatus.UNCERTAIN and "may be leaning" in alone.reason
    below = replace(flat, leaning=P.leaning_doubt * 0.9, leaning_alone=P.leaning_alone_doubt * 0.9)
    assert judge([below, other], 2, FRAME).status == ReadStatus.OK


def test_one_die_seen_twice_is_one_die():
    top = sure(1, 100, 100, peak=0.9)
    side_face = sure(3, 100, 118, peak=0.4)
    read = judge([top, side_face, sure(5, 300, 200)], expect=2, frame_shape=FRAME)
    assert read.status == ReadStatus.OK and sorted(read.values) == [1, 5]
    rival = sure(3, 100, 118, peak=0.85)
    read = judge([top, rival, sure(5, 300, 200)], expect=2, frame_shape=FRAME)
    assert read.status == ReadStatus.UNCERTAIN


def test_faint_extra_candidate_makes_it_uncertain():
    read = judge([sure(3, 100, 100), sure(5, 300, 200), sure(2, 500, 300, peak=(P.die_peak + P.faint_peak) / 2)], expect=2,
                 frame_shape=FRAME)
    assert read.status == ReadStatus.UNCERTAIN
    assert len(read.dice) == 2


def test_clear_non_die_is_ignored_but_a_faint_possible_die_leaves_a_doubt():
    junk = Evidence(500, 300, 40, 0.9, (0.99, 0.01, 0, 0, 0, 0, 0), True, 0)
    faint = (P.die_peak + P.faint_peak) / 2
    maybe = Evidence(500, 300, 40, faint, (0.05, 0.95, 0, 0, 0, 0, 0), True, 1)
    assert judge([sure(3, 100, 100), sure(5, 300, 200), junk], 2, FRAME).status == ReadStatus.OK
    assert judge([sure(3, 100, 100), sure(5, 300, 200), maybe], 2, FRAME).status == ReadStatus.UNCERTAIN


def test_a_die_much_bigger_than_the_others_is_uncertain():
    read = judge([sure(3, 100, 100), sure(5, 300, 200, side=70)], expect=2, frame_shape=FRAME)
    assert read.status == ReadStatus.UNCERTAIN


def test_the_pip_count_is_skipped_only_where_it_cannot_change_the_verdict():
    from vision.reader.judge import pips_can_matter

    other = sure(2, 300, 200)
    for p in (0.5, 0.8, 0.95, 0.96, P.sure_doubted, 0.999):
        for agree, looked_twice in itertools.product((True, False), (True, False)):
            probe = sure(5, 100, 100, p=p, agree=agree)
            verdicts = {
                judge([Evidence(probe.cx, probe.cy, probe.side, probe.peak, probe.probs, agree, pips, glare,
                                looked_twice), other], expect=2, frame_shape=FRAME).status
                for pips in range(7) for glare in (False, True)
            }
            if not pips_can_matter(probe.probs, agree, looked_twice):
                assert len(verdicts) == 1, (p, agree, looked_twice, verdicts)
    assert pips_can_matter(sure(5, 0, 0, p=P.sure_doubted - 0.01).probs, True)
    assert len({judge([sure(5, 100, 100, p=P.sure_doubted - 0.01, pips=n), other], expect=2, frame_shape=FRAME).status
                for n in range(7)}) == 2  # where it can matter, it does


def test_a_die_too_small_in_the_picture_is_for_the_dealer():

    small = P.min_sure_side_px - 1
    read = judge([sure(3, 100, 100, side=small), sure(5, 300, 200, side=small)], expect=2, frame_shape=FRAME)
    assert read.status == ReadStatus.UNCERTAIN and "too small" in read.reason
    assert sorted(read.values) == [3, 5]
    fine = P.min_sure_side_px + 1
    assert judge([sure(3, 100, 100, side=fine), sure(5, 300, 200, side=fine)], 2, FRAME).status == ReadStatus.OK


def test_more_dice_than_thrown_is_no_read():
    read = judge([sure(3, 100, 100), sure(5, 300, 200), sure(2, 500, 300)], expect=2, frame_shape=FRAME)
    assert read.status == ReadStatus.NO_READ
    assert read.reason == "found 3 dice, expected 2"


@pytest.mark.parametrize("cx, cy", [(10, 200), (630, 200), (300, 10), (300, 470)],
                         ids=["left", "right", "top", "bottom"])
def test_a_die_cut_by_any_edge_is_no_read(cx, cy):
    read = judge([sure(3, cx, cy), sure(5, 320, 240)], expect=2, frame_shape=FRAME)
    assert read.status == ReadStatus.NO_READ
    assert read.reason == "a die is cut by the edge of the view"


def test_a_die_just_inside_every_edge_is_read():
    h, w = FRAME[:2]
    dice = [sure(3, 21, 21), sure(5, w - 21, h - 21), sure(2, 21, h - 21), sure(6, w - 21, 21)]
    assert judge(dice, expect=4, frame_shape=FRAME).status == ReadStatus.OK


def test_a_die_whose_box_crosses_the_landing_area_edge_is_outside_it():
    mask = np.zeros(FRAME[:2], np.uint8)
    mask[:, :320] = 255
    crossing = judge([sure(3, 100, 100), sure(5, 310, 200)], expect=2, frame_shape=FRAME, landing_mask=mask)
    assert crossing.status == ReadStatus.NO_READ  # its centre is inside, a side of its box is not
    assert "landing area" in crossing.reason
    inside = judge([sure(3, 100, 100), sure(5, 290, 200)], expect=2, frame_shape=FRAME, landing_mask=mask)
    assert inside.status == ReadStatus.OK


def test_touching_by_box_on_either_side_of_its_bar():
    # side 40: the bar is P.touching * 40 px between centres
    near = judge([sure(3, 100, 100), sure(5, 100 + P.touching * 40 - 1, 100)], expect=2, frame_shape=FRAME)
    assert near.status == ReadStatus.NO_READ and "touching" in near.reason
    apart = judge([sure(3, 100, 100), sure(5, 100 + P.touching * 40 + 1, 100)], expect=2, frame_shape=FRAME)
    assert apart.status != ReadStatus.NO_READ  # not touching by box; close enough to ask (below)


def test_an_agreeing_pip_count_lowers_the_bar_to_sure_with_pips_and_no_further():
    # the rest of the probability on another face: the place is a die either way, its value in doubt
    below = judge([sure(3, 100, 100), sure(5, 300, 200, p=P.sure_with_pips - 0.01, rest=6)], expect=2,
                  frame_shape=FRAME)
    assert below.status == ReadStatus.UNCERTAIN and "not clear" in below.reason
    at = judge([sure(3, 100, 100), sure(5, 300, 200, p=P.sure_with_pips, rest=6)], expect=2, frame_shape=FRAME)
    assert at.status == ReadStatus.OK


def test_dice_of_unlike_sizes_on_either_side_of_the_ratio():
    alike = judge([sure(3, 100, 100, side=40), sure(5, 300, 200, side=40 * P.size_ratio - 1)], 2, FRAME)
    assert alike.status == ReadStatus.OK
    unlike = judge([sure(3, 100, 100, side=40), sure(5, 300, 200, side=40 * P.size_ratio + 1)], 2, FRAME)
    assert unlike.status == ReadStatus.UNCERTAIN
    assert unlike.reason == "a die looks unlike the others (leaning?)"


def test_when_a_faint_place_leaves_a_doubt():
    """A faint place leaves a doubt only above FAINT_PEAK, and when the classifier leans to a die."""
    dice = [sure(3, 100, 100), sure(5, 300, 200)]
    peak = (P.faint_peak + P.die_peak) / 2
    doubt = judge(dice + [sure(2, 500, 400, p=P.doubt + 0.05, peak=peak)], 2, FRAME)
    assert doubt.status == ReadStatus.UNCERTAIN and "may be a die" in doubt.reason
    rejected = judge(dice + [sure(2, 500, 400, p=P.doubt - 0.05, peak=peak)], 2, FRAME)
    assert rejected.status == ReadStatus.OK
    too_faint = judge(dice + [sure(2, 500, 400, p=0.99, peak=P.faint_peak - 0.01)], 2, FRAME)
    assert too_faint.status == ReadStatus.OK


def test_a_die_at_the_leaning_doubt_bar_is_uncertain():
    read = judge([replace(sure(3, 100, 100), leaning=P.leaning_doubt), sure(5, 300, 200)], 2, FRAME)
    assert read.status == ReadStatus.UNCERTAIN and "may be leaning" in read.reason


@pytest.mark.parametrize("refusal, expect, reason", [
    ([sure(3, 100, 100), sure(5, 125, 100)], 4, "dice touching or stacked"),
    ([sure(3, 10, 100), sure(5, 300, 200)], 4, "a die is cut by the edge of the view"),
    ([sure(3, 100, 100)], 4, "found 3 dice, expected 4"),
], ids=["touching", "cut", "count"])
def test_a_refusal_outranks_every_doubt(refusal, expect, reason):
    """no_read is checked before uncertain: a roll that must not be read is not put to the dealer as a doubt."""
    doubts = [sure(6, 500, 400, agree=False), replace(sure(2, 400, 100, p=0.6), leaning=P.leaning_doubt)]
    read = judge(refusal + doubts, expect, FRAME)
    assert read.status == ReadStatus.NO_READ and read.reason == reason
