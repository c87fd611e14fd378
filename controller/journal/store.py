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

import errno
import fcntl
import hashlib
import json
import logging
import os
import sqlite3
from dataclasses import dataclass
from datetime import datetime, timezone
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Generator, Iterable, Iterator

from controller.journal.chain import GENESIS, canonical_json, entry_hash

if TYPE_CHECKING:
    from controller.journal.verify import VerifyReport

log = logging.getLogger(__name__)

INPUT = "input"
EFFECT = "effect"
#: The key an input row may carry to say where the input came from (``"stream"``: a line of
#: ``dicetable run --events``), not what it is: the table and the rules engine ignore it.
ORIGIN = "via"
JOURNAL_FILE = "journal.sqlite3"
#: Who holds a :class:`WriterLock`: the running table, or :func:`archive`.
TABLE = "table"
ARCHIVE = "archive"

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

#: SQLite's primary result codes that say the file could not be read here (permissions, a folder
#: it cannot create its ``-shm`` in, a lock, the medium), not that what it holds is damaged.
_UNREADABLE = frozenset({sqlite3.SQLITE_PERM, sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_NOMEM,
                         sqlite3.SQLITE_READONLY, sqlite3.SQLITE_IOERR, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_AUTH})


class JournalError(RuntimeError):
    """The journal cannot be opened or written; the table must not go on without it."""


class JournalUnreadable(JournalError):
    """The journal could not be read here (who may read it, where it lies, the medium), which says
    nothing of whether its rows are intact: an error to mend, not evidence of an edit."""


class JournalBusy(JournalError):
    """Another process holds the journal's :class:`WriterLock`: a table is running on it, or it is being archived."""


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


def lock_path(path: Path) -> Path:
    """The lock file of the journal ``path`` (``journal.lock`` beside ``journal.sqlite3``)."""
    return path.with_suffix(".lock")


def _beside(path: Path, suffix: str) -> Path:
    """SQLite's file ``path`` + ``suffix`` (``-wal``, ``-shm``)."""
    return path.with_name(path.name + suffix)


def _log_holds_rows(path: Path) -> bool:
    """Whether the write-ahead log beside ``path`` holds anything (rows not yet in the file)."""
    wal = _beside(path, "-wal")
    return wal.exists() and wal.stat().st_size > 0


def _no_journal(path: Path) -> str:
    """Why there is no journal at ``path``: none at all, or only the ``-wal`` of one whose file was moved
    or deleted without it. SQLite would discard such a log on creating a new file there, and with it the
    last rows of that journal, so the writer refuses to start over it."""
    if not _log_holds_rows(path):
        return f"no journal at {path}"
    return (f"no journal at {path}, but {path.name}-wal beside it holds rows of one whose file was moved or "
            f"deleted without it (a journal is archived with `dicetable journal archive`): put {path.name} back, "
            f"or, if it was archived whole, remove {path.name}-wal and {path.name}-shm")


def unwritable(path: Path) -> Path | None:
    """The file or folder that keeps this user from writing the journal ``path``, or None.

    SQLite says only "unable to open database file"; the operator needs to know that the
    state directory (or the first of its parents that exists, the file, or its lock file)
    belongs to another user. The folder must be writable too: SQLite keeps its write-ahead
    log beside the file."""
    if path.exists():
        lock = lock_path(path)
        return next((p for p in (path, lock, path.parent) if p.exists() and not os.access(p, os.W_OK)), None)
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    return None if os.access(folder, os.W_OK) else folder


