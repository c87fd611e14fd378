"""A stand-in for the LED display on a pseudo-terminal, running the firmware.

The stand-in is the real firmware logic (firmware/app.py, device.py,
layout.py, the MAX7219 driver) with the Pico's peripherals replaced by
firmware/virtual.py: the UART is the master side of a pty, the MAX7219 chain
a model that records which segments would light. The host opens the pty's
slave exactly as it would open /dev/serial0, so ``make run``, the tests and
the latency bench all exercise the real link code.

``port`` is a symlink to the current pty, like /dev/serial/by-id/...: pulling
the cable (``unplug``) removes it and closes the pty, putting it back
(``replug``) makes a new pty behind the same path. ``faults`` corrupts, drops
and duplicates chunks on the wire in both directions; ``mute`` makes a
display that hears nothing and answers nothing.
"""

from __future__ import annotations

import errno
import os
import random
import select
import shutil
import tempfile
import threading
import time
import tty
from dataclasses import dataclass
from typing import Callable

from firmware.app import DisplayApp
from firmware.device import LINK_TIMEOUT_MS, Device
from firmware.max7219 import Max7219Chain
from firmware.messages import DisplayState
from firmware.virtual import VirtualChain, VirtualUart


class LineFaults:
    """Random damage on the wire, per chunk of bytes as it was written.

    A chunk is usually one whole frame (each side writes a frame at a time),
    so ``drop`` loses frames, ``duplicate`` repeats them and ``corrupt`` flips
    one bit in that fraction of the bytes. Seeded, so a failing test repeats.
    """

    def __init__(self, corrupt: float = 0.0, drop: float = 0.0, duplicate: float = 0.0, seed: int | None = None):
        for name, rate in (("corrupt", corrupt), ("drop", drop), ("duplicate", duplicate)):
            if not 0.0 <= rate <= 1.0:
                raise ValueError(f"{name} rate {rate} is not between 0 and 1")
        self.corrupt, self.drop, self.duplicate = corrupt, drop, duplicate
        self._random = random.Random(seed)
        self.damaged = 0

    def apply(self, data: bytes) -> bytes:
        """What arrives when ``data`` was sent."""
        if not data:
            return data
        if self._random.random() < self.drop:
            self.damaged += 1
            return b""
        out = bytearray(data)
        if self.corrupt:
            for index in range(len(out)):
                if self._random.random() < self.corrupt:
                    out[index] ^= 1 << self._random.randrange(8)
                    self.damaged += 1
        if self._random.random() < self.duplicate:
            self.damaged += 1
            out.extend(bytes(out))
        return bytes(out)


@dataclass(frozen=True)
class Screen:
    """What the stand-in shows: text rows, the segment drawing, the state."""

    rows: tuple[str, ...]
    drawing: str
    state: DisplayState | None

    @property
    def linked(self) -> bool:
        """False while the no-link pattern is up."""
        return self.state is not None


