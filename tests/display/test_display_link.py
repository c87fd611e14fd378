"""The host's DisplayLink against the firmware answering on a pseudo-terminal
(the stand-in), with faults injected on the wire and at the cable."""
from __future__ import annotations

import pytest

from hardware.display import DisplayLink, DisplayState, LineFaults, LinkTiming, StandIn

OPEN = DisplayState("craps", "open", (), None, (), 0)
ROLL = DisplayState("craps", "locked", (3, 4), 6, ((6, 5),), 7)
NEXT = DisplayState("craps", "settled", (6, 6), 6, ((3, 4), (6, 5)), 8)


def test_handshake_then_the_display_shows_the_state(stand_in, make_link):
    # A patient ACK timeout: this test asserts no fault at all, even on a loaded machine.
    link = make_link(stand_in.port, timing=LinkTiming(ack_timeout=1.0, heartbeat_interval=0.1))
    link.show(ROLL)
    assert link.wait_acked(ROLL, 5.0) is not None
    assert stand_in.shown() == ROLL
    assert stand_in.screen().rows == ("3 4    7", "L0CdP  6", "11.      ")
    health = link.health()
    assert health.connected and health.healthy and health.in_sync
    assert health.firmware_version == "1.3.0"
    assert health.fault_count == 0 and health.last_error is None


def test_the_stand_in_shows_a_hand_entry_and_a_read_to_enter_by_hand(stand_in, make_link):
    link = make_link(stand_in.port, timing=LinkTiming(ack_timeout=1.0, heartbeat_interval=0.1))
    for phase, word in (("manual", "HAnd"), ("enter", "Entr")):
        state = DisplayState("craps", phase, (3, 4), 6, (), 9)
        link.show(state)
        assert link.wait_acked(state, 5.0) is not None
        assert stand_in.screen().rows == ("3 4    7", word + "P  6", "        ")


def test_the_latest_of_many_updates_wins(stand_in, make_link, eventually):
    link = make_link(stand_in.port)
    for roll_id in range(30):
        link.show(DisplayState("hazard", "rolling", (1 + roll_id % 6, 2, 3), None, (), roll_id))
    last = DisplayState("hazard", "settled", (6, 6, 6), None, ((1, 2, 3),), 99)
    link.show(last)
    assert link.wait_acked(last, 5.0) is not None
    assert stand_in.shown() == last
    assert link.acked() == last


def test_heartbeats_keep_the_display_linked_while_nothing_changes(stand_in, make_link, eventually):
    link = make_link(stand_in.port)
    link.show(ROLL)
    assert link.wait_acked(ROLL, 5.0) is not None
    frames = stand_in.app.device.frames_ok
    # Three display timeouts with no new state: only heartbeats keep it up.
    for _ in range(3):
        eventually(lambda frames=frames: stand_in.app.device.frames_ok >= frames + 5, timeout=5.0)
        frames = stand_in.app.device.frames_ok
        assert stand_in.shown() == ROLL


def test_show_never_waits_for_a_missing_display(make_link, tmp_path, eventually):
    link = make_link(str(tmp_path / "no-such-port"))
    link.show(ROLL)  # returns although nothing will ever answer
    health = eventually(lambda: link.health().faults.get("open_failed", 0) >= 2 and link.health())
    assert not health.connected and not health.healthy and not health.in_sync
    assert "no-such-port" in health.last_error


def test_corrupted_dropped_and_duplicated_frames_still_end_in_the_right_state(make_link, eventually):
    faults = LineFaults(corrupt=0.01, drop=0.15, duplicate=0.15, seed=4)
    with StandIn(link_timeout_ms=500, faults=faults, poll_interval=0.005) as display:
        link = make_link(display.port)
        for roll_id in range(1, 16):
            link.show(DisplayState("bang", "settled", (1 + roll_id % 6, 4), 8, ((2, 2),), roll_id))
            eventually(lambda: link.health().in_sync, timeout=10.0)
        final = DisplayState("bang", "open", (), 8, ((5, 4), (2, 2)), 16)
        link.show(final)
        eventually(lambda: display.shown() == final, timeout=10.0)
        health = link.health()
        assert faults.damaged > 0
        assert health.faults.get("timeout", 0) + health.bad_frames > 0  # the damage was seen


