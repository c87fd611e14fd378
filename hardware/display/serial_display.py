"""The ``serial`` display: the LED display's Pico on a serial port, through :class:`DisplayLink`."""
from __future__ import annotations

from firmware.messages import DisplayState
from hardware.display.base import DisplayHealth, HealthState
from hardware.display.link import DisplayLink


class SerialDisplay:
    """A :class:`~hardware.display.base.Display` on ``port`` (``/dev/serial0``, a USB-serial adapter,
    or any pyserial URL): the link opens, reopens and retries in its own thread."""

    def __init__(self, link: DisplayLink):
        self.link = link
        self._closed = False

    @classmethod
    def open(cls, port: str, baud: int) -> SerialDisplay:
        return cls(DisplayLink(port, baudrate=baud).start())

    def show(self, state: DisplayState) -> None:
        self.link.show(state)

    @property
    def health(self) -> DisplayHealth:
        """The link's health as the table reads every display's: answering within the link's
        ``healthy_within``, or what it last failed with."""
        if self._closed:
            return DisplayHealth(HealthState.CLOSED, "closed")
        link = self.link.health()
        if link.healthy:
            return DisplayHealth(HealthState.OK, "answering")
        state = HealthState.STARTING if link.last_ack_at is None and not link.faults else HealthState.LOST
        why = f" ({link.last_error})" if link.last_error else ""
        return DisplayHealth(state, f"on {link.port} not answering{why}")

    def wait_shown(self, state: DisplayState, timeout: float) -> float | None:
        return self.link.wait_acked(state, timeout)

    def close(self) -> None:
        self._closed = True
        self.link.stop()
