"""The floor's own database: every table's journals as received, the alerts, each table's line of
journals, its key, and its state.

Why its own database, and SQLite by default: the floor's copy must be out of reach of whoever
controls a table, and one file on the floor's machine is enough for a casino's tables (the
figures are in docs/floor.md); WAL with ``synchronous=FULL``, since the floor acknowledges a row
only once it is on disk. A ``postgresql://`` URL names a PostgreSQL database instead
(:mod:`controller.floor.backends`). Journals, rows, alerts, links and keys are append-only
(triggers refuse UPDATE and DELETE); ``table_state`` (status, online, when the table was last
heard) and ``heads`` (each journal's last signed head) are each one's latest word and are replaced.

A journal is known by its table id and its first row's hash, so a table that archives its
journal and begins a new one at seq 1 has each kept as its own chain. Each table's journals are
linked into one line (``links``): the first the floor sees begins it, and a journal that names the
line's last journal as the one before it, at the row the copy ends at, under the table's signature,
continues it (``next``). Any other journal is kept but not linked (``replaced``, or ``foreign``
when it belongs to another table) until ``dicetable floor accept`` links it (``accepted``). The
*current* journal of a table is its line's last: never chosen by a time a table wrote.

Alerts of one kind from one table are raised at most once a minute (:data:`ALERT_EVERY_S`); what
comes meanwhile is counted and raised as one alert with the count (:meth:`FloorStore.flush_alerts`).
"""
from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterator

from controller.floor.backends import BackendError, describe, open_backend
from controller.floor.judge import Row, RowError, Verdict, judge, parse_row, status_fault
from controller.floor.signing import status_material, verify
from controller.floor.topics import OFFLINE, ONLINE, status_payload
from controller.journal.identity import Identity, archived_material, identity_of

log = logging.getLogger(__name__)

#: Alerts of one kind from one table are raised at most this often; the rest are counted.
ALERT_EVERY_S = 60.0
#: The kinds of alert ``dicetable floor accept`` answers: those a table rebuilt (a lost card: a new
#: journal, a new key) raises. Alerts on rows (rewritten, broken, cut, forged, oversized) stand.
ACCEPTED_KINDS = ("replaced", "foreign", "unsigned")


class FloorStoreError(RuntimeError):
    """The floor's database cannot be opened or written."""


def now() -> str:
    """The floor's time of a commit, UTC with microseconds (the lag is measured against the row's)."""
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")


@dataclass(frozen=True)
class Alert:
    """A break the floor saw: which table, journal and row, and what; ``accepted``: answered by
    ``dicetable floor accept`` (it no longer fails ``check``)."""

    id: int
    table: str
    journal: str | None
    seq: int | None
    kind: str
    message: str
    raised_at: str
    accepted: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "table": self.table, "journal": self.journal, "seq": self.seq, "kind": self.kind,
                "message": self.message, "raised_at": self.raised_at, "accepted": self.accepted}


@dataclass(frozen=True)
class Outcome:
    """What receiving one row did: the verdict, and the alert it raised (if new)."""

    verdict: Verdict
    alert: Alert | None = None
    reason: str | None = None


@dataclass
class _Held:
    """Alerts of one kind from one table held back within a minute of the last one raised."""

    raised_at: float
    count: int = 0
    journal: str | None = None
    message: str = ""
    since: str = ""


