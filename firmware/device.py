"""The display's side of the link: frames in, replies out, what to show.

Pure logic (no clock of its own, no hardware): the caller passes the time in
milliseconds from any monotonic source and hands over the bytes it read; the
result is the bytes to write back. The same object runs on the Pico (via
firmware/app.py and main.py) and inside ``dicetable display-sim``.

The "no link" rule: the display shows a state only while it keeps hearing
valid frames from the host. After ``link_timeout_ms`` of silence it *forgets*
the state, so when the host comes back the old picture is not shown again as
if it were current; the host sees from the acknowledgement that nothing is
shown and sends the state afresh.

The order rule: every STATE carries the host's session and the state's number. A
state older than the one shown in the same session (a frame that was delayed, or
retransmitted, on the line while a newer one got through) is answered ``STALE``
and not shown, so the digits never step back to an older result. A HELLO with a
new session (the host restarted) starts the count afresh; a STATE of another
session than the one the display follows is ``STALE`` too (the host then says
HELLO again). After a reboot the display follows the session of the first
STATE it hears.
"""

from firmware import messages
from firmware.codec import Decoder, encode

FIRMWARE_VERSION = (1, 3, 0)  # 1.1.0: protocol 2 (HAnd, Entr); 1.2.0: 3 (-no-, Err); 1.3.0: 4 (state order)
LINK_TIMEOUT_MS = 3000
#: A partial frame older than this is given up (``Decoder.resync``). The longest frame takes
#: about 11 ms at 115200 baud, and the host sends again within its reply timeout.
PARTIAL_FRAME_MS = 50


class Device:
    """Protocol state machine of the display (see docs/display-protocol.md)."""

    def __init__(self, link_timeout_ms=LINK_TIMEOUT_MS):
        self.link_timeout_ms = link_timeout_ms
        self._decoder = Decoder()
        self._state = None
        self._tag = None
        self._session = None  # the host session whose states are shown
        self._newest = None  # the number of the newest state shown in that session
        self._last_heard = None
        self._partial_since = None  # when the bytes waiting in the decoder began to wait
        self.frames_ok = 0
        self.rejected = 0
        self.stale = 0

    @property
    def bad_frames(self):
        """Frames dropped for a bad length or CRC since start."""
        return self._decoder.bad_frames

    def _expire(self, now_ms):
        if self._last_heard is not None and now_ms - self._last_heard > self.link_timeout_ms:
            self._last_heard = None
            self._state = None
            self._tag = None

    def linked(self, now_ms):
        """True while the host has been heard within the timeout."""
        self._expire(now_ms)
        return self._last_heard is not None

    def current(self, now_ms):
        """The state to draw now, or None for the no-link pattern."""
        self._expire(now_ms)
        return self._state

    def receive(self, data, now_ms):
        """Consume bytes from the host; return the reply bytes to send."""
        self._expire(now_ms)
        stale = self._partial_since is not None and now_ms - self._partial_since > PARTIAL_FRAME_MS
        if stale:
            self._decoder.resync()
        out = b""
        frames = self._decoder.feed(data)
        for frame in frames:
            self._last_heard = now_ms
            self.frames_ok += 1
            out += self._answer(frame)
        if not self._decoder.pending():
            self._partial_since = None
        elif frames or stale or self._partial_since is None:
            self._partial_since = now_ms  # what waits now began to wait now
        return out

    def _answer(self, frame):
        kind = frame.kind
        if kind == messages.HELLO:
            return encode(frame.seq, messages.HELLO_REPLY,
                          messages.hello_reply_payload(self._hello(frame.payload), self._tag, FIRMWARE_VERSION))
        if kind == messages.STATE:
            return encode(frame.seq, messages.ACK, messages.ack_payload(self._show(frame.payload), self._tag))
        if kind == messages.PING:
            return encode(frame.seq, messages.ACK, messages.ack_payload(messages.OK, self._tag))
        self.rejected += 1
        return encode(frame.seq, messages.ACK, messages.ack_payload(messages.UNKNOWN_TYPE, self._tag))

    def _hello(self, payload):
        """The status of a HELLO: a host of this protocol, whose session is then the one followed."""
        try:
            version, session = messages.parse_hello(payload)
        except ValueError:
            version, session = None, None
        if version != messages.PROTOCOL_VERSION or session is None:
            self.rejected += 1
            return messages.BAD_VERSION
        if session != self._session:
            self._session = session
            self._newest = None
        return messages.OK

    def _show(self, payload):
        """Show a STATE unless it is malformed, of another session, or older than the one shown
        (the order rule of the module's docstring); the ACK's status."""
        try:
            session, number, state = messages.parse_state(payload)
        except ValueError:
            self.rejected += 1
            return messages.BAD_PAYLOAD
        if self._session is None:  # rebooted since the host's HELLO: follow the host that speaks
            self._session = session
        if session != self._session or (self._newest is not None
                                        and not messages.newer_or_same(number, self._newest)):
            self.stale += 1
            return messages.STALE
        self._newest = number
        self._state = state
        self._tag = state.tag()
        return messages.OK
