"""Driver for a chain of MAX7219 seven-segment modules on one SPI bus.

Wiring assumed (see firmware/README.md): the Pico's MOSI drives DIN of module
0, each module's DOUT feeds the next one's DIN, all share CLK and LOAD (CS).
A register write to the whole chain is one CS pulse carrying two bytes per
module; the bytes shifted first travel furthest, so the last module's pair
goes out first. Takes any ``spi`` with ``write(bytes)`` and ``cs`` with
``value(int)``, which is how it runs under CPython with fakes.
"""

from firmware.font import render

REG_NOOP = 0x00
REG_DIGIT0 = 0x01
REG_DECODE_MODE = 0x09
REG_INTENSITY = 0x0A
REG_SCAN_LIMIT = 0x0B
REG_SHUTDOWN = 0x0C
REG_DISPLAY_TEST = 0x0F
DIGITS = 8


class Max7219Chain:
    """``modules`` MAX7219s in a daisy chain, one text row per module.

    ``digit0_right``: on the common 8-digit boards DIG0 is the rightmost
    digit; set False for boards wired the other way.
    """

    def __init__(self, spi, cs, modules=3, intensity=6, digit0_right=True):
        self._spi = spi
        self._cs = cs
        self.modules = modules
        self._intensity = intensity
        self._digit0_right = digit0_right
        self._shown = None

    def _write(self, pairs):
        """One CS pulse: ``pairs[i]`` = (register, value) for module i."""
        out = bytearray()
        for register, value in reversed(pairs):
            out.append(register)
            out.append(value)
        self._cs.value(0)
        self._spi.write(bytes(out))
        self._cs.value(1)

    def _all(self, register, value):
        self._write([(register, value)] * self.modules)

    def init(self):
        """Put every module in a known state: no test, raw segments, blank, on."""
        self._configure()
        for digit in range(DIGITS):
            self._all(REG_DIGIT0 + digit, 0)
        self._all(REG_SHUTDOWN, 1)
        self._shown = None

    def refresh(self):
        """Write every register again as it should be: the configuration, then the digits
        shown. Noise on the wires to the modules (the cage motor is near) can flip a register,
        leaving a module dark, in test mode or scanning fewer digits, and ``show`` alone
        writes only when the picture changes."""
        self._configure()
        self._all(REG_SHUTDOWN, 1)
        shown, self._shown = self._shown, None
        if shown is not None:
            self.show(shown)

    def _configure(self):
        self._all(REG_DISPLAY_TEST, 0)
        self._all(REG_DECODE_MODE, 0)
        self._all(REG_SCAN_LIMIT, DIGITS - 1)
        self._all(REG_INTENSITY, self._intensity)

    def show(self, rows):
        """Draw one text row per module (see firmware.font.render for dots).

        Redraws only when the rows changed, so the caller may call it on every
        loop without flooding the bus.
        """
        rows = tuple(rows)
        if len(rows) != self.modules:
            raise ValueError("%d rows for %d modules" % (len(rows), self.modules))
        if rows == self._shown:
            return
        segments = [render(row, DIGITS) for row in rows]
        for digit in range(DIGITS):
            column = DIGITS - 1 - digit if self._digit0_right else digit
            self._write([(REG_DIGIT0 + digit, segs[column]) for segs in segments])
        self._shown = rows
