"""Debounce and long-press logic on (time, level) samples with a fake clock: no pins, no sleeping."""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hardware.gpio.press_logic import ButtonLogic, Debouncer, Press, PressClassifier, RepeatGuard

SETTLE = 0.03
HOLD = 1.5


def test_debouncer_accepts_a_level_only_after_it_held_for_the_settle_time():
    debouncer = Debouncer(SETTLE)
    assert debouncer.sample(1.000, True) is None
    assert debouncer.deadline == pytest.approx(1.030)
    assert debouncer.poll(1.029) is None
    assert debouncer.poll(1.030) is True
    assert debouncer.level is True
    assert debouncer.changed_at == pytest.approx(1.030)
    assert debouncer.deadline is None


def test_debouncer_ignores_a_spike_shorter_than_the_settle_time():
    debouncer = Debouncer(SETTLE)
    debouncer.sample(1.000, True)
    debouncer.sample(1.010, False)
    assert debouncer.deadline is None
    assert debouncer.poll(5.0) is None
    assert debouncer.level is False


def test_debouncer_restarts_the_settle_time_on_every_bounce():
    debouncer = Debouncer(SETTLE)
    for t, level in [(1.000, True), (1.002, False), (1.004, True), (1.006, False), (1.008, True)]:
        assert debouncer.sample(t, level) is None
    assert debouncer.poll(1.037) is None  # only 29 ms since the last bounce
    assert debouncer.poll(1.038) is True


def test_debouncer_dates_a_late_poll_at_the_deadline():
    debouncer = Debouncer(SETTLE)
    debouncer.sample(1.0, True)
    assert debouncer.poll(9.0) is True
    assert debouncer.changed_at == pytest.approx(1.03)


def test_debouncer_starting_level_counts_as_stable():
    debouncer = Debouncer(SETTLE, initial=True)
    assert debouncer.poll(10.0) is None
    assert debouncer.level is True


def test_zero_settle_time_passes_edges_straight_through():
    debouncer = Debouncer(0.0)
    assert debouncer.sample(1.0, True) is True
    assert debouncer.sample(1.0, False) is False


def test_negative_times_are_refused():
    with pytest.raises(ValueError):
        Debouncer(-0.01)
    with pytest.raises(ValueError):
        PressClassifier(0.0, has_long=True)


def test_button_without_long_meaning_reports_on_press_and_nothing_on_release():
    classifier = PressClassifier(HOLD, has_long=False)
    assert classifier.press(1.0) == [Press.SHORT]
    assert classifier.deadline is None
    assert classifier.poll(10.0) == []
    assert classifier.release(10.0) == []


def test_short_press_of_a_button_with_long_meaning_reports_on_release():
    classifier = PressClassifier(HOLD, has_long=True)
    assert classifier.press(1.0) == []
    assert classifier.deadline == pytest.approx(2.5)
    assert classifier.poll(1.7) == []
    assert classifier.release(1.7) == [Press.SHORT]  # held 0.7 s: within half the hold time
    assert classifier.deadline is None


def test_a_hold_let_go_too_soon_is_neither_a_push_nor_a_hold():
    """CONFIRM held to correct an unsure read and let go at 1.45 s must not settle that read."""
    classifier = PressClassifier(HOLD, has_long=True)
    for held in (0.76, 1.2, 1.45):
        classifier.press(10.0)
        assert classifier.poll(10.0 + held) == []
        assert classifier.release(10.0 + held) == [Press.UNCLEAR]
    classifier.press(20.0)
    assert classifier.release(20.0 + HOLD / 2) == [Press.SHORT]


def test_long_press_reports_once_while_held_and_not_again_on_release():
    classifier = PressClassifier(HOLD, has_long=True)
    classifier.press(1.0)
    assert classifier.poll(2.5) == [Press.LONG]
    assert classifier.poll(30.0) == []
    assert classifier.release(31.0) == []


def test_release_after_hold_time_without_poll_still_counts_as_long():
    classifier = PressClassifier(HOLD, has_long=True)
    classifier.press(1.0)
    assert classifier.release(3.0) == [Press.LONG]


def test_button_logic_short_and_long_press_through_bounce():
    logic = ButtonLogic(SETTLE, HOLD, has_long=True)
    # a bouncy push at t=10
    for t, level in [(10.000, True), (10.001, False), (10.002, True)]:
        assert logic.sample(t, level) == []
    assert logic.poll(10.040) == []
    assert logic.pressed is True
    assert logic.deadline == pytest.approx(10.032 + HOLD)
    # a bouncy release at t=10.5 gives one short press once the release settles
    assert logic.sample(10.500, False) == []
    assert logic.sample(10.501, True) == []
    assert logic.sample(10.502, False) == []
    assert logic.poll(10.540) == [Press.SHORT]
    # a long one
    logic.sample(20.0, True)
    assert logic.poll(20.0 + SETTLE + HOLD - 0.001) == []
    assert logic.poll(20.0 + SETTLE + HOLD) == [Press.LONG]
    logic.sample(25.0, False)
    assert logic.poll(26.0) == []
    assert logic.deadline is None


