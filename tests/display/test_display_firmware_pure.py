"""The firmware's pure parts with fake UART and SPI: codec, messages, font,
layout, MAX7219 driver, device state machine, main loop body.

This file runs under pytest (CPython) *and* as a plain script under a real
MicroPython (tests/display/test_display_micropython.py does that), so it uses
only what both have: plain asserts, no pytest import, no f-strings with
format specs, no ``__future__``.
"""

from firmware import codec, font, layout, messages
from firmware.app import REFRESH_MS, DisplayApp
from firmware.codec import Decoder, Frame, crc16, encode
from firmware.device import FIRMWARE_VERSION, PARTIAL_FRAME_MS, Device
from firmware.main import TicksClock
from firmware.max7219 import REG_DECODE_MODE, REG_SCAN_LIMIT, REG_SHUTDOWN, Max7219Chain
from firmware.messages import DisplayState
from firmware.virtual import VirtualChain, VirtualUart


def _raises(exc_type, func, *args, **kwargs):
    try:
        func(*args, **kwargs)
    except exc_type:
        return True
    raise AssertionError("%s not raised by %r%r" % (exc_type.__name__, func, args))


POINT_6 = DisplayState("craps", "locked", (3, 4), 6, ((6, 5), (2, 2), (1, 2), (3, 3), (6, 6)), 5)


# ---- codec ------------------------------------------------------------------


def test_crc16_matches_the_ccitt_false_check_value():
    assert crc16(b"123456789") == 0x29B1


def test_frames_round_trip_at_every_size():
    for size in (0, 1, 2, 50, codec.MAX_PAYLOAD):
        payload = bytes([(i * 7 + 0x7E) & 0xFF for i in range(size)])
        wire = encode(200, 0x42, payload)
        assert len(wire) == codec.HEADER_LEN + size + codec.CRC_LEN
        assert Decoder().feed(wire) == [Frame(200, 0x42, payload)]


def test_frames_arrive_whole_even_one_byte_at_a_time():
    wire = encode(1, 2, b"abc") + encode(2, 3, b"") + encode(3, 2, b"\x7e\x7e")
    decoder = Decoder()
    got = []
    for i in range(len(wire)):
        got.extend(decoder.feed(wire[i : i + 1]))
    assert got == [Frame(1, 2, b"abc"), Frame(2, 3, b""), Frame(3, 2, b"\x7e\x7e")]
    assert decoder.pending() == 0


def test_a_corrupted_frame_is_dropped_and_the_next_one_read():
    first = bytearray(encode(1, 2, b"hello"))
    first[5] ^= 0x10
    decoder = Decoder()
    frames = decoder.feed(bytes(first) + encode(2, 2, b"world"))
    assert frames == [Frame(2, 2, b"world")]
    assert decoder.bad_frames >= 1


def test_garbage_and_a_truncated_frame_before_a_good_one_are_skipped():
    truncated = encode(9, 2, b"lost in transit")[:8]
    decoder = Decoder()
    frames = decoder.feed(b"\x00\xff\x7e" + truncated + encode(4, 3, b"ok") + bytes(codec.MAX_FRAME))
    assert Frame(4, 3, b"ok") in frames
    assert decoder.dropped > 0


def test_a_length_beyond_the_maximum_is_not_a_frame():
    decoder = Decoder()
    frames = decoder.feed(bytes([codec.SYNC, codec.MAX_PAYLOAD + 1]) + encode(5, 1, b"x"))
    assert frames == [Frame(5, 1, b"x")]


def test_encode_refuses_bad_fields():
    _raises(ValueError, encode, 1, 1, bytes(codec.MAX_PAYLOAD + 1))
    _raises(ValueError, encode, 256, 1, b"")
    _raises(ValueError, encode, 1, -1, b"")


# ---- messages ---------------------------------------------------------------


