"""The host's end of the serial link to the LED display.

``DisplayLink`` owns the port in a background thread; the controller only
ever calls :meth:`DisplayLink.show` with the latest :class:`DisplayState`,
which returns at once. The thread then:

1. opens the port (and keeps trying every ``reopen_interval`` while it is
   missing: a pulled USB cable makes the device node vanish);
2. says HELLO and checks the display's protocol version;
3. sends STATE whenever the display's acknowledged picture (its CRC "tag")
   differs from the desired one, one message in flight, each retried
   ``retries`` times after ``ack_timeout`` without an acknowledgement;
4. otherwise sends a PING every ``heartbeat_interval``, which both keeps the
   display's "no link" timer from expiring and tells the host what the
   display shows (after a display reboot it shows nothing, so the state is
   sent again).

A display that stops answering, a port that errors, or a version mismatch is
a *fault*: counted, logged, kept in ``health().last_error``, and followed by
closing and reopening the port. Nothing here raises into the caller except
``show`` given something that is not a DisplayState (TypeError, at once; a
DisplayState with impossible fields already raised ValueError when built).
"""

from __future__ import annotations

import logging
import random
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from firmware import messages
from firmware.codec import Decoder, Frame, encode
from firmware.messages import DisplayState

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class LinkTiming:
    """Timing of the link in seconds; tests shorten these, nothing else should.

    The display forgets its picture after 3 s of silence
    (firmware/device.py LINK_TIMEOUT_MS), so heartbeats and the whole retry
    budget (``ack_timeout * (retries + 1)``) must stay well inside that. After
    a version mismatch the host keeps silent for longer than that
    (``version_pause``): a display left on an older firmware hears every HELLO,
    and would otherwise keep showing its last picture as if it were current,
    instead of its "no link" pattern.
    """

    ack_timeout: float = 0.2
    retries: int = 3
    heartbeat_interval: float = 1.0
    reopen_interval: float = 1.0
    version_pause: float = 4.0
    healthy_within: float = 3.0
    write_timeout: float = 0.5
    read_slice: float = 0.01


@dataclass(frozen=True)
class LinkHealth:
    """A snapshot of the link's health, for the controller and the watchdog.

    ``healthy``: handshake done and an acknowledgement seen within
    ``LinkTiming.healthy_within`` seconds. ``in_sync``: the display has
    acknowledged the latest state given to ``show``. ``faults`` counts fault
    events by kind (``no_answer``, ``timeout``, ``port_lost``, ``open_failed``,
    ``rejected``, ``stale``, ``version``, ``internal``); ``bad_frames`` counts corrupt
    frames received.
    Times are ``time.monotonic()`` seconds.
    """

    port: str
    connected: bool
    healthy: bool
    in_sync: bool
    last_ack_at: float | None
    last_error: str | None
    faults: dict[str, int] = field(default_factory=dict)
    bad_frames: int = 0
    firmware_version: str | None = None

    @property
    def fault_count(self) -> int:
        """All faults since start, every kind together."""
        return sum(self.faults.values())


class _PortLost(Exception):
    """The port failed under us; close it and reopen."""


def _default_serial_factory(port: str, baudrate: int, timing: LinkTiming) -> Any:
    import serial  # imported here: `dicetable --help` need not load pyserial

    # exclusive: a second program on the same display (a stray `dicetable
    # run`, mpremote) would interleave its frames with ours; refuse to share.
    return serial.serial_for_url(
        port,
        baudrate=baudrate,
        timeout=timing.read_slice,
        write_timeout=timing.write_timeout,
        exclusive=True,
    )


