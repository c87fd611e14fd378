"""firmware/main.py with a fake ``machine`` module: the pins, buses and loop
as the Pico runs them, minus the hardware (CPython only: it patches modules)."""
from __future__ import annotations

import sys
import time
import types
from typing import Any

import pytest

from firmware import main as firmware_main
from firmware import messages
from firmware.codec import Decoder, encode
from firmware.virtual import VirtualChain, VirtualUart

STATE = messages.DisplayState("bang", "locked", (5, 5), 7, ((3, 4),), 2)


class _LoopDone(Exception):
    pass


def _fake_machine(uart: VirtualUart, chain: VirtualChain, loops: int) -> types.ModuleType:
    opened: dict[str, tuple] = {}

    class Pin:
        OUT = 1

        def __init__(self, number, mode=None, value=None):
            self.number = number
            if number == firmware_main.SPI_CS:
                chain.cs.value(value)

        def value(self, level=None):
            return chain.cs.value(level) if self.number == firmware_main.SPI_CS else None

    def UART(uart_id, baudrate, tx, rx, rxbuf):  # noqa: N802 - machine's spelling
        opened["uart"] = (uart_id, baudrate, tx.number, rx.number)
        return uart

    def SPI(spi_id, baudrate, polarity, phase, sck, mosi):  # noqa: N802
        opened["spi"] = (spi_id, sck.number, mosi.number)
        return chain.spi

    class WDT:
        def __init__(self, timeout):
            opened["wdt"] = timeout
            self.fed = 0

        def feed(self):
            self.fed += 1
            if self.fed >= loops:
                raise _LoopDone

    module: Any = types.ModuleType("machine")
    module.Pin, module.UART, module.SPI, module.WDT = Pin, UART, SPI, WDT
    module.opened = opened
    return module


def test_main_binds_the_pins_answers_and_draws(monkeypatch):
    uart, chain = VirtualUart(), VirtualChain(firmware_main.MODULES)
    uart.feed(encode(4, messages.STATE, messages.state_payload(1, 1, STATE)))
    machine = _fake_machine(uart, chain, loops=3)
    monkeypatch.setitem(sys.modules, "machine", machine)
    monkeypatch.setattr(time, "ticks_ms", lambda: int(time.monotonic() * 1000), raising=False)
    monkeypatch.setattr(time, "ticks_diff", lambda new, old: new - old, raising=False)
    monkeypatch.setattr(time, "sleep_ms", lambda ms: None, raising=False)
    with pytest.raises(_LoopDone):
        firmware_main.main()
    assert machine.opened["uart"] == (0, 115200, 0, 1)
    assert machine.opened["spi"] == (0, 18, 19)
    assert machine.opened["wdt"] == firmware_main.WATCHDOG_MS
    [ack] = Decoder().feed(uart.take_output())
    assert ack.seq == 4 and messages.parse_ack(ack.payload) == (messages.OK, STATE.tag())
    assert chain.text() == ("5 5   10", "L0Cdd  7", " 7.      ")
