"""Property tests of the shared frame codec: garbage never crashes the
decoder, chunking never matters, and damage costs only the frames it touched."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from firmware.codec import MAX_FRAME, MAX_PAYLOAD, SYNC, Decoder, Frame, encode
from firmware.messages import GAMES, PHASES, RECENT_MAX, DisplayState

frames = st.builds(
    Frame,
    seq=st.integers(0, 255),
    kind=st.integers(0, 255),
    payload=st.binary(max_size=MAX_PAYLOAD),
)
# Garbage rich in sync bytes, the worst case for resynchronising.
garbage = st.lists(st.one_of(st.just(SYNC), st.integers(0, 255)), max_size=300).map(bytes)
# Filler without sync bytes completes any frame the decoder is still waiting for.
FILLER = bytes(MAX_FRAME)


def _wire(frame: Frame) -> bytes:
    return encode(frame.seq, frame.kind, frame.payload)


def _chunks(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts})
    pieces, start = [], 0
    for point in points + [len(data)]:
        pieces.append(data[start:point])
        start = point
    return pieces


@settings(max_examples=150, deadline=None)
@given(garbage, st.lists(st.integers(0, 10_000), max_size=20))
def test_garbage_never_crashes_and_buffer_stays_bounded(noise, cuts):
    decoder = Decoder()
    for piece in _chunks(noise, cuts):
        for frame in decoder.feed(piece):
            assert isinstance(frame, Frame)
        assert decoder.pending() < MAX_FRAME


@settings(max_examples=150, deadline=None)
@given(garbage, frames, garbage)
def test_a_frame_is_found_after_any_garbage(before, frame, after):
    decoded = Decoder().feed(before + _wire(frame) + after + FILLER)
    assert frame in decoded


@settings(max_examples=120, deadline=None)
@given(st.lists(frames, max_size=8), st.lists(st.integers(0, 10_000), max_size=30))
def test_chunking_does_not_change_what_is_decoded(sent, cuts):
    stream = b"".join(_wire(f) for f in sent)
    decoder = Decoder()
    got = []
    for piece in _chunks(stream, cuts):
        got.extend(decoder.feed(piece))
    assert got == sent


@settings(max_examples=150, deadline=None)
@given(st.lists(frames, min_size=1, max_size=8), st.lists(st.tuples(st.integers(0, 10_000), st.integers(1, 255)), max_size=6))
def test_every_untouched_frame_survives_damage_to_others(sent, flips):
    wires = [_wire(f) for f in sent]
    stream = bytearray(b"".join(wires))
    touched = set()
    for position, mask in flips:
        position %= len(stream)
        stream[position] ^= mask
        offset = 0
        for index, wire in enumerate(wires):
            if offset <= position < offset + len(wire):
                touched.add(index)
            offset += len(wire)
    decoded = Decoder().feed(bytes(stream) + FILLER)
    for index, frame in enumerate(sent):
        if index not in touched:
            assert frame in decoded


rolls = st.lists(st.integers(1, 6), max_size=3).map(tuple)
states = st.builds(
    DisplayState,
    game=st.sampled_from(GAMES),
    phase=st.sampled_from(PHASES),
    dice=rolls,
    point=st.one_of(st.none(), st.integers(2, 18)),
    recent=st.lists(rolls, max_size=RECENT_MAX).map(tuple),
    roll_id=st.integers(0, 0xFFFF),
)


@settings(max_examples=150, deadline=None)
@given(states)
def test_every_state_round_trips_through_a_frame(state):
    [frame] = Decoder().feed(encode(1, 2, state.to_payload()))
    assert DisplayState.from_payload(frame.payload) == state


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=60))
def test_random_state_payloads_decode_or_raise_value_error(payload):
    try:
        state = DisplayState.from_payload(payload)
    except ValueError:
        return
    assert state.to_payload() == payload
