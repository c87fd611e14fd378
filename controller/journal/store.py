"""SQLite storage of the journal: a rollback journal, ``synchronous=FULL``, append-only rows, one writer.

Why these settings: with a rollback journal (``journal_mode=TRUNCATE``) and ``synchronous=FULL``
a commit returns only once its rows are in ``journal.sqlite3`` itself and on disk, so the file
alone always holds every committed row: a power cut, a ``SIGKILL``, a deleted file beside it or
a copy of the file alone loses none (``docs/operation.md``, "The journal's files", gives the
measured cost against WAL and why this one). One transaction per :meth:`Journal.append` call
means a row is either wholly there or not at all. Triggers refuse ``UPDATE`` and ``DELETE`` so
an honest mistake cannot rewrite history; a deliberate edit that drops them is caught by
:func:`controller.journal.verify`.

Rows are of two kinds. ``input`` rows are what came from outside (bets,
buttons, reads) and are written before they take effect; ``effect`` rows are
what the pure table code derived from the input just before them (the roll
that was settled, settlements, rejections). Replay recomputes effects from
inputs, so effect rows are the record to audit against, never the source of
truth.

Files beside ``journal.sqlite3``: ``-journal`` is SQLite's (empty between commits; during one
it holds what the commit overwrites, so that a commit cut short is undone at the next open),
``journal.lock`` the writer's lock (:mod:`controller.journal.lock`), ``journal.committed`` the
mark of the last committed row (:mod:`controller.journal.mark`), against which a journal cut
short is refused. A journal written in WAL mode by an earlier version is turned into this mode
by the writer's first open (its ``-wal`` folded in first); until then its readers read it as
WAL. Readers read in pages of :data:`PAGE_ROWS` rows, one short read each, so a long export
never keeps the running table from committing.
"""
from __future__ import annotations

import json
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
from controller.journal.mark import Mark, MarkWriter, mark_path, read_mark
from controller.journal.paths import JOURNAL_FILE, beside, log_holds_rows, no_journal, unwritable

INPUT = "input"
EFFECT = "effect"
#: Rows a reader reads in one statement: each page is one short read, after which the writer may commit.
PAGE_ROWS = 1000
#: How long a commit waits for readers to finish their page, and a reader for a commit (seconds).
BUSY_WAIT_S = 10.0
#: The key an input row may carry to say where the input came from (``"stream"``: a line of
#: ``dicetable run --events``), not what it is: the table and the rules engine ignore it.
ORIGIN = "via"

