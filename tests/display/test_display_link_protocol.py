"""DisplayLink against scripted ports: the protocol-level faults a pty
stand-in cannot produce (wrong firmware version, a refused state, a port that
errors on write, stale replies)."""
from __future__ import annotations

import time

import pytest

from firmware import messages
from firmware.codec import Decoder, encode
from firmware.device import Device
from hardware.display import DisplayLink, DisplayState, LinkTiming

ROLL = DisplayState("craps", "locked", (3, 4), 6, ((6, 5),), 7)


def _device_responder():
    device = Device()
    return lambda data: device.receive(data, int(time.monotonic() * 1000))


def _kinds(port) -> list[int]:
    decoder = Decoder()
    return [frame.kind for chunk in port.written for frame in decoder.feed(chunk)]


def test_a_display_speaking_another_protocol_is_reported_and_never_sent_states(
    scripted_factory, fast_timing, eventually
):
    def old_firmware(data: bytes) -> bytes:
        out = b""
        for frame in Decoder().feed(data):
            payload = messages.ack_payload(messages.OK, None) + bytes([9, 0, 9, 0])
            out += encode(frame.seq, messages.HELLO_REPLY, payload)
        return out

    factory = scripted_factory(old_firmware)
    with DisplayLink("scripted", timing=fast_timing, serial_factory=factory) as link:
        link.show(ROLL)
        health = eventually(lambda: link.health().faults.get("version", 0) >= 2 and link.health())
    assert "protocol 9" in health.last_error and "reflash" in health.last_error
    assert not health.connected
    assert all(kind == messages.HELLO for port in factory.opened for kind in _kinds(port))


@pytest.mark.parametrize("firmware, protocol", [((1, 0, 0), 1), ((1, 1, 0), 2), ((1, 2, 0), 3)])
def test_a_display_on_an_older_protocol_asks_for_a_reflash(scripted_factory, fast_timing, eventually,
                                                           firmware, protocol):
    # An older firmware refuses the HELLO of the host's protocol (it would refuse the codes of the
    # phases added since, too: HAnd and Entr in 2, -no- and Err in 3).
    def old_firmware(data: bytes) -> bytes:
        out = b""
        for frame in Decoder().feed(data):
            assert frame.kind == messages.HELLO and frame.payload[:1] == bytes([messages.PROTOCOL_VERSION])
            payload = messages.ack_payload(messages.BAD_VERSION, None) + bytes([protocol, *firmware])
            out += encode(frame.seq, messages.HELLO_REPLY, payload)
        return out

    factory = scripted_factory(old_firmware)
    with DisplayLink("scripted", timing=fast_timing, serial_factory=factory) as link:
        link.show(DisplayState("craps", "enter", (), 6, (), 7))
        health = eventually(lambda: link.health().faults.get("version") and link.health())
    version = ".".join(str(part) for part in firmware)
    assert f"firmware {version} speaks protocol {protocol}, host speaks 4: reflash the display" in health.last_error
    assert not health.connected and not health.healthy


def test_after_a_version_mismatch_the_host_keeps_silent(
    scripted_factory, fast_timing, eventually
):
    """After a version mismatch the host keeps silent long enough for an old display to show no link:
    an old firmware hears every HELLO, and one sent at each reopen would keep its last picture up
    as if current."""
    heard: list[float] = []

    def firmware_1_0_0(data: bytes) -> bytes:
        heard.append(time.monotonic())
        return b"".join(encode(frame.seq, messages.HELLO_REPLY,
                               messages.ack_payload(messages.BAD_VERSION, None) + bytes([1, 1, 0, 0]))
                        for frame in Decoder().feed(data))

    with DisplayLink("scripted", timing=fast_timing, serial_factory=scripted_factory(firmware_1_0_0)) as link:
        eventually(lambda: link.health().faults.get("version", 0) >= 3)
    gaps = [b - a for a, b in zip(heard, heard[1:])]
    assert gaps and min(gaps) >= fast_timing.version_pause > fast_timing.reopen_interval


def test_a_refused_state_is_reported_once_not_resent_forever(scripted_factory, eventually):
    device = Device()

    def picky(data: bytes) -> bytes:
        out = b""
        for frame in Decoder().feed(data):
            if frame.kind == messages.STATE:
                out += encode(frame.seq, messages.ACK, messages.ack_payload(messages.BAD_PAYLOAD, None))
            else:
                out += device.receive(encode(frame.seq, frame.kind, frame.payload), 0)
        return out

    def sent(kind: int) -> int:
        return sum(_kinds(port).count(kind) for port in factory.opened)

    factory = scripted_factory(picky)
    patient = LinkTiming(ack_timeout=1.0, heartbeat_interval=0.05)  # no reconnect on a loaded machine
    with DisplayLink("scripted", timing=patient, serial_factory=factory) as link:
        link.show(ROLL)
        eventually(lambda: link.health().faults.get("rejected"))
        eventually(lambda: sent(messages.PING) >= 3)
        health = link.health()
    assert "bad payload" in health.last_error
    assert sent(messages.STATE) == 1
    assert not health.in_sync


