"""The hazard cage's motor: spins for a while, never longer than its configured maximum.

Wiring assumed (see hardware/README.md): an active-high motor driver (a logic-level
MOSFET module or an opto-isolated relay module with an active-high input) on one
BCM line, with a 10 kΩ pull-down on the driver input, so a line that is not driven
high — Pi booting, program gone, line released — means the motor is stopped.

The class holds the limit itself: ``spin(seconds)`` starts the motor and a timer
of its own that stops it after ``min(seconds, max_run_s)``; nothing can switch the
motor on without that timer. It also stops on ``stop()``, ``close()``, at exit and
on SIGTERM (through ``hardware.gpio.safe_exit``). ``status`` says whether it runs
and why it last stopped, for the controller, the journal and the tests.

    >>> from gpiozero.pins.mock import MockFactory
    >>> motor = CageMotor(17, max_run_s=8.0, pin_factory=MockFactory())
    >>> motor.spin(3.0).running
    True
    >>> motor.stop().stop_reason
    <StopReason.STOPPED: 'stopped'>
    >>> motor.close()
"""
from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from enum import StrEnum

from gpiozero import DigitalOutputDevice
from gpiozero.pins import Factory

from hardware.gpio import safe_exit
from hardware.gpio.clock import Clock

log = logging.getLogger(__name__)


class StopReason(StrEnum):
    """Why the motor last stopped."""

    FINISHED = "finished"  # the time asked for ran out
    MAX_RUN = "max_run"  # the configured maximum cut a longer spin short
    STOPPED = "stopped"  # the controller called stop()
    SHUTDOWN = "shutdown"  # close(), program exit or a termination signal


class CageBusy(RuntimeError):
    """A spin was asked for while the cage is already spinning (it is not extended)."""


@dataclass(frozen=True)
class MotorStatus:
    """A snapshot of the motor. Times are from the motor's clock (``time.monotonic`` by default)."""

    running: bool = False
    spins: int = 0
    requested_s: float | None = None
    granted_s: float | None = None
    started_at: float | None = None
    stopped_at: float | None = None
    stop_reason: StopReason | None = None


class CageMotor:
    """The cage motor on BCM line ``pin``.

    ``on_stop(status)`` is called after each stop by the timer or ``stop()``, from
    the thread that stopped the motor (the timer's when the time ran out); keep it
    short. It is not called for a shutdown stop, which may run inside a signal
    handler where a listener taking a lock could deadlock.
    """

    def __init__(
        self,
        pin: int,
        *,
        max_run_s: float,
        pin_factory: Factory | None = None,
        clock: Clock = time.monotonic,
        on_stop: Callable[[MotorStatus], None] | None = None,
    ) -> None:
        if not (isinstance(max_run_s, int | float) and 0 < max_run_s < math.inf):
            raise ValueError(f"max_run_s must be a positive number of seconds, not {max_run_s!r}")
        self.max_run_s = float(max_run_s)
        self._clock = clock
        self._on_stop = on_stop
        # Re-entrant: the SIGTERM handler of safe_exit may run in the main thread while
        # it is inside spin() or stop(), and must still switch the motor off.
        self._lock = threading.RLock()
        self._stopped = threading.Event()
        self._stopped.set()
        self._timer: threading.Timer | None = None
        self._status = MotorStatus()
        self._device: DigitalOutputDevice | None = DigitalOutputDevice(
            pin, active_high=True, initial_value=False, pin_factory=pin_factory
        )
        safe_exit.register(self)

    @property
    def status(self) -> MotorStatus:
        with self._lock:
            return self._status

    def spin(self, seconds: float) -> MotorStatus:
        """Run the motor for ``seconds``, cut to ``max_run_s``; return the status once started.

        Raises ``ValueError`` for a duration that is not a positive number and
        ``CageBusy`` while a spin is still running (a second call never extends one).
        """
        if isinstance(seconds, bool) or not isinstance(seconds, int | float) or not seconds > 0:
            raise ValueError(f"a spin lasts a positive number of seconds, not {seconds!r}")
        granted = min(float(seconds), self.max_run_s)
        if granted < seconds:
            log.warning("cage spin of %.2f s cut to the maximum of %.2f s", seconds, granted)
        with self._lock:
            if self._device is None:
                raise RuntimeError("the cage motor is closed")
            if self._status.running:
                raise CageBusy("the cage is already spinning")
            before = self._status
            spin_number = before.spins + 1
            self._status = MotorStatus(
                running=True,
                spins=spin_number,
                requested_s=float(seconds),
                granted_s=granted,
                started_at=self._clock(),
            )
            # The timer runs before the motor does: a motor without its timer must never exist.
            timer = threading.Timer(granted, self._time_up, args=(spin_number,))
            timer.daemon = True
            timer.start()
            self._timer = timer
            try:
                self._device.on()
            except Exception:
                timer.cancel()
                self._timer = None
                self._status = before
                raise
            self._stopped.clear()
            return self._status

    def stop(self) -> MotorStatus:
        """Stop the motor now (nothing happens if it is not running); return the status."""
        self._halt(StopReason.STOPPED)
        return self.status

    def wait_stopped(self, timeout: float | None = None) -> bool:
        """Block until the motor is stopped (True) or ``timeout`` seconds pass (False)."""
        return self._stopped.wait(timeout)

    def safe_off(self) -> None:
        """Stop for good reason of shutdown; used at exit and by ``close``."""
        self._halt(StopReason.SHUTDOWN)

    def close(self) -> None:
        """Stop the motor and release its GPIO line. Safe to call twice."""
        self.safe_off()
        with self._lock:
            device, self._device = self._device, None
        if device is not None:
            device.close()

    def _time_up(self, spin_number: int) -> None:
        self._halt(None, spin_number)

    def _halt(self, reason: StopReason | None, spin_number: int | None = None) -> None:
        """Switch the motor off and, if a spin was running, record why it stopped.

        ``reason`` None means the timer of spin ``spin_number`` ran out; such a
        timer that comes late, after its spin was stopped and another started,
        must not touch the new spin, so it is checked first.
        """
        with self._lock:
            if spin_number is not None and spin_number != self._status.spins:
                return
            if self._device is not None:
                self._device.off()  # always, even if we believe it is already off
            if not self._status.running:
                return
            if reason is None:
                cut_short = self._status.granted_s != self._status.requested_s
                reason = StopReason.MAX_RUN if cut_short else StopReason.FINISHED
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            self._status = replace(
                self._status, running=False, stopped_at=self._clock(), stop_reason=reason
            )
            status = self._status
            self._stopped.set()
        if self._on_stop is not None and reason is not StopReason.SHUTDOWN:
            try:
                self._on_stop(status)
            except Exception:  # noqa: BLE001 - a faulty listener must not keep the table from running
                log.exception("on_stop listener failed after the cage stopped")
