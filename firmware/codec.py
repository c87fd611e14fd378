"""Frame codec of the display link, shared as-is by the host and the Pico.

Why one module: the host (``hardware.display``) and the firmware import this
very file, so the two sides can never disagree on the layout of a frame. It
therefore runs under CPython *and* MicroPython: no ``__future__``, no
dataclasses, no ``typing``, no ``struct``, no ``del`` on bytearray slices
(MicroPython lacks it), and the CRC is computed by hand.

A frame on the wire::

    SYNC  LEN  SEQ  TYPE  PAYLOAD[LEN]  CRC_HI  CRC_LO

``SYNC`` is 0x7E, ``LEN`` the payload length (0..MAX_PAYLOAD), ``SEQ`` a
sequence number 0..255 chosen by the sender of a request and echoed in its
reply, ``TYPE`` the message type, and the CRC is CRC-16/CCITT-FALSE (poly
0x1021, init 0xFFFF) over ``LEN SEQ TYPE PAYLOAD``. There is no byte
stuffing: a sync byte inside a frame is harmless because a frame is accepted
only when its CRC checks. A receiver that meets a bad frame drops its first
byte and looks for the next sync byte (the Klipper approach), so one
corrupted, truncated or spliced frame costs that frame only.
"""

SYNC = 0x7E
HEADER_LEN = 4  # SYNC LEN SEQ TYPE
CRC_LEN = 2
MAX_PAYLOAD = 120
MAX_FRAME = HEADER_LEN + MAX_PAYLOAD + CRC_LEN


def crc16(data, crc=0xFFFF):
    """CRC-16/CCITT-FALSE of ``data`` (bytes-like), by hand for MicroPython."""
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            if crc & 0x8000:
                crc = ((crc << 1) ^ 0x1021) & 0xFFFF
            else:
                crc = (crc << 1) & 0xFFFF
    return crc


class Frame:
    """One decoded frame: sequence number, message type and payload bytes."""

    def __init__(self, seq, kind, payload=b""):
        self.seq = seq & 0xFF
        self.kind = kind & 0xFF
        self.payload = bytes(payload)

    def __eq__(self, other):
        return (
            isinstance(other, Frame)
            and self.seq == other.seq
            and self.kind == other.kind
            and self.payload == other.payload
        )

    def __ne__(self, other):
        return not self.__eq__(other)

    def __repr__(self):
        return "Frame(seq=%d, kind=0x%02X, payload=%r)" % (self.seq, self.kind, self.payload)


def encode(seq, kind, payload=b""):
    """The bytes on the wire for one frame; raises ValueError on a bad field."""
    if len(payload) > MAX_PAYLOAD:
        raise ValueError("payload of %d bytes exceeds %d" % (len(payload), MAX_PAYLOAD))
    if not 0 <= seq <= 0xFF or not 0 <= kind <= 0xFF:
        raise ValueError("seq and kind must be 0..255")
    body = bytes([len(payload), seq, kind]) + bytes(payload)
    crc = crc16(body)
    return bytes([SYNC]) + body + bytes([crc >> 8, crc & 0xFF])


class Decoder:
    """Turns a byte stream into frames, dropping bad ones and resynchronising.

    Feed it whatever the port delivered (any chunking); it returns the
    complete, valid frames found so far. ``dropped`` counts the bytes thrown
    away and ``bad_frames`` the frames rejected (bad length or CRC), so the
    link can report line noise without raising.
    """

    def __init__(self):
        self._buf = bytearray()
        self.dropped = 0
        self.bad_frames = 0

    def reset(self):
        """Forget any partial frame (after reopening a port)."""
        self._buf = bytearray()

    def pending(self):
        """How many bytes wait for the rest of a frame."""
        return len(self._buf)

    def resync(self):
        """Give up the partial frame: drop the sync byte it began with, so the next ``feed``
        scans what followed it again. A noise byte that looked like a frame start, with a
        length byte after it, would otherwise hold every real frame back until that many
        bytes had come."""
        if self._buf:
            self.bad_frames += 1
            self._discard(1)

    def feed(self, data):
        """Add received bytes; return the list of frames completed by them."""
        if data:
            self._buf.extend(data)
        frames = []
        while True:
            frame = self._next_frame()
            if frame is None:
                return frames
            frames.append(frame)

    def _discard(self, count):
        self.dropped += count
        self._buf = self._buf[count:]

    def _next_frame(self):
        # A loop, not recursion: MicroPython's stack is small and garbage full
        # of sync bytes would otherwise recurse once per byte.
        while True:
            buf = self._buf
            start = buf.find(bytes([SYNC]))
            if start < 0:
                if buf:
                    self._discard(len(buf))
                return None
            if start:
                self._discard(start)
                buf = self._buf
            if len(buf) < 2:
                return None
            length = buf[1]
            if length > MAX_PAYLOAD:
                # Not a frame start after all: skip this sync byte, look again.
                self.bad_frames += 1
                self._discard(1)
                continue
            total = HEADER_LEN + length + CRC_LEN
            if len(buf) < total:
                return None
            crc = (buf[total - 2] << 8) | buf[total - 1]
            if crc16(buf[1 : total - 2]) != crc:
                self.bad_frames += 1
                self._discard(1)
                continue
            self._buf = buf[total:]
            return Frame(buf[2], buf[3], bytes(buf[HEADER_LEN : total - 2]))
