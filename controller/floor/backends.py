"""The floor's database engines: SQLite (a file, the default) and PostgreSQL (a URL, for a large floor).

Why both behind one small interface: the floor's SQL is the same in both but for the placeholder,
the schema's triggers and how a connection is opened, so :class:`~controller.floor.store.FloorStore`
is written once. SQLite needs nothing but a file; PostgreSQL (``postgresql://USER@HOST:PORT/DB``,
with psycopg) holds years of a thousand tables and serves several floors (docs/floor.md).
"""
from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

_TABLES = """
CREATE TABLE journals (
    table_id    TEXT NOT NULL,
    journal     TEXT NOT NULL,
    first_ts    TEXT NOT NULL,
    own_id      TEXT,
    named_table TEXT,
    seen        INTEGER NOT NULL,
    PRIMARY KEY (table_id, journal)
);
CREATE TABLE journal_rows (
    table_id  TEXT NOT NULL,
    journal   TEXT NOT NULL,
    seq       INTEGER NOT NULL,
    ts        TEXT NOT NULL,
    hash      TEXT NOT NULL,
    prev_hash TEXT NOT NULL,
    line      TEXT NOT NULL,
    stored_at TEXT NOT NULL,
    PRIMARY KEY (table_id, journal, seq)
);
CREATE TABLE alerts (
    id        {id},
    table_id  TEXT NOT NULL,
    journal   TEXT,
    seq       INTEGER,
    kind      TEXT NOT NULL,
    message   TEXT NOT NULL,
    raised_at TEXT NOT NULL
);
CREATE UNIQUE INDEX alerts_once ON alerts (table_id, COALESCE(journal, ''), seq, kind) WHERE seq IS NOT NULL;
CREATE TABLE links (
    id          {id},
    table_id    TEXT NOT NULL,
    journal     TEXT NOT NULL,
    how         TEXT NOT NULL,
    reason      TEXT,
    at          TEXT NOT NULL,
    alerts_upto INTEGER NOT NULL
);
CREATE INDEX links_of ON links (table_id, id);
CREATE TABLE table_keys (
    id        {id},
    table_id  TEXT NOT NULL,
    key       TEXT NOT NULL,
    how       TEXT NOT NULL,
    reason    TEXT,
    at        TEXT NOT NULL
);
CREATE INDEX table_keys_of ON table_keys (table_id, id);
CREATE TABLE heads (
    table_id  TEXT NOT NULL,
    journal   TEXT NOT NULL,
    seq       INTEGER NOT NULL,
    hash      TEXT NOT NULL,
    PRIMARY KEY (table_id, journal)
);
CREATE TABLE table_state (
    table_id        TEXT PRIMARY KEY,
    status          TEXT,
    status_at       TEXT,
    online          INTEGER,
    online_at       TEXT,
    heard_at        TEXT,
    ended           INTEGER,
    signed_at       TEXT,
    offered_key     TEXT,
    offered_journal TEXT
);
"""

#: Rows, journals, alerts, the links of each table's line and the keys pinned are kept as received:
#: no UPDATE, no DELETE. ``heads`` (each journal's last signed head) and ``table_state`` (each
#: table's latest word) are replaced.
APPEND_ONLY = ("journal_rows", "journals", "alerts", "links", "table_keys")

_SQLITE_GUARDS = "".join(
    f"CREATE TRIGGER {table}_no_{change} BEFORE {change.upper()} ON {table} "
    f"BEGIN SELECT RAISE(ABORT, 'the floor keeps {table} as received'); END;\n"
    for table in APPEND_ONLY for change in ("update", "delete"))

_POSTGRES_GUARDS = """
CREATE FUNCTION floor_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN RAISE EXCEPTION 'the floor keeps % as received', TG_TABLE_NAME; END $$;
""" + "".join(
    f"CREATE TRIGGER {table}_no_change BEFORE UPDATE OR DELETE ON {table} FOR EACH ROW "
    f"EXECUTE FUNCTION floor_append_only();\n"
    f"CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table} FOR EACH STATEMENT "
    f"EXECUTE FUNCTION floor_append_only();\n"
    for table in APPEND_ONLY)


class BackendError(RuntimeError):
    """The database cannot be opened or used; the message says which and why."""


