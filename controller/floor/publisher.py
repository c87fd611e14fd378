"""The table's side of the floor: every committed journal row to the broker, until the floor has it.

Why a thread of its own that reads the journal file: the table's loop must never wait for the
network. The loop only calls :meth:`FloorPublisher.wake` after a commit (setting an event, which
cannot block); this thread reads the committed rows through its own read-only connection, from a
cursor of its own, and publishes them with QoS 1. A broker that is down costs the table nothing:
the rows wait in the journal, where they are anyway.

Delivery is end to end. The broker's PUBACK says only that the broker took a row (a broker restart
without persistence, a queue limit or a floor not yet subscribed can still lose it), so the cursor
(:mod:`controller.floor.cursor`) moves only when the floor acknowledges on its retained topic
``dicetable/floor/ack/<table>``. The publisher sends at most :data:`WINDOW` rows past that
acknowledgement; when none comes for :data:`RESEND_AFTER_S` (doubling while none comes), after every
reconnection, and when the floor asks (``"resend": true``, a gap it saw), it sends again from the
row after the last one acknowledged. The floor knows a row it holds by its seq and hash, so a row sent twice is harmless.

It also keeps the table's retained status topic (game, phase, point, last roll, camera and display
health, and the journal's last row) and its ``online`` topic: ``online`` at each connection, and
``offline`` as the last will the broker publishes when the connection is lost, or on a clean exit.
Every status carries the journal's head signed with the table's key (:mod:`controller.floor.signing`,
made in the state directory at the first start); the last one of a clean exit says so (``end``),
which is how the floor tells a table stopped from a table gone silent. On a clean exit it sends
what is left for up to :data:`DRAIN_S`; what it could not send goes at the next start (the cursor
says from where). Each failure to reach the broker is logged as it happens, once a kind
(:class:`~controller.floor.broker.ReachWatch`), and :meth:`FloorPublisher.unreached_since` says
since when (the pit's page shows it).
"""
from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Any, Callable

from controller.floor.broker import (BrokerSettings, ReachWatch, SessionWatch, connect, describe_takeover,
                                     make_client, table_client_id)
from controller.floor.cursor import Cursor, read_cursor, write_cursor
from controller.floor.signing import SigningError, TableKey, status_material, table_key
from controller.floor.topics import (MAX_BYTES, OFFLINE, ONLINE, Ack, PayloadError, ack_topic, online_topic,
                                     row_topic, status_payload, status_topic)
from controller.journal import Entry, Journal, JournalError, export_line
from controller.journal.store import utc_now

log = logging.getLogger(__name__)

#: Rows sent past the floor's last acknowledgement before waiting for the next one.
WINDOW = 1000
#: Rows read from the journal in one go.
CHUNK = 200
#: With rows sent and no acknowledgement for this long, send again from the last one acknowledged;
#: each such resend with no acknowledgement since doubles the wait, up to :data:`RESEND_MAX_S`, so a
#: floor that is only slow is not buried under the rows it has not reached yet.
RESEND_AFTER_S = 10.0
RESEND_MAX_S = 160.0
#: How long a clean exit waits for the floor to acknowledge what is left.
DRAIN_S = 10.0
#: The status is published at most this often (its last change is always published), and at least
#: this often when nothing changes, so the floor can tell a quiet table from a silent one.
STATUS_EVERY_S = 0.25
STATUS_HEARTBEAT_S = 60.0
#: The cursor file is written at most this often (and at exit).
CURSOR_EVERY_S = 1.0


@dataclass(frozen=True)
class Progress:
    """Where the publisher stands: the journal it sends, its last row, the last row sent and the
    last the floor acknowledged, and whether the broker is connected."""

    journal: str | None
    head: int
    sent: int
    acked: int
    connected: bool


