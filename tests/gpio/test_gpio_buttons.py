"""The dealer's buttons on mock pins: gpiozero edges through debounce and long press to ButtonEvent."""
from __future__ import annotations

import logging
import queue
import time

import pytest
from gpiozero.pins.mock import MockPin

from messages.devices import ButtonEvent
from hardware.gpio.buttons import DealerButtons
from hardware.gpio.events import DealerButton

LOCK, CONFIRM, VOID, NEXT = 5, 6, 13, 26
SETTLE, HOLD = 0.03, 1.5


def make(factory, clock, **options) -> DealerButtons:
    return DealerButtons(
        lock=LOCK, confirm=CONFIRM, void=VOID, next_shooter=NEXT, clock=clock, pin_factory=factory, **options
    )


@pytest.fixture
def buttons(factory, clock):
    device = DealerButtons(
        lock=LOCK, confirm=CONFIRM, void=VOID, next_shooter=NEXT,
        debounce_s=SETTLE, long_press_s=HOLD, clock=clock, pin_factory=factory,
    )
    yield device
    device.close()


def drained(buttons: DealerButtons) -> list[ButtonEvent]:
    found = []
    while True:
        try:
            found.append(buttons.events.get_nowait())
        except queue.Empty:
            return found


def tick(buttons, clock, seconds):
    clock.advance(seconds)
    buttons.poll()


def push(factory, buttons, clock, pin, held=0.1):
    factory.pin(pin).drive_low()
    tick(buttons, clock, held)
    factory.pin(pin).drive_high()
    tick(buttons, clock, 0.1)


def test_lines_idle_high_with_pull_ups(buttons, factory):
    for pin in (LOCK, CONFIRM, VOID, NEXT):
        assert factory.pin(pin).state == 1
    assert buttons.pin_of(DealerButton.VOID) == VOID


@pytest.mark.parametrize(
    ("pin", "event"),
    [(LOCK, ButtonEvent.LOCK), (VOID, ButtonEvent.VOID), (NEXT, ButtonEvent.NEXT_SHOOTER)],
)
def test_plain_buttons_act_once_the_push_has_settled(buttons, factory, clock, pin, event):
    factory.pin(pin).drive_low()
    assert drained(buttons) == []  # not before the debounce time
    tick(buttons, clock, SETTLE - 0.001)
    assert drained(buttons) == []
    tick(buttons, clock, 0.001)
    assert drained(buttons) == [event]  # while still held: no need to let go
    factory.pin(pin).drive_high()
    tick(buttons, clock, 5.0)
    assert drained(buttons) == []


def test_confirm_is_reported_on_release_and_a_long_hold_means_manual(buttons, factory, clock):
    push(factory, buttons, clock, CONFIRM, held=0.3)
    assert drained(buttons) == [ButtonEvent.CONFIRM]
    factory.pin(CONFIRM).drive_low()
    tick(buttons, clock, SETTLE + HOLD - 0.01)
    assert drained(buttons) == []
    tick(buttons, clock, 0.01)
    assert drained(buttons) == [ButtonEvent.MANUAL]  # while still held
    tick(buttons, clock, 3.0)
    factory.pin(CONFIRM).drive_high()
    tick(buttons, clock, 0.1)
    assert drained(buttons) == []  # the long press is not also a confirm


def test_confirm_let_go_just_before_the_hold_time_is_unclear_and_is_logged(buttons, factory, clock, caplog):
    """The dealer meant to hold CONFIRM to correct an unsure read: letting go at 1.45 s must not settle it.
    It is UNCLEAR, not nothing: the table refuses it, and the display says so."""
    caplog.set_level(logging.INFO, logger="hardware.gpio.buttons")
    push(factory, buttons, clock, CONFIRM, held=1.45)
    assert drained(buttons) == [ButtonEvent.UNCLEAR]
    assert "confirm held longer than a push" in caplog.text
    push(factory, buttons, clock, LOCK, held=1.45)  # a button with no hold meaning: a push however long
    assert drained(buttons) == [ButtonEvent.LOCK]


def test_contact_bounce_gives_one_event(buttons, factory, clock, levels):
    pin = factory.pin(VOID)
    for _ in range(5):
        pin.drive_low()
        tick(buttons, clock, 0.003)
        pin.drive_high()
        tick(buttons, clock, 0.003)
    pin.drive_low()
    tick(buttons, clock, 0.2)
    for _ in range(3):  # bouncing on release too
        pin.drive_high()
        tick(buttons, clock, 0.002)
        pin.drive_low()
        tick(buttons, clock, 0.002)
    pin.drive_high()
    tick(buttons, clock, 0.2)
    assert drained(buttons) == [ButtonEvent.VOID]
    # the line really bounced: floating, pulled up, 5 bounces, held, 3 bounces, released
    assert levels(pin) == [False, True] + [False, True] * 5 + [False] + [True, False] * 3 + [True]