def test_state_payload_round_trips():
    for state in (
        POINT_6,
        DisplayState(),
        DisplayState("hazard", "rolling", (1, 6, 6), None, ((2, 3, 4),), 65535),
        DisplayState("bang", "settled", (6, 6), 12, (), 0),
    ):
        assert DisplayState.from_payload(state.to_payload()) == state


def test_new_phases_are_added_at_the_end_and_round_trip():
    # The wire sends a phase's index: the codes of protocol 1 keep their meaning.
    assert messages.PHASES[:7] == ("open", "locked", "rolling", "confirm", "settled", "void", "closed")
    assert messages.PROTOCOL_VERSION == 4
    for phase, code in (("manual", 7), ("enter", 8), ("refused", 9), ("fault", 10)):
        state = DisplayState("craps", phase, (3, 4), 6, ((6, 5),), 9)
        assert state.to_payload()[1] == code
        assert DisplayState.from_payload(state.to_payload()) == state


def test_an_unknown_phase_code_is_refused():
    payload = bytearray(POINT_6.to_payload())
    payload[1] = len(messages.PHASES)
    _raises(ValueError, DisplayState.from_payload, bytes(payload))


def test_state_rejects_what_the_display_cannot_show():
    _raises(ValueError, DisplayState, "poker")
    _raises(ValueError, DisplayState, "craps", "dancing")
    _raises(ValueError, DisplayState, "craps", "open", (7, 1))
    _raises(ValueError, DisplayState, "craps", "open", (1, 1, 1, 1))
    _raises(ValueError, DisplayState, "craps", "open", (), 1)
    _raises(ValueError, DisplayState, "craps", "open", (), None, ((0, 1),))
    _raises(ValueError, DisplayState, "craps", "open", (), None, (), 70000)


def test_state_keeps_only_the_most_recent_rolls():
    rolls = tuple((1 + i % 6, 2) for i in range(20))
    state = DisplayState(recent=rolls)
    assert state.recent == rolls[: messages.RECENT_MAX]


def test_malformed_state_payloads_raise_value_error():
    good = POINT_6.to_payload()
    for bad in (b"", good[:6], good[:-1], good + b"\x00", b"\x09" + good[1:], b"\x00\x00\x00\x00\x00\x02\x07\x01\x00"):
        _raises(ValueError, DisplayState.from_payload, bad)


def test_ack_and_hello_reply_payloads_round_trip():
    assert messages.parse_ack(messages.ack_payload(messages.OK, 0xBEEF)) == (messages.OK, 0xBEEF)
    assert messages.parse_ack(messages.ack_payload(messages.BAD_PAYLOAD, None)) == (messages.BAD_PAYLOAD, None)
    reply = messages.hello_reply_payload(messages.OK, None, (1, 2, 3))
    assert messages.parse_hello_reply(reply) == (messages.OK, None, messages.PROTOCOL_VERSION, (1, 2, 3))


# ---- font and layout --------------------------------------------------------


def test_font_dots_join_the_digit_before():
    segs = font.render(" 7.11.", 4)
    assert segs == [0, font.FONT["7"] | font.DP, font.FONT["1"], font.FONT["1"] | font.DP]
    assert font.text_of(segs) == " 7.11."


def test_font_refuses_text_that_does_not_fit_or_has_no_glyph():
    _raises(ValueError, font.render, "123456789", 8)
    _raises(ValueError, font.glyph, "W")


def test_layout_of_a_craps_point():
    assert layout.rows(POINT_6) == ("3 4    7", "LOCdP  6", "11. 4. 3. 6.")


def test_layout_of_a_come_out_shows_off():
    state = DisplayState("craps", "open", (6, 5), None, (), 1)
    assert layout.rows(state) == ("6 5   11", "OPEn OFF", "        ")


def test_layout_of_hazard_three_dice_no_point_and_the_spinning_cage():
    state = DisplayState("hazard", "rolling", (6, 6, 5), None, ((1, 2, 3),), 1)
    assert layout.rows(state) == ("6 6 5 17", "SPIn    ", " 6.      ")


