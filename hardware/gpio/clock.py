"""Clocks for the GPIO logic: the real monotonic clock, and a manual one.

Debounce, long press and the simulated dealer all take the time from an injected
``Clock`` (a function returning seconds). On the table that is ``time.monotonic``;
tests and the deterministic demo of ``make run`` use ``ManualClock`` so that a
1.5 s long press costs no wall-clock time and gives the same events every run.
"""
from __future__ import annotations

import threading
from collections.abc import Callable

Clock = Callable[[], float]


class ManualClock:
    """A clock that moves only when told to (``advance``), safe to read from any thread."""

    def __init__(self, start: float = 0.0) -> None:
        self._now = start
        self._lock = threading.Lock()

    def __call__(self) -> float:
        with self._lock:
            return self._now

    def advance(self, seconds: float) -> float:
        """Move time forward by ``seconds`` (never backwards) and return the new time."""
        if seconds < 0:
            raise ValueError(f"a clock cannot go back ({seconds} s)")
        with self._lock:
            self._now += seconds
            return self._now
