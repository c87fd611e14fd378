"""What can go wrong with a journal, and SQLite's errors sorted into those kinds.

Why apart: the journal, its lock, its archive and its readers all raise these, and the
operator's next step depends on the kind: a :class:`JournalUnreadable` file is to be read
elsewhere or as another user (it says nothing of the rows), a :class:`JournalBusy` one waits
for another process, any other :class:`JournalError` is a file to mend or archive.
"""
from __future__ import annotations

import sqlite3


class JournalError(RuntimeError):
    """The journal cannot be opened or written; the table must not go on without it."""


class JournalUnreadable(JournalError):
    """The journal could not be read here (who may read it, where it lies, the medium), which says
    nothing of whether its rows are intact: an error to mend, not evidence of an edit."""


class JournalBusy(JournalError):
    """Another process holds the journal's writer lock: a table is running on it, or it is being archived."""


#: SQLite's primary result codes that say the file could not be read here (permissions, a folder
#: it cannot create its ``-shm`` in, a lock, the medium), not that what it holds is damaged.
UNREADABLE_CODES = frozenset({sqlite3.SQLITE_PERM, sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_NOMEM,
                              sqlite3.SQLITE_READONLY, sqlite3.SQLITE_IOERR, sqlite3.SQLITE_CANTOPEN,
                              sqlite3.SQLITE_AUTH})


def unreadable(exc: sqlite3.Error) -> bool:
    """Whether SQLite's error says the file could not be read here, rather than that it is damaged."""
    return (getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF in UNREADABLE_CODES


def read_error(path: object, exc: sqlite3.Error) -> JournalError:
    """The error a failed read of the journal at ``path`` is: :class:`JournalUnreadable` when the
    reason is not the file's content, otherwise :class:`JournalError` (damaged, not a journal)."""
    kind = JournalUnreadable if unreadable(exc) else JournalError
    return kind(f"cannot read the journal {path}: {exc}")
