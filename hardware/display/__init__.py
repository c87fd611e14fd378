"""The LED display as the controller sees it: one value to show, one link.

- :class:`DisplayState` (from the shared firmware/messages.py): what to show.
- :class:`DisplayLink`: keeps a serial-connected display showing the latest
  state in a background thread; :meth:`DisplayLink.health` for the watchdog.
- :func:`start_standin`: the firmware answering on a pseudo-terminal, for
  ``make run``, the tests and the bench (``dicetable display-sim`` draws it).

See hardware/display/README.md and docs/display-protocol.md.
"""

from firmware.messages import GAMES, PHASES, DisplayState
from hardware.display.link import DisplayLink, LinkHealth, LinkTiming
from hardware.display.standin import LineFaults, Screen, StandIn, start_standin

__all__ = [
    "GAMES",
    "PHASES",
    "DisplayLink",
    "DisplayState",
    "LineFaults",
    "LinkHealth",
    "LinkTiming",
    "Screen",
    "StandIn",
    "start_standin",
]
