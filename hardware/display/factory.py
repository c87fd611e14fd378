"""``open_display(kind, ...)``: the ``[display] kind`` names a display; each kind is declared here once.

A new kind of display (an HDMI readerboard, a second Pico) is one new module implementing
:class:`~hardware.display.base.Display` and one line in :data:`KINDS`; the configuration offers
every kind listed here.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from hardware.display.base import Display
from hardware.display.serial_display import SerialDisplay
from hardware.display.sim_display import SimDisplay


@dataclass(frozen=True)
class DisplayKind:
    """How to open one kind of display: ``opener(port, baud)``; ``wired``: it is reached through the
    serial port the configuration names (which must then be given)."""

    opener: Callable[[str, int], Display]
    wired: bool


#: Every kind of display, by its ``[display] kind``.
KINDS: dict[str, DisplayKind] = {
    "serial": DisplayKind(SerialDisplay.open, wired=True),
    "sim": DisplayKind(SimDisplay.open, wired=False),
}


def open_display(kind: str, *, port: str = "", baud: int = 115200) -> Display:
    """The display ``kind`` names, opened and keeping itself showing; ``ValueError`` for a kind that
    is none of :data:`KINDS`."""
    if kind not in KINDS:
        raise ValueError(f"display: unknown kind {kind!r}; expected one of {', '.join(KINDS)}")
    return KINDS[kind].opener(port, baud)