class FloorStore:
    """The floor's database at ``target``. One writer (the floor service); ``readonly`` for the page
    and the ``export`` and ``check`` commands, beside it. ``clock`` (monotonic seconds) paces the alerts."""

    def __init__(self, target: Path | str, *, readonly: bool = False, clock: Callable[[], float] = time.monotonic):
        self.target = target
        self._clock = clock
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
        #: Journals whose first alert was followed by the first row that differs (named at once, once).
        self._refined: set[tuple[str, str]] = set()
        self._held_alerts: dict[tuple[str, str], _Held] = {}
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
                "SELECT table_id, journal, MIN(COALESCE(seq, 0)) FROM alerts WHERE journal IS NOT NULL AND kind IN "
                "('rewritten', 'broken', 'cut', 'forged', 'oversized') GROUP BY table_id, journal"):
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
        key = (table, journal)
        # The first row that differs, named after the alert that showed the journal left the copy
        # (a status, a later row): said at once, once a journal, whatever the pace of alerts.
        refines = key in self._broken and seq is not None and seq < self._broken[key] and key not in self._refined
        if refines:
            self._refined.add(key)
        self._close(table, journal, seq or 0)
        return Outcome(Verdict.BREAK, self.raise_alert(table, journal, seq, kind, message, paced=not refines), message)

    def _close(self, table: str, journal: str, seq: int) -> None:
        key = (table, journal)
        self._broken[key] = min(seq, self._broken.get(key, seq))

    def _held(self, table: str, journal: str, seq: int) -> str | None:
        found = self._sql.execute("SELECT hash FROM journal_rows WHERE table_id = ? AND journal = ? AND seq = ?",
                                 (table, journal, seq)).fetchone()
        return None if found is None else str(found[0])

    def _store(self, table: str, journal: str, row: Row) -> Alert | None:
        alert = self._link(table, journal, row) if row.seq == 1 else None
        self._sql.execute("INSERT INTO journal_rows (table_id, journal, seq, ts, hash, prev_hash, line, stored_at) "
                         "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                         (table, journal, row.seq, row.ts, row.hash, row.prev_hash, row.line, now()))
        self._tails[(table, journal)] = (row.seq, row.hash)
        return alert

    # -- each table's line of journals ----------------------------------------------------------

    def _link(self, table: str, journal: str, row: Row) -> Alert | None:
        """A new journal of ``table`` (its first ``row``): kept, and linked into the table's line when
        it continues it; otherwise the alert that says why not."""
        try:
            event = json.loads(row.line)["event"]
        except (ValueError, KeyError, TypeError):
            event = {}
        ident = identity_of(event if row.kind == "input" and event.get("event") == "table" else None)
        seen = int(self._sql.execute("SELECT COALESCE(MAX(seen), 0) + 1 FROM journals").fetchone()[0])
        self._sql.execute("INSERT INTO journals (table_id, journal, first_ts, own_id, named_table, seen) VALUES "
                         "(?, ?, ?, ?, ?, ?)", (table, journal, row.ts, ident.id, ident.table, seen))
        elsewhere = self._sql.execute("SELECT table_id FROM journals WHERE journal = ? AND table_id != ? LIMIT 1",
                                      (journal, table)).fetchone()
        if (ident.table is not None and ident.table != table) or elsewhere is not None:
            where = (f"its first row names table {ident.table}" if ident.table is not None and ident.table != table
                     else f"the floor holds it as table {elsewhere[0]}'s")
            return self.raise_alert(table, journal, 1, "foreign", f"journal {journal[:12]} came as table {table}'s, but "
                                    f"{where}: it is not linked into {table}'s line")
        current = self.current_journal(table)
        if current is None:
            self._add_link(table, journal, "first", None)
            return None
        fault = self._not_continuing(table, journal, current, ident)
        if fault is not None:
            return self.raise_alert(table, journal, 1, "replaced", fault)
        assert ident.after is not None
        self._add_link(table, journal, "next", None)
        self._record_head(table, current, ident.after.seq, ident.after.head)
        return None

    def _not_continuing(self, table: str, journal: str, current: str, ident: Identity) -> str | None:
        """Why the new ``journal`` does not continue ``table``'s line, whose last journal is ``current``
        (both heads named), or None when it does."""
        tail = self._tails.get((table, current))
        old = (f"journal {current[:12]}, whose copy ends at row {tail[0]} (hash {tail[1][:12]})" if tail else
               f"journal {current[:12]}, of which the floor holds no row")
        new = f"a new journal {journal[:12]} of table {table}"
        after, why = ident.after, f" (archived with --force: {ident.reason})" if ident.reason else ""
        if after is None:
            return f"{new} names no journal before it, but the table's line ends at {old}: its journal was replaced"
        if after.journal != current:
            return (f"{new} continues journal {after.journal[:12]} at row {after.seq}, but the table's line ends at "
                    f"{old}: its journal was replaced{why}")
        if tail is None or (after.seq, after.head) != tail:
            lost = (f": rows {tail[0] + 1} to {after.seq} never reached the floor" if tail and after.seq > tail[0]
                    else ": its journal was replaced")
            return (f"{new} begins after row {after.seq} (hash {after.head[:12]}) of {old}{lost}{why}")
        pinned = self.pinned_key(table)
        if pinned is not None and not (after.key == pinned and verify(
                pinned, archived_material(after.journal, after.seq, after.head), after.sig)):
            return (f"{new} names {old} as the journal before it, but not under the table's signature (its key "
                    f"{pinned}): its journal was replaced")
        return None

    def _add_link(self, table: str, journal: str, how: str, reason: str | None) -> None:
        upto = int(self._sql.execute("SELECT COALESCE(MAX(id), 0) FROM alerts").fetchone()[0])
        self._sql.execute("INSERT INTO links (table_id, journal, how, reason, at, alerts_upto) VALUES (?, ?, ?, ?, ?, ?)",
                         (table, journal, how, reason, now(), upto))

    def accept(self, table: str, journal: str, reason: str) -> None:
        """``dicetable floor accept``: link ``journal`` (held as ``table``'s) as the table's line's last,
        answering the table's standing alerts of :data:`ACCEPTED_KINDS`; when the table signs that
        journal's heads with a key other than the one pinned, pin that key too. Recorded, with
        ``reason``, and never undone (a later acceptance is another record)."""
        if self._sql.execute("SELECT 1 FROM journals WHERE table_id = ? AND journal = ?", (table, journal)).fetchone() is None:
            held = ", ".join(j for j, _, _ in self.journals(table)) or "none"
            raise FloorStoreError(f"the floor holds no journal {journal} of table {table} (its journals: {held})")
        self.begin()
        try:
            self._add_link(table, journal, "accepted", reason)
            offered = self._sql.execute("SELECT offered_key, offered_journal FROM table_state WHERE table_id = ?",
                                        (table,)).fetchone()
            if offered is not None and offered[0] and offered[1] == journal and offered[0] != self.pinned_key(table):
                self._pin(table, str(offered[0]), "accepted", reason)
            self.commit()
        except BaseException:
            self.rollback()
            raise

    def current_journal(self, table: str) -> str | None:
        found = self._sql.execute("SELECT journal FROM links WHERE table_id = ? ORDER BY id DESC LIMIT 1",
                                  (table,)).fetchone()
        return None if found is None else str(found[0])

    # -- keys and signed heads --------------------------------------------------------------------

    def pinned_key(self, table: str) -> str | None:
        """The public key ``table``'s word is taken under (base64), or None before the floor knows it."""
        found = self._sql.execute("SELECT key FROM table_keys WHERE table_id = ? ORDER BY id DESC LIMIT 1",
                                  (table,)).fetchone()
        return None if found is None else str(found[0])

    def _pin(self, table: str, key: str, how: str, reason: str | None) -> None:
        self._sql.execute("INSERT INTO table_keys (table_id, key, how, reason, at) VALUES (?, ?, ?, ?, ?)",
                         (table, key, how, reason, now()))
        log.warning("floor: table %s: its key %s pinned (%s%s)", table, key, how, f": {reason}" if reason else "")

    def enroll(self, table: str, key: str, reason: str | None = None) -> bool:
        """``dicetable floor enroll``: pin ``key`` for ``table`` ahead of its first word; another key
        than the one pinned only with a ``reason``. False when it was pinned already."""
        pinned = self.pinned_key(table)
        if pinned == key:
            return False
        if pinned is not None and not reason:
            raise FloorStoreError(f"table {table}'s key is pinned already ({pinned}): give --reason to pin another")
        self.begin()
        try:
            self._pin(table, key, "enrolled", reason)
            self.commit()
        except BaseException:
            self.rollback()
            raise
        return True

    def keys(self) -> dict[str, dict[str, Any]]:
        """Each table's pinned key, how and when it was pinned."""
        return {table: {"key": key, "how": how, "at": at} for table, key, how, at in self._sql.execute(
            "SELECT k.table_id, k.key, k.how, k.at FROM table_keys k JOIN (SELECT table_id, MAX(id) AS id FROM "
            "table_keys GROUP BY table_id) m USING (table_id, id)")}

    def _record_head(self, table: str, journal: str, seq: int, digest: str) -> None:
        """A head of ``journal`` the table signed: the rows up to it are the table's word."""
        self._sql.execute("INSERT INTO heads (table_id, journal, seq, hash) VALUES (?, ?, ?, ?) ON CONFLICT "
                          "(table_id, journal) DO UPDATE SET seq = excluded.seq, hash = excluded.hash "
                          "WHERE excluded.seq > heads.seq", (table, journal, seq, digest))

    def set_status(self, table: str, status: dict[str, Any], *, live: bool) -> Alert | None:
        """Take ``table``'s status. Only a status signed with the table's pinned key (pinned here on
        first sight) is its word: it is kept, counts as the table heard, and a live one (not the
        retained copy a broker hands a new subscriber, which may be older than rows received since)
        is checked against the copy; a signed status no newer than the last one taken is a copy
        sent again, and ignored. Any other status raises ``unsigned`` and is not taken, but for a
        table that has never signed (one not yet upgraded), whose status is shown, never judged.
        An alert on the copy closes it at the status's row; the service then asks the table for
        its whole journal again, so that the first row that differs is named too."""
        journal, seq, head, at = status.get("journal"), status.get("seq"), status.get("head"), status.get("at")
        journal = journal if isinstance(journal, str) else None
        row = seq if isinstance(seq, int) and not isinstance(seq, bool) else None
        key, signature = status.get("key"), status.get("sig")
        pinned = self.pinned_key(table)
        if signature is None or not verify(key, status_material(table, status), signature):
            why = "carries no signature" if signature is None else "carries a signature that does not verify"
            if signature is None and pinned is None:
                self._keep_status(table, status, live, ended=False, signed_at=None)
            return self.raise_alert(table, journal, None, "unsigned",
                                    f"a status of table {table} {why}: not taken as the table's word")
        if pinned is None:
            self._pin(table, str(key), "first sight", None)
        elif key != pinned:
            self._sql.execute("INSERT INTO table_state (table_id, offered_key, offered_journal) VALUES (?, ?, ?) "
                              "ON CONFLICT (table_id) DO UPDATE SET offered_key = excluded.offered_key, "
                              "offered_journal = excluded.offered_journal", (table, key, journal))
            return self.raise_alert(table, journal, None, "unsigned",
                                    f"a status of table {table} signed with key {key}, not the key pinned for it "
                                    f"({pinned}): not taken as the table's word")
        last = self._sql.execute("SELECT signed_at FROM table_state WHERE table_id = ?", (table,)).fetchone()
        if live and last is not None and last[0] and isinstance(at, str) and at <= last[0]:
            log.info("floor: table %s: a signed status of %s, no newer than the last taken (%s): ignored", table,
                     at, last[0])
            return None
        self._keep_status(table, status, live, ended=bool(status.get("end")), signed_at=at if isinstance(at, str) else None)
        if journal is None or row is None or not isinstance(head, str):
            return None
        self._record_head(table, journal, row, head)
        if not live or (table, journal) in self._broken:
            return None
        tail = self._tails.get((table, journal))
        held = self._held(table, journal, row) if tail is not None else None
        fault = status_fault(status, tail, held)
        if fault is None:
            return None
        self._close(table, journal, row)
        return self.raise_alert(table, journal, row, "cut" if tail is not None and row < tail[0] else "rewritten", fault)

    def _keep_status(self, table: str, status: dict[str, Any], live: bool, *, ended: bool, signed_at: str | None) -> None:
        """Keep ``status`` as the table's latest word: heard now when it is live; a retained one (the
        table's last word, handed over by the broker) is heard now only by a floor that never heard it."""
        at = now()
        self._sql.execute(
            "INSERT INTO table_state (table_id, status, status_at, heard_at, ended, signed_at) VALUES (?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (table_id) DO UPDATE SET status = excluded.status, status_at = excluded.status_at, "
            f"heard_at = {'excluded.heard_at' if live else 'COALESCE(table_state.heard_at, excluded.heard_at)'}, "
            "ended = excluded.ended, signed_at = COALESCE(excluded.signed_at, table_state.signed_at)",
            (table, status_payload(status).decode(), at, at, 1 if ended else 0, signed_at))

    def set_online(self, table: str, word: str) -> None:
        online = 1 if word == ONLINE else 0 if word == OFFLINE else None
        self._sql.execute("INSERT INTO table_state (table_id, online, online_at) VALUES (?, ?, ?) ON CONFLICT (table_id) "
                         "DO UPDATE SET online = excluded.online, online_at = excluded.online_at",
                         (table, online, now()))

    # -- alerts ------------------------------------------------------------------------------

    def raise_alert(self, table: str, journal: str | None, seq: int | None, kind: str, message: str, *,
                    paced: bool = True) -> Alert | None:
        """Record an alert; None when the same one (table, journal, row, kind) stands already, or when
        one of its kind from ``table`` was raised within :data:`ALERT_EVERY_S` (``paced``): it is
        counted then, and raised with the others by :meth:`flush_alerts`."""
        clock = self._clock()
        held = self._held_alerts.get((table, kind))
        if paced and held is not None and clock - held.raised_at < ALERT_EVERY_S:
            if self._sql.execute("SELECT 1 FROM alerts WHERE table_id = ? AND COALESCE(journal, '') = ? AND seq = ? "
                                 "AND kind = ?", (table, journal or "", seq, kind)).fetchone() is None:
                held.count, held.journal, held.message = held.count + 1, journal, message
                held.since = held.since or now()
            return None
        alert = self._insert_alert(table, journal, seq, kind, message)
        if alert is not None and paced:
            self._held_alerts[(table, kind)] = _Held(clock)
        return alert

    def flush_alerts(self) -> list[Alert]:
        """Raise, as one alert each, the alerts of a kind from a table counted while their minute ran,
        once it is over (the service calls this every second)."""
        raised = []
        clock = self._clock()
        for (table, kind), held in list(self._held_alerts.items()):
            if clock - held.raised_at < ALERT_EVERY_S:
                continue
            if not held.count:
                del self._held_alerts[(table, kind)]
                continue
            plural = "s" if held.count > 1 else ""
            alert = self._insert_alert(table, held.journal, None, kind,
                                       f"{held.count} more {kind} alert{plural} from table {table} since {held.since}; "
                                       f"the last: {held.message}")
            self._held_alerts[(table, kind)] = _Held(clock)
            if alert is not None:
                raised.append(alert)
        return raised

    def _insert_alert(self, table: str, journal: str | None, seq: int | None, kind: str, message: str) -> Alert | None:
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

    def latest_tails(self) -> dict[str, tuple[str, int, str]]:
        """Each table's journal seen last and its copy's last row: what the floor acknowledges again."""
        found = {}
        for table, journal in self._sql.execute(
                "SELECT j.table_id, j.journal FROM journals j JOIN (SELECT table_id, MAX(seen) AS seen FROM journals "
                "GROUP BY table_id) m USING (table_id, seen)"):
            tail = self._tails.get((table, journal))
            if tail is not None:
                found[table] = (journal, *tail)
        return found

    # -- reading (the service, the page, export and check) -------------------------------------

    def current_journals(self) -> dict[str, str]:
        """Each table's current journal: the last of its line."""
        return {table: journal for table, journal in self._sql.execute(
            "SELECT l.table_id, l.journal FROM links l JOIN (SELECT table_id, MAX(id) AS id FROM links GROUP BY "
            "table_id) m USING (table_id, id) ORDER BY l.table_id")}

    def line(self, table: str) -> list[tuple[str, str, str | None]]:
        """``table``'s line, as it was made: each journal linked, how (``first``, ``next``,
        ``accepted``) and why (an acceptance's reason)."""
        return [(j, how, reason) for j, how, reason in self._sql.execute(
            "SELECT journal, how, reason FROM links WHERE table_id = ? ORDER BY id", (table,))]

    def tables(self) -> list[str]:
        return [t for (t,) in self._sql.execute(
            "SELECT table_id FROM journals UNION SELECT table_id FROM table_state UNION SELECT table_id FROM alerts "
            "UNION SELECT table_id FROM table_keys ORDER BY 1")]

    def journals(self, table: str) -> list[tuple[str, str, int]]:
        """``table``'s journals (id, first row's time, rows held), in the order the floor first saw
        them. Rows held is the copy's last seq: a copy is taken only as an unbroken chain from row 1."""
        return [(j, ts, n or 0) for j, ts, n in self._sql.execute(
            "SELECT j.journal, j.first_ts, (SELECT r.seq FROM journal_rows r WHERE r.table_id = j.table_id AND "
            "r.journal = j.journal ORDER BY r.seq DESC LIMIT 1) FROM journals j WHERE j.table_id = ? "
            "ORDER BY j.seen", (table,))]

    def last_row(self, table: str, journal: str) -> tuple[int, str] | None:
        """The seq and time of the copy's last row of ``journal``."""
        found = self._sql.execute("SELECT seq, ts FROM journal_rows WHERE table_id = ? AND journal = ? ORDER BY seq DESC "
                                 "LIMIT 1", (table, journal)).fetchone()
        return None if found is None else (int(found[0]), str(found[1]))

    def lines(self, table: str, journal: str | None = None, *, since: int = 0, limit: int = -1) -> Iterator[str]:
        """The rows of ``journal`` (``table``'s current one by default) as received, in order: those
        after row ``since``, at most ``limit`` of them (all when it is negative)."""
        journal = journal or self.current_journal(table)
        if journal is None:
            return
        query = "SELECT line FROM journal_rows WHERE table_id = ? AND journal = ? AND seq > ? ORDER BY seq"
        params: tuple[Any, ...] = (table, journal, since)
        if limit >= 0:
            query, params = query + " LIMIT ?", params + (limit,)
        for (line,) in self._sql.execute(query, params):
            yield line

    def last_lines(self, table: str, count: int, journal: str | None = None) -> list[str]:
        """The last ``count`` rows of ``journal`` (``table``'s current one by default), in order."""
        journal = journal or self.current_journal(table)
        if journal is None:
            return []
        found = self._sql.execute("SELECT line FROM journal_rows WHERE table_id = ? AND journal = ? ORDER BY seq DESC LIMIT ?",
                                 (table, journal, count)).fetchall()
        return [line for (line,) in reversed(found)]

    def alerts(self, table: str | None = None) -> list[Alert]:
        """The alerts (of ``table``), oldest first, each saying whether an acceptance answered it."""
        kinds = ", ".join(f"'{kind}'" for kind in ACCEPTED_KINDS)
        query = ("SELECT a.id, a.table_id, a.journal, a.seq, a.kind, a.message, a.raised_at, CASE WHEN a.kind IN "
                 f"({kinds}) AND EXISTS (SELECT 1 FROM links l WHERE l.table_id = a.table_id AND l.how = 'accepted' "
                 "AND l.alerts_upto >= a.id) THEN 1 ELSE 0 END FROM alerts a")
        rows = self._sql.execute(query + (" WHERE a.table_id = ? ORDER BY a.id" if table else " ORDER BY a.id"),
                                (table,) if table else ())
        return [Alert(int(i), t, j, q, k, m, r, accepted=bool(a)) for i, t, j, q, k, m, r, a in rows]

    def states(self) -> dict[str, dict[str, Any]]:
        """Each table's latest status, whether it is online, and when it was last heard, as received."""
        found: dict[str, dict[str, Any]] = {}
        for table, status, status_at, online, online_at, heard_at, ended in self._sql.execute(
                "SELECT table_id, status, status_at, online, online_at, heard_at, ended FROM table_state "
                "ORDER BY table_id"):
            found[table] = {"status": json.loads(status) if status else None, "status_at": status_at,
                            "online": None if online is None else bool(online), "online_at": online_at,
                            "heard_at": heard_at, "ended": bool(ended)}
        return found

    def silent(self, after_s: float, at: datetime | None = None) -> dict[str, str]:
        """The tables silent now (``at``): heard before, not since ``after_s`` seconds, and whose last
        word was not their own clean stop; each with when it was last heard."""
        at = at or datetime.now(timezone.utc)
        return {table: state["heard_at"] for table, state in self.states().items()
                if state["heard_at"] and not state["ended"]
                and (at - datetime.fromisoformat(state["heard_at"])).total_seconds() > after_s}

    def pending(self) -> list[tuple[str, str, int, int]]:
        """The rows of each journal no signed head covers yet (table, journal, first, last): stored and
        exported as they came, but not yet the table's word."""
        heads = {(t, j): (int(s), str(h)) for t, j, s, h in self._sql.execute(
            "SELECT table_id, journal, seq, hash FROM heads")}
        found = []
        for table, journal, last in self._sql.execute(
                "SELECT table_id, journal, MAX(seq) FROM journal_rows GROUP BY table_id, journal ORDER BY 1, 2"):
            head = heads.get((table, journal))
            covered = head[0] if head and head[0] <= last and self._held(table, journal, head[0]) == head[1] else 0
            if covered < last:
                found.append((table, journal, covered + 1, int(last)))
        return found

    def raw_rows(self) -> Iterator[tuple[str, str, int, str, str, str]]:
        """Every row held (table, journal, seq, hash, prev_hash, line), by table, journal and seq."""
        yield from self._sql.execute("SELECT table_id, journal, seq, hash, prev_hash, line FROM journal_rows "
                                    "ORDER BY table_id, journal, seq")

    def lags(self) -> list[tuple[str, str]]:
        """Each row's journal time and the floor's commit time (the bench's lag)."""
        return list(self._sql.execute("SELECT ts, stored_at FROM journal_rows"))