class StandIn:
    """The display's firmware answering on a pseudo-terminal (see module doc)."""

    def __init__(
        self,
        *,
        port: str | None = None,
        link_timeout_ms: int = LINK_TIMEOUT_MS,
        faults: LineFaults | None = None,
        poll_interval: float = 0.02,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._tmpdir: str | None = None
        if not port:
            self._tmpdir = tempfile.mkdtemp(prefix="dicetable-display-")
            port = os.path.join(self._tmpdir, "display")
        self.port = port
        self.faults = faults or LineFaults()
        self.muted = False
        self._poll_interval = poll_interval
        self._clock = clock
        self.chain = VirtualChain()
        panel = Max7219Chain(self.chain.spi, self.chain.cs, modules=len(self.chain.modules))
        panel.init()
        self._uart = VirtualUart()
        self.app = DisplayApp(self._uart, panel, Device(link_timeout_ms))
        self.app.poll(self._now_ms())  # the no-link pattern from the first moment
        self._lock = threading.Lock()
        self._master: int | None = None
        self._slave: int | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # ---- the cable ---------------------------------------------------------

    def plug(self) -> None:
        """Create a new pty and point ``port`` at it (the cable goes in)."""
        with self._lock:
            if self._master is not None:
                return
            if os.path.lexists(self.port) and not os.path.islink(self.port):
                raise FileExistsError(f"{self.port} exists and is not a symlink; not replacing it")
            master, slave = os.openpty()
            tty.setraw(slave)  # binary frames: no echo, no CR/LF translation
            os.set_blocking(master, False)
            temporary = self.port + ".new"
            if os.path.lexists(temporary):
                os.unlink(temporary)
            os.symlink(os.ttyname(slave), temporary)
            os.replace(temporary, self.port)
            self._master, self._slave = master, slave

    def unplug(self) -> None:
        """Close the pty and remove ``port`` (the cable is pulled)."""
        with self._lock:
            if os.path.lexists(self.port):
                os.unlink(self.port)
            for fd in (self._master, self._slave):
                if fd is not None:
                    os.close(fd)
            self._master = self._slave = None

    def reboot(self) -> None:
        """Power-cycle the display: the firmware starts afresh, showing nothing."""
        with self._lock:
            device = Device(self.app.device.link_timeout_ms)
            self.app.panel.init()
            self._uart = VirtualUart()
            self.app = DisplayApp(self._uart, self.app.panel, device)
            self.app.poll(self._now_ms())

    def slave_path(self) -> str | None:
        """The /dev/pts/N behind ``port`` now (None while unplugged)."""
        with self._lock:
            return os.ttyname(self._slave) if self._slave is not None else None

    # ---- running -----------------------------------------------------------

    def start(self) -> "StandIn":
        """Plug in and start answering in a background thread; returns self."""
        self.plug()
        if self._thread is None:
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name="display-standin", daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        """Stop the thread, unplug, and remove the temporary folder."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(2.0)
            self._thread = None
        self.unplug()
        if self._tmpdir:
            shutil.rmtree(self._tmpdir, ignore_errors=True)

    def __enter__(self) -> "StandIn":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _now_ms(self) -> int:
        return int(self._clock() * 1000)

    def _run(self) -> None:
        while not self._stop.is_set():
            master = self._master
            if master is None:
                self._stop.wait(self._poll_interval)
                with self._lock:
                    self.app.poll(self._now_ms())
                continue
            try:
                readable, _, _ = select.select([master], [], [], self._poll_interval)
            except (OSError, ValueError):  # closed by unplug() meanwhile
                continue
            with self._lock:
                if self._master != master:
                    continue  # unplugged (or replugged) while we waited
                data = self._read(master) if readable else b""
                if data and not self.muted:
                    self._uart.feed(self.faults.apply(data))
                self.app.poll(self._now_ms())
                reply = self.faults.apply(self._uart.take_output())
                if reply and self._master is not None:
                    self._write(self._master, reply)

    @staticmethod
    def _read(master: int) -> bytes:
        try:
            return os.read(master, 4096)
        except BlockingIOError:
            return b""
        except OSError as exc:
            if exc.errno == errno.EIO:  # no slave end open right now
                return b""
            raise

    @staticmethod
    def _write(master: int, data: bytes) -> None:
        try:
            os.write(master, data)
        except (BlockingIOError, OSError):
            pass  # nobody reads the port: a real UART's bytes are lost the same way

    # ---- what it shows -----------------------------------------------------

    def screen(self) -> Screen:
        """What the digits show now."""
        with self._lock:
            state = self.app.device.current(self._now_ms())
            return Screen(rows=self.chain.text(), drawing=self.chain.drawing(), state=state)

    def shown(self) -> DisplayState | None:
        """The state on the digits now, or None while "no link" is up."""
        return self.screen().state

    def wait_for(self, predicate: Callable[[Screen], bool], timeout: float) -> Screen | None:
        """Poll ``screen()`` until ``predicate`` holds; None after ``timeout``."""
        deadline = time.monotonic() + timeout
        while True:
            screen = self.screen()
            if predicate(screen):
                return screen
            if time.monotonic() >= deadline:
                return None
            time.sleep(0.005)


def start_standin(
    *,
    port: str | None = None,
    link_timeout_ms: int = LINK_TIMEOUT_MS,
    faults: LineFaults | None = None,
) -> StandIn:
    """Start a display stand-in in a background thread; its ``port`` is ready.

    Give ``stand_in.port`` to DisplayLink; read ``stand_in.screen()`` /
    ``stand_in.shown()``; call ``stand_in.stop()`` at the end.
    """
    return StandIn(port=port, link_timeout_ms=link_timeout_ms, faults=faults).start()
