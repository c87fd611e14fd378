"""The floor's own database: every table's journals as received, the alerts, and each table's state.

Why its own database, and SQLite by default: the floor's copy must be out of reach of whoever
controls a table, and one file on the floor's machine is enough for a casino's tables (the
figures are in docs/floor.md); WAL with ``synchronous=FULL``, since the floor acknowledges a row
only once it is on disk. A ``postgresql://`` URL names a PostgreSQL database instead
(:mod:`controller.floor.backends`). Journals, rows and alerts are append-only (triggers refuse
UPDATE and DELETE); ``table_state`` (status, online) is each table's latest word and is replaced.

A journal is known by its table id and its first row's hash, so a table that archives its
journal and begins a new one at seq 1 has each kept as its own chain. The *current* journal of a
table is the one whose first row is the most recent.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator

from controller.floor.backends import BackendError, describe, open_backend
from controller.floor.judge import Row, RowError, Verdict, judge, parse_row, replaced_fault, status_fault
from controller.floor.topics import OFFLINE, ONLINE, status_payload

log = logging.getLogger(__name__)

class FloorStoreError(RuntimeError):
    """The floor's database cannot be opened or written."""


def now() -> str:
    """The floor's time of a commit, UTC with microseconds (the lag is measured against the row's)."""
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")


@dataclass(frozen=True)
class Alert:
    """A break the floor saw: which table, journal and row, and what."""

    id: int
    table: str
    journal: str | None
    seq: int | None
    kind: str
    message: str
    raised_at: str

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "table": self.table, "journal": self.journal, "seq": self.seq, "kind": self.kind,
                "message": self.message, "raised_at": self.raised_at}


@dataclass(frozen=True)
class Outcome:
    """What receiving one row did: the verdict, and the alert it raised (if new)."""

    verdict: Verdict
    alert: Alert | None = None
    reason: str | None = None


