"""An image file's size in pixels, read from its header before anything is decoded.

Why: decoding is what costs memory (three bytes a pixel, and more on the way), and a header can
claim anything: an 875 KB PNG of 30000x30000 took 5.3 GB to decode. The size is read here from
the first bytes of the file (a few reads, whatever its length), so a picture too large is refused
before it is decoded (:data:`MAX_PIXELS`). Formats whose header is not read here are refused
too: what cannot be measured is not decoded.

Read: PNG, JPEG (baseline and progressive), BMP, GIF, TIFF (the first image), WebP (lossy,
lossless, extended) and PNM (``P1`` to ``P6``).
"""
from __future__ import annotations

import re
import struct
from typing import BinaryIO

#: The most pixels an image may have to be decoded: a 48-megapixel phone photo (8000x6000) and a
#: 12-megapixel camera frame read; beyond this the decoding alone would crowd a Pi's memory.
MAX_PIXELS = 50_000_000
#: The largest file read at all: eight bytes a pixel of the largest image, more than any
#: encoding of one needs (16-bit RGBA uncompressed).
MAX_FILE_BYTES = 8 * MAX_PIXELS

_JPEG_SIZE_MARKERS = frozenset({0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF})
_JPEG_MARKERS_WITHOUT_LENGTH = frozenset({0x01, *range(0xD0, 0xD9)})


def measure(stream: BinaryIO) -> tuple[int, int] | None:
    """``(width, height)`` from the header of the image in ``stream`` (a file open for binary
    reading, at its start), or None when the header is of no format read here, or cut short."""
    head = stream.read(32)
    try:
        if head.startswith(b"\x89PNG\r\n\x1a\n") and head[12:16] == b"IHDR":
            return struct.unpack(">II", head[16:24])
        if head.startswith(b"\xff\xd8"):
            return _jpeg(stream)
        if head.startswith(b"BM"):
            return _bmp(head)
        if head[:6] in (b"GIF87a", b"GIF89a"):
            return struct.unpack("<HH", head[6:10])
        if head[:4] in (b"II*\x00", b"MM\x00*"):
            return _tiff(stream, "<" if head[:2] == b"II" else ">")
        if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
            return _webp(head + stream.read(8))
        if re.match(rb"P[1-6]\s", head):
            return _pnm(head + stream.read(1024))
    except (struct.error, IndexError, ValueError):  # a header cut short, or not what it says
        return None
    return None


def _jpeg(stream: BinaryIO) -> tuple[int, int] | None:
    """The size in the first start-of-frame segment, found by skipping segments by their length."""
    stream.seek(2)
    while True:
        byte = stream.read(1)
        while byte == b"\xff":  # fill bytes before a marker
            byte = stream.read(1)
        if not byte:
            return None
        marker = byte[0]
        if marker in _JPEG_MARKERS_WITHOUT_LENGTH:
            continue
        length = struct.unpack(">H", stream.read(2))[0]
        if marker in _JPEG_SIZE_MARKERS:
            height, width = struct.unpack(">xHH", stream.read(5))
            return width, height
        if marker == 0xDA or length < 2:  # the scan begins: no frame header came first
            return None
        stream.seek(length - 2, 1)


def _bmp(head: bytes) -> tuple[int, int]:
    if struct.unpack("<I", head[14:18])[0] == 12:  # the old OS/2 header: 16-bit sides
        return struct.unpack("<HH", head[18:22])
    width, height = struct.unpack("<ii", head[18:26])
    return abs(width), abs(height)  # a negative height is a picture stored top down


def _tiff(stream: BinaryIO, order: str) -> tuple[int, int] | None:
    """ImageWidth (256) and ImageLength (257) of the first image file directory."""
    stream.seek(4)
    stream.seek(struct.unpack(order + "I", stream.read(4))[0])
    count = struct.unpack(order + "H", stream.read(2))[0]
    sides: dict[int, int] = {}
    for _ in range(count):
        tag, kind, _, value = struct.unpack(order + "HHI4s", stream.read(12))
        if tag in (256, 257):
            sides[tag] = struct.unpack(order + ("H" if kind == 3 else "I"), value[: 2 if kind == 3 else 4])[0]
    return (sides[256], sides[257]) if len(sides) == 2 else None


def _webp(head: bytes) -> tuple[int, int] | None:
    chunk = head[12:16]
    if chunk == b"VP8 ":
        width, height = struct.unpack("<HH", head[26:30])
        return width & 0x3FFF, height & 0x3FFF
    if chunk == b"VP8L":
        bits = struct.unpack("<I", head[21:25])[0]
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8X":
        return int.from_bytes(head[24:27], "little") + 1, int.from_bytes(head[27:30], "little") + 1
    return None


def _pnm(head: bytes) -> tuple[int, int] | None:
    text = re.sub(rb"#[^\n]*", b" ", head[2:])  # comments may stand between the numbers
    numbers = text.split()[:2]
    return (int(numbers[0]), int(numbers[1])) if len(numbers) == 2 else None


def too_large(width: int, height: int) -> str | None:
    """Why an image of ``width`` x ``height`` pixels is not decoded, or None."""
    if width * height <= MAX_PIXELS:
        return None
    return (f"{width}x{height} pixels ({width * height / 1e6:.1f} megapixels) is over the "
            f"{MAX_PIXELS / 1e6:.0f} megapixels an image may have")
