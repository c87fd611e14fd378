"""Fixtures of the GPIO tests: a fresh mock pin factory per test and a manual clock.

The factory is passed to every device explicitly (``pin_factory=``) and reset
afterwards, else the next test meets ``GPIOPinInUse`` on the same lines.
"""
from __future__ import annotations

import pytest
from gpiozero.pins.mock import MockFactory

from hardware.gpio.clock import ManualClock


@pytest.fixture
def factory():
    mock = MockFactory()
    yield mock
    mock.reset()


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(start=100.0)


def _levels(pin) -> list[bool]:
    return [bool(state.state) for state in pin.states]


@pytest.fixture
def levels():
    """``levels(pin)``: every state a mock pin went through, starting with its first."""
    return _levels