def test_a_port_that_fails_on_write_is_reopened(scripted_factory, fast_timing, eventually):
    factory = scripted_factory(_device_responder())
    with DisplayLink("scripted", timing=fast_timing, serial_factory=factory) as link:
        link.show(ROLL)
        assert link.wait_acked(ROLL, 5.0) is not None
        first = factory.opened[0]
        first.fail_writes = True
        eventually(lambda: len(factory.opened) >= 2 and link.health().connected)
        assert first.closed
        assert link.health().faults.get("port_lost") == 1
        newer = DisplayState("craps", "settled", (1, 1), 6, (), 8)
        link.show(newer)
        assert link.wait_acked(newer, 5.0) is not None


def test_stale_and_duplicated_replies_are_ignored(scripted_factory, fast_timing, eventually):
    device_reply = _device_responder()

    def echoing(data: bytes) -> bytes:
        good = device_reply(data)
        stale = b"".join(
            encode((frame.seq - 1) & 0xFF, messages.ACK, messages.ack_payload(messages.OK, 0x1234))
            for frame in Decoder().feed(data)
        )
        return stale + good + good  # an old ack first, the right one twice

    factory = scripted_factory(echoing)
    patient = LinkTiming(ack_timeout=1.0, heartbeat_interval=0.05)  # asserts no fault at all
    with DisplayLink("scripted", timing=patient, serial_factory=factory) as link:
        link.show(ROLL)
        assert link.wait_acked(ROLL, 5.0) is not None
        eventually(lambda: _kinds(factory.opened[0]).count(messages.PING) >= 2)
        health = link.health()
    assert health.fault_count == 0 and health.in_sync
    assert _kinds(factory.opened[0]).count(messages.STATE) == 1


def test_a_reply_not_understood_is_counted_and_the_state_is_not_sent_again_at_once(
    scripted_factory, fast_timing, eventually
):
    """A display that answers STATE with a short ACK (other firmware speaking the same protocol
    number) once was sent the state as fast as the line could carry it."""
    device = Device()

    def short_acks(data: bytes) -> bytes:
        out = b""
        for frame in Decoder().feed(data):
            if frame.kind == messages.STATE:
                out += encode(frame.seq, messages.ACK, b"\x00")  # a valid frame, a payload too short
            else:
                out += device.receive(encode(frame.seq, frame.kind, frame.payload), 0)
        return out

    factory = scripted_factory(short_acks)
    with DisplayLink("scripted", timing=fast_timing, serial_factory=factory) as link:
        link.show(ROLL)
        eventually(lambda: link.health().faults.get("bad_reply", 0) >= 1)
        time.sleep(0.5)
        health = link.health()
    sent = sum(_kinds(port).count(messages.STATE) for port in factory.opened)
    assert 1 <= sent <= 0.5 / fast_timing.heartbeat_interval + 3  # paced by the heartbeat, not the line
    assert "not understood" in health.last_error and not health.in_sync


def test_states_delayed_and_reordered_on_the_line_never_step_the_display_back(scripted_factory, fast_timing):
    """With frames held back on the line and let through later, in any order, the display showed an
    older result after a newer one (up to 245 ms at a time in a trial): it must never step back."""
    import random

    rng = random.Random(32)
    device = Device()
    held: list[bytes] = []
    shown: list[DisplayState] = []

    def delaying_line(data: bytes) -> bytes:
        now = int(time.monotonic() * 1000)
        out = b""
        for frame in Decoder().feed(data):
            wire = encode(frame.seq, frame.kind, frame.payload)
            if frame.kind == messages.STATE and rng.random() < 0.4:
                held.append(wire)  # delayed on the line
            else:
                out += device.receive(wire, now)
            rng.shuffle(held)
            while held and rng.random() < 0.5:
                out += device.receive(held.pop(), now)  # an older frame arrives late
            if device.current(now) is not None and (not shown or device.current(now) != shown[-1]):
                shown.append(device.current(now))
        return out

    states = [DisplayState("craps", "settled", (1 + n % 6, 1 + n // 6 % 6), None, (), n) for n in range(40)]
    factory = scripted_factory(delaying_line)
    with DisplayLink("scripted", timing=fast_timing, serial_factory=factory) as link:
        for state in states:
            link.show(state)
            time.sleep(rng.uniform(0.0, 0.02))
        assert link.wait_acked(states[-1], 5.0) is not None
    order = [state.roll_id for state in shown]
    assert order == sorted(order) and order[-1] == 39
    assert device.stale > 0  # the line did deliver late frames, and they were refused


def test_a_display_another_host_spoke_to_is_greeted_again_and_shown_the_state(scripted_factory, fast_timing,
                                                                              eventually):
    device = _device_responder()
    factory = scripted_factory(device)
    with DisplayLink("scripted", timing=fast_timing, serial_factory=factory) as link:
        link.show(ROLL)
        assert link.wait_acked(ROLL, 5.0) is not None
        device(encode(200, messages.HELLO, messages.hello_payload(link._session ^ 0xFFFF)))  # another host
        newer = DisplayState("craps", "settled", (3, 4), None, (), 8)
        link.show(newer)
        assert link.wait_acked(newer, 5.0) is not None
        assert link.health().faults.get("stale") == 1