def test_layout_of_bang_names_the_dealers_point():
    state = DisplayState("bang", "open", (), 10, (), 0)
    assert layout.rows(state) == ("        ", "OPEnd 10", "        ")


def test_layout_tells_a_read_to_confirm_from_one_to_enter_and_from_a_hand_entry():
    # The same dice [3, 4], three things the dealer must do: CONFIRM; hold CONFIRM (CONFIRM alone is
    # refused); LOCK steps the die being entered.
    words = {}
    for phase in ("confirm", "enter", "manual"):
        words[phase] = layout.rows(DisplayState("craps", phase, (3, 4), 6, (), 1))[1]
    assert words == {"confirm": "ConFP  6", "enter": "EntrP  6", "manual": "HAndP  6"}
    assert layout.rows(DisplayState("hazard", "enter", (), None, (), 1)) == ("        ", "Entr    ", "        ")
    assert layout.rows(DisplayState("bang", "manual", (2,), None, (), 1))[1] == "HAnd OFF"


def test_layout_says_no_to_a_refused_press_and_err_for_a_failed_device():
    # Only the word changes: the dice, the point and the history stay as they were.
    refused = layout.rows(DisplayState("craps", "refused", (3, 4), 6, ((6, 5),), 1))
    assert refused == ("3 4    7", "-no-P  6", "11.      ")
    assert layout.rows(DisplayState("hazard", "fault", (), None, (), 1))[1] == "Err     "
    # Neither can be taken for the no-link pattern.
    assert refused != layout.NO_LINK_ROWS and "no LInE" not in refused[1]


def test_every_phase_and_game_fits_the_digits():
    for game in messages.GAMES:
        for phase in messages.PHASES:
            state = DisplayState(game, phase, (6, 6, 6), 18, ((6, 6, 6),) * 8, 1)
            for row in layout.rows(state):
                assert len(font.render(row, layout.WIDTH)) == layout.WIDTH


def test_no_link_pattern_for_no_state():
    assert layout.rows(None) == layout.NO_LINK_ROWS


# ---- MAX7219 driver on a virtual chain -------------------------------------


def _panel(digit0_right=True):
    chain = VirtualChain(3, digit0_right=digit0_right)
    panel = Max7219Chain(chain.spi, chain.cs, modules=3, digit0_right=digit0_right)
    panel.init()
    return chain, panel


def test_init_puts_every_module_in_raw_mode_and_on():
    chain, _panel_ = _panel()
    for module in chain.modules:
        assert module.registers[REG_SHUTDOWN] == 1
        assert module.registers[REG_DECODE_MODE] == 0
        assert module.registers[REG_SCAN_LIMIT] == 7
    assert chain.text() == ("        ", "        ", "        ")


def test_rows_land_on_their_modules_left_to_right():
    for digit0_right in (True, False):
        chain, panel = _panel(digit0_right)
        panel.show(("12345678", "AbCdEF-_", "  7.11. "))
        assert chain.text() == ("12345678", "AbCdEF-_", "  7.11.   ")


def test_the_chain_lights_the_new_phase_words_legibly():
    chain, panel = _panel()
    for phase, word in (("manual", "HAnd"), ("enter", "Entr")):
        panel.show(layout.rows(DisplayState("craps", phase, (3, 4), 6, (), 1)))
        assert chain.text()[1] == word + "P  6"  # each letter reads back as itself: no shared shape


def test_the_bus_is_quiet_while_nothing_changes():
    chain, panel = _panel()
    panel.show(("1", "2", "3"))
    latches = chain.latches
    panel.show(("1", "2", "3"))
    assert chain.latches == latches
    _raises(ValueError, panel.show, ("1", "2"))


# ---- the device state machine ----------------------------------------------


def _replies(data):
    return Decoder().feed(data)