class FloorStore:
    """The floor's SQLite database at ``path``. One writer (the floor service); ``readonly`` for
    the page and the ``export`` and ``check`` commands, beside it."""

    def __init__(self, target: Path | str, *, readonly: bool = False):
        self.target = target
        try:
            self._sql = open_backend(target, readonly)
        except BackendError as exc:
            raise FloorStoreError(str(exc)) from None
        except Exception as exc:  # noqa: BLE001 - sqlite3's, psycopg's or the file system's: said, never a traceback
            raise FloorStoreError(f"cannot open the floor database {describe(target)}: {exc}") from exc
        self._tails: dict[tuple[str, str], tuple[int, str]] = {}
        #: Each journal whose copy an alert closed, and the row where its table's journal left it:
        #: a row before it is still compared (an earlier rewrite is named), none after it is taken.
        self._broken: dict[tuple[str, str], int] = {}
        if not readonly:
            self._load_tails()

    def close(self) -> None:
        self._sql.close()

    def __enter__(self) -> "FloorStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _load_tails(self) -> None:
        for table, journal, seq, digest in self._sql.execute(
                "SELECT r.table_id, r.journal, r.seq, r.hash FROM journal_rows r JOIN (SELECT table_id, journal, MAX(seq) AS "
                "seq FROM journal_rows GROUP BY table_id, journal) m USING (table_id, journal, seq)"):
            self._tails[(table, journal)] = (seq, digest)
        for table, journal, seq in self._sql.execute(
                "SELECT table_id, journal, MIN(COALESCE(seq, 0)) FROM alerts WHERE journal IS NOT NULL GROUP BY "
                "table_id, journal"):
            self._broken[(table, journal)] = seq

    # -- writing (the service's one thread), in batches -------------------------------------

    def begin(self) -> None:
        self._sql.begin()

    def commit(self) -> None:
        self._sql.execute("COMMIT")

    def rollback(self) -> None:
        if self._sql.in_transaction():
            self._sql.execute("ROLLBACK")

    def tail(self, table: str, journal: str) -> tuple[int, str] | None:
        """The copy's last row of ``journal`` (seq, hash), or None when it holds none."""
        return self._tails.get((table, journal))

    def receive(self, table: str, journal: str, payload: bytes | str) -> Outcome:
        """Take one row of ``journal`` from ``table`` (inside :meth:`begin` / :meth:`commit`)."""
        try:
            row = parse_row(payload)
        except RowError as exc:
            return self._refuse(table, journal, None, "forged", str(exc))
        key = (table, journal)
        tail = self._tails.get(key)
        held = self._held(table, journal, row.seq) if tail is not None and row.seq <= tail[0] else None
        verdict = judge(journal, tail, row, held)
        left_at = self._broken.get(key)
        if left_at is not None and verdict.verdict is not Verdict.DUPLICATE and not (
                verdict.verdict is Verdict.BREAK and row.seq < left_at):
            # A copy closed by an alert keeps what it had, the evidence; the rows after the break raise
            # no alert each (the earliest one names where the table's journal left the copy).
            return Outcome(Verdict.BREAK, reason="this journal's copy is closed by an alert")
        if verdict.verdict is Verdict.BREAK:
            kind = "rewritten" if held is not None else "broken"
            return self._refuse(table, journal, row.seq, kind, verdict.reason or "")
        if verdict.verdict is not Verdict.STORE:
            return Outcome(verdict.verdict, reason=verdict.reason)
        return Outcome(Verdict.STORE, self._store(table, journal, row))

    def refuse_unread(self, table: str, journal: str, kind: str, message: str) -> Alert | None:
        """A message on ``journal``'s row topic refused without being read (too large to be a row):
        an alert, and the copy closed after its last row, since no row can follow one never taken."""
        tail = self._tails.get((table, journal))
        self._close(table, journal, (tail[0] if tail else 0) + 1)
        return self.raise_alert(table, journal, None, kind, message)

    def _refuse(self, table: str, journal: str, seq: int | None, kind: str, message: str) -> Outcome:
        self._close(table, journal, seq or 0)
        return Outcome(Verdict.BREAK, self.raise_alert(table, journal, seq, kind, message), message)

    def _close(self, table: str, journal: str, seq: int) -> None:
        key = (table, journal)
        self._broken[key] = min(seq, self._broken.get(key, seq))

    def _held(self, table: str, journal: str, seq: int) -> str | None:
        found = self._sql.execute("SELECT hash FROM journal_rows WHERE table_id = ? AND journal = ? AND seq = ?",
                                 (table, journal, seq)).fetchone()
        return None if found is None else str(found[0])

    def _store(self, table: str, journal: str, row: Row) -> Alert | None:
        alert = None
        if row.seq == 1:
            earlier = self._sql.execute(
                "SELECT MAX(r.ts) FROM journal_rows r JOIN journals j USING (table_id, journal) WHERE r.table_id = ? "
                "AND r.journal != ?", (table, journal)).fetchone()[0]
            fault = replaced_fault(row.ts, earlier)
            self._sql.execute("INSERT INTO journals (table_id, journal, first_ts) VALUES (?, ?, ?)",
                             (table, journal, row.ts))
            if fault:
                alert = self.raise_alert(table, journal, 1, "replaced", fault)
        self._sql.execute("INSERT INTO journal_rows (table_id, journal, seq, ts, hash, prev_hash, line, stored_at) "
                         "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                         (table, journal, row.seq, row.ts, row.hash, row.prev_hash, row.line, now()))
        self._tails[(table, journal)] = (row.seq, row.hash)
        return alert

    def raise_alert(self, table: str, journal: str | None, seq: int | None, kind: str, message: str) -> Alert | None:
        """Record an alert; None when the same one (table, journal, row, kind) stands already."""
        raised = now()
        found = self._sql.execute("INSERT INTO alerts (table_id, journal, seq, kind, message, raised_at) VALUES "
                                  "(?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING id",
                                  (table, journal, seq, kind, message, raised)).fetchone()
        if found is None:
            return None
        alert = Alert(int(found[0]), table, journal, seq, kind, message, raised)
        where = f"journal {(journal or '?')[:12]}" if seq is None else f"row {seq} of journal {(journal or '?')[:12]}"
        log.error("floor ALERT: table %s, %s: %s", table, where, message)
        return alert

    def set_status(self, table: str, status: dict[str, Any], *, live: bool) -> Alert | None:
        """Keep ``table``'s status; a live one (not the retained copy a broker hands a new
        subscriber, which may be older than rows received since) is checked against the copy.
        An alert it raises closes the copy at the status's row; the service then asks the table
        for its whole journal again, so that the first row that differs is named too."""
        self._sql.execute("INSERT INTO table_state (table_id, status, status_at) VALUES (?, ?, ?) ON CONFLICT (table_id) "
                         "DO UPDATE SET status = excluded.status, status_at = excluded.status_at",
                         (table, status_payload(status).decode(), now()))
        journal = status.get("journal")
        if not live or not isinstance(journal, str) or (table, journal) in self._broken:
            return None
        tail = self._tails.get((table, journal))
        seq = status.get("seq")
        held = self._held(table, journal, seq) if tail is not None and isinstance(seq, int) else None
        fault = status_fault(status, tail, held)
        if fault is None:
            return None
        self._close(table, journal, seq if isinstance(seq, int) else 0)
        return self.raise_alert(table, journal, seq if isinstance(seq, int) else None,
                                "cut" if isinstance(seq, int) and tail is not None and seq < tail[0] else "rewritten",
                                fault)

    def set_online(self, table: str, word: str) -> None:
        online = 1 if word == ONLINE else 0 if word == OFFLINE else None
        self._sql.execute("INSERT INTO table_state (table_id, online, online_at) VALUES (?, ?, ?) ON CONFLICT (table_id) "
                         "DO UPDATE SET online = excluded.online, online_at = excluded.online_at",
                         (table, online, now()))

    def latest_tails(self) -> dict[str, tuple[str, int, str]]:
        """Each table's current journal and its copy's last row: what the floor acknowledges."""
        found = {}
        for table, journal in self.current_journals().items():
            tail = self._tails.get((table, journal))
            if tail is not None:
                found[table] = (journal, *tail)
        return found

    # -- reading (the service, the page, export and check) -------------------------------------

    def current_journals(self) -> dict[str, str]:
        """Each table's current journal: the one whose first row is the most recent."""
        found: dict[str, str] = {}
        for table, journal in self._sql.execute(
                "SELECT table_id, journal FROM journals ORDER BY table_id, first_ts, journal"):
            found[table] = journal
        return found

    def tables(self) -> list[str]:
        return [t for (t,) in self._sql.execute(
            "SELECT table_id FROM journals UNION SELECT table_id FROM table_state UNION SELECT table_id FROM alerts "
            "ORDER BY 1")]

    def journals(self, table: str) -> list[tuple[str, str, int]]:
        """``table``'s journals (id, first row's time, rows held), oldest first. Rows held is the
        copy's last seq: a copy is taken only as an unbroken chain from row 1."""
        return [(j, ts, n or 0) for j, ts, n in self._sql.execute(
            "SELECT j.journal, j.first_ts, (SELECT r.seq FROM journal_rows r WHERE r.table_id = j.table_id AND "
            "r.journal = j.journal ORDER BY r.seq DESC LIMIT 1) FROM journals j WHERE j.table_id = ? "
            "ORDER BY j.first_ts, j.journal", (table,))]

    def last_row(self, table: str, journal: str) -> tuple[int, str] | None:
        """The seq and time of the copy's last row of ``journal``."""
        found = self._sql.execute("SELECT seq, ts FROM journal_rows WHERE table_id = ? AND journal = ? ORDER BY seq DESC "
                                 "LIMIT 1", (table, journal)).fetchone()
        return None if found is None else (int(found[0]), str(found[1]))

    def lines(self, table: str, journal: str | None = None, *, since: int = 0) -> Iterator[str]:
        """The rows of ``journal`` (``table``'s current one by default) as received, in order."""
        journal = journal or self.current_journals().get(table)
        if journal is None:
            return
        for (line,) in self._sql.execute("SELECT line FROM journal_rows WHERE table_id = ? AND journal = ? AND seq > ? "
                                        "ORDER BY seq", (table, journal, since)):
            yield line

    def last_lines(self, table: str, count: int, journal: str | None = None) -> list[str]:
        """The last ``count`` rows of ``journal`` (``table``'s current one by default), in order."""
        journal = journal or self.current_journals().get(table)
        if journal is None:
            return []
        found = self._sql.execute("SELECT line FROM journal_rows WHERE table_id = ? AND journal = ? ORDER BY seq DESC LIMIT ?",
                                 (table, journal, count)).fetchall()
        return [line for (line,) in reversed(found)]

    def alerts(self, table: str | None = None) -> list[Alert]:
        query = "SELECT id, table_id, journal, seq, kind, message, raised_at FROM alerts"
        rows = self._sql.execute(query + (" WHERE table_id = ? ORDER BY id" if table else " ORDER BY id"),
                                (table,) if table else ())
        return [Alert(*row) for row in rows]

    def states(self) -> dict[str, dict[str, Any]]:
        """Each table's latest status and whether it is online, as received."""
        import json

        found: dict[str, dict[str, Any]] = {}
        for table, status, status_at, online, online_at in self._sql.execute(
                "SELECT table_id, status, status_at, online, online_at FROM table_state ORDER BY table_id"):
            found[table] = {"status": json.loads(status) if status else None, "status_at": status_at,
                            "online": None if online is None else bool(online), "online_at": online_at}
        return found

    def raw_rows(self) -> Iterator[tuple[str, str, int, str, str, str]]:
        """Every row held (table, journal, seq, hash, prev_hash, line), by table, journal and seq."""
        yield from self._sql.execute("SELECT table_id, journal, seq, hash, prev_hash, line FROM journal_rows "
                                    "ORDER BY table_id, journal, seq")

    def lags(self) -> list[tuple[str, str]]:
        """Each row's journal time and the floor's commit time (the bench's lag)."""
        return list(self._sql.execute("SELECT ts, stored_at FROM journal_rows"))