def test_cable_pulled_then_put_back(stand_in, make_link, eventually):
    link = make_link(stand_in.port)
    link.show(ROLL)
    assert link.wait_acked(ROLL, 5.0) is not None
    stand_in.unplug()
    link.show(NEXT)  # the result changes while the cable is out
    health = eventually(lambda: not link.health().connected and link.health())
    assert {"port_lost", "open_failed"} & set(health.faults)
    assert health.last_error
    # The display, hearing nothing, stops showing the stale result.
    eventually(lambda: stand_in.screen().rows == ("--------", " no LInE", "--------"))
    assert stand_in.shown() is None
    stand_in.plug()
    eventually(lambda: stand_in.shown() == NEXT)
    assert link.wait_acked(NEXT, 5.0) is not None  # the ACK may trail the picture a little
    assert link.health().healthy


def test_a_display_that_never_answers(stand_in, make_link, eventually):
    stand_in.muted = True
    link = make_link(stand_in.port)
    link.show(ROLL)
    health = eventually(lambda: link.health().faults.get("no_answer", 0) >= 2 and link.health())
    assert not health.connected and not health.healthy
    assert "does not answer" in health.last_error
    assert link.acked() is None and stand_in.shown() is None
    link.show(NEXT)  # still accepted at once
    stand_in.muted = False
    eventually(lambda: stand_in.shown() == NEXT)
    assert eventually(lambda: link.health().healthy)


def test_a_silent_display_is_reported_once_per_kind_of_fault_until_it_answers(stand_in, make_link, eventually,
                                                                               caplog):
    caplog.set_level("DEBUG", logger="hardware.display.link")
    stand_in.muted = True
    link = make_link(stand_in.port)
    link.show(ROLL)
    eventually(lambda: link.health().faults.get("no_answer", 0) >= 3)
    warned = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert sum("no reply" in m for m in warned) == 1 and sum("does not answer" in m for m in warned) == 1
    assert link.health().faults["timeout"] >= 3  # still counted
    stand_in.muted = False
    assert eventually(lambda: link.health().healthy)
    assert any("answering again" in r.getMessage() for r in caplog.records)
    caplog.clear()
    stand_in.muted = True  # a new outage is said again
    eventually(lambda: any(r.levelname == "WARNING" and "no reply" in r.getMessage() for r in caplog.records))


def test_a_display_that_reboots_gets_the_state_again(stand_in, make_link, eventually):
    link = make_link(stand_in.port)
    link.show(ROLL)
    assert link.wait_acked(ROLL, 5.0) is not None
    stand_in.reboot()
    assert stand_in.shown() is None
    eventually(lambda: stand_in.shown() == ROLL)  # the next heartbeat's ack told the host


def test_a_display_that_went_silent_too_long_forgets_and_is_refreshed(stand_in, make_link, eventually):
    link = make_link(stand_in.port)
    link.show(ROLL)
    assert link.wait_acked(ROLL, 5.0) is not None
    stand_in.muted = True
    eventually(lambda: stand_in.shown() is None)  # no-link pattern, not the old result
    stand_in.muted = False
    eventually(lambda: stand_in.shown() == ROLL)


def test_show_refuses_something_that_is_not_a_display_state(stand_in, make_link):
    link = make_link(stand_in.port)
    with pytest.raises(TypeError, match="DisplayState"):
        link.show({"dice": [3, 4]})


def test_stop_closes_the_port_and_the_display_goes_to_no_link(stand_in, eventually):
    link = DisplayLink(stand_in.port).start()
    link.show(OPEN)
    assert link.wait_acked(OPEN, 5.0) is not None
    link.stop()
    assert not link.health().connected
    eventually(lambda: stand_in.shown() is None)


def test_a_second_program_on_the_same_display_is_refused(stand_in, make_link, eventually):
    first = make_link(stand_in.port)
    first.show(ROLL)
    assert first.wait_acked(ROLL, 5.0) is not None
    second = make_link(stand_in.port)
    health = eventually(lambda: second.health().faults.get("open_failed") and second.health())
    assert "lock" in health.last_error and not health.connected
    assert first.health().healthy and stand_in.shown() == ROLL


def test_a_new_state_is_sent_even_when_its_tag_equals_the_shown_one(stand_in, make_link, eventually, monkeypatch):
    """The tag is 16 bits: some picture changes keep it. Such a change must still reach the digits."""
    monkeypatch.setattr(DisplayState, "tag", lambda self: 0x1234)  # every state collides
    link = make_link(stand_in.port)
    link.show(ROLL)
    assert link.wait_acked(ROLL, 2.0) is not None
    link.show(NEXT)
    eventually(lambda: stand_in.shown() == NEXT)
    assert link.wait_acked(NEXT, 2.0) is not None and link.health().in_sync
