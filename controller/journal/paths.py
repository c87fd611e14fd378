"""The files of a journal in its state directory, and what their presence says.

``journal.sqlite3`` is the journal; SQLite keeps its ``-wal``, ``-shm`` or ``-journal``
beside it; ``journal.lock`` is the writer's lock (:mod:`controller.journal.lock`).
"""
from __future__ import annotations

import os
from pathlib import Path

JOURNAL_FILE = "journal.sqlite3"


def lock_path(path: Path) -> Path:
    """The lock file of the journal ``path`` (``journal.lock`` beside ``journal.sqlite3``)."""
    return path.with_suffix(".lock")


def beside(path: Path, suffix: str) -> Path:
    """SQLite's file ``path`` + ``suffix`` (``-wal``, ``-shm``, ``-journal``)."""
    return path.with_name(path.name + suffix)


def log_holds_rows(path: Path) -> bool:
    """Whether the write-ahead log beside ``path`` holds anything (rows not yet in the file)."""
    wal = beside(path, "-wal")
    return wal.exists() and wal.stat().st_size > 0


def no_journal(path: Path) -> str:
    """Why there is no journal at ``path``: none at all, or only the ``-wal`` of one whose file was moved
    or deleted without it. SQLite would discard such a log on creating a new file there, and with it the
    last rows of that journal, so the writer refuses to start over it."""
    if not log_holds_rows(path):
        return f"no journal at {path}"
    return (f"no journal at {path}, but {path.name}-wal beside it holds rows of one whose file was moved or "
            f"deleted without it (a journal is archived with `dicetable journal archive`): put {path.name} back, "
            f"or, if it was archived whole, remove {path.name}-wal and {path.name}-shm")


def unwritable(path: Path) -> Path | None:
    """The file or folder that keeps this user from writing the journal ``path``, or None.

    SQLite says only "unable to open database file"; the operator needs to know that the
    state directory (or the first of its parents that exists, the file, or its lock file)
    belongs to another user. The folder must be writable too: SQLite keeps its own files
    beside the journal."""
    if path.exists():
        lock = lock_path(path)
        return next((p for p in (path, lock, path.parent) if p.exists() and not os.access(p, os.W_OK)), None)
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    return None if os.access(folder, os.W_OK) else folder


def sync_folder(folder: Path) -> None:
    """Make a folder's entries (a file created, renamed or removed in it) survive a power cut."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
