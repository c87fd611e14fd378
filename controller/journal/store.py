"""SQLite storage of the journal: WAL, ``synchronous=FULL``, append-only rows.

Why these settings: WAL with ``synchronous=FULL`` makes a committed append
survive a power cut (the commit returns only once the log is on disk), and
one transaction per :meth:`Journal.append` call means a row is either wholly
there or not at all. Triggers refuse ``UPDATE`` and ``DELETE`` so an honest
mistake cannot rewrite history; a deliberate edit that drops them is caught
by :func:`controller.journal.verify`.

Rows are of two kinds. ``input`` rows are what came from outside (bets,
buttons, reads) and are written before they take effect; ``effect`` rows are
what the pure table code derived from the input just before them (the roll
that was settled, settlements, rejections). Replay recomputes effects from
inputs, so effect rows are the record to audit against, never the source of
truth.
"""
from __future__ import annotations

import json
import os
import sqlite3
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from controller.journal.chain import GENESIS, canonical_json, entry_hash

INPUT = "input"
EFFECT = "effect"
#: The key an input row may carry to say where the input came from (``"stream"``: a line of
#: ``dicetable run --events``), not what it is: the table and the rules engine ignore it.
ORIGIN = "via"
JOURNAL_FILE = "journal.sqlite3"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS journal (
    seq       INTEGER PRIMARY KEY,
    ts        TEXT NOT NULL,
    kind      TEXT NOT NULL CHECK (kind IN ('input', 'effect')),
    event     TEXT NOT NULL,
    prev_hash TEXT NOT NULL,
    hash      TEXT NOT NULL
);
CREATE TRIGGER IF NOT EXISTS journal_no_update BEFORE UPDATE ON journal
BEGIN SELECT RAISE(ABORT, 'the journal is append-only'); END;
CREATE TRIGGER IF NOT EXISTS journal_no_delete BEFORE DELETE ON journal
BEGIN SELECT RAISE(ABORT, 'the journal is append-only'); END;
"""


class JournalError(RuntimeError):
    """The journal cannot be opened or written; the table must not go on without it."""


@dataclass(frozen=True)
class Entry:
    """One row of the journal, as stored."""

    seq: int
    ts: str
    kind: str
    event: dict[str, Any]
    prev_hash: str
    hash: str

    def to_json(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "ts": self.ts,
            "kind": self.kind,
            "event": self.event,
            "prev_hash": self.prev_hash,
            "hash": self.hash,
        }


def utc_now() -> str:
    """Wall-clock time of an append, ISO 8601 in UTC with milliseconds."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def unwritable(path: Path) -> Path | None:
    """The file or folder that keeps this user from writing the journal ``path``, or None.

    SQLite says only "unable to open database file"; the operator needs to know that the
    state directory (or the first of its parents that exists, or the file) belongs to another
    user. The folder must be writable too: SQLite keeps its write-ahead log beside the file."""
    if path.exists():
        return next((p for p in (path, path.parent) if not os.access(p, os.W_OK)), None)
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    return None if os.access(folder, os.W_OK) else folder


class Journal:
    """Append-only event log in one SQLite file.

    Only one process writes a table's journal (the running table); the
    ``journal`` command opens it read-only alongside.
    """

    def __init__(self, path: Path | str, *, clock: Callable[[], str] = utc_now, readonly: bool = False):
        self.path = Path(path)
        self._clock = clock
        try:
            if readonly:
                if not self.path.exists():
                    raise JournalError(f"no journal at {self.path}")
                self._db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, isolation_level=None)
            else:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._db = sqlite3.connect(self.path, isolation_level=None)
                self._db.execute("PRAGMA journal_mode=WAL")
                self._db.execute("PRAGMA synchronous=FULL")
                self._db.executescript(_SCHEMA)
        except (sqlite3.Error, OSError) as exc:
            blocked = None if readonly else unwritable(self.path)
            why = f" ({blocked} is not writable by this user)" if blocked else ""
            raise JournalError(f"cannot open the journal {self.path}: {exc}{why}") from exc
        self._tail: tuple[int, str] | None = None

    @classmethod
    def open(cls, state_dir: Path | str, **kwargs: Any) -> "Journal":
        """The journal of the table whose state lives in ``state_dir``."""
        return cls(Path(state_dir) / JOURNAL_FILE, **kwargs)

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> "Journal":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _rows(self, sql: str, *params: Any) -> Iterator[tuple]:
        """The rows of a query; a file SQLite cannot read (cut short, overwritten, not a journal,
        locked) is a ``JournalError`` naming it and SQLite's reason, wherever the reading fails."""
        try:
            yield from self._db.execute(sql, params)
        except sqlite3.DatabaseError as exc:
            raise JournalError(f"cannot read the journal {self.path}: {exc}") from exc

    def _last(self) -> tuple[int, str]:
        if self._tail is None:
            row = next(self._rows("SELECT seq, hash FROM journal ORDER BY seq DESC LIMIT 1"), None)
            self._tail = (row[0], row[1]) if row else (0, GENESIS)
        return self._tail

    def append(self, event: dict[str, Any], kind: str = INPUT) -> Entry:
        """Commit one event durably and return its row."""
        return self.append_many([event], kind)[0]

    def append_many(self, events: Iterable[dict[str, Any]], kind: str = EFFECT) -> list[Entry]:
        """Commit several events in one transaction: all of them or none."""
        if kind not in (INPUT, EFFECT):
            raise ValueError(f"unknown journal row kind {kind!r}")
        seq, prev = self._last()
        entries: list[Entry] = []
        try:
            self._db.execute("BEGIN IMMEDIATE")
            for event in events:
                seq += 1
                ts = self._clock()
                text = canonical_json(event)
                digest = entry_hash(prev, seq, ts, kind, text)
                self._db.execute(
                    "INSERT INTO journal (seq, ts, kind, event, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?)",
                    (seq, ts, kind, text, prev, digest),
                )
                entries.append(Entry(seq, ts, kind, json.loads(text), prev, digest))
                prev = digest
            self._db.execute("COMMIT")
        except BaseException as exc:  # whatever stops the batch, none of it stays (all or none)
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            self._tail = None
            if isinstance(exc, sqlite3.Error):
                raise JournalError(f"cannot write to the journal {self.path}: {exc}") from exc
            raise
        if entries:
            self._tail = (entries[-1].seq, entries[-1].hash)
        return entries

    def raw_rows(self) -> Iterator[tuple[int, str, str, str, str, str]]:
        """Rows exactly as stored (for verification: no parsing can hide a change)."""
        yield from self._rows("SELECT seq, ts, kind, event, prev_hash, hash FROM journal ORDER BY seq")

    def entries(self, since: int = 0) -> Iterator[Entry]:
        """Every row after sequence number ``since``, in order."""
        for seq, ts, kind, text, prev, digest in self._rows(
            "SELECT seq, ts, kind, event, prev_hash, hash FROM journal WHERE seq > ? ORDER BY seq", since
        ):
            yield Entry(seq, ts, kind, json.loads(text), prev, digest)

    def __len__(self) -> int:
        return int(next(self._rows("SELECT COUNT(*) FROM journal"))[0])
