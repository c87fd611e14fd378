"""The display's main loop body, with its peripherals passed in.

``DisplayApp.poll(now_ms)`` reads what the UART has, lets the Device answer,
and redraws the panel when the picture changed. ``main.py`` calls it forever
with ``machine.UART`` and a Max7219Chain on ``machine.SPI``; the terminal
stand-in and the tests call it with fakes from firmware/virtual.py.
"""

from firmware.device import Device
from firmware.layout import rows

#: Every this many milliseconds the panel's registers are all written again (``refresh``).
REFRESH_MS = 2000


class DisplayApp:
    """One UART, one panel (a Max7219Chain: ``show(rows)`` and ``refresh()``), one Device."""

    def __init__(self, uart, panel, device=None):
        self.uart = uart
        self.panel = panel
        self.device = device if device is not None else Device()
        self._refreshed_at = None

    def poll(self, now_ms):
        """Serve the link once and bring the panel up to date.

        The panel is redrawn *before* the replies go out, so an ACK means the
        digits already show that state (what the latency bench measures).
        """
        reply = b""
        waiting = self.uart.any()
        if waiting:
            data = self.uart.read(waiting)
            if data:
                reply = self.device.receive(data, now_ms)
        if self._refreshed_at is None or now_ms - self._refreshed_at >= REFRESH_MS:
            self.panel.refresh()
            self._refreshed_at = now_ms
        self.panel.show(rows(self.device.current(now_ms)))
        if reply:
            self.uart.write(reply)