class FloorPublisher:
    """Sends the journal of ``state_dir`` as table ``table_id`` to the broker of ``broker``.

    ``status()`` (called on this publisher's thread) gives the table's status as a dict; the
    journal's id and last row are added. ``client_factory`` makes the paho client (the tests'
    and the bench's are real ones too)."""

    def __init__(self, state_dir: Path | str, table_id: str, broker: BrokerSettings, *,
                 status: Callable[[], dict[str, Any]] | None = None,
                 client_factory: Callable[..., Any] = make_client, clock: Callable[[], float] = time.monotonic):
        self.state_dir = Path(state_dir)
        self.table_id = table_id
        self.broker = broker
        self._status = status
        self._client_factory = client_factory
        self._clock = clock
        self._wake = threading.Event()
        self._lock = threading.Lock()
        self._stopping = False
        self._draining = False
        self._head_seen = False
        self._connected = False
        self._reconnected = False
        self._acks: list[Ack] = []
        self._journal_id: str | None = None
        self._head: tuple[int, str] = (0, "")
        self._sent = 0
        self._acked = 0
        self._progress_at = clock()
        self._resend_after = RESEND_AFTER_S
        self._cursor_saved: Cursor | None = None
        self._cursor_at = 0.0
        self._status_sent: dict[str, Any] | None = None
        self._status_at = 0.0
        self._journal: Journal | None = None
        self._client: Any = None
        self._thread: threading.Thread | None = None
        self._quiet = False  # a journal that cannot be read is logged once per outage
        self._told: set[int] = set()  # rows the floor's copy disagrees with, logged once each
        self._too_large: set[int] = set()  # rows over the floor's limit, logged once each
        self._session = SessionWatch(clock)
        self._reach = ReachWatch(f"table {table_id}", broker)
        self._key: TableKey | None = None

    # -- the table's side: start, wake, close; none of them waits for the network but close ----

    def start(self) -> "FloorPublisher":
        """Take the table's key (made in the state directory if it has none), connect in the
        background and start sending; returns at once. A key that cannot be made or read is logged:
        the rows go all the same, and the floor raises ``unsigned`` at each status."""
        try:
            self._key = table_key(self.state_dir)
        except SigningError as exc:
            log.error("floor: table %s: %s; its statuses go unsigned, which the floor raises as an alert",
                      self.table_id, exc)
        client = self._client_factory(self.broker, table_client_id(self.table_id))
        client.will_set(online_topic(self.table_id), OFFLINE, qos=1, retain=True)
        client.on_connect = self._on_connect
        client.on_connect_fail = self._reach.failed
        client.on_disconnect = self._on_disconnect
        client.on_message = self._on_message
        client.max_queued_messages_set(WINDOW + CHUNK + 10)
        self._client = client
        connect(client, self.broker, persistent=False)
        self._thread = threading.Thread(target=self._run, name=f"floor-{self.table_id}", daemon=True)
        self._thread.start()
        return self

    def wake(self) -> None:
        """Rows were committed or the status changed: look now rather than at the next tick."""
        self._wake.set()

    def progress(self) -> Progress:
        with self._lock:
            return Progress(self._journal_id, self._head[0], self._sent, self._acked, self._connected)

    def unreached_since(self) -> str | None:
        """Since when (UTC) the broker has not been reached, or None while it is."""
        return self._reach.state()

    def close(self, drain_s: float = DRAIN_S) -> bool:
        """Send what is left for up to ``drain_s`` (until the floor acknowledges the journal's last
        row), say ``offline``, and disconnect. True when the floor has every row."""
        deadline = self._clock() + drain_s
        done = False
        with self._lock:
            self._draining = True  # the thread reads the journal's last row once more before saying it is done
            self._head_seen = False
        while True:
            self.wake()
            progress = self.progress()
            with self._lock:
                head_seen = self._head_seen
            done = head_seen and progress.journal is not None and progress.acked >= progress.head
            if done or self._clock() >= deadline or self._thread is None or not self._thread.is_alive():
                break
            time.sleep(0.05)
        with self._lock:
            self._stopping = True
        self.wake()
        if self._thread is not None:
            self._thread.join(timeout=5)
        client = self._client
        if client is not None:
            if self.progress().connected:
                try:
                    client.publish(online_topic(self.table_id), OFFLINE, qos=1, retain=True).wait_for_publish(1.0)
                except (RuntimeError, ValueError):  # the connection went meanwhile: the last will says it
                    pass
            client.disconnect()
            client.loop_stop()
        left = self.progress()
        if not done and left.head > left.acked:
            log.warning("floor: %d rows of table %s not yet acknowledged by the floor (up to row %d); they go at "
                        "the next start", left.head - left.acked, self.table_id, left.head)
        return done

    # -- paho's thread: only flags, then a wake ------------------------------------------------

    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason: Any, properties: Any = None) -> None:
        if getattr(reason, "is_failure", False):
            self._reach.refused(reason)
            return
        self._reach.reached()
        client.subscribe(ack_topic(self.table_id), qos=1)
        client.publish(online_topic(self.table_id), ONLINE, qos=1, retain=True)
        with self._lock:
            self._connected = True
            self._reconnected = True
        self._session.connected()
        log.info("floor: table %s connected to %s", self.table_id, self.broker.url)
        self.wake()

    def _on_disconnect(self, client: Any, userdata: Any, flags: Any, reason: Any, properties: Any = None) -> None:
        with self._lock:
            was, self._connected = self._connected, False
        self._reach.lost()
        kind, times = self._session.lost(reason)
        if kind != SessionWatch.LOST:
            if times:
                also = (" Or a row larger than the broker takes (its max_packet_size), which it closes the connection "
                        "for?" if kind == SessionWatch.FLAPPING else "")
                log.error("floor: table %s: %s: is another table configured with table_id %s? Each table needs its "
                          "own.%s Reconnecting", self.table_id,
                          describe_takeover(kind, self.broker, table_client_id(self.table_id), times), self.table_id,
                          also)
        elif was and not self._stopping:
            log.warning("floor: table %s lost the broker %s (%s); the rows wait in the journal", self.table_id,
                        self.broker.url, reason)

    def _on_message(self, client: Any, userdata: Any, message: Any) -> None:
        try:
            ack = Ack.parse(message.payload)
        except PayloadError as exc:
            log.warning("floor: ignored a message on %s: %s", message.topic, exc)
            return
        with self._lock:
            self._acks.append(ack)
        self.wake()

    # -- this publisher's thread: read the journal, publish, follow the acknowledgements --------

    def _run(self) -> None:
        try:
            while True:
                self._wake.wait(timeout=0.25)
                self._wake.clear()
                with self._lock:
                    stopping, connected = self._stopping, self._connected
                if stopping:
                    if connected and self._journal is not None:
                        self._follow_head()
                        self._publish_status(force=True, end=True)  # the last word on the table, before "offline"
                    break
                try:
                    if self._journal is None:
                        self._open_journal()
                    if self._journal is not None and self._pump():
                        self._wake.set()  # more rows to send within the window: no pause
                    self._quiet = False
                except JournalError as exc:
                    if not self._quiet:
                        log.warning("floor: cannot read the journal of table %s: %s", self.table_id, exc)
                        self._quiet = True
                    self._close_journal()
        except Exception:  # noqa: BLE001 - the table goes on without its floor, and the log says why
            log.exception("floor: the publisher of table %s stopped", self.table_id)
        finally:
            self._save_cursor(force=True)
            self._close_journal()

    def _open_journal(self) -> None:
        """Open the journal read-only, learn its id (its first row's hash) and its last row, and
        take up the cursor kept for it (a cursor of another journal: one archived since)."""
        journal = Journal.open(self.state_dir, readonly=True)
        first = _first(journal)
        if first is None:
            journal.close()
            return
        last = _last(journal)
        cursor = read_cursor(self.state_dir)
        start = 0
        if cursor is not None and cursor.journal == first.hash:
            start = min(cursor.seq, last.seq)
        elif cursor is not None:
            log.info("floor: table %s begins a new journal %s (the floor's cursor was on %s)", self.table_id,
                     first.hash[:12], cursor.journal[:12])
        with self._lock:
            self._journal_id = first.hash
            self._head = (last.seq, last.hash)
            self._sent = self._acked = start
            self._progress_at = self._clock()
        self._journal = journal
        # Written at once, not only at the first acknowledgement: `journal archive` refuses what
        # the floor has not acknowledged, and a table that never reached its floor has a cursor too.
        self._cursor_saved = cursor if cursor is not None and cursor.journal == first.hash else None
        self._save_cursor(force=True)

    def _close_journal(self) -> None:
        if self._journal is not None:
            self._journal.close()
            self._journal = None

    def _pump(self) -> bool:
        """One round: take the acknowledgements in, publish the status if due, send the next rows.
        True when there are more rows to send now."""
        assert self._journal is not None and self._journal_id is not None
        self._take_acks()
        with self._lock:
            connected, reconnected = self._connected, self._reconnected
            self._reconnected = False
            if reconnected:
                self._status_sent = None  # a broker restarted without persistence lost it
            overdue = self._sent > self._acked and self._clock() - self._progress_at > self._resend_after
            if reconnected or overdue:
                self._sent = self._acked  # every row after the last one acknowledged goes again
                self._progress_at = self._clock()
                if overdue:
                    self._resend_after = min(2 * self._resend_after, RESEND_MAX_S)
            sent, limit = self._sent, self._acked + WINDOW
        self._save_cursor()
        rows = self._read(sent, min(CHUNK, limit - sent)) if connected and sent < limit else []
        for entry in rows:
            line = export_line(entry)
            if len(line.encode()) > MAX_BYTES["row"] and entry.seq not in self._too_large:
                self._too_large.add(entry.seq)
                log.error("floor: table %s: row %d is %d bytes, over the %d the floor takes: the floor will refuse it "
                          "with an alert, and take no row after it", self.table_id, entry.seq, len(line.encode()),
                          MAX_BYTES["row"])
            self._client.publish(row_topic(self.table_id, self._journal_id), line, qos=1)
        if not connected:
            self._follow_head()
            return False
        with self._lock:
            if rows:
                if self._sent == self._acked:
                    self._progress_at = self._clock()  # the wait for an acknowledgement starts now
                self._sent = rows[-1].seq
                self._head = max(self._head, (rows[-1].seq, rows[-1].hash))
        with self._lock:
            draining = self._draining
        if len(rows) < CHUNK:
            self._follow_head()
            if draining:
                with self._lock:
                    self._head_seen = True
        self._publish_status()
        with self._lock:
            return bool(rows) and self._sent < min(self._head[0], self._acked + WINDOW)

    def _read(self, since: int, count: int) -> list[Entry]:
        assert self._journal is not None
        reading = self._journal.entries(since)
        try:
            return list(islice(reading, max(0, count)))
        finally:
            _close(reading)

    def _follow_head(self) -> None:
        """Learn the journal's last row (only the rows after the one known are read)."""
        assert self._journal is not None
        last = _last_of(self._journal.entries(self._head[0]))
        if last is not None:
            with self._lock:
                self._head = (last.seq, last.hash)

    def _take_acks(self) -> None:
        """The floor's acknowledgements of this journal: the cursor moves to the floor's word (back
        too: a floor that lost its copy gets every row again), checked against the journal."""
        with self._lock:
            acks, self._acks = self._acks, []
        for ack in acks:
            if ack.journal != self._journal_id:
                continue  # of a journal archived since: the floor keeps it, nothing here to send
            seq = ack.seq
            if seq > self._head[0]:
                self._follow_head()
            if seq > self._head[0]:
                self._tell(seq, "floor: the floor holds row %d of table %s's journal, which now ends at row %d: rows "
                           "were cut off its end", seq, self.table_id, self._head[0])
                seq = self._head[0]
            elif seq and ack.hash is not None:
                mine = self._read(seq - 1, 1)
                if mine and mine[0].hash != ack.hash:
                    self._tell(seq, "floor: row %d of table %s's journal differs from the floor's copy: the journal "
                               "was rewritten after the floor took it; sending it again so the floor names it",
                               seq, self.table_id)
                    seq -= 1
            with self._lock:
                if seq != self._acked or ack.resend:
                    self._progress_at = self._clock()
                    self._resend_after = RESEND_AFTER_S
                if ack.resend or seq < self._acked or self._sent < seq:
                    self._sent = seq  # from the row after the floor's last: asked for, or never sent to it
                self._acked = seq

    def _tell(self, seq: int, message: str, *args: Any) -> None:
        """Log, once for row ``seq``, what the floor's acknowledgement says against the journal (the floor
        acknowledges again with every batch)."""
        if seq not in self._told:
            self._told.add(seq)
            log.error(message, *args)

    def _save_cursor(self, force: bool = False) -> None:
        with self._lock:
            cursor = Cursor(self._journal_id, self._acked) if self._journal_id else None
        if cursor is None or cursor == self._cursor_saved:
            return
        if not force and self._clock() - self._cursor_at < CURSOR_EVERY_S:
            return
        try:
            write_cursor(self.state_dir, cursor)
        except OSError as exc:  # a resend at the next start, no more
            log.warning("floor: cannot write %s's cursor in %s: %s", self.table_id, self.state_dir, exc)
            return
        self._cursor_saved, self._cursor_at = cursor, self._clock()

    def _publish_status(self, force: bool = False, end: bool = False) -> None:
        """The retained status, when it changed (at most every :data:`STATUS_EVERY_S`), after each
        connection, and every :data:`STATUS_HEARTBEAT_S` when nothing changed; signed (the journal's
        head, the time, and ``end`` on the last one of a clean stop)."""
        try:
            status = dict(self._status()) if self._status is not None else {}
        except Exception:  # noqa: BLE001 - a status that cannot be made is logged, the rows still go
            log.exception("floor: cannot make the status of table %s", self.table_id)
            return
        with self._lock:
            status.update(table=self.table_id, journal=self._journal_id, seq=self._head[0], head=self._head[1])
        since = self._clock() - self._status_at
        if not force and (since < STATUS_EVERY_S or (status == self._status_sent and since < STATUS_HEARTBEAT_S)):
            return  # changed again too soon (the next round publishes it), or unchanged and heard lately
        signed = {**status, "at": utc_now(), **({"end": True} if end else {})}
        if self._key is not None:
            signed["key"], signed["sig"] = self._key.sign(status_material(self.table_id, signed))
        self._client.publish(status_topic(self.table_id), status_payload(signed), qos=1, retain=True)
        self._status_sent, self._status_at = status, self._clock()


def _first(journal: Journal) -> Entry | None:
    reading = journal.entries(0)
    try:
        return next(reading, None)
    finally:
        _close(reading)


def _last(journal: Journal) -> Entry:
    """The journal's last row (rows are numbered from 1 without gaps in a journal the chain vouches
    for; in any other the rows after the count are read)."""
    last = _last_of(journal.entries(max(0, len(journal) - 1)))
    assert last is not None
    return last


def _last_of(reading: Iterator[Entry]) -> Entry | None:
    """The last row ``reading`` gives (None for none), the reading closed whatever happens."""
    try:
        found = deque(reading, maxlen=1)
    finally:
        _close(reading)
    return found[0] if found else None


def _close(reading: Iterator[Entry]) -> None:
    """End a reading of the journal now (a generator left open would hold SQLite's read transaction)."""
    close = getattr(reading, "close", None)
    if close is not None:
        close()