class DisplayLink:
    """Keeps the LED display showing the latest state, whatever the cable does.

    ``serial_factory(port, baudrate, timing)`` returns an open pyserial-like
    object (``read``, ``write``, ``in_waiting``, ``reset_input_buffer``,
    ``close``); the default is ``serial.serial_for_url``, so ``port`` may also
    be a pyserial URL such as ``loop://``.

    Example::

        link = DisplayLink("/dev/serial0")
        link.start()
        link.show(DisplayState(game="craps", phase="open"))
        ...
        link.stop()
    """

    def __init__(
        self,
        port: str,
        *,
        baudrate: int = 115200,
        timing: LinkTiming = LinkTiming(),
        serial_factory: Callable[[str, int, LinkTiming], Any] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.port = port
        self.baudrate = baudrate
        self.timing = timing
        self._factory = serial_factory or _default_serial_factory
        self._clock = clock
        self._cond = threading.Condition()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._serial: Any = None
        self._decoder = Decoder()
        self._seq = 0
        # Shared with callers, guarded by _cond:
        self._desired: DisplayState | None = None
        self._desired_payload = b""
        self._desired_tag: int | None = None
        self._desired_message = b""  # the STATE payload: session, the state's number, the picture
        # This link's session and the number of its latest state (firmware/device.py, the order rule).
        self._session = random.getrandbits(16)
        self._number = 0
        self._acked: DisplayState | None = None
        self._acked_at: float | None = None
        self._last_ack_at: float | None = None
        self._connected = False
        self._last_error: str | None = None
        self._logged_kinds: set[str] = set()  # fault kinds said since the last reply (see _fault)
        self._resend_after = 0.0  # after a reply not understood, the state waits until then
        self._confirmed_payload: bytes | None = None  # the last state the display accepted from us
        self._faults: dict[str, int] = {}
        self._firmware_version: str | None = None
        # Only the thread touches these:
        self._version_mismatch = False  # the last handshake met another protocol: wait longer before the next
        self._hello_again = False  # the display follows another session: say HELLO before the next state
        self._device_tag: int | None = None
        self._rejected_payload: bytes | None = None
        self._last_exchange = 0.0

    # ---- the caller's side -------------------------------------------------

    def start(self) -> "DisplayLink":
        """Start the background thread (idempotent); returns self."""
        if self._thread is None or not self._thread.is_alive():
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name="display-link", daemon=True)
            self._thread.start()
        return self

    def stop(self, timeout: float = 2.0) -> None:
        """Stop the thread and close the port."""
        self._stop.set()
        with self._cond:
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    def __enter__(self) -> "DisplayLink":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def show(self, state: DisplayState) -> None:
        """Make ``state`` the picture to show; returns at once.

        Raises TypeError only if ``state`` is not a DisplayState (its fields
        were validated when it was built).
        """
        if not isinstance(state, DisplayState):
            raise TypeError(f"show() takes a DisplayState, not {type(state).__name__}")
        payload = state.to_payload()
        with self._cond:
            if state != self._desired:  # a new state gets the next number; the same state keeps its own
                self._number = (self._number + 1) % messages.NUMBERS
                self._desired_message = messages.state_payload(self._session, self._number, state)
            self._desired = state
            self._desired_payload = payload
            self._desired_tag = state.tag()
            self._cond.notify_all()

    def acked(self) -> DisplayState | None:
        """The last state the display acknowledged (None before the first)."""
        with self._cond:
            return self._acked

    def wait_acked(self, state: DisplayState, timeout: float) -> float | None:
        """Block until the display acknowledges ``state``.

        Returns the ``time.monotonic()`` of the acknowledgement, or None after
        ``timeout`` seconds. For tests and the latency bench, not the game loop.
        """
        deadline = self._clock() + timeout
        with self._cond:
            while self._acked != state:
                remaining = deadline - self._clock()
                if remaining <= 0:
                    return None
                self._cond.wait(remaining)
            return self._acked_at

    def health(self) -> LinkHealth:
        """A consistent snapshot of the link's health."""
        with self._cond:
            now = self._clock()
            fresh = self._last_ack_at is not None and now - self._last_ack_at <= self.timing.healthy_within
            return LinkHealth(
                port=self.port,
                connected=self._connected,
                healthy=self._connected and fresh,
                in_sync=self._desired is None or self._desired == self._acked,
                last_ack_at=self._last_ack_at,
                last_error=self._last_error,
                faults=dict(self._faults),
                bad_frames=self._decoder.bad_frames,
                firmware_version=self._firmware_version,
            )

    # ---- the thread --------------------------------------------------------

    def _fault(self, kind: str, message: str) -> None:
        with self._cond:
            repeated = kind in self._logged_kinds
            self._logged_kinds.add(kind)
            self._faults[kind] = self._faults.get(kind, 0) + 1
            self._last_error = message
        # An unplugged or silent display fails every second or so, with messages that differ (the
        # try number): each kind of fault is said once per outage, then only counted (``faults``).
        log.log(logging.DEBUG if repeated else logging.WARNING, "display link %s: %s", self.port, message)

    def _set_connected(self, connected: bool) -> None:
        with self._cond:
            self._connected = connected
            self._cond.notify_all()

    def _run(self) -> None:
        while not self._stop.is_set():
            if self._open():
                try:
                    self._serve()
                except _PortLost as exc:
                    self._fault("port_lost", f"port lost: {exc}")
                except Exception as exc:  # a bug here must not leave the display stale for good
                    log.exception("display link %s: unexpected error", self.port)
                    self._fault("internal", f"unexpected error: {exc!r}")
                finally:
                    self._close()
            pause = self.timing.version_pause if self._version_mismatch else self.timing.reopen_interval
            self._stop.wait(pause)

    def _open(self) -> bool:
        try:
            self._serial = self._factory(self.port, self.baudrate, self.timing)
            self._serial.reset_input_buffer()
        except Exception as exc:  # noqa: BLE001 - pyserial raises SerialException, OSError, ValueError
            self._serial = None
            self._fault("open_failed", f"cannot open {self.port}: {exc}")
            return False
        self._decoder.reset()
        self._device_tag = None
        self._rejected_payload = None  # perhaps reflashed meanwhile: try once more
        log.info("display link %s: port open", self.port)
        return True

    def _close(self) -> None:
        self._set_connected(False)
        if self._serial is not None:
            try:
                self._serial.close()
            except Exception:  # closing a port that vanished may fail; it is gone either way
                log.debug("closing %s failed", self.port, exc_info=True)
            self._serial = None

    def _serve(self) -> None:
        """Handshake, then keep the display in step until something fails.

        Returns when asked to stop or when the port should be closed and
        reopened (no answer, version mismatch); raises _PortLost when the
        port itself failed.
        """
        if not self._handshake():
            return
        while not self._stop.is_set():
            if self._hello_again:
                self._hello_again = False
                if not self._handshake():
                    return
            with self._cond:
                desired, payload, tag, message = (self._desired, self._desired_payload, self._desired_tag,
                                                  self._desired_message)
            if (  # the display needs the state
                desired is not None
                and (self._device_tag != tag or payload != self._confirmed_payload)
                and payload != self._rejected_payload
                and self._clock() >= self._resend_after
            ):
                reply = self._transact(messages.STATE, message)
                if reply is None:
                    return
                self._check_state_reply(desired, payload, reply)
                continue
            due = self._last_exchange + self.timing.heartbeat_interval
            if self._clock() >= due:
                if self._transact(messages.PING, b"") is None:
                    return
                continue
            with self._cond:
                if self._desired is desired and not self._stop.is_set():
                    self._cond.wait(max(0.0, due - self._clock()))

    def _handshake(self) -> bool:
        self._version_mismatch = False
        reply = self._transact(messages.HELLO, messages.hello_payload(self._session))
        if reply is None:
            return False
        self._version_mismatch = True  # until the reply proves otherwise
        if reply.kind != messages.HELLO_REPLY:
            self._fault("version", f"display answered HELLO with type 0x{reply.kind:02X}")
            return False
        try:
            status, tag, protocol, version = messages.parse_hello_reply(reply.payload)
        except ValueError as exc:
            self._fault("version", f"bad HELLO reply: {exc}")
            return False
        firmware = ".".join(str(v) for v in version)
        if status != messages.OK or protocol != messages.PROTOCOL_VERSION:
            self._fault(
                "version",
                f"display firmware {firmware} speaks protocol {protocol}, host speaks "
                f"{messages.PROTOCOL_VERSION}: reflash the display (firmware/README.md)",
            )
            return False
        self._version_mismatch = False
        self._device_tag = tag
        with self._cond:
            self._firmware_version = firmware
        self._set_connected(True)
        log.info("display link %s: firmware %s, protocol %d", self.port, firmware, protocol)
        return True

    def _check_state_reply(self, desired: DisplayState, payload: bytes, reply: Frame) -> None:
        status = reply.payload[0] if reply.payload else messages.BAD_PAYLOAD
        if status == messages.OK:
            with self._cond:
                self._confirmed_payload = payload
                self._note_shown(self._clock())
                self._cond.notify_all()
            return
        if status == messages.STALE:
            # The display follows another session (another host spoke to it since our HELLO): say
            # HELLO again, then send the state, not faster than the heartbeat.
            self._hello_again = True
            self._resend_after = self._clock() + self.timing.heartbeat_interval
            self._fault("stale", f"display follows another host's session; saying HELLO again for {desired!r}")
            return
        # The display refused this state (a host/firmware mismatch); sending
        # it again would only repeat the refusal until the state changes.
        self._rejected_payload = payload
        name = messages.STATUS_NAMES.get(status, f"status {status}")
        self._fault("rejected", f"display refused {desired!r}: {name}")

    def _transact(self, kind: int, payload: bytes) -> Frame | None:
        """Send one request and wait for its reply, retrying; None if none came."""
        self._seq = (self._seq + 1) & 0xFF
        frame = encode(self._seq, kind, payload)
        for attempt in range(self.timing.retries + 1):
            if attempt:
                self._fault("timeout", f"no reply to message type 0x{kind:02X}, try {attempt + 1}")
            self._write(frame)
            reply = self._await_reply(self._seq)
            if reply is not None:
                self._accept_reply(reply)
                return reply
        self._fault(
            "no_answer",
            f"display does not answer ({self.timing.retries + 1} tries of "
            f"{self.timing.ack_timeout:.2f} s)",
        )
        self._set_connected(False)
        return None

    def _accept_reply(self, reply: Frame) -> None:
        """Every reply says what the display shows: note it, wake waiters."""
        now = self._clock()
        self._last_exchange = now
        try:
            _status, self._device_tag = messages.parse_ack(reply.payload)
            understood = True
        except ValueError as exc:
            # Unknown: the state will be sent again, but not before the next heartbeat, or a
            # display that always answers so would be sent the state as fast as the line goes.
            self._device_tag = None
            self._resend_after = now + self.timing.heartbeat_interval
            self._fault("bad_reply", f"reply to message {reply.seq} not understood: {exc}")
            understood = False
        with self._cond:
            if understood and self._logged_kinds:
                log.info("display link %s: answering again", self.port)
                self._logged_kinds.clear()
            self._last_ack_at = now
            self._note_shown(now)
            self._cond.notify_all()

    def _note_shown(self, now: float) -> None:
        """Call with ``_cond`` held. The desired state is shown when the display reports its tag
        *and* accepted that very state from us: a 16-bit tag alone cannot tell two states apart
        (one picture change in some 48,000 keeps the tag)."""
        if (
            self._device_tag is not None
            and self._device_tag == self._desired_tag
            and self._confirmed_payload == self._desired_payload
            and self._acked != self._desired
        ):
            self._acked = self._desired
            self._acked_at = now

    def _write(self, frame: bytes) -> None:
        try:
            self._serial.write(frame)
        except Exception as exc:  # SerialException, SerialTimeoutException, OSError
            raise _PortLost(str(exc)) from exc

    def _await_reply(self, seq: int) -> Frame | None:
        deadline = self._clock() + self.timing.ack_timeout
        while self._clock() < deadline:
            try:
                data = self._serial.read(1)
                waiting = self._serial.in_waiting
                if waiting:
                    data += self._serial.read(waiting)
            except Exception as exc:  # SerialException, OSError
                raise _PortLost(str(exc)) from exc
            for frame in self._decoder.feed(data):
                if frame.seq == seq and frame.kind in (messages.ACK, messages.HELLO_REPLY):
                    return frame
                log.debug("display link %s: ignoring stale %r", self.port, frame)
        return None