def _prefixed(picture, number, session=1):
    """A STATE payload of ``session`` and state ``number`` around the picture bytes given."""
    return bytes([session >> 8, session & 0xFF, number >> 8, number & 0xFF]) + picture


def _state(state, number=1, session=1):
    return messages.state_payload(session, number, state)


def test_hello_is_answered_with_versions():
    device = Device()
    [reply] = _replies(device.receive(encode(7, messages.HELLO, messages.hello_payload(1)), 0))
    assert reply.seq == 7 and reply.kind == messages.HELLO_REPLY
    assert messages.parse_hello_reply(reply.payload) == (messages.OK, None, messages.PROTOCOL_VERSION, FIRMWARE_VERSION)
    [reply] = _replies(device.receive(encode(8, messages.HELLO, b"\x63"), 1))
    assert messages.parse_hello_reply(reply.payload)[0] == messages.BAD_VERSION


def test_a_state_with_an_unknown_phase_code_is_refused_and_the_picture_kept():
    device = Device()
    device.receive(encode(1, messages.STATE, _state(POINT_6)), 0)
    payload = bytearray(DisplayState("craps", "enter", (), 6, (), 6).to_payload())
    payload[1] = len(messages.PHASES)
    [ack] = _replies(device.receive(encode(2, messages.STATE, _prefixed(bytes(payload), 2)), 10))
    assert messages.parse_ack(ack.payload) == (messages.BAD_PAYLOAD, POINT_6.tag())
    assert device.current(20) == POINT_6 and device.rejected == 1


def test_a_state_is_acknowledged_with_its_tag_and_shown():
    device = Device()
    [ack] = _replies(device.receive(encode(3, messages.STATE, _state(POINT_6)), 10))
    assert (ack.seq, ack.kind) == (3, messages.ACK)
    assert messages.parse_ack(ack.payload) == (messages.OK, POINT_6.tag())
    assert device.current(20) == POINT_6


def test_a_duplicated_state_is_harmless():
    device = Device()
    wire = encode(3, messages.STATE, _state(POINT_6))
    replies = _replies(device.receive(wire + wire, 10))
    assert [r.seq for r in replies] == [3, 3]
    assert device.current(10) == POINT_6


def test_a_state_older_than_the_one_shown_is_refused_as_stale_and_the_newer_kept():
    # A frame delayed on the line arrives after the one sent after it: the digits must not step back.
    newer = DisplayState("craps", "settled", (6, 6), None, (), 6)
    device = Device()
    device.receive(encode(1, messages.HELLO, messages.hello_payload(9)), 0)
    device.receive(encode(2, messages.STATE, _state(newer, 5, 9)), 10)
    [ack] = _replies(device.receive(encode(1, messages.STATE, _state(POINT_6, 4, 9)), 20))
    assert messages.parse_ack(ack.payload) == (messages.STALE, newer.tag())
    assert device.current(30) == newer and device.stale == 1
    [ack] = _replies(device.receive(encode(2, messages.STATE, _state(newer, 5, 9)), 40))  # a retransmit
    assert messages.parse_ack(ack.payload)[0] == messages.OK
    [ack] = _replies(device.receive(encode(3, messages.STATE, _state(POINT_6, 6, 9)), 50))
    assert messages.parse_ack(ack.payload)[0] == messages.OK and device.current(60) == POINT_6


def test_state_numbers_count_on_past_65535():
    device = Device()
    device.receive(encode(1, messages.STATE, _state(POINT_6, 65535)), 0)
    later = DisplayState("craps", "open", (1, 2), None, (), 1)
    [ack] = _replies(device.receive(encode(2, messages.STATE, _state(later, 0)), 10))
    assert messages.parse_ack(ack.payload)[0] == messages.OK and device.current(10) == later
    [ack] = _replies(device.receive(encode(1, messages.STATE, _state(POINT_6, 65535)), 20))
    assert messages.parse_ack(ack.payload)[0] == messages.STALE and device.current(20) == later


