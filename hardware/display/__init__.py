"""The LED display as the controller sees it: one value to show, one interface, one opener.

- :class:`DisplayState` (from the shared firmware/messages.py): what to show.
- :class:`Display` with its :class:`DisplayHealth`: what every kind of display does (show the
  latest state, say how it is); :func:`open_display` opens the kind ``[display] kind`` names
  (:data:`KINDS`: ``serial``, ``sim``).
- :class:`DisplayLink`: keeps a serial-connected display showing the latest
  state in a background thread; :meth:`DisplayLink.health` for the watchdog.
- :func:`start_standin`: the firmware answering on a pseudo-terminal, for
  ``make run``, the tests and the bench (``dicetable display-sim`` draws it).

See hardware/display/README.md and docs/display-protocol.md.
"""

from firmware.messages import GAMES, PHASES, DisplayState
from hardware.display.base import Display, DisplayHealth, HealthState
from hardware.display.factory import KINDS, DisplayKind, open_display
from hardware.display.link import DisplayLink, LinkHealth, LinkTiming
from hardware.display.serial_display import SerialDisplay
from hardware.display.sim_display import SimDisplay
from hardware.display.standin import LineFaults, Screen, StandIn, start_standin

__all__ = [
    "GAMES",
    "KINDS",
    "PHASES",
    "Display",
    "DisplayHealth",
    "DisplayKind",
    "DisplayLink",
    "DisplayState",
    "HealthState",
    "LineFaults",
    "LinkHealth",
    "LinkTiming",
    "Screen",
    "SerialDisplay",
    "SimDisplay",
    "StandIn",
    "open_display",
    "start_standin",
]
