"""One reader and one writer for every JSON-lines stream: ``run --events``, ``run --bets``, ``replay``.

Why one: every input that arrives as JSON lines can hold what JSON's parser stumbles on or the
journal cannot keep: nesting thousands deep (the parser recurses), an integer of more than
4,300 digits (Python refuses to convert it), ``\\ud800`` (half of a UTF-16 pair, which no UTF-8
text can hold), bytes that are not UTF-8, ``NaN`` or ``Infinity`` (which JSON does not have),
or a line of a hundred megabytes. Each such line is refused on its own, with the reason, and
the lines after it are read as usual; nothing here raises on what a line holds.

- :func:`open_lines` opens a file or standard input so that bytes that are not UTF-8 reach the
  parser (which refuses that line) instead of ending the stream.
- :func:`read_lines` yields a :class:`Line` per line that is not blank or a ``#`` comment: the
  event (a JSON object the journal can keep) or a :class:`Refusal`. A line longer than
  :data:`MAX_LINE_BYTES` is never held whole: it is read in pieces, and what is kept of it is
  its length, its SHA-256 and its first bytes.
- :func:`json_line` is the one way the commands print JSON: compact, ASCII, never ``NaN``.
"""
from __future__ import annotations

import hashlib
import io
import json
import math
import os
import sys
from dataclasses import dataclass
from typing import IO, Any, Iterator

from controller.journal.chain import unstorable

#: The longest line taken as an event, in bytes: a table event is a few hundred bytes; a camera's
#: read with a box per die under one kilobyte.
MAX_LINE_BYTES = 64 * 1024
#: How much of a refused line is kept as its printable copy (characters).
KEPT_CHARS = 200


@dataclass(frozen=True)
class Refusal:
    """Why a line is not an event, with what is kept of it: ``text``, a printable copy of its start;
    for a line over :data:`MAX_LINE_BYTES`, also its length in bytes and its SHA-256 (hex)."""

    reason: str
    text: str
    length: int | None = None
    sha256: str | None = None

    def fields(self) -> dict[str, Any]:
        """What a journal row or a ``rejected`` line keeps of the line (``line``, and for a line too
        long ``bytes`` and ``sha256``), without the reason."""
        out: dict[str, Any] = {"line": self.text}
        if self.length is not None:
            out.update(bytes=self.length, sha256=self.sha256)
        return out


@dataclass(frozen=True)
class Line:
    """One line of a stream: its number (1 for the first line, blank lines counted) and either
    the event or the refusal."""

    number: int
    event: dict[str, Any] | None = None
    refusal: Refusal | None = None


def printable(text: str, limit: int = KEPT_CHARS) -> str:
    """The first ``limit`` characters of ``text`` as text any UTF-8 output can hold: a byte that was
    not UTF-8, or half of a UTF-16 pair, becomes its backslash escape."""
    return text[:limit].encode("utf-8", "backslashreplace").decode("utf-8")


def _not_json(constant: str) -> Any:
    raise ValueError(f"{constant} is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is too large for a number")
    return value


def parse_line(text: str) -> dict[str, Any] | Refusal:
    """The JSON object on one line, or the :class:`Refusal` saying why it is not one the journal can keep."""
    undecodable = next((i for i, c in enumerate(text) if "\udc80" <= c <= "\udcff"), None)
    if undecodable is not None:  # what open_lines keeps of a byte that is not UTF-8
        byte = ord(text[undecodable]) - 0xDC00
        return Refusal(f"not UTF-8 text: byte 0x{byte:02x} at character {undecodable + 1}", printable(text))
    try:
        value = json.loads(text, parse_constant=_not_json, parse_float=_finite)
    except RecursionError:
        return Refusal("not JSON: nested too deeply", printable(text))
    except ValueError as exc:  # JSONDecodeError, a NaN, an integer of more than 4,300 digits
        return Refusal(f"not JSON: {exc}", printable(text))
    if not isinstance(value, dict):
        return Refusal(f"not a JSON object but {_kind(value)}", printable(text))
    problem = unstorable(value)
    if problem is not None:
        return Refusal(f"an event that {problem}", printable(text))
    return value


def _kind(value: Any) -> str:
    return {list: "an array", str: "a string", bool: "true or false", type(None): "null"}.get(type(value), "a number")


def _bytes(text: str) -> bytes:
    """The bytes a piece of a line stood for: :func:`open_lines` keeps bytes that are not UTF-8 as
    escapes, which give them back; half of a UTF-16 pair given in a text stream goes as it is."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass")


def read_lines(stream: IO[str], *, max_bytes: int = MAX_LINE_BYTES) -> Iterator[Line]:
    """Every line of ``stream`` but blank ones and ``#`` comments, parsed (:func:`parse_line`), in order.

    A line is read at most ``max_bytes + 1`` characters at a time, so a line of any length costs
    that much memory: one longer than ``max_bytes`` bytes is refused, with its length, SHA-256 and
    first characters."""
    number = 0
    while True:
        piece = stream.readline(max_bytes + 1)
        if not piece:
            return
        number += 1
        whole = piece.endswith("\n") or len(piece) <= max_bytes
        if whole and len(_bytes(piece.rstrip("\n"))) <= max_bytes:
            text = piece.strip()
            if not text or text.startswith("#"):
                continue
            parsed = parse_line(text)
            yield Line(number, refusal=parsed) if isinstance(parsed, Refusal) else Line(number, event=parsed)
            continue
        yield Line(number, refusal=_too_long(stream, piece, whole, max_bytes))


def _too_long(stream: IO[str], piece: str, whole: bool, max_bytes: int) -> Refusal:
    """Read the rest of an over-long line (unless ``whole``) in pieces, keeping only its length, its
    SHA-256 and its start."""
    digest, length, head = hashlib.sha256(), 0, printable(piece)
    while True:
        content = piece[:-1] if piece.endswith("\n") else piece
        data = _bytes(content)
        digest.update(data)
        length += len(data)
        if whole or piece.endswith("\n"):
            break
        piece = stream.readline(max_bytes + 1)
        if not piece:
            break
    return Refusal(f"a line of {length} bytes, longer than the {max_bytes} a line may have", head,
                   length, digest.hexdigest())


def open_lines(path: str) -> IO[str]:
    """A file of JSON lines, or standard input for ``-``, read so that bytes that are not UTF-8
    reach :func:`parse_line` (which refuses that line) instead of ending the stream.

    Standard input is read through a reader of its own on a copy of the descriptor, not through
    ``sys.stdin``: the reading thread of ``run --events`` waits inside it, and at exit the
    interpreter takes the lock of ``sys.stdin``'s buffer, so a stop (SIGTERM, ^C, a journal
    failure) aborted the process (SIGABRT) instead of exiting with its status. A standard input
    with no descriptor (replaced by a caller in the same process) is read as it is."""
    if path == "-":
        try:
            descriptor = os.dup(sys.stdin.fileno())
        except (OSError, ValueError):  # io.UnsupportedOperation is both
            buffer = getattr(sys.stdin, "buffer", None)
            return sys.stdin if buffer is None else io.TextIOWrapper(buffer, encoding="utf-8", errors="surrogateescape")
        return open(descriptor, encoding="utf-8", errors="surrogateescape")
    return open(path, encoding="utf-8", errors="surrogateescape")


def json_line(value: Any) -> str:
    """``value`` as the one line of JSON every command prints: compact (no spaces after ``,`` and
    ``:``), ASCII (any character escaped, so no output encoding can fail on it), keys in the order
    given. A number that is not finite is refused (``ValueError``): JSON has none."""
    return json.dumps(value, separators=(",", ":"), allow_nan=False)