def test_a_new_session_starts_the_count_afresh_and_the_old_sessions_states_are_stale():
    device = Device()
    device.receive(encode(1, messages.HELLO, messages.hello_payload(7)), 0)
    device.receive(encode(2, messages.STATE, _state(POINT_6, 900, 7)), 10)
    device.receive(encode(1, messages.HELLO, messages.hello_payload(8)), 20)  # the host restarted
    fresh = DisplayState("craps", "open", (), None, (), 0)
    [ack] = _replies(device.receive(encode(2, messages.STATE, _state(fresh, 1, 8)), 30))
    assert messages.parse_ack(ack.payload)[0] == messages.OK and device.current(30) == fresh
    [ack] = _replies(device.receive(encode(3, messages.STATE, _state(POINT_6, 901, 7)), 40))
    assert messages.parse_ack(ack.payload)[0] == messages.STALE and device.current(40) == fresh
    device.receive(encode(4, messages.HELLO, messages.hello_payload(8)), 50)  # the same host again
    [ack] = _replies(device.receive(encode(5, messages.STATE, _state(POINT_6, 0, 8)), 60))
    assert messages.parse_ack(ack.payload)[0] == messages.STALE  # its count goes on: 0 is before 1


def test_a_rebooted_display_follows_the_session_of_the_first_state_it_hears():
    device = Device()
    [ack] = _replies(device.receive(encode(1, messages.STATE, _state(POINT_6, 40, 3)), 0))
    assert messages.parse_ack(ack.payload)[0] == messages.OK
    [ack] = _replies(device.receive(encode(2, messages.STATE, _state(POINT_6, 39, 3)), 10))
    assert messages.parse_ack(ack.payload)[0] == messages.STALE


def test_a_hello_without_a_session_is_an_older_host():
    device = Device()
    [reply] = _replies(device.receive(encode(1, messages.HELLO, bytes([messages.PROTOCOL_VERSION])), 0))
    assert messages.parse_hello_reply(reply.payload)[0] == messages.BAD_VERSION


def test_a_bad_payload_is_refused_and_the_picture_kept():
    device = Device()
    device.receive(encode(1, messages.STATE, _state(POINT_6)), 0)
    [ack] = _replies(device.receive(encode(2, messages.STATE, b"\x00\x00"), 5))
    assert messages.parse_ack(ack.payload) == (messages.BAD_PAYLOAD, POINT_6.tag())
    [ack] = _replies(device.receive(encode(3, 0x55, b""), 6))
    assert messages.parse_ack(ack.payload)[0] == messages.UNKNOWN_TYPE
    assert device.current(7) == POINT_6
    assert device.rejected == 2


