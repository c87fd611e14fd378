"""Message types and payloads of the display link, shared by host and Pico.

Like :mod:`firmware.codec` this file runs under CPython and MicroPython, so it
keeps to the subset both understand (no ``__future__``, no dataclasses, type
hints only as strings in signatures, which MicroPython ignores).

Every message the host sends is idempotent: ``STATE`` carries the *whole*
picture (game, phase, dice, point, recent rolls), so a retransmitted or
duplicated frame simply draws the same thing again. See
``docs/display-protocol.md`` for the byte layouts and the timing.
"""

from firmware.codec import crc16

# 2: phases "manual" and "enter" added (a display speaking 1 refuses their codes: reflash it).
# 3: phases "refused" and "fault" added.
# 4: HELLO carries the host's session, STATE its session and state number: a display never steps
#    back to an older state that arrives late.
PROTOCOL_VERSION = 4

# Host -> display
HELLO = 0x01  # payload: [protocol version, session_hi, session_lo]
STATE = 0x02  # payload: [session_hi, session_lo, number_hi, number_lo] + DisplayState.to_payload()
PING = 0x03  # payload: empty (the heartbeat)
# Display -> host (SEQ echoes the request's SEQ)
ACK = 0x80  # payload: [status, has_state, tag_hi, tag_lo]
HELLO_REPLY = 0x81  # payload: ACK's four bytes + [protocol, fw major, fw minor, fw patch]

# ACK status codes
OK = 0
BAD_PAYLOAD = 1
UNKNOWN_TYPE = 2
BAD_VERSION = 3
STALE = 4  # a STATE older than the one shown, or of another host's session: not shown

STATUS_NAMES = {
    OK: "ok",
    BAD_PAYLOAD: "bad payload",
    UNKNOWN_TYPE: "unknown message type",
    BAD_VERSION: "unsupported protocol version",
    STALE: "older than the state shown, or of another session",
}

#: State numbers count modulo this; a number is newer than another when it is less than half the
#: circle ahead of it (serial number arithmetic), so counting on past 65535 is no step back.
NUMBERS = 0x10000

GAMES = ("craps", "hazard", "bang")
# What the table is doing, as the dealer needs to see it. The wire sends a phase's index, so a new
# phase goes at the end (and PROTOCOL_VERSION goes up): existing codes keep their meaning.
PHASES = ("open", "locked", "rolling", "confirm", "settled", "void", "closed", "manual", "enter", "refused", "fault")
MAX_DICE = 3
RECENT_MAX = 8


def _dice_tuple(values, what):
    dice = tuple(int(v) for v in values)
    if len(dice) > MAX_DICE:
        raise ValueError("%s: at most %d dice, got %d" % (what, MAX_DICE, len(dice)))
    for value in dice:
        if not 1 <= value <= 6:
            raise ValueError("%s: die value %d is not 1..6" % (what, value))
    return dice


def _read_roll(data, pos):
    """One roll (count byte then values) at ``pos``: (dice, next position)."""
    if pos >= len(data):
        raise ValueError("state payload truncated")
    count = data[pos]
    if count > MAX_DICE:
        raise ValueError("a roll of %d dice, at most %d" % (count, MAX_DICE))
    end = pos + 1 + count
    if end > len(data):
        raise ValueError("state payload truncated")
    return tuple(data[pos + 1 : end]), end