def test_button_logic_held_at_start_gives_nothing_until_released_and_pushed_again():
    logic = ButtonLogic(SETTLE, HOLD, has_long=False, pressed=True)
    assert logic.poll(50.0) == []
    logic.sample(51.0, False)
    assert logic.poll(52.0) == []
    logic.sample(53.0, True)
    assert logic.poll(53.1) == [Press.SHORT]


# Pulse trains: (gap before the edge, ...) with every pulse shorter than the settle time.
short_gaps = st.lists(st.floats(min_value=0.0001, max_value=SETTLE * 0.99), min_size=1, max_size=40)


@given(short_gaps)
def test_glitches_shorter_than_the_settle_time_never_make_a_press(gaps):
    logic = ButtonLogic(SETTLE, HOLD, has_long=False)
    t, level, found = 0.0, False, []
    for gap in gaps:
        t += gap
        level = not level
        found += logic.sample(t, level)
    if level:  # end released, and give the logic all the time in the world
        t += gaps[-1]
        found += logic.sample(t, False)
    found += logic.poll(t + 100.0)
    assert found == []


held_times = st.one_of(
    st.floats(min_value=0.05, max_value=3.0),
    st.floats(min_value=HOLD / 2 - 0.01, max_value=HOLD / 2 + 0.01),  # around the push's limit
    st.floats(min_value=HOLD - 0.01, max_value=HOLD + 0.01),  # around the hold's
)


@given(st.lists(st.tuples(short_gaps, held_times), min_size=1, max_size=8))
def test_every_bouncy_press_counts_exactly_once(presses):
    logic = ButtonLogic(SETTLE, HOLD, has_long=True)
    t, found = 0.0, []
    for bounces, held in presses:
        level = False
        for gap in bounces:  # contacts bouncing on the way down, ending pushed
            t += gap
            level = not level
            found += logic.sample(t, level)
        if not level:
            found += logic.sample(t, True)
        t += held
        found += logic.poll(t)
        found += logic.sample(t, False)
        t += 1.0
        found += logic.poll(t)
    assert len(found) == len(presses)
    # Press and release are both accepted SETTLE late, so the hold is measured as it happened.
    for got, (_, held) in zip(found, presses, strict=True):
        if min(abs(held - HOLD), abs(held - HOLD / 2)) > 1e-6:  # float rounding decides a tie
            assert got is (Press.LONG if held > HOLD else Press.UNCLEAR if held > HOLD / 2 else Press.SHORT)


def test_a_release_that_settled_before_the_next_edge_counts_though_nobody_polled():
    # The button thread woke late: the 100 ms push's release had settled when the next sample came.
    debouncer = Debouncer(0.03)
    assert debouncer.sample(1.000, True) is None
    assert debouncer.sample(1.100, False) is True  # the press, settled at 1.03
    assert debouncer.changed_at == pytest.approx(1.03)
    assert debouncer.poll(5.0) is False and debouncer.changed_at == pytest.approx(1.13)


def test_a_short_push_is_not_lost_when_the_poll_comes_late():
    lock = ButtonLogic(0.03, 1.5, has_long=False)
    found = lock.sample(0.000, True) + lock.sample(0.100, False) + lock.poll(1.0)
    assert found == [Press.SHORT]


def test_a_release_before_the_hold_time_is_not_long_even_when_polled_after_it():
    confirm = ButtonLogic(0.03, 1.5, has_long=True)
    found = confirm.sample(0.0, True) + confirm.poll(0.03)
    found += confirm.sample(1.40, False)  # settles at 1.43, before the hold time ends at 1.53
    found += confirm.sample(1.60, True)   # the next push; nobody polled since 1.40
    assert found == [Press.UNCLEAR]  # held 1.4 s: too long for a push, too short for a hold
    assert confirm.poll(1.70) == [] and confirm.pressed  # the next push goes on from here


def test_repeat_guard_merges_a_push_too_soon():
    """The repeat guard counts a push too soon after the last one it let through as that push."""
    guard = RepeatGuard(0.4)
    assert [guard.admit(t) for t in (10.0, 10.15, 10.39, 10.4, 10.5, 10.85)] == [True, False, False, True, False, True]
    assert all(RepeatGuard(0.0).admit(t) for t in (1.0, 1.0, 1.01))  # 0: every push counts
    with pytest.raises(ValueError):
        RepeatGuard(-0.1)


def test_button_logic_times_the_hold_off_from_the_debounced_edge():
    """The button logic dates the hold-off by the debounced edge and reports what it holds off."""
    logic = ButtonLogic(0.03, 1.5, has_long=False, repeat_s=0.4)
    found = []
    for t, level in ((0.0, True), (0.1, False), (0.2, True), (0.3, False), (0.6, True)):
        found += logic.sample(t, level)
    found += logic.poll(1.0)
    # pushes settled at 0.03, 0.23 (0.2 after the first: held off) and 0.63 (0.6 after it: counts)
    assert found == [Press.SHORT, Press.REPEATED, Press.SHORT]