def test_noise_that_looks_like_a_frame_start_holds_frames_back_only_briefly():
    # A sync byte and a length of 120 from noise on the line: the decoder waits for 126 bytes.
    device = Device()
    assert device.receive(bytes([codec.SYNC, 120]) + encode(1, messages.PING, b""), 0) == b""
    late = _replies(device.receive(encode(2, messages.PING, b""), PARTIAL_FRAME_MS // 2))
    assert late == []  # a partial frame may still be arriving
    replies = _replies(device.receive(encode(3, messages.PING, b""), PARTIAL_FRAME_MS + 10))
    assert [r.seq for r in replies] == [1, 2, 3]  # given up: the real frames behind it are read
    assert device.bad_frames >= 1
    # a frame that takes its time to arrive, within the limit, is read whole
    wire = encode(4, messages.PING, b"")
    assert device.receive(wire[:3], 1000) == b""
    [reply] = _replies(device.receive(wire[3:], 1000 + PARTIAL_FRAME_MS - 1))
    assert reply.seq == 4


def test_silence_forgets_the_state_so_it_is_never_shown_stale():
    device = Device(link_timeout_ms=3000)
    device.receive(encode(1, messages.STATE, _state(POINT_6)), 1000)
    device.receive(encode(2, messages.PING, b""), 3500)
    assert device.current(6400) == POINT_6  # heard 2.9 s ago: still current
    assert device.current(6600) is None  # 3.1 s of silence: no link
    [ack] = _replies(device.receive(encode(3, messages.PING, b""), 6700))
    assert messages.parse_ack(ack.payload) == (messages.OK, None)  # host must resend
    assert device.current(6700) is None


def test_line_noise_does_not_count_as_hearing_the_host():
    device = Device(link_timeout_ms=1000)
    device.receive(encode(1, messages.STATE, _state(POINT_6)), 0)
    device.receive(b"\x7e\x05garbage\x00\x01", 900)
    assert device.current(1100) is None


# ---- the main loop body with fake UART and SPI -----------------------------


def _app(timeout_ms=3000):
    uart = VirtualUart()
    chain = VirtualChain(3)
    panel = Max7219Chain(chain.spi, chain.cs, modules=3)
    panel.init()
    return uart, chain, DisplayApp(uart, panel, Device(timeout_ms))


def test_registers_flipped_by_noise_are_written_again_within_the_refresh_period():
    uart, chain, app = _app()
    app.poll(0)
    picture = chain.text()
    chain.modules[1].registers[REG_SHUTDOWN] = 0  # a module shut down by a spike on the wires
    chain.modules[2].registers[REG_SCAN_LIMIT] = 2
    app.poll(REFRESH_MS // 2)
    assert chain.text() != picture  # the picture did not change: show() alone writes nothing
    app.poll(REFRESH_MS)
    assert chain.text() == picture
    assert all(m.registers[REG_SCAN_LIMIT] == 7 and m.registers[REG_SHUTDOWN] == 1 for m in chain.modules)


def test_the_app_shows_no_link_until_the_host_speaks():
    uart, chain, app = _app()
    app.poll(0)
    assert chain.text() == layout.NO_LINK_ROWS
    assert uart.take_output() == b""


def test_the_app_answers_and_draws_the_state_on_the_digits():
    uart, chain, app = _app()
    uart.feed(encode(9, messages.STATE, _state(POINT_6)))
    app.poll(5)
    [ack] = _replies(uart.take_output())
    assert ack.seq == 9 and messages.parse_ack(ack.payload)[0] == messages.OK
    assert chain.text() == ("3 4    7", "L0CdP  6", "11. 4. 3. 6.")
    drawing = chain.drawing().split("\n")
    assert len(drawing) == 9
    assert drawing[0].startswith(" _ ")  # the top bar of the 3


def test_the_app_falls_back_to_no_link_after_the_timeout():
    uart, chain, app = _app(timeout_ms=2000)
    uart.feed(encode(1, messages.STATE, _state(POINT_6)))
    app.poll(0)
    app.poll(1999)
    assert chain.text()[0] == "3 4    7"
    app.poll(2001)
    assert chain.text() == layout.NO_LINK_ROWS


def test_ticks_clock_survives_the_tick_counter_wrapping():
    period = 1 << 30

    class FakeTime:
        tick = period - 5

        def ticks_ms(self):
            return self.tick

        def ticks_diff(self, new, old):
            return ((new - old + period // 2) % period) - period // 2

    fake = FakeTime()
    clock = TicksClock(fake)
    fake.tick = 10  # wrapped past zero
    assert clock.now_ms() == 15


def _main():
    """Run every test above without pytest (for MicroPython)."""
    import sys

    names = sorted(name for name in globals() if name.startswith("test_"))
    failed = 0
    for name in names:
        try:
            globals()[name]()
        except Exception as exc:  # noqa: BLE001 - counted and printed: a run by hand reports every failure
            failed += 1
            print("FAIL", name, repr(exc))
            if hasattr(sys, "print_exception"):
                sys.print_exception(exc)
    print("micropython firmware checks: %d passed, %d failed" % (len(names) - failed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    _main()
