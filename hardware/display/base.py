"""The one interface every LED display and its stand-in implements: :class:`Display`.

The table hands a display the :class:`~firmware.messages.DisplayState` to show and never waits for
it (``show`` returns at once); the display keeps itself showing the latest one however its cable
behaves. Every display keeps a :class:`DisplayHealth` that the table reads in one place: it gates
the systemd watchdog, goes to the floor's status and to the pit's page. ``open_display``
(:mod:`hardware.display.factory`) opens any kind from the ``[display]`` settings.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Protocol

from firmware.messages import DisplayState


class HealthState(str, Enum):
    STARTING = "starting"  # opened, not answered yet
    OK = "ok"  # answering
    LOST = "lost"  # stopped answering, or its port is gone; being reopened
    CLOSED = "closed"


@dataclass(frozen=True)
class DisplayHealth:
    """What the operator sees about the display, and what gates the watchdog.

    ``detail`` says it in words for the log, the floor and the pit (``answering``, or
    ``on /dev/serial0 not answering (no reply to HELLO)``)."""

    state: HealthState
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.state is HealthState.OK


class Display(Protocol):
    """An LED display, or a stand-in for one.

    Example::

        display = open_display("sim")
        display.show(DisplayState(game="craps", phase="open"))
        display.health.ok
        display.close()
    """

    def show(self, state: DisplayState) -> None:
        """Make ``state`` the picture to show; returns at once."""

    @property
    def health(self) -> DisplayHealth:
        """The display's health now."""

    def wait_shown(self, state: DisplayState, timeout: float) -> float | None:
        """Block until the display says it shows ``state``: the ``time.monotonic()`` it said so, or
        None after ``timeout`` seconds. For the demo, the tests and the latency bench, not the game loop."""

    def close(self) -> None:
        """Stop showing and release the port. Safe to call twice."""