def double_tap(factory, buttons, clock, pin, gap):
    """Two pushes of 60 ms, ``gap`` apart: a double tap, or a contact bouncing past the debounce."""
    for _ in range(2):
        factory.pin(pin).drive_low()
        tick(buttons, clock, 0.06)
        factory.pin(pin).drive_high()
        tick(buttons, clock, gap)


@pytest.mark.parametrize("pin, event", [(CONFIRM, ButtonEvent.CONFIRM), (VOID, ButtonEvent.VOID),
                                        (NEXT, ButtonEvent.NEXT_SHOOTER)])
def test_a_doubled_push_of_a_button_that_moves_the_table_a_step_counts_once(buttons, factory, clock, caplog,
                                                                             pin, event):
    """A second CONFIRM in a hand entry settled a die the dealer never set; a second VOID unlocked
    the bets; a second NEXT SHOOTER skipped a player."""
    with caplog.at_level(logging.INFO, logger="hardware.gpio.buttons"):
        double_tap(factory, buttons, clock, pin, gap=0.1)
    assert drained(buttons) == [event]
    assert "pushed again within 0.40 s: taken as the same push" in caplog.text
    tick(buttons, clock, 1.0)
    double_tap(factory, buttons, clock, pin, gap=0.5)  # pushes spaced out each count
    assert drained(buttons) == [event, event]


def test_lock_steps_a_die_as_fast_as_it_is_pushed(buttons, factory, clock):
    double_tap(factory, buttons, clock, LOCK, gap=0.1)
    assert drained(buttons) == [ButtonEvent.LOCK, ButtonEvent.LOCK]


def test_a_double_press_time_of_zero_lets_every_push_through(factory, clock):
    device = make(factory, clock, double_press_s=0.0)
    double_tap(factory, device, clock, VOID, gap=0.1)
    assert drained(device) == [ButtonEvent.VOID, ButtonEvent.VOID]
    device.close()


def test_a_spike_of_noise_is_not_a_press(buttons, factory, clock):
    factory.pin(LOCK).drive_low()
    tick(buttons, clock, 0.005)
    factory.pin(LOCK).drive_high()
    tick(buttons, clock, 1.0)
    assert drained(buttons) == []


def test_a_sequence_of_presses_keeps_its_order(buttons, factory, clock):
    for pin in (LOCK, CONFIRM, VOID, NEXT, LOCK):
        push(factory, buttons, clock, pin)
    assert drained(buttons) == [
        ButtonEvent.LOCK, ButtonEvent.CONFIRM, ButtonEvent.VOID, ButtonEvent.NEXT_SHOOTER, ButtonEvent.LOCK,
    ]


class StuckDownPin(MockPin):
    """A line held low by a jammed button: the pull-up cannot raise it until it is released."""

    def _set_pull(self, value):
        self._pull = value


def test_a_button_held_while_the_program_starts_does_nothing_until_pushed_again(factory, clock):
    factory.pin(VOID, pin_class=StuckDownPin)
    buttons = make(factory, clock)
    assert factory.pin(VOID).state == 0
    assert buttons.is_pressed(DealerButton.VOID)
    tick(buttons, clock, 10.0)
    assert drained(buttons) == []
    factory.pin(VOID).drive_high()
    tick(buttons, clock, 0.1)
    assert drained(buttons) == []
    push(factory, buttons, clock, VOID)
    assert drained(buttons) == [ButtonEvent.VOID]
    buttons.close()


def test_events_go_to_the_sink_and_a_failing_sink_does_not_stop_the_buttons(factory, clock):
    got = []

    def sink(event):
        got.append(event)
        if len(got) == 1:
            raise RuntimeError("consumer bug")

    buttons = make(factory, clock, sink=sink)
    push(factory, buttons, clock, LOCK)
    push(factory, buttons, clock, VOID)
    assert got == [ButtonEvent.LOCK, ButtonEvent.VOID]
    assert drained(buttons) == []
    buttons.close()


def test_with_the_real_clock_the_deadline_thread_delivers_by_itself(factory):
    buttons = DealerButtons(
        lock=LOCK, confirm=CONFIRM, void=VOID, next_shooter=NEXT,
        debounce_s=0.01, long_press_s=0.05, pin_factory=factory,
    )
    buttons.start()
    try:
        factory.pin(LOCK).drive_low()
        assert buttons.events.get(timeout=2.0) is ButtonEvent.LOCK
        factory.pin(LOCK).drive_high()
        factory.pin(CONFIRM).drive_low()
        assert buttons.events.get(timeout=2.0) is ButtonEvent.MANUAL  # nobody released it
        factory.pin(CONFIRM).drive_high()
        time.sleep(0.03)
        assert buttons.events.empty()
    finally:
        buttons.close()


def test_close_frees_the_lines(factory, clock):
    buttons = make(factory, clock)
    buttons.start()
    buttons.close()
    buttons.close()
    make(factory, clock).close()
