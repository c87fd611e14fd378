"""Stand-ins for the Pico's peripherals, so the firmware runs off the Pico.

- ``VirtualUart``: an in-memory ``machine.UART`` (``any``, ``read``,
  ``write``), fed by whoever plays the wire.
- ``VirtualChain``: a MAX7219 daisy chain as the chips would see it: an SPI
  bus (``write``) plus a CS pin (``value``) that latches the shifted bytes
  into each module's registers on the rising edge. What it then "lights" is
  read back as segment bytes, text, or a three-line drawing.

Used by ``dicetable display-sim`` and by the firmware tests (under CPython
and MicroPython); never copied to the Pico.
"""

from firmware.font import DP, text_of
from firmware.max7219 import DIGITS, REG_DIGIT0, REG_SHUTDOWN


class VirtualUart:
    """A UART whose far end is this object's ``feed`` and ``take_output``."""

    def __init__(self):
        self._rx = bytearray()
        self._tx = bytearray()

    def feed(self, data):
        """Bytes arriving from the host."""
        self._rx.extend(data)

    def take_output(self):
        """Bytes the firmware wrote since the last call."""
        out = bytes(self._tx)
        self._tx = bytearray()
        return out

    def any(self):
        return len(self._rx)

    def read(self, count=-1):
        if not self._rx:
            return None  # as machine.UART does when nothing is waiting
        if count < 0:
            count = len(self._rx)
        out = bytes(self._rx[:count])
        self._rx = self._rx[count:]
        return out

    def write(self, data):
        self._tx.extend(data)
        return len(data)


class _Module:
    def __init__(self):
        self.registers = [0] * 16


class VirtualChain:
    """``modules`` MAX7219s behind one SPI bus and one CS pin.

    Pass ``chain.spi`` and ``chain.cs`` to Max7219Chain; ``digit0_right``
    must match the driver's so the picture reads left to right.
    """

    def __init__(self, modules=3, digit0_right=True):
        self.modules = [_Module() for _ in range(modules)]
        self.digit0_right = digit0_right
        self.spi = self
        self.cs = _ChipSelect(self)
        self._shifted = bytearray()
        self.latches = 0

    def write(self, data):
        """SPI write: bytes enter the shift registers of the chain."""
        self._shifted.extend(data)

    def _select(self):
        self._shifted = bytearray()

    def _latch(self):
        # After the pulse, module 0 (nearest DIN) holds the last two bytes
        # shifted, module 1 the two before them, and so on.
        data = self._shifted
        count = len(self.modules)
        for index in range(count):
            end = len(data) - 2 * index
            if end < 2:
                break
            register, value = data[end - 2], data[end - 1]
            if register:
                self.modules[index].registers[register] = value
        self.latches += 1

    def segments(self, module):
        """Segment bytes of one module, left to right as a person sees them."""
        regs = self.modules[module].registers
        if not regs[REG_SHUTDOWN]:
            return [0] * DIGITS  # shut down: dark
        digits = [regs[REG_DIGIT0 + d] for d in range(DIGITS)]
        if self.digit0_right:
            digits.reverse()
        return digits

    def text(self):
        """One text line per module, e.g. ``("3 4    7", ...)``."""
        return tuple(text_of(self.segments(m)) for m in range(len(self.modules)))

    def drawing(self):
        """The digits drawn with ``_`` and ``|`` on three lines per module."""
        lines = []
        for module in range(len(self.modules)):
            top, mid, bot = [], [], []
            for seg in self.segments(module):
                top.append(" " + ("_" if seg & 0x40 else " ") + "  ")
                mid.append(
                    ("|" if seg & 0x02 else " ")
                    + ("_" if seg & 0x01 else " ")
                    + ("|" if seg & 0x20 else " ")
                    + " "
                )
                bot.append(
                    ("|" if seg & 0x04 else " ")
                    + ("_" if seg & 0x08 else " ")
                    + ("|" if seg & 0x10 else " ")
                    + ("." if seg & DP else " ")
                )
            lines.append("".join(top))
            lines.append("".join(mid))
            lines.append("".join(bot))
        return "\n".join(lines)


class _ChipSelect:
    """The LOAD/CS pin: low selects, the rising edge latches."""

    def __init__(self, chain):
        self._chain = chain
        self._level = 1

    def value(self, level=None):
        if level is None:
            return self._level
        if level and not self._level:
            self._chain._latch()
        elif not level and self._level:
            self._chain._select()
        self._level = 1 if level else 0
        return None
