"""``journal archive``: move a stopped table's journal out of its state directory as one verified file
(why not ``mv`` or ``cp``: :func:`archive`)."""
from __future__ import annotations

import errno
import hashlib
import os
import sqlite3
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from controller.journal.chain import canonical_json
from controller.journal.errors import JournalError
from controller.journal.handover import Handover, write_handover
from controller.journal.identity import Predecessor, archived_material, identity_of
from controller.journal.lock import ARCHIVE, WriterLock
from controller.journal.mark import mark_path
from controller.journal.paths import JOURNAL_FILE, beside, no_journal, sync_folder
from controller.journal.store import Journal

if TYPE_CHECKING:
    from controller.journal.verify import VerifyReport


@dataclass(frozen=True)
class Archived:
    """Where :func:`archive` put a journal, and what ``verify`` says of the copy (as of the original)."""

    path: Path
    report: VerifyReport

    def to_json(self) -> dict[str, Any]:
        return {"archived": str(self.path), **self.report.to_json()}


#: Signs what a table signs (bytes): its public key and the signature, each in base64.
Signer = Callable[[bytes], tuple[str, str]]


def archive(state_dir: Path | str, to: Path | str, *, reason: str | None = None, sign: Signer | None = None) -> Archived:
    """Move the journal of ``state_dir`` into the folder ``to`` as one self-contained file, so that
    the next start of the table begins a new journal, and hand the archived journal over to it
    (:mod:`controller.journal.handover`): its first row's hash, its own id and its last row,
    signed with ``sign`` (the table's key) when given, and ``reason`` (``--force --reason``). A
    journal whose chain is broken is handed over to no one: the next one names no predecessor.

    Why not ``mv`` or ``cp``: a copy taken while the journal is written may catch a commit half
    done; ``mv`` leaves the mark (``journal.committed``), which then stops the next start; and a
    journal written in WAL mode by an earlier version keeps its last rows in
    ``journal.sqlite3-wal``, which a new journal started beside it discards. Here SQLite's online
    backup copies the journal as SQLite reads it (file and log) into a file that keeps no log
    (``journal_mode=DELETE``: it reads anywhere, read-only media too), named ``journal-<first row's UTC time>-<last seq>.sqlite3`` (an existing file is never
    overwritten). The original's files are removed only once the copy holds exactly the original's
    rows, ``verify`` says the same of both, and the copy is on disk; any failure leaves the original
    as it was and no copy. The writer's lock is held throughout: :class:`JournalBusy` while a table
    runs on ``state_dir``. A journal whose chain is broken is archived as it is (the report says so):
    the archive is the evidence."""
    source = Path(state_dir) / JOURNAL_FILE
    try:
        if not source.exists():
            raise JournalError(no_journal(source))
        lock = WriterLock(source, ARCHIVE)
    except OSError as exc:  # a folder this user may not enter, or not write its lock in
        raise JournalError(f"cannot archive the journal {source}: {exc}") from exc
    try:
        target, report = _verified_copy(source, Path(to).absolute())
        if report.ok:
            try:
                write_handover(source, Handover(predecessor(source, report.rows, report.head, sign), reason))
            except OSError as exc:
                raise JournalError(f"copied {source} to {target}, but could not leave the next journal its "
                                   f"predecessor beside it: {exc}; nothing was removed") from exc
        # The mark first, on disk before the file goes: a journal left without it starts as it is;
        # a mark left without its journal stops the next start. Then the file: a -wal left behind
        # alone stops it too, a file would not.
        try:
            mark_path(source).unlink(missing_ok=True)
            sync_folder(source.parent)
            for path in (source, *(beside(source, suffix) for suffix in ("-wal", "-shm", "-journal"))):
                path.unlink(missing_ok=True)
            sync_folder(source.parent)
        except OSError as exc:
            raise JournalError(f"archived {source} to {target}, but could not remove it: {exc}; remove "
                               f"{source.name}, {mark_path(source).name} and SQLite's files beside them "
                               "before the table starts again") from exc
    finally:
        lock.release()
    return Archived(target, report)


def predecessor(source: Path, seq: int, head: str, sign: Signer | None) -> Predecessor:
    """The journal at ``source``, ending at row ``seq`` (hash ``head``), as the next one names it
    (signed with ``sign`` when given)."""
    with Journal(source, readonly=True) as journal:
        first = journal.first_entry()
    assert first is not None  # _verified_copy refused a journal without rows
    key = sig = None
    if sign is not None:
        key, sig = sign(archived_material(first.hash, seq, head))
    return Predecessor(first.hash, seq, head, identity_of(first.event).id, key, sig)


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
            report = verify(original)  # what is printed: a journal cut short is archived as the evidence
            rows = verify(original, against_mark=False)  # what the copy, which has no mark, must say too
            first, last, held = _digest_until_damage(original)
            if first is None:
                raise JournalError(f"{source} holds no rows: there is nothing to archive")
            target = folder / f"journal-{_stamp(first)}-{last}.sqlite3"

            def holds_the_same(copy_path: Path) -> bool:
                try:
                    with Journal(copy_path, readonly=True) as copy:
                        return _digest_until_damage(copy)[2] == held and _same_verdict(verify(copy), rows)
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
                sync_folder(folder)
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
        sync_folder(target.parent)
    except BaseException as exc:
        _discard(target)
        if isinstance(exc, sqlite3.Error):
            raise JournalError(f"cannot copy the journal {original.path} to {target}: {exc}; "
                               "nothing was removed") from exc
        raise


def _discard(target: Path) -> None:
    """Remove a copy that failed (or the temporary one, once linked), with what SQLite may have left
    beside it."""
    for path in (target, *(beside(target, suffix) for suffix in ("-journal", "-wal", "-shm"))):
        path.unlink(missing_ok=True)
