"""The hazard cage motor: its own timer bounds every spin, and it stops on stop, close and exit."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from hardware.gpio import safe_exit
from hardware.gpio.motor import CageBusy, CageMotor, StopReason

PIN = 17
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def motor(factory, clock):
    device = CageMotor(PIN, max_run_s=0.05, pin_factory=factory, clock=clock)
    yield device
    device.close()


def test_starts_stopped_and_low(motor, factory, levels):
    assert motor.status.running is False
    assert motor.status.stop_reason is None
    assert levels(factory.pin(PIN)) == [False]


def test_a_spin_ends_by_itself_when_its_time_is_up(factory, clock, levels):
    motor = CageMotor(PIN, max_run_s=5.0, pin_factory=factory, clock=clock)
    status = motor.spin(0.03)
    assert status.running and status.granted_s == pytest.approx(0.03) and status.spins == 1
    assert motor.wait_stopped(timeout=2.0)
    assert motor.status.stop_reason is StopReason.FINISHED
    pin = factory.pin(PIN)
    assert levels(pin) == [False, True, False]
    on_for = pin.states[2].timestamp  # a mock pin stamps each change with the time since the one before
    # The timer starts just before the line goes high (a motor never runs without its timer), so
    # on a loaded machine the high time is the spin less that gap. Only a motor left running is a
    # fault here.
    assert 0 < on_for < 1.0
    motor.close()


def test_a_spin_longer_than_the_maximum_is_cut_by_the_motor_itself(motor, factory, levels):
    status = motor.spin(3600)
    assert status.requested_s == 3600 and status.granted_s == pytest.approx(0.05)
    assert motor.wait_stopped(timeout=2.0)
    assert motor.status.stop_reason is StopReason.MAX_RUN
    pin = factory.pin(PIN)
    assert levels(pin) == [False, True, False]
    on_for = pin.states[2].timestamp  # the high time (see above)
    assert 0 < on_for < 1.0  # never much past the maximum (no lower bound: see above)


def test_spinning_again_while_it_runs_is_refused_and_does_not_extend_it(factory, clock, levels):
    motor = CageMotor(PIN, max_run_s=5.0, pin_factory=factory, clock=clock)
    motor.spin(0.05)
    with pytest.raises(CageBusy):
        motor.spin(0.05)
    assert motor.wait_stopped(timeout=2.0)
    assert motor.status.spins == 1
    assert levels(factory.pin(PIN)) == [False, True, False]
    motor.close()


@pytest.mark.parametrize("seconds", [0, -1, float("nan"), "3", True, None])
def test_a_nonsense_duration_is_refused_and_nothing_moves(motor, factory, seconds, levels):
    with pytest.raises(ValueError):
        motor.spin(seconds)
    assert motor.status.running is False
    assert levels(factory.pin(PIN)) == [False]


def test_stop_stops_now_and_records_why(factory, clock, levels):
    motor = CageMotor(PIN, max_run_s=30.0, pin_factory=factory, clock=clock)
    motor.spin(20)
    clock.advance(1.5)
    status = motor.stop()
    assert (status.running, status.stop_reason) == (False, StopReason.STOPPED)
    assert status.stopped_at - status.started_at == pytest.approx(1.5)
    assert motor.stop() == status  # stopping a stopped motor changes nothing
    assert levels(factory.pin(PIN)) == [False, True, False]
    # a new spin after a stop works and is counted
    assert motor.spin(10).spins == 2
    motor.close()
    assert motor.status.stop_reason is StopReason.SHUTDOWN


def test_close_stops_a_running_motor_and_releases_the_line(factory, clock, levels):
    motor = CageMotor(PIN, max_run_s=30.0, pin_factory=factory, clock=clock)
    motor.spin(20)
    motor.close()
    motor.close()
    assert motor.status.stop_reason is StopReason.SHUTDOWN
    assert levels(factory.pin(PIN)) == [False, True, False]
    with pytest.raises(RuntimeError):
        motor.spin(1)
    CageMotor(PIN, max_run_s=1.0, pin_factory=factory).close()  # the line is free again


def test_the_exit_hook_stops_every_motor(factory, clock):
    motor = CageMotor(PIN, max_run_s=30.0, pin_factory=factory, clock=clock)
    motor.spin(20)
    safe_exit.switch_off_all()
    assert motor.status.stop_reason is StopReason.SHUTDOWN
    assert not factory.pin(PIN).state
    motor.close()


def test_on_stop_hears_every_stop_and_a_failing_listener_does_no_harm(factory, clock):
    heard = []
    stopped = threading.Event()

    def listener(status):
        heard.append(status.stop_reason)
        stopped.set()
        raise RuntimeError("listener bug")

    short = CageMotor(PIN, max_run_s=0.02, pin_factory=factory, clock=clock, on_stop=listener)
    short.spin(1)
    assert stopped.wait(timeout=2.0)
    short.close()
    # a maximum far beyond the test, so a slow thread cannot let the timer stop it before stop() does
    motor = CageMotor(PIN + 1, max_run_s=60, pin_factory=factory, clock=clock, on_stop=listener)
    motor.spin(30)
    motor.stop()
    motor.spin(30)
    motor.close()  # a shutdown stop is not reported: it may run inside a signal handler
    assert heard == [StopReason.MAX_RUN, StopReason.STOPPED]
    assert motor.status.stop_reason is StopReason.SHUTDOWN


def test_bad_maximum_is_refused(factory):
    for bad in (0, -1, float("inf"), "10"):
        with pytest.raises(ValueError):
            CageMotor(PIN, max_run_s=bad, pin_factory=factory)


# The process is started, spins the motor, and ends abnormally; the last atexit hook
# (registered before hardware.gpio, so it runs after the one that switches things off)
# prints the motor line's states.
_ENDING = textwrap.dedent(
    """
    import atexit, os, signal, sys
    def report():
        states = [bool(s.state) for s in factory.pin(17).states]
        print("STATES", states, motor.status.stop_reason.value, flush=True)
    atexit.register(report)
    from gpiozero.pins.mock import MockFactory
    from hardware.gpio import CageMotor, exit_on_signals
    factory = MockFactory()
    motor = CageMotor(17, max_run_s=60, pin_factory=factory)
    exit_on_signals()
    motor.spin(30)
    if sys.argv[1] == "crash":
        raise RuntimeError("the controller crashed")
    os.kill(os.getpid(), signal.SIGTERM)
    signal.pause()
    """
)


@pytest.mark.parametrize(("how", "code"), [("crash", 1), ("sigterm", 128 + 15)])
def test_the_motor_stops_when_the_program_crashes_or_is_terminated(how, code):
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-c", _ENDING, how], capture_output=True, text=True, timeout=60, env=env
    )
    assert done.returncode == code, done.stderr
    assert "STATES [False, True, False] shutdown" in done.stdout, done.stdout + done.stderr


def test_a_signal_arriving_inside_a_motor_call_still_stops_it(factory, clock):
    motor = CageMotor(PIN, max_run_s=30.0, pin_factory=factory, clock=clock)
    motor.spin(20)
    with motor._lock:  # the main thread is inside spin()/stop() when SIGTERM's handler runs
        assert motor._lock.acquire(blocking=False), "the handler would deadlock here"
        motor._lock.release()
        safe_exit.switch_off_all()
    assert motor.status.stop_reason is StopReason.SHUTDOWN
    assert not factory.pin(PIN).state
    motor.close()


def test_a_late_timer_of_an_earlier_spin_does_not_stop_the_next_one(factory, clock):
    motor = CageMotor(PIN, max_run_s=30.0, pin_factory=factory, clock=clock)
    motor.spin(20)
    motor.stop()
    motor.spin(20)
    motor._time_up(1)  # spin 1's timer firing just as it was cancelled
    assert motor.status.running and motor.status.spins == 2
    assert factory.pin(PIN).state
    motor._time_up(2)
    assert motor.status.stop_reason is StopReason.FINISHED
    assert not factory.pin(PIN).state
    motor.close()