#: The journal's one table and the triggers that keep it append-only (made only in a new file).
SCHEMA = """
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
        db.executescript(SCHEMA)
        return {name: " ".join(sql.split())
                for name, sql in db.execute("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'")}
    finally:
        db.close()


def _cut_commit(path: Path) -> bool:
    """Whether a commit cut short by a stop (a ``-journal`` that holds something) waits beside ``path``."""
    hot = beside(path, "-journal")
    try:
        return hot.stat().st_size > 0
    except OSError:
        return False


class Journal:
    """Append-only event log in one SQLite file.

    Only one process writes a table's journal (the running table, holding its
    :class:`WriterLock`); the ``journal`` command opens it read-only alongside.
    """

    def __init__(self, path: Path | str, *, clock: Callable[[], str] = utc_now, readonly: bool = False):
        self.path = Path(path)
        self._clock = clock
        self._lock: WriterLock | None = None
        self._marker: MarkWriter | None = None
        try:
            is_folder = self.path.is_dir()
        except OSError as exc:  # a folder this user may not enter: a reason, never a traceback
            raise JournalUnreadable(f"cannot read the journal {self.path}: {exc.strerror or exc}") from exc
        if is_folder:  # SQLite says only "disk I/O error" or "unable to open database file"
            raise JournalError(f"{self.path} is a folder, not a journal file")
        self.committed: Mark | None = read_mark(self.path)
        """The last row a writer committed here, as its mark said when this journal was opened."""
        self._db = self._open_reader() if readonly else self._open_writer()
        self._tail: tuple[int, str] | None = None
        if self._marker is not None:  # a journal from before marks is marked from now on
            try:
                seq, digest = self._last()
            except JournalError:  # damaged: verify names where, and no mark is made of it
                seq, digest = 0, GENESIS
            if seq:
                self._marker.write(Mark(seq, digest))

    def _open_writer(self) -> sqlite3.Connection:
        """Take the lock, open the file in rollback-journal mode (a new one gets the schema; one left
        in WAL mode by an earlier version has its log folded in and leaves it), and start writing
        the mark of the last committed row.

        The schema is created only in a file that holds nothing yet: a journal whose triggers were
        dropped keeps that evidence (``verify`` reports it), and a refused start on an edited journal
        writes nothing to it."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._lock = WriterLock(self.path, TABLE)
        except OSError as exc:
            raise self._cannot_open(exc) from exc
        try:
            if not self.path.exists():
                self._refuse_to_start_over()
            db = sqlite3.connect(self.path, isolation_level=None, timeout=BUSY_WAIT_S)
            try:
                mode = db.execute("PRAGMA journal_mode=TRUNCATE").fetchone()[0]
                if mode != "truncate":  # a reader holds a WAL journal of an earlier version open
                    raise JournalError(f"cannot open the journal {self.path}: it stays in {mode} mode while "
                                       "another program reads it; start the table again once that is done")
                db.execute("PRAGMA synchronous=FULL")
                if db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()[0] == 0:
                    db.executescript(f"BEGIN IMMEDIATE; {SCHEMA} COMMIT;")
                self._marker = MarkWriter(self.path, self.committed)
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

    def _refuse_to_start_over(self) -> None:
        """A new journal must not begin where one was: a ``-wal`` holding rows of a journal whose file
        went (SQLite would discard it), or a mark saying rows were committed here."""
        if log_holds_rows(self.path):
            raise JournalError(f"{no_journal(self.path)}; the table will not start a new journal over it")
        if self.committed is not None:
            raise JournalError(
                f"no journal at {self.path}, but {mark_path(self.path).name} beside it says a table committed "
                f"{self.committed.seq} rows here: the journal was moved or deleted without `dicetable journal "
                f"archive`; put {self.path.name} back, or, if it was archived, remove {mark_path(self.path).name}")

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
            db = sqlite3.connect(f"{uri}?mode=ro", uri=True, isolation_level=None, timeout=BUSY_WAIT_S)
            try:
                db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
            except sqlite3.Error as exc:
                if not unreadable(exc):
                    return db
                db.close()
                if exc.sqlite_errorcode == sqlite3.SQLITE_READONLY_ROLLBACK and self._may_write():
                    return self._open_undoing_a_cut_commit(uri)
                # A folder it may not write: CANTOPEN, or READONLY ("readonly directory") when the -shm is missing.
                if (exc.sqlite_errorcode & 0xFF in (sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_READONLY)
                        and not os.access(self.path.parent, os.W_OK) and not log_holds_rows(self.path)
                        and not _cut_commit(self.path)):
                    return sqlite3.connect(f"{uri}?mode=ro&immutable=1", uri=True, isolation_level=None)
                raise
        except sqlite3.Error as exc:
            why = ""
            if _cut_commit(self.path):
                why = (f" (a commit cut short by a stop waits in {self.path.name}-journal to be undone, which this "
                       "user may not do here: the table's next start does it, or read it as the table's user)")
            elif not os.access(self.path.parent, os.W_OK) and log_holds_rows(self.path):
                why = (f" ({self.path.parent} is not writable by this user, and the last rows are still in "
                       f"{self.path.name}-wal, which SQLite reads only with a {self.path.name}-shm it must create "
                       "there: read it as the table's user, or a copy of the whole folder where you can write)")
            raise JournalUnreadable(f"cannot read the journal {self.path}: {exc}{why}") from exc
        return db

    def _may_write(self) -> bool:
        return os.access(self.path, os.W_OK) and os.access(self.path.parent, os.W_OK)

    def _open_undoing_a_cut_commit(self, uri: str) -> sqlite3.Connection:
        """A reader that finds a commit a stop cut short (its ``-journal`` left behind, no writer at
        work) where it may write: SQLite undoes that commit as it opens the file, as the table's next
        start would, and the connection then only reads (``query_only``). A read-only connection
        could read nothing until the table started again."""
        db = sqlite3.connect(f"{uri}?mode=rw", uri=True, isolation_level=None, timeout=BUSY_WAIT_S)
        try:
            db.execute("PRAGMA query_only = ON")
            db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
        except BaseException:
            db.close()
            raise
        return db

    @classmethod
    def open(cls, state_dir: Path | str, **kwargs: Any) -> "Journal":
        """The journal of the table whose state lives in ``state_dir``."""
        return cls(Path(state_dir) / JOURNAL_FILE, **kwargs)

    def close(self) -> None:
        """Close; the writer then gives up its lock."""
        self._db.close()
        if self._marker is not None:
            self._marker.close()
            self._marker = None
        if self._lock is not None:
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
            if self._marker is not None:
                self._marker.write(Mark(*self._tail))
        return entries

    def raw_rows(self, since: int = 0) -> Generator[tuple[int, str, str, str, str, str], None, None]:
        """Rows after sequence number ``since`` exactly as stored (for verification: no parsing can
        hide a change), read a page at a time: the memory they take does not grow with the journal."""
        query = "SELECT seq, ts, kind, event, prev_hash, hash FROM journal WHERE seq > ? ORDER BY seq LIMIT ?"
        last = since
        while True:
            try:
                page = list(self._rows(query, last, PAGE_ROWS))
                yield from page
            except JournalError:
                # A page that cannot be read whole is read again row by row, up to the row where the
                # file cannot be read further: ``verify`` names the row where damage begins.
                page = []
                for row in self._rows(query, last, PAGE_ROWS):
                    page.append(row)
                    yield row
            if len(page) < PAGE_ROWS:
                return
            last = page[-1][0]

    def entries(self, since: int = 0) -> Generator[Entry, None, None]:
        """Every row after sequence number ``since``, in order (a page at a time)."""
        for seq, ts, kind, text, prev, digest in self.raw_rows(since):
            yield Entry(seq, ts, kind, json.loads(text), prev, digest)

    def first_entry(self) -> Entry | None:
        """The journal's first row, its header (None when it has none)."""
        return self._one_entry("ORDER BY seq LIMIT 1")

    def last_entry(self) -> Entry | None:
        """The journal's last row (None when it has none)."""
        return self._one_entry("ORDER BY seq DESC LIMIT 1")

    def _one_entry(self, order: str) -> Entry | None:
        row = next(self._rows(f"SELECT seq, ts, kind, event, prev_hash, hash FROM journal {order}"), None)
        return None if row is None else Entry(row[0], row[1], row[2], json.loads(row[3]), row[4], row[5])

    def cut_short(self) -> str | None:
        """Why this journal does not hold the last row its writer committed (its mark,
        :mod:`controller.journal.mark`), or None when it does, or when there is no mark to go by."""
        mark = self.committed
        if mark is None:
            return None
        found = next(self._rows("SELECT hash FROM journal WHERE seq = ?", mark.seq), None)
        where = f"{mark_path(self.path).name} says row {mark.seq} was committed"
        if found is None:
            last = self._last()[0] if self._lock is not None else int(next(self._rows(
                "SELECT COALESCE(MAX(seq), 0) FROM journal"))[0])
            return (f"the journal ends at row {last}, but {where}: rows were cut off its end (a file beside it "
                    "deleted, or an older copy put back); find the journal that holds them (copy a journal with "
                    "`dicetable journal archive`)")
        if found[0] != mark.hash:
            return (f"row {mark.seq} is not the row committed there ({where} with another hash): this is another "
                    "journal, or an older copy put back")
        return None

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