class DisplayState:
    """Everything the LED display shows, as one value (treat it as immutable).

    - ``game``: one of ``GAMES``.
    - ``phase``: one of ``PHASES`` (betting open, bets locked, dice rolling or
      cage spinning, a read CONFIRM can settle, settled, voided, closed, the
      dealer entering the dice by hand, a read only a hand entry can settle,
      a press the table just refused, a device that failed: the cage motor).
    - ``dice``: the current roll, 0 to 3 values 1..6 (empty: nothing rolled
      yet); the display adds the total itself.
    - ``point``: the craps point or Bang's dealer's point (2..18), or None
      for OFF.
    - ``recent``: earlier rolls, most recent first; only the first
      ``RECENT_MAX`` are kept (the display has room for fewer anyway).
    - ``roll_id``: 0..65535, changes with every new result so that two equal
      rolls in a row are still two results (a latency probe needs this).
    """

    def __init__(
        self,
        game: "str" = "craps",
        phase: "str" = "open",
        dice: "tuple" = (),
        point: "int | None" = None,
        recent: "tuple" = (),
        roll_id: "int" = 0,
    ):
        if game not in GAMES:
            raise ValueError("game %r is not one of %s" % (game, ", ".join(GAMES)))
        if phase not in PHASES:
            raise ValueError("phase %r is not one of %s" % (phase, ", ".join(PHASES)))
        if point is not None and not 2 <= int(point) <= 18:
            raise ValueError("point %r is not 2..18 (use None for OFF)" % (point,))
        if not 0 <= int(roll_id) <= 0xFFFF:
            raise ValueError("roll_id %r is not 0..65535" % (roll_id,))
        self.game = game
        self.phase = phase
        self.dice = _dice_tuple(dice, "dice")
        self.point = None if point is None else int(point)
        self.recent = tuple(_dice_tuple(roll, "recent roll") for roll in recent)[:RECENT_MAX]
        self.roll_id = int(roll_id)

    @property
    def total(self) -> "int | None":
        """Sum of the current dice, or None before the first roll."""
        return sum(self.dice) if self.dice else None

    def to_payload(self) -> "bytes":
        """Bytes of a STATE message (layout in docs/display-protocol.md)."""
        out = bytearray(
            [
                GAMES.index(self.game),
                PHASES.index(self.phase),
                self.point or 0,
                self.roll_id >> 8,
                self.roll_id & 0xFF,
                len(self.dice),
            ]
        )
        out.extend(bytes(self.dice))
        out.append(len(self.recent))
        for roll in self.recent:
            out.append(len(roll))
            out.extend(bytes(roll))
        return bytes(out)

    @classmethod
    def from_payload(cls, payload: "bytes") -> "DisplayState":
        """Decode a STATE payload; raises ValueError on anything malformed."""
        data = bytes(payload)
        if len(data) < 7:
            raise ValueError("state payload too short (%d bytes)" % len(data))
        if data[0] >= len(GAMES) or data[1] >= len(PHASES):
            raise ValueError("unknown game or phase code")
        dice, pos = _read_roll(data, 5)
        if pos >= len(data):
            raise ValueError("state payload truncated")
        count = data[pos]
        if count > RECENT_MAX:
            raise ValueError("%d recent rolls, at most %d" % (count, RECENT_MAX))
        pos += 1
        recent = []
        for _ in range(count):
            roll, pos = _read_roll(data, pos)
            recent.append(roll)
        if pos != len(data):
            raise ValueError("state payload has %d stray bytes" % (len(data) - pos))
        return cls(
            game=GAMES[data[0]],
            phase=PHASES[data[1]],
            dice=dice,
            point=data[2] or None,
            recent=tuple(recent),
            roll_id=(data[3] << 8) | data[4],
        )

    def tag(self) -> "int":
        """CRC16 of the payload: how the display says what it currently shows."""
        return crc16(self.to_payload())

    def _key(self):
        return (self.game, self.phase, self.dice, self.point, self.recent, self.roll_id)

    def __eq__(self, other):
        return isinstance(other, DisplayState) and self._key() == other._key()

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        return "DisplayState(game=%r, phase=%r, dice=%r, point=%r, recent=%r, roll_id=%r)" % self._key()


def newer_or_same(number, than):
    """Whether state ``number`` is ``than`` or comes after it (modulo :data:`NUMBERS`): a display
    shows it; an older one arrived late and is not shown."""
    return (number - than) % NUMBERS < NUMBERS // 2


def hello_payload(session):
    """HELLO payload: the host's protocol version and its session (0..65535, new at every start of
    the host's link, so a display tells one host's states from another's)."""
    return bytes([PROTOCOL_VERSION, (session >> 8) & 0xFF, session & 0xFF])


def parse_hello(payload):
    """(protocol version, session or None) of a HELLO payload; an older host sends no session."""
    if not payload:
        raise ValueError("hello without a protocol version")
    session = (payload[1] << 8) | payload[2] if len(payload) >= 3 else None
    return payload[0], session


def state_payload(session, number, state):
    """STATE payload: the host's session, the state's number (one more for every new state the
    host shows, modulo :data:`NUMBERS`) and the picture."""
    return bytes([(session >> 8) & 0xFF, session & 0xFF, (number >> 8) & 0xFF, number & 0xFF]) + state.to_payload()


def parse_state(payload):
    """(session, number, DisplayState) of a STATE payload; raises ValueError on anything malformed."""
    data = bytes(payload)
    if len(data) < 4:
        raise ValueError("state payload too short (%d bytes)" % len(data))
    return (data[0] << 8) | data[1], (data[2] << 8) | data[3], DisplayState.from_payload(data[4:])


def ack_payload(status, tag):
    """ACK payload: status and the tag of what is shown (None: nothing shown)."""
    if tag is None:
        return bytes([status, 0, 0, 0])
    return bytes([status, 1, tag >> 8, tag & 0xFF])


def parse_ack(payload):
    """(status, tag or None) from an ACK or HELLO_REPLY payload."""
    if len(payload) < 4:
        raise ValueError("reply payload too short (%d bytes)" % len(payload))
    tag = (payload[2] << 8) | payload[3] if payload[1] else None
    return payload[0], tag


def hello_reply_payload(status, tag, firmware_version):
    """HELLO_REPLY payload: the ACK fields, our protocol and firmware version."""
    return ack_payload(status, tag) + bytes([PROTOCOL_VERSION]) + bytes(firmware_version)


def parse_hello_reply(payload):
    """(status, tag, protocol version, (major, minor, patch)) of a HELLO_REPLY."""
    if len(payload) < 8:
        raise ValueError("hello reply too short (%d bytes)" % len(payload))
    status, tag = parse_ack(payload)
    return status, tag, payload[4], (payload[5], payload[6], payload[7])
