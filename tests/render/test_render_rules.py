"""Eligible dice and settleable rolls exactly as issue #36's targets define them."""
from __future__ import annotations

from dataclasses import replace

import pytest

from training.render.rules import DieFacts, cocked, eligible, settleable, too_close
from vision.benchtool.targets import cocked as bench_cocked

FLAT = DieFacts(value=3, box=(100.0, 100.0, 30.0, 30.0), tilt_deg=1.0, on_rail=False, on_die=False,
                touching=False, visible=1.0, lamp_on_top=False, top_px=22.0, in_frame=True)


def test_a_flat_whole_die_of_28_px_is_eligible():
    assert eligible(replace(FLAT, box=(0.0, 0.0, 28.0, 20.0)))


@pytest.mark.parametrize("change", [
    {"tilt_deg": 8.01}, {"on_rail": True}, {"on_die": True}, {"visible": 0.79}, {"lamp_on_top": True},
    {"box": (0.0, 0.0, 27.9, 27.9)}, {"in_frame": False},
])
def test_each_reason_alone_makes_a_die_ineligible(change):
    assert eligible(FLAT)
    assert not eligible(replace(FLAT, **change))


def test_the_limits_themselves_are_still_eligible():
    assert eligible(replace(FLAT, tilt_deg=8.0, visible=0.8))


def test_touching_alone_does_not_make_a_die_ineligible_but_the_spacing_rule_catches_the_roll():
    a = replace(FLAT, touching=True)
    b = replace(FLAT, touching=True, box=(130.0, 100.0, 30.0, 30.0))
    assert eligible(a) and eligible(b)
    assert not settleable([a, b])


def test_dice_apart_by_115_times_the_larger_side_are_far_enough():
    a = FLAT
    far = replace(FLAT, box=(100.0 + 1.15 * 30 + 0.01, 100.0, 30.0, 30.0))
    near = replace(FLAT, box=(100.0 + 1.15 * 30 - 0.01, 100.0, 30.0, 30.0))
    assert not too_close(a, far) and settleable([a, far])
    assert too_close(a, near) and not settleable([a, near])


def test_the_larger_side_of_either_box_sets_the_spacing():
    small = replace(FLAT, box=(100.0, 100.0, 30.0, 30.0))
    tall = replace(FLAT, box=(140.0, 100.0, 30.0, 40.0))  # centres 40 apart, larger side 40: 46 needed
    assert too_close(small, tall)


def test_a_roll_with_one_ineligible_die_or_none_is_not_settleable():
    other = replace(FLAT, box=(300.0, 100.0, 30.0, 30.0))
    assert settleable([FLAT, other])
    assert not settleable([FLAT, replace(other, tilt_deg=20.0)])
    assert not settleable([])


@pytest.mark.parametrize("tilt, on_rail, on_die", [
    (0.0, False, False), (8.0, False, False), (8.01, False, False), (0.0, True, False), (0.0, False, True), (30.0, True, True),
])
def test_the_renderer_and_the_bench_call_the_same_dice_cocked(tilt, on_rail, on_die):
    """The renderer flags a roll its manifest says must not settle, and the bench counts the
    refusals, each by its own side of the layers; the two rules must agree."""
    die = replace(FLAT, tilt_deg=tilt, on_rail=on_rail, on_die=on_die)
    assert cocked(tilt, on_rail, on_die) == (not die.flat)
    assert cocked(tilt, on_rail, on_die) == bench_cocked({"tilt_deg": tilt, "on_rail": on_rail, "on_die": on_die})
