"""The mark of the last committed row, kept beside the journal and outside it: ``journal.committed``.

Why: the hash chain proves that no row before the last was changed, but not that rows were cut
off the end: a journal put back from an older copy, or one whose last rows went with a file
deleted beside it, verifies as a whole journal, and a table started on it would pay again what
it had paid. The writer writes the number and hash of its last row here after every commit; a
journal that does not hold that row is refused (``verify``, ``audit``, ``run``) with both named.

The mark is written after the commit returns, so it never names a row the journal does not hold
(after a power cut it may name an earlier one: that weakens the check, it never fails a whole
journal). It is not synced to disk: it costs one small write per commit, not another flush. A
mark that cannot be read (a power cut mid-write) is no verdict either: it is logged, and the
writer writes it again at its next commit. ``journal archive`` removes it with the journal.
"""
from __future__ import annotations

import logging
import os
import time
import zlib
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

#: The record's size: written in one piece, always at the start of the file.
RECORD_BYTES = 96


@dataclass(frozen=True)
class Mark:
    """The last row the writer committed: its sequence number and its hash."""

    seq: int
    hash: str


def mark_path(journal_path: Path) -> Path:
    """The mark of the journal ``journal_path`` (``journal.committed`` beside ``journal.sqlite3``)."""
    return journal_path.with_suffix(".committed")


def _record(mark: Mark) -> bytes:
    body = f"{mark.seq} {mark.hash}"
    line = f"{body} {zlib.crc32(body.encode()):08x}\n".encode()
    return line.ljust(RECORD_BYTES, b" ")


def read_mark(journal_path: Path) -> Mark | None:
    """The mark beside ``journal_path``; None when there is none, or when it cannot be read (logged).

    A read that meets the writer rewriting the record may see half of each: it is read again."""
    path = mark_path(journal_path)
    for attempt in range(3):
        try:
            data = path.read_bytes()[:RECORD_BYTES]
        except FileNotFoundError:
            return None
        except OSError as exc:
            log.warning("cannot read %s (%s): the end of the journal is not checked against it", path, exc.strerror)
            return None
        mark = _parsed(data)
        if mark is not None:
            return mark
        time.sleep(0.01 * (attempt + 1))
    log.warning("%s is not a mark this program wrote: the end of the journal is not checked against it", path)
    return None


def _parsed(data: bytes) -> Mark | None:
    try:
        seq, digest, crc = data.decode("ascii").split()
        if int(crc, 16) != zlib.crc32(f"{seq} {digest}".encode()):
            return None
        return Mark(int(seq), digest)
    except ValueError:  # UnicodeDecodeError too: a record cut by a power cut, or written over
        return None


class MarkWriter:
    """The writer's side: the mark rewritten in place after each commit.

    It never moves back below the mark found when the writer opened (``floor``): a writer that
    appends to a journal which lost rows (a program that does not verify first) must not wipe out
    the evidence that they were committed."""

    def __init__(self, journal_path: Path, floor: Mark | None):
        self.path = mark_path(journal_path)
        self._floor = floor.seq if floor is not None else 0
        self._fd: int | None = None  # opened at the first row: an empty journal has no mark
        self._closed = False
        self._said = False

    def write(self, mark: Mark) -> None:
        """Record ``mark`` as the last committed row. A failure is logged once and changes nothing
        else: the mark then names an earlier row, which checks less but fails no whole journal."""
        if self._closed or mark.seq < self._floor:
            return
        try:
            if self._fd is None:
                self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
                if os.geteuid() == 0:  # made by root (sudo): the service must still write it, as the journal
                    folder = os.stat(self.path.parent)
                    os.fchown(self._fd, folder.st_uid, folder.st_gid)
            os.pwrite(self._fd, _record(mark), 0)
        except OSError as exc:
            if not self._said:
                log.warning("cannot write %s (%s): the end of the journal is checked against an earlier row",
                            self.path, exc.strerror)
                self._said = True

    def close(self) -> None:
        self._closed = True
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
