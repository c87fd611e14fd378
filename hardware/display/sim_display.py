"""The ``sim`` display: the firmware answering on a pseudo-terminal (:mod:`hardware.display.standin`),
reached over the same serial link as the real display, for ``make run``, the tests and the bench."""
from __future__ import annotations

from hardware.display.link import DisplayLink
from hardware.display.serial_display import SerialDisplay
from hardware.display.standin import Screen, StandIn, start_standin


class SimDisplay(SerialDisplay):
    """A :class:`SerialDisplay` whose far end is a :class:`StandIn`; :meth:`screen` is what its
    digits show."""

    def __init__(self, link: DisplayLink, standin: StandIn):
        super().__init__(link)
        self.standin = standin

    @classmethod
    def open(cls, port: str = "", baud: int = 115200) -> SimDisplay:
        """A stand-in and the link to it (``port``, ``baud``: the stand-in makes its own port, at the
        link's speed)."""
        standin = start_standin()
        return cls(DisplayLink(standin.port, baudrate=baud).start(), standin)

    def screen(self) -> Screen:
        return self.standin.screen()

    def close(self) -> None:
        super().close()
        self.standin.stop()
