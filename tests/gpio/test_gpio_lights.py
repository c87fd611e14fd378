"""The bet-lock lights follow the desired state the controller sets, for every game."""
from __future__ import annotations

import pytest

from messages.devices import LightsState
from hardware.gpio import safe_exit
from hardware.gpio.lights import BetLockLights

NO_MORE_BETS, INSIDE, OUTSIDE = 22, 23, 24


@pytest.fixture
def lights(factory):
    device = BetLockLights(NO_MORE_BETS, INSIDE, OUTSIDE, pin_factory=factory)
    yield device
    device.close()


def lit(factory) -> tuple[bool, ...]:
    return tuple(bool(factory.pin(pin).state) for pin in (NO_MORE_BETS, INSIDE, OUTSIDE))


def test_all_dark_at_start(lights, factory):
    assert lit(factory) == (False, False, False)
    assert lights.state == LightsState()


def test_craps_and_hazard_use_the_no_more_bets_lamp_alone(lights, factory, levels):
    lights.show(LightsState.craps(bets_locked=True))
    assert lit(factory) == (True, False, False)
    lights.show(LightsState.craps(bets_locked=False))
    lights.show(LightsState.hazard(bets_locked=True))
    assert lit(factory) == (True, False, False)
    assert levels(factory.pin(NO_MORE_BETS)) == [False, True, False, True]
    assert levels(factory.pin(INSIDE)) == [False]


def test_bang_locks_its_sections_separately(lights, factory):
    # before the dealer's roll: outside bets open, inside bets open
    lights.show(LightsState.bang(inside_locked=False, outside_locked=False))
    assert lit(factory) == (False, False, False)
    # dealer's roll: everything locked -> the whole table says no more bets
    lights.show(LightsState.bang(inside_locked=True, outside_locked=True))
    assert lit(factory) == (True, True, True)
    # after the dealer's roll: inside bets open again, outside stays locked (§4620.15)
    lights.show(LightsState.bang(inside_locked=False, outside_locked=True))
    assert lit(factory) == (False, False, True)
    assert lights.state == LightsState(bang_outside=True)


def test_showing_the_same_state_again_changes_nothing(lights, factory, levels):
    state = LightsState.bang(inside_locked=True, outside_locked=False)
    lights.show(state)
    lights.show(state)
    assert [levels(factory.pin(pin)) for pin in (NO_MORE_BETS, INSIDE, OUTSIDE)] == [
        [False],
        [False, True],
        [False],
    ]


def test_after_a_restart_showing_the_state_redraws_the_lamps(factory):
    before = BetLockLights(NO_MORE_BETS, INSIDE, OUTSIDE, pin_factory=factory)
    before.show(LightsState.craps(bets_locked=True))
    before.close()  # the program stops: lamps go dark
    assert lit(factory) == (False, False, False)
    after = BetLockLights(NO_MORE_BETS, INSIDE, OUTSIDE, pin_factory=factory)
    after.show(LightsState.craps(bets_locked=True))  # state replayed from the journal
    assert lit(factory) == (True, False, False)
    after.close()


def test_show_repairs_a_lamp_that_was_switched_behind_its_back(lights, factory):
    lights.show(LightsState.craps(bets_locked=True))
    lights._lamps["no_more_bets"].off()  # e.g. a line reset by another program
    lights.show(LightsState.craps(bets_locked=True))
    assert lit(factory) == (True, False, False)


def test_close_and_exit_put_every_lamp_out(lights, factory):
    lights.show(LightsState(True, True, True))
    safe_exit.switch_off_all()
    assert lit(factory) == (False, False, False)
    assert lights.state == LightsState()
    lights.close()
    with pytest.raises(RuntimeError):
        lights.show(LightsState.craps(bets_locked=True))


def test_a_line_already_in_use_leaves_no_lamp_claimed(factory):
    from gpiozero import LED
    from gpiozero.exc import GPIOPinInUse

    blocker = LED(OUTSIDE, pin_factory=factory)
    with pytest.raises(GPIOPinInUse):
        BetLockLights(NO_MORE_BETS, INSIDE, OUTSIDE, pin_factory=factory)
    blocker.close()
    BetLockLights(NO_MORE_BETS, INSIDE, OUTSIDE, pin_factory=factory).close()


def test_a_signal_arriving_inside_show_still_puts_the_lamps_out(lights, factory):
    lights.show(LightsState(True, True, True))
    with lights._lock:  # the main thread is inside show() when SIGTERM's handler runs
        assert lights._lock.acquire(blocking=False), "the handler would deadlock here"
        lights._lock.release()
        safe_exit.switch_off_all()
    assert lit(factory) == (False, False, False)