def _unreadable(exc: sqlite3.Error) -> bool:
    """Whether SQLite's error says the file could not be read here, rather than that it is damaged."""
    return (getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF in _UNREADABLE


class WriterLock:
    """The right to write one journal: an exclusive ``flock`` on ``journal.lock`` beside it.

    Why: SQLite serialises two writers' transactions but not their sessions: two tables on one
    state directory would each commit valid rows, interleaved (a sequence number taken twice, a
    settlement after the other table's bets), and the journal would no longer replay. The lock is
    taken before anything is read or written and held for the writer's life; the kernel drops it
    when the process ends, however it ends, so a power cut or a ``SIGKILL`` never locks a table
    out. It holds ``"<pid> <holder>"`` so a refused process can name the holder. Readers never
    take it (they run beside the table); :func:`archive` does, so it cannot move a live journal.
    """

    def __init__(self, journal_path: Path, holder: str):
        # A file object, not a bare descriptor: a writer dropped without close() still frees the lock.
        self._file = open(os.open(lock_path(journal_path), os.O_RDWR | os.O_CREAT, 0o644), "r+b", buffering=0)
        try:
            try:
                fcntl.flock(self._file, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise _busy(journal_path, self._file.read(64).decode(errors="replace"), holder) from None
            self._file.truncate(0)
            self._file.write(f"{os.getpid()} {holder}\n".encode())
            if os.geteuid() == 0:
                # Made by root (an operator's sudo), it must stay the service's to open: hand it to the
                # owner of the state folder, as SQLite hands its -wal and -shm to the file's owner.
                folder = os.stat(journal_path.parent)
                os.fchown(self._file.fileno(), folder.st_uid, folder.st_gid)
        except BaseException:  # a full disk, a folder gone: nothing is held
            self._file.close()
            raise

    def release(self) -> None:
        """Give the lock up (closing the file is what releases it); the holder's name goes first."""
        if self._file.closed:
            return
        try:
            self._file.truncate(0)
        finally:
            self._file.close()


def _busy(journal_path: Path, held_by: str, wanted: str) -> JournalBusy:
    """The refusal a process that wants the lock (``wanted``: :data:`TABLE` or :data:`ARCHIVE`) gets while
    ``held_by`` (the lock file's ``"<pid> <holder>"``, empty if the holder has not written it yet) has it."""
    pid, _, holder = held_by.strip().partition(" ")
    who = f" (pid {pid})" if pid.isdigit() else ""
    where = journal_path.parent
    if holder == ARCHIVE:
        return JournalBusy(f"the journal in {where} is being archived{who}; "
                           + ("start the table once that is done" if wanted == TABLE else "wait for that to end"))
    if wanted == TABLE:
        return JournalBusy(f"another table is running on {where}{who}; only one table may write a journal: "
                           "stop that one first, or give this one another state directory")
    return JournalBusy(f"a table is running on {where}{who}; stop it first, then archive its journal")


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
            if not self.path.exists() and _log_holds_rows(self.path):
                raise JournalError(f"{_no_journal(self.path)}; the table will not start a new journal over it")
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
            raise JournalError(_no_journal(self.path))
        uri = self.path.resolve().as_uri()
        try:
            db = sqlite3.connect(f"{uri}?mode=ro", uri=True, isolation_level=None)
            try:
                db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
            except sqlite3.Error as exc:
                if not _unreadable(exc):
                    return db
                db.close()
                # A folder it may not write: CANTOPEN, or READONLY ("readonly directory") when the -shm is missing.
                if (exc.sqlite_errorcode & 0xFF in (sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_READONLY)
                        and not os.access(self.path.parent, os.W_OK) and not _log_holds_rows(self.path)):
                    return sqlite3.connect(f"{uri}?mode=ro&immutable=1", uri=True, isolation_level=None)
                raise
        except sqlite3.Error as exc:
            why = ""
            if not os.access(self.path.parent, os.W_OK) and _log_holds_rows(self.path):
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
            error = JournalUnreadable if _unreadable(exc) else JournalError
            raise error(f"cannot read the journal {self.path}: {exc}") from exc

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


@dataclass(frozen=True)
class Archived:
    """Where :func:`archive` put a journal, and what ``verify`` says of the copy (as of the original)."""

    path: Path
    report: VerifyReport

    def to_json(self) -> dict[str, Any]:
        return {"archived": str(self.path), **self.report.to_json()}


def archive(state_dir: Path | str, to: Path | str) -> Archived:
    """Move the journal of ``state_dir`` into the folder ``to`` as one self-contained file, so that
    the next start of the table begins a new journal.

    Why not ``mv`` or ``cp``: after a crash, or beside a running table, the last rows are only in
    ``journal.sqlite3-wal``; the file alone is an older journal, and a new one started beside that
    log discards it. Here SQLite's online backup copies the journal as SQLite reads it (file and log)
    into a file that keeps no log (``journal_mode=DELETE``: it reads anywhere, read-only media too),
    named ``journal-<first row's UTC time>-<last seq>.sqlite3`` (an existing file is never
    overwritten). The original's files are removed only once the copy holds exactly the original's
    rows, ``verify`` says the same of both, and the copy is on disk; any failure leaves the original
    as it was and no copy. The writer's lock is held throughout: :class:`JournalBusy` while a table
    runs on ``state_dir``. A journal whose chain is broken is archived as it is (the report says so):
    the archive is the evidence."""
    source = Path(state_dir) / JOURNAL_FILE
    try:
        if not source.exists():
            raise JournalError(_no_journal(source))
        lock = WriterLock(source, ARCHIVE)
    except OSError as exc:  # a folder this user may not enter, or not write its lock in
        raise JournalError(f"cannot archive the journal {source}: {exc}") from exc
    try:
        target, report = _verified_copy(source, Path(to).absolute())
        try:  # the file first: a -wal left behind alone stops the next start, a file left alone would not
            for path in (source, _beside(source, "-wal"), _beside(source, "-shm")):
                path.unlink(missing_ok=True)
            _sync_folder(source.parent)
        except OSError as exc:
            raise JournalError(f"archived {source} to {target}, but could not remove it: {exc}; remove "
                               f"{source.name} and its -wal and -shm before the table starts again") from exc
    finally:
        lock.release()
    return Archived(target, report)


def _verified_copy(source: Path, folder: Path) -> tuple[Path, VerifyReport]:
    """The archive of the journal ``source`` made in ``folder``, once it holds exactly the original's rows
    and ``verify`` says the same of both, with that report; otherwise :class:`JournalError`, and no copy.

    The copy is made under a temporary name and given its own only once verified and on disk: a
    power cut mid-copy leaves no file that looks like an archive. One cut after the copy got its
    name, before the original was removed, leaves both: the next try finds that archive holding
    the same rows and goes on to remove the original. A damaged journal (a failing card) is
    archived too, as the evidence it is: its copy must hold the same rows up to the damage and be
    damaged at the same row. Rows are compared as a running digest, so a year of play needs no
    more memory than a day."""
    from controller.journal.verify import verify  # verify.py builds on this module

    try:
        for stale in folder.glob(".journal-*.sqlite3.part") if folder.is_dir() else ():
            _discard(stale)  # what a power cut left of an earlier try
        with Journal(source, readonly=True) as original:
            report = verify(original)
            first, last, held = _digest_until_damage(original)
            if first is None:
                raise JournalError(f"{source} holds no rows: there is nothing to archive")
            target = folder / f"journal-{_stamp(first)}-{last}.sqlite3"

            def holds_the_same(copy_path: Path) -> bool:
                try:
                    with Journal(copy_path, readonly=True) as copy:
                        return _digest_until_damage(copy)[2] == held and _same_verdict(verify(copy), report)
                except JournalError:  # not a journal this user can read: not this one's archive
                    return False

            if target.exists():
                if holds_the_same(target):  # an earlier try named it, and was cut before the removal
                    return target, report
                raise JournalError(f"{target} exists already and holds other rows (an archive is never "
                                   "overwritten); nothing was archived")
            partial = target.with_name(f".{target.name}.part")
            _copy(original, partial)
            try:
                if not holds_the_same(partial):
                    raise JournalError(f"the copy in {folder} does not hold the rows of {source}; nothing was removed")
                _name(partial, target)
                _sync_folder(folder)
            finally:
                _discard(partial)
    except OSError as exc:
        raise JournalError(f"cannot archive the journal {source}: {exc}") from exc
    return target, report


def _name(partial: Path, target: Path) -> None:
    """Give the verified copy its name, never over a file that has it: a link, which fails if the
    name is taken; on a FAT or exFAT stick, which has no links, a rename once the name is checked
    free (the writer's lock keeps any other archive of this journal away meanwhile)."""
    try:
        os.link(partial, target)
    except FileExistsError:
        raise JournalError(f"{target} exists already (an archive is never overwritten); nothing was archived") from None
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.ENOSYS):
            raise
        if target.exists():
            raise JournalError(f"{target} exists already (an archive is never overwritten); nothing was archived") from None
        os.rename(partial, target)


def _digest_until_damage(journal: Journal) -> tuple[str | None, int, tuple[int, str, str | None]]:
    """The first row's time, the last row's number, and what the rows say as a whole: how many,
    a SHA-256 over each as stored, and where the file could not be read further (the reason
    without the file's name, which differs between a journal and its copy)."""
    digest = hashlib.sha256()
    first: str | None = None
    count = last = 0
    damage: str | None = None
    reading = journal.raw_rows()
    try:
        for row in reading:
            first = row[1] if first is None else first
            count, last = count + 1, row[0]
            digest.update(canonical_json(list(row)).encode())
    except JournalError as exc:
        damage = str(exc).replace(str(journal.path), "")
    finally:
        reading.close()  # before the journal is: a generator closed later would touch a closed file
    return first, last, (count, digest.hexdigest(), damage)


def _same_verdict(copy: VerifyReport, original: VerifyReport) -> bool:
    """``verify`` says the same of both: intact, or broken at the same row, after the same rows."""
    return (copy.ok, copy.rows, copy.broken_seq, copy.head) == (original.ok, original.rows, original.broken_seq,
                                                               original.head)


def _stamp(ts: str) -> str:
    """The first row's time in an archive's name: UTC, sortable, no colon (a FAT stick takes it)."""
    try:
        return datetime.fromisoformat(ts).astimezone(timezone.utc).strftime("%Y-%m-%dT%H%M%SZ")
    except ValueError:  # a time edited into something else: the chain says so; the name must still be made
        return "undated"


def _copy(original: Journal, target: Path) -> None:
    """Back ``original`` up into ``target``, a new file, as a journal without a log, and on disk
    before this returns."""
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        db = sqlite3.connect(target, isolation_level=None)
        try:
            original._db.backup(db)
            db.execute("PRAGMA journal_mode=DELETE")
        finally:
            db.close()
        with open(target, "rb") as copied:
            os.fsync(copied.fileno())
        _sync_folder(target.parent)
    except BaseException as exc:
        _discard(target)
        if isinstance(exc, sqlite3.Error):
            raise JournalError(f"cannot copy the journal {original.path} to {target}: {exc}; "
                               "nothing was removed") from exc
        raise


def _discard(target: Path) -> None:
    """Remove a copy that failed (or the temporary one, once linked), with what SQLite may have left
    beside it."""
    for path in (target, *(_beside(target, suffix) for suffix in ("-journal", "-wal", "-shm"))):
        path.unlink(missing_ok=True)


def _sync_folder(folder: Path) -> None:
    """Make a folder's entries (a file created, renamed or removed in it) survive a power cut."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
