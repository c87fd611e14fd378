"""Fixtures of the display tests: short timings, a stand-in display on a
pseudo-terminal, and a scripted serial port for protocol-level faults."""
from __future__ import annotations

import threading
import time
from typing import Callable

import pytest

from hardware.display import DisplayLink, LinkTiming, StandIn

# Short but not tight: the whole retry budget (0.04 s x 3 tries) and the
# heartbeat stay well inside the display's 500 ms no-link timeout.
FAST = LinkTiming(
    ack_timeout=0.04,
    retries=2,
    heartbeat_interval=0.1,
    reopen_interval=0.05,
    version_pause=0.6,  # longer than DISPLAY_TIMEOUT_MS, as the real one is longer than 3 s
    healthy_within=0.5,
    write_timeout=0.2,
    read_slice=0.005,
)
DISPLAY_TIMEOUT_MS = 500
WAIT = 5.0  # upper bound for things that normally take milliseconds


def eventually(predicate: Callable[[], object], timeout: float = WAIT) -> object:
    """Poll ``predicate`` until it is truthy; fail the test after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {timeout} s: {predicate}")
        time.sleep(0.005)


@pytest.fixture
def stand_in():
    display = StandIn(link_timeout_ms=DISPLAY_TIMEOUT_MS, poll_interval=0.005).start()
    yield display
    display.stop()


@pytest.fixture
def make_link():
    links: list[DisplayLink] = []

    def make(port: str, **kwargs) -> DisplayLink:
        kwargs.setdefault("timing", FAST)
        link = DisplayLink(port, **kwargs).start()
        links.append(link)
        return link

    yield make
    for link in links:
        link.stop()


class ScriptedSerial:
    """A pyserial-like port whose far end is ``respond(bytes) -> bytes``."""

    def __init__(self, respond: Callable[[bytes], bytes]):
        self.respond = respond
        self.written: list[bytes] = []
        self.closed = False
        self.fail_writes = False
        self._rx = bytearray()
        self._lock = threading.Lock()

    def write(self, data: bytes) -> int:
        if self.fail_writes:
            raise OSError(5, "Input/output error")
        self.written.append(bytes(data))
        reply = self.respond(bytes(data))
        with self._lock:
            self._rx += reply
        return len(data)

    def read(self, size: int = 1) -> bytes:
        with self._lock:
            if not self._rx:
                out = b""
            else:
                out = bytes(self._rx[:size])
                del self._rx[:size]
        if not out:
            time.sleep(0.002)  # a real port's read timeout
        return out

    @property
    def in_waiting(self) -> int:
        with self._lock:
            return len(self._rx)

    def reset_input_buffer(self) -> None:
        with self._lock:
            self._rx.clear()

    def close(self) -> None:
        self.closed = True


class ScriptedFactory:
    """``serial_factory`` for DisplayLink: a new ScriptedSerial per open."""

    def __init__(self, respond: Callable[[bytes], bytes]):
        self.respond = respond
        self.opened: list[ScriptedSerial] = []

    def __call__(self, port: str, baudrate: int, timing: LinkTiming) -> ScriptedSerial:
        port_object = ScriptedSerial(self.respond)
        self.opened.append(port_object)
        return port_object


# Test modules cannot import this conftest under --import-mode=importlib, so
# its helpers travel as fixtures.
@pytest.fixture(name="eventually")
def _eventually_fixture():
    return eventually


@pytest.fixture
def fast_timing() -> LinkTiming:
    return FAST


@pytest.fixture
def scripted_factory():
    return ScriptedFactory
