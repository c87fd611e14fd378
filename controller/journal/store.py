"""SQLite storage of the journal: WAL, ``synchronous=FULL``, append-only rows, one writer.

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

Files beside ``journal.sqlite3``: ``-wal`` and ``-shm`` are SQLite's (committed rows
wait in the ``-wal`` until a checkpoint folds them into the file), ``journal.lock``
is the writer's lock (:class:`WriterLock`). The writer folds the log in when it opens
and when it closes, so after a clean stop (unless a reader was in the middle of a long
read then), and once a table has restarted, the file alone holds every row; between the
two, and after a crash, it does not: copy a journal
with :func:`archive` (SQLite's backup), never with ``cp`` or ``mv`` of the file.
"""
from __future__ import annotations

import json
import logging
import os
import sqlite3
from dataclasses import dataclass
from datetime import datetime, timezone
from functools import cache
from pathlib import Path
from typing import Any, Callable, Generator, Iterable, Iterator

from controller.journal.chain import GENESIS, canonical_json, entry_hash
from controller.journal.errors import JournalError, JournalUnreadable, read_error, unreadable
from controller.journal.lock import TABLE, WriterLock
from controller.journal.paths import JOURNAL_FILE, log_holds_rows, no_journal, unwritable

log = logging.getLogger(__name__)

INPUT = "input"
EFFECT = "effect"
#: The key an input row may carry to say where the input came from (``"stream"``: a line of
#: ``dicetable run --events``), not what it is: the table and the rules engine ignore it.
ORIGIN = "via"

_SCHEMA = """
CREATE TABLE journal (
    seq       INTEGER PRIMARY KEY,
    ts        TEXT NOT NULL,
    kind      TEXT NOT NULL CHECK (kind IN ('input', 'effect')),
    event     TEXT NOT NULL,
    prev_hash TEXT NOT NULL,
    hash      TEXT NOT NULL
);
CREATE TRIGGER journal_no_update BEFORE UPDATE ON journal
BEGIN SELECT RAISE(ABORT, 'the journal is append-only'); END;
CREATE TRIGGER journal_no_delete BEFORE DELETE ON journal
BEGIN SELECT RAISE(ABORT, 'the journal is append-only'); END;
"""


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


@cache
def _guards() -> dict[str, str]:
    """The triggers that refuse UPDATE and DELETE, as a new journal stores them (whitespace folded)."""
    db = sqlite3.connect(":memory:")
    try:
        db.executescript(_SCHEMA)
        return {name: " ".join(sql.split())
                for name, sql in db.execute("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'")}
    finally:
        db.close()


def _fold_log(db: sqlite3.Connection, path: Path) -> None:
    """Fold the log into the file (a checkpoint that empties the -wal), as the writer does when it
    opens and closes. A reader in the middle of a read (a long export) holds part of the log past
    SQLite's busy wait: the rows then stay in the -wal, where the next start folds them in, and the
    log says so."""
    busy, _, _ = db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    if busy:
        log.warning("a reader kept the last rows of %s in its -wal; the next start folds them in "
                    "(archive with `dicetable journal archive`, never a copy of the file alone)", path)