#: A database made before the floor linked each table's journals and pinned its key.
EARLIER = ("{db} was made by an earlier version of the floor (no line of journals, no keys): keep it as it is, "
           "and start the floor on a new database (the tables send it their journals whole)")


def is_url(target: Path | str) -> bool:
    return str(target).startswith(("postgresql://", "postgres://"))


def describe(target: Path | str) -> str:
    """``target`` for messages: a URL without its password."""
    if not is_url(target):
        return str(target)
    from urllib.parse import urlsplit

    parts = urlsplit(str(target))
    netloc = parts.netloc.rsplit("@", 1)[-1]
    user = f"{parts.username}@" if parts.username else ""
    return f"{parts.scheme}://{user}{netloc}{parts.path}"


class Backend:
    """One connection to the floor's database, in autocommit mode (transactions are explicit)."""

    def execute(self, sql: str, params: tuple[Any, ...] = ()) -> Any:
        raise NotImplementedError

    def begin(self) -> None:
        raise NotImplementedError

    def in_transaction(self) -> bool:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError


class SqliteBackend(Backend):
    """A SQLite file: WAL, ``synchronous=FULL``; read-only beside the writer when ``readonly``."""

    def __init__(self, path: Path, readonly: bool):
        if readonly:
            if not path.is_file():
                raise BackendError(f"no floor database at {path}")
            self._db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, isolation_level=None,
                                       check_same_thread=False)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(path, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            if self._db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()[0] == 0:
                self._db.executescript(f"BEGIN IMMEDIATE; {_TABLES.format(id='INTEGER PRIMARY KEY')}"
                                       f"{_SQLITE_GUARDS} COMMIT;")
        if self._db.execute("SELECT COUNT(*) FROM sqlite_master WHERE name = 'journal_rows'").fetchone()[0] == 0:
            self._db.close()
            raise BackendError(f"{path} is not a floor database")
        if self._db.execute("SELECT COUNT(*) FROM sqlite_master WHERE name = 'links'").fetchone()[0] == 0:
            self._db.close()
            raise BackendError(EARLIER.format(db=path))

    def execute(self, sql: str, params: tuple[Any, ...] = ()) -> Any:
        return self._db.execute(sql, params)

    def begin(self) -> None:
        self._db.execute("BEGIN IMMEDIATE")

    def in_transaction(self) -> bool:
        return self._db.in_transaction

    def close(self) -> None:
        self._db.close()


class PostgresBackend(Backend):
    """A PostgreSQL database by URL (psycopg): the schema made in it if it has none; read-only
    sessions for the page, ``export`` and ``check``."""

    def __init__(self, url: str, readonly: bool):
        try:
            import psycopg
        except ImportError:
            raise BackendError("a postgresql:// database needs psycopg: pip install 'psycopg[binary]' "
                               "(the project's postgres extra)") from None
        self._db = psycopg.connect(url, autocommit=True)
        if readonly:
            self._db.execute("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY")
            if not self._has("journal_rows"):
                self._db.close()
                raise BackendError(f"no floor database in {describe(url)}")
        else:
            with self._db.transaction():
                self._db.execute("SELECT pg_advisory_xact_lock(35)")  # two floors starting at once make it once
                if not self._has("journal_rows"):
                    self._db.execute(_TABLES.format(id="BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY")
                                     + _POSTGRES_GUARDS)
        if not self._has("links"):
            self._db.close()
            raise BackendError(EARLIER.format(db=describe(url)))

    def _has(self, table: str) -> bool:
        found = self._db.execute("SELECT to_regclass(%s)", (table,)).fetchone()
        return found is not None and found[0] is not None

    def execute(self, sql: str, params: tuple[Any, ...] = ()) -> Any:
        return self._db.execute(sql.replace("?", "%s"), params)

    def begin(self) -> None:
        self._db.execute("BEGIN")

    def in_transaction(self) -> bool:
        import psycopg.pq

        return bool(self._db.info.transaction_status != psycopg.pq.TransactionStatus.IDLE)

    def close(self) -> None:
        self._db.close()


def open_backend(target: Path | str, readonly: bool) -> Backend:
    """The floor's database at ``target``: a ``postgresql://`` URL, or a SQLite file."""
    return PostgresBackend(str(target), readonly) if is_url(target) else SqliteBackend(Path(target), readonly)
