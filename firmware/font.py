"""Seven-segment font: which segments light for each character.

Bits follow the MAX7219's no-decode mode, so a byte from here goes straight
into a digit register: bit 7 is the decimal point, bits 6..0 are segments
A..G (A top, B top right, C bottom right, D bottom, E bottom left, F top left,
G middle). Runs under CPython and MicroPython.
"""

DP = 0x80

FONT = {
    " ": 0x00,
    "-": 0x01,
    "_": 0x08,
    "0": 0x7E,
    "1": 0x30,
    "2": 0x6D,
    "3": 0x79,
    "4": 0x33,
    "5": 0x5B,
    "6": 0x5F,
    "7": 0x70,
    "8": 0x7F,
    "9": 0x7B,
    "A": 0x77,
    "b": 0x1F,
    "C": 0x4E,
    "c": 0x0D,
    "d": 0x3D,
    "E": 0x4F,
    "F": 0x47,
    "G": 0x5E,
    "H": 0x37,
    "h": 0x17,
    "I": 0x06,
    "J": 0x3C,
    "L": 0x0E,
    "n": 0x15,
    "o": 0x1D,
    "O": 0x7E,
    "P": 0x67,
    "q": 0x73,
    "r": 0x05,
    "S": 0x5B,
    "t": 0x0F,
    "U": 0x3E,
    "u": 0x1C,
    "y": 0x3B,
}

# Segments back to a character, for the terminal stand-in and tests; where two
# characters share a shape (0/O, 5/S) the digit wins.
_REVERSE = {}
for _char in FONT:
    if FONT[_char] not in _REVERSE or _char.isdigit():
        _REVERSE[FONT[_char]] = _char


def glyph(char):
    """Segment byte of one character; ValueError if it has no 7-segment shape."""
    if char in FONT:
        return FONT[char]
    for other in (char.upper(), char.lower()):
        if other in FONT:
            return FONT[other]
    raise ValueError("no 7-segment glyph for %r" % char)


def render(text, width):
    """Segment bytes for ``width`` digits, left to right.

    A ``.`` lights the decimal point of the digit before it instead of taking
    a digit of its own, so ``" 7.11."`` fills four digits. Raises ValueError
    when the text needs more than ``width`` digits.
    """
    out = []
    for char in text:
        if char == "." and out and not out[-1] & DP:
            out[-1] |= DP
        else:
            out.append(DP if char == "." else glyph(char))
    if len(out) > width:
        raise ValueError("%r needs %d digits, only %d" % (text, len(out), width))
    while len(out) < width:
        out.append(0)
    return out


def text_of(segments):
    """The readable text of segment bytes (``?`` for a shape not in the font)."""
    chars = []
    for seg in segments:
        chars.append(_REVERSE.get(seg & 0x7F, "?"))
        if seg & DP:
            chars.append(".")
    return "".join(chars)