class Journal:
    """Append-only event log in one SQLite file.

    Only one process writes a table's journal (the running table, holding its
    :class:`WriterLock`); the ``journal`` command opens it read-only alongside.
    """

    def __init__(self, path: Path | str, *, clock: Callable[[], str] = utc_now, readonly: bool = False):
        self.path = Path(path)
        self._clock = clock
        self._lock: WriterLock | None = None
        try:
            is_folder = self.path.is_dir()
        except OSError as exc:  # a folder this user may not enter: a reason, never a traceback
            raise JournalUnreadable(f"cannot read the journal {self.path}: {exc.strerror or exc}") from exc
        if is_folder:  # SQLite says only "disk I/O error" or "unable to open database file"
            raise JournalError(f"{self.path} is a folder, not a journal file")
        self._db = self._open_reader() if readonly else self._open_writer()
        self._tail: tuple[int, str] | None = None

    def _open_writer(self) -> sqlite3.Connection:
        """Take the lock, open the file (a new one gets the schema), and fold the log of the last
        session into it.

        The schema is created only in a file that holds nothing yet: a journal whose triggers were
        dropped keeps that evidence (``verify`` reports it), and a refused start on an edited journal
        writes nothing to it. The checkpoint moves rows, it changes none."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._lock = WriterLock(self.path, TABLE)
        except OSError as exc:
            raise self._cannot_open(exc) from exc
        try:
            if not self.path.exists() and log_holds_rows(self.path):
                raise JournalError(f"{no_journal(self.path)}; the table will not start a new journal over it")
            db = sqlite3.connect(self.path, isolation_level=None)
            try:
                db.execute("PRAGMA journal_mode=WAL")
                db.execute("PRAGMA synchronous=FULL")
                if db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()[0] == 0:
                    db.executescript(f"BEGIN IMMEDIATE; {_SCHEMA} COMMIT;")
                _fold_log(db, self.path)
            except BaseException:
                db.close()
                raise
        except (sqlite3.Error, OSError) as exc:
            self._lock.release()
            raise self._cannot_open(exc) from exc
        except BaseException:
            self._lock.release()
            raise
        return db

    def _cannot_open(self, exc: Exception) -> JournalError:
        blocked = unwritable(self.path)
        why = f" ({blocked} is not writable by this user)" if blocked else ""
        return JournalError(f"cannot open the journal {self.path}: {exc}{why}")

    def _open_reader(self) -> sqlite3.Connection:
        """Open the file read-only, beside a running writer.

        SQLite needs the ``-shm`` file to read a WAL journal, and creates it if it is missing: in a
        folder this user cannot write (read-only media, another user's folder) it cannot. If no rows
        wait in a ``-wal`` there, the file alone is the whole journal and no writer is at work (a
        writer's appends go to the ``-wal``), so it is read as ``immutable``, which needs no ``-shm``
        and creates nothing. A file that is damaged is opened all the same: every read then names
        the damage, so ``verify`` reports the row where it begins."""
        if not self.path.exists():
            raise JournalError(no_journal(self.path))
        uri = self.path.resolve().as_uri()
        try:
            db = sqlite3.connect(f"{uri}?mode=ro", uri=True, isolation_level=None)
            try:
                db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
            except sqlite3.Error as exc:
                if not unreadable(exc):
                    return db
                db.close()
                # A folder it may not write: CANTOPEN, or READONLY ("readonly directory") when the -shm is missing.
                if (exc.sqlite_errorcode & 0xFF in (sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_READONLY)
                        and not os.access(self.path.parent, os.W_OK) and not log_holds_rows(self.path)):
                    return sqlite3.connect(f"{uri}?mode=ro&immutable=1", uri=True, isolation_level=None)
                raise
        except sqlite3.Error as exc:
            why = ""
            if not os.access(self.path.parent, os.W_OK) and log_holds_rows(self.path):
                why = (f" ({self.path.parent} is not writable by this user, and the last rows are still in "
                       f"{self.path.name}-wal, which SQLite reads only with a {self.path.name}-shm it must create "
                       "there: read it as the table's user, or a copy of the whole folder where you can write)")
            raise JournalUnreadable(f"cannot read the journal {self.path}: {exc}{why}") from exc
        return db

    @classmethod
    def open(cls, state_dir: Path | str, **kwargs: Any) -> "Journal":
        """The journal of the table whose state lives in ``state_dir``."""
        return cls(Path(state_dir) / JOURNAL_FILE, **kwargs)

    def close(self) -> None:
        """Close; the writer first folds the log into the file (so after a clean stop the file alone
        holds every row, but for a reader in the middle of a long read: :func:`_fold_log`), then
        gives up its lock."""
        if self._lock is None:
            self._db.close()
            return
        try:
            _fold_log(self._db, self.path)
        except sqlite3.Error as exc:  # the rows stay in the -wal; the next start folds them in
            log.warning("could not fold the journal's log into %s: %s", self.path, exc)
        finally:
            self._db.close()
            self._lock.release()
            self._lock = None

    def __enter__(self) -> "Journal":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _rows(self, sql: str, *params: Any) -> Iterator[tuple]:
        """The rows of a query; a file SQLite cannot read (cut short, overwritten, not a journal,
        locked) is a ``JournalError`` naming it and SQLite's reason, wherever the reading fails
        (:class:`JournalUnreadable` when the reason is not the file's content)."""
        try:
            yield from self._db.execute(sql, params)
        except sqlite3.DatabaseError as exc:
            raise read_error(self.path, exc) from exc

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

    def raw_rows(self) -> Generator[tuple[int, str, str, str, str, str], None, None]:
        """Rows exactly as stored (for verification: no parsing can hide a change)."""
        yield from self._rows("SELECT seq, ts, kind, event, prev_hash, hash FROM journal ORDER BY seq")

    def entries(self, since: int = 0) -> Iterator[Entry]:
        """Every row after sequence number ``since``, in order."""
        for seq, ts, kind, text, prev, digest in self._rows(
            "SELECT seq, ts, kind, event, prev_hash, hash FROM journal WHERE seq > ? ORDER BY seq", since
        ):
            yield Entry(seq, ts, kind, json.loads(text), prev, digest)

    def guarded(self) -> bool:
        """Whether the triggers refusing UPDATE and DELETE are there as the journal was created with
        them. Their absence is no edit of a row (the chain says whether there was one), but it is the
        trace of someone who meant to make one, and a journal without them is open to honest mistakes."""
        found = {name: " ".join(sql.split()) for name, sql in self._rows(
            "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'journal'")}
        return all(found.get(name) == sql for name, sql in _guards().items())

    def row_of(self, digest: str) -> int | None:
        """The sequence number of the row whose hash is ``digest``, or None: a head hash kept
        elsewhere is still in an intact journal unless rows were cut off the end or it was replaced."""
        row = next(self._rows("SELECT seq FROM journal WHERE hash = ?", digest), None)
        return None if row is None else int(row[0])

    def __len__(self) -> int:
        return int(next(self._rows("SELECT COUNT(*) FROM journal"))[0])


