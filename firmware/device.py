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
"""

from firmware import messages
from firmware.codec import Decoder, encode

FIRMWARE_VERSION = (1, 2, 0)  # 1.1.0: protocol 2 (HAnd, Entr); 1.2.0: protocol 3 (-no-, Err)
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
        self._last_heard = None
        self._partial_since = None  # when the bytes waiting in the decoder began to wait
        self.frames_ok = 0
        self.rejected = 0

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
            if frame.payload[:1] == bytes([messages.PROTOCOL_VERSION]):
                status = messages.OK
            else:
                status = messages.BAD_VERSION
                self.rejected += 1
            payload = messages.hello_reply_payload(status, self._tag, FIRMWARE_VERSION)
            return encode(frame.seq, messages.HELLO_REPLY, payload)
        if kind == messages.STATE:
            try:
                state = messages.DisplayState.from_payload(frame.payload)
            except ValueError:
                self.rejected += 1
                return encode(frame.seq, messages.ACK, messages.ack_payload(messages.BAD_PAYLOAD, self._tag))
            self._state = state
            self._tag = state.tag()
            return encode(frame.seq, messages.ACK, messages.ack_payload(messages.OK, self._tag))
        if kind == messages.PING:
            return encode(frame.seq, messages.ACK, messages.ack_payload(messages.OK, self._tag))
        self.rejected += 1
        return encode(frame.seq, messages.ACK, messages.ack_payload(messages.UNKNOWN_TYPE, self._tag))
