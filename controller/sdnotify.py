"""A tiny sd_notify: tell systemd we are ready, alive, or stopping.

Why our own: the protocol is one datagram of ``KEY=VALUE`` lines to the Unix
socket named in ``$NOTIFY_SOCKET`` (a leading ``@`` means the abstract
namespace), and a dependency for that is not worth it. Outside systemd the
variable is unset and every call does nothing, so the same code runs on a
laptop.

The watchdog (``WatchdogSec=`` in the unit) restarts the service when no
``WATCHDOG=1`` arrives in time; the application pings only while the camera
and the display link are healthy, so a table that cannot see or show the
dice is restarted rather than left silently stuck.
"""
from __future__ import annotations

import os
import socket


class Notifier:
    """Sends notifications to systemd, or nothing when not run by systemd."""

    def __init__(self, address: str | None = None):
        self.address = address if address is not None else os.environ.get("NOTIFY_SOCKET", "")

    @property
    def enabled(self) -> bool:
        return bool(self.address)

    def watchdog_interval(self) -> float | None:
        """Half of systemd's watchdog timeout in seconds (ping at least this often), or None."""
        usec = os.environ.get("WATCHDOG_USEC")
        pid = os.environ.get("WATCHDOG_PID")
        if not usec or (pid and pid != str(os.getpid())):
            return None
        try:
            return int(usec) / 2_000_000
        except ValueError:
            return None

    def notify(self, **fields: str) -> bool:
        """Send ``KEY=VALUE`` lines (``notify(READY="1")``); True when a datagram left."""
        if not self.enabled:
            return False
        address = self.address
        if address.startswith("@"):
            address = "\0" + address[1:]
        message = "\n".join(f"{key}={value}" for key, value in fields.items()).encode()
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
                sock.sendto(message, address)
        except OSError:
            return False  # systemd gone or socket unreachable: nothing to tell
        return True

    def ready(self, status: str = "") -> bool:
        return self.notify(READY="1", **({"STATUS": status} if status else {}))

    def watchdog(self) -> bool:
        return self.notify(WATCHDOG="1")

    def stopping(self) -> bool:
        return self.notify(STOPPING="1")

    def status(self, text: str) -> bool:
        return self.notify(STATUS=text)
