"""Every kind of display behind one interface: opened by its ``[display] kind``, healthy once it answers."""
from __future__ import annotations

import time

import pytest

from hardware.display import KINDS, DisplayState, HealthState, SerialDisplay, SimDisplay, open_display


def test_every_kind_is_opened_by_its_name():
    assert set(KINDS) == {"serial", "sim"}
    with pytest.raises(ValueError, match="unknown kind 'hdmi'; expected one of serial, sim"):
        open_display("hdmi")


def test_the_stand_in_answers_and_shows_what_it_is_given():
    display = open_display("sim")
    try:
        assert isinstance(display, SimDisplay)
        state = DisplayState(game="craps", phase="locked", dice=(3, 4), point=6)
        display.show(state)
        assert display.wait_shown(state, timeout=5) is not None
        assert display.health.ok and display.health.detail == "answering"
        assert display.screen().state == state
    finally:
        display.close()
    assert display.health.state is HealthState.CLOSED and not display.health.ok


def test_a_serial_display_that_never_answers_says_where_and_why(tmp_path):
    display = open_display("serial", port=str(tmp_path / "no-such-port"))
    try:
        assert isinstance(display, SerialDisplay)
        deadline = time.monotonic() + 5
        while display.health.state is HealthState.STARTING and time.monotonic() < deadline:
            time.sleep(0.05)
        health = display.health
        assert health.state is HealthState.LOST and not health.ok
        assert health.detail.startswith(f"on {tmp_path / 'no-such-port'} not answering (")
    finally:
        display.close()
