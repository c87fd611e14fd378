"""The right to write one journal: an exclusive ``flock`` on ``journal.lock`` beside it.

Why: SQLite serialises two writers' transactions but not their sessions: two tables on one
state directory would each commit valid rows, interleaved (a sequence number taken twice, a
settlement after the other table's bets), and the journal would no longer replay.
"""
from __future__ import annotations

import fcntl
import os
from pathlib import Path

from controller.journal.errors import JournalBusy
from controller.journal.paths import lock_path

#: Who holds a :class:`WriterLock`: the running table, or ``journal archive``.
TABLE = "table"
ARCHIVE = "archive"


class WriterLock:
    """The lock of the journal at ``journal_path``, held by ``holder`` (:data:`TABLE` or :data:`ARCHIVE`).

    It is taken before anything is read or written and held for the writer's life; the kernel
    drops it when the process ends, however it ends, so a power cut or a ``SIGKILL`` never locks a
    table out. It holds ``"<pid> <holder>"`` so a refused process can name the holder. Readers
    never take it (they run beside the table); the archive does, so it cannot move a live journal.
    """

    def __init__(self, journal_path: Path, holder: str):
        # A file object, not a bare descriptor: a writer dropped without close() still frees the lock.
        self._file = open(os.open(lock_path(journal_path), os.O_RDWR | os.O_CREAT, 0o644), "r+b", buffering=0)
        try:
            try:
                fcntl.flock(self._file, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise busy(journal_path, self._file.read(64).decode(errors="replace"), holder) from None
            self._file.truncate(0)
            self._file.write(f"{os.getpid()} {holder}\n".encode())
            if os.geteuid() == 0:
                # Made by root (an operator's sudo), it must stay the service's to open: hand it to the
                # owner of the state folder, as SQLite hands its own files to the journal's owner.
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


def busy(journal_path: Path, held_by: str, wanted: str) -> JournalBusy:
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
