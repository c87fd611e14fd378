"""Switch the outputs off whenever the program ends, short of SIGKILL or a kernel crash.

Every ``CageMotor`` and ``BetLockLights`` registers here when built. At exit
(normal end, ``sys.exit``, an uncaught exception in the main thread) the atexit
hook switches them off. Python does *not* run atexit hooks when SIGTERM (what
``systemctl stop`` sends) kills it, so the controller calls ``exit_on_signals()``
once at start: the signals then switch the outputs off at once and end the
program through ``SystemExit``, so ``finally`` blocks and atexit hooks run too.

SIGKILL, a kernel panic or a power cut cannot be caught in software: the wiring
and the service unit handle those (see "Crash safety" in hardware/README.md).
"""
from __future__ import annotations

import atexit
import logging
import signal
import weakref
from collections.abc import Iterable
from typing import Protocol

log = logging.getLogger(__name__)


class SafeOff(Protocol):
    def safe_off(self) -> None:
        """Put the device in its harmless state (motor stopped, lamps off); never raises."""


_registered: weakref.WeakSet[SafeOff] = weakref.WeakSet()


def register(device: SafeOff) -> None:
    """Have ``device`` switched off at exit (kept weakly: a closed, dropped device is forgotten)."""
    _registered.add(device)


def switch_off_all() -> None:
    """Switch every registered device off; one failing does not keep the others on."""
    for device in list(_registered):
        try:
            device.safe_off()
        except Exception:  # noqa: BLE001 - at exit, keep switching the others off
            log.exception("could not switch %r off", device)


def exit_on_signals(signals: Iterable[signal.Signals] = (signal.SIGTERM, signal.SIGHUP)) -> None:
    """Make ``signals`` switch the outputs off and end the program with ``SystemExit(128 + n)``.

    Call it from the main thread (Python only lets that thread set handlers).
    """

    def handle(signum: int, _frame: object) -> None:
        switch_off_all()
        raise SystemExit(128 + signum)

    for sig in signals:
        signal.signal(sig, handle)


atexit.register(switch_off_all)
