"""``dicetable floor``: subscribe to every table, keep their rows, check their chains, acknowledge.

Why one thread writes: paho's thread only puts each message on a queue (it must not wait on the
disk, or the broker's keep-alive suffers); the store thread takes what has come, judges and stores
it in one transaction, and only then acknowledges, so an acknowledgement is never ahead of the
disk. After each batch every table whose rows came is acknowledged on its retained topic (the
copy's last row of that journal), also for rows it held already: a table whose acknowledgement
was lost (a broker restarted without persistence) learns it again from the duplicates it sends.
A new alert on a table's journal asks it for the whole journal again, so that the first row
that differs from the copy is named, not only the one that showed it.
A row past a gap asks the table to send again from the copy's last row (at most once a second a
table). On each connection the floor acknowledges every table's journal seen last again. Every
second the store thread also raises the alerts held back while their minute ran
(:meth:`~controller.floor.store.FloorStore.flush_alerts`).

A database that cannot be written (a full disk, a server gone) ends the store thread with its
reason (:attr:`FloorService.failure`), before anything more is acknowledged: the floor stops with
that sentence, its copy as it was at the last commit.

The floor's MQTT session is persistent (MQTT 5, resumed at each connection, never expiring), so a
broker that keeps sessions queues the rows that come while the floor is down; a broker that does
not is no loss either, as the tables send again whatever the floor has not acknowledged. A broker
holds one session per client id and gives it to the newest connection, so two floors with one id
would throw each other off for ever: each floor's id is its own by default (:func:`floor_client_id`:
this machine's name and its database), and a session taken over is logged as such.
"""
from __future__ import annotations

import hashlib
import logging
import queue
import re
import socket
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from controller.floor.backends import describe, is_url
from controller.floor.broker import (BrokerSettings, ReachWatch, SessionWatch, connect, describe_takeover,
                                    make_client)
from controller.floor.judge import Verdict
from controller.floor.store import Alert, FloorStore, FloorStoreError
from controller.floor.topics import (FLOOR_SUBSCRIPTIONS, MAX_BYTES, Ack, PayloadError, TableTopic, ack_topic,
                                     parse_status, parse_table_topic, size_limit)

log = logging.getLogger(__name__)

#: Messages taken into one transaction at most.
BATCH = 2000
#: A table is asked to send again at most this often.
RESEND_EVERY_S = 1.0


def floor_client_id(db: Path | str, host: str | None = None) -> str:
    """The floor's client id by default: ``dicetable-floor-HOST-DIGEST``, this machine's name and a
    digest of its database (the file's full path, or the URL without its password). The same floor
    started again has the same id, and resumes its session; another floor, elsewhere or on another
    database, has its own."""
    where = describe(db) if is_url(db) else str(Path(db).resolve())
    name = re.sub(r"[^A-Za-z0-9-]", "-", host if host is not None else socket.gethostname())[:40] or "host"
    return f"dicetable-floor-{name}-{hashlib.sha256(where.encode()).hexdigest()[:8]}"


@dataclass(frozen=True)
class Message:
    """A message as the store thread takes it; one over its topic's :func:`size_limit` comes
    without its payload (``size`` says how large it was)."""

    topic: str
    payload: bytes
    retained: bool
    size: int = 0


class FloorService:
    """The floor: a store at ``db`` fed from the broker of ``broker``. ``on_alert`` is told of
    each new alert (the page pushes them to the browsers)."""

    def __init__(self, db: Path | str, broker: BrokerSettings, *, client_id: str | None = None,
                 client_factory: Callable[..., Any] = make_client,
                 on_alert: Callable[[Alert], None] | None = None, clock: Callable[[], float] = time.monotonic):
        self.db = db  # a file, or a postgresql:// URL
        self.broker = broker
        self.client_id = client_id or floor_client_id(db)
        self._client_factory = client_factory
        self._on_alert = on_alert
        self._clock = clock
        self._inbox: "queue.Queue[Message | None]" = queue.Queue()
        self._client: Any = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._connected = threading.Event()
        self._listening = threading.Event()
        self._subscribe_mid: int | None = None
        self._resent_at: dict[str, float] = {}
        self._reack = threading.Event()
        self._failure: BaseException | None = None
        self._stopping = False
        self._session = SessionWatch(clock)
        self._reach = ReachWatch("floor", broker)
        self._oversized: set[tuple[str, str]] = set()  # (table, kind) whose last message was too large
        self.stored = 0
        """Rows stored since the start (the bench reads it)."""

    def start(self) -> "FloorService":
        """Open the store (raising :class:`FloorStoreError` if it cannot be), then connect and serve."""
        self._thread = threading.Thread(target=self._store_loop, name="floor-store", daemon=True)
        self._thread.start()
        self._ready.wait()
        if self._failure is not None:
            raise self._failure
        client = self._client_factory(self.broker, self.client_id)
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_message = self._on_message
        client.on_subscribe = self._on_subscribe
        client.on_connect_fail = self._reach.failed
        client.max_inflight_messages_set(100)
        self._client = client
        connect(client, self.broker, persistent=True)
        return self

    def wait_connected(self, timeout: float) -> bool:
        return self._connected.wait(timeout)

    def wait_listening(self, timeout: float) -> bool:
        """Whether the floor is connected and the broker has acknowledged its subscriptions within
        ``timeout`` s. Only from then on does a message that is not retained reach this floor; a
        table's rows and status are retained or sent again, a tool's one-off message is not."""
        return self._listening.wait(timeout)

    def stop(self) -> None:
        """Store what has come, then disconnect."""
        self._stopping = True
        if self._client is not None:
            self._client.disconnect()
            self._client.loop_stop()
        self._inbox.put(None)
        if self._thread is not None:
            self._thread.join(timeout=30)

    @property
    def alive(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    @property
    def failure(self) -> str | None:
        """Why the store thread stopped (the database could not be written), or None."""
        return None if self._failure is None else str(self._failure)

    # -- paho's thread -----------------------------------------------------------------------

    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason: Any, properties: Any = None) -> None:
        if getattr(reason, "is_failure", False):
            self._reach.refused(reason)
            return
        self._reach.reached()
        _, self._subscribe_mid = client.subscribe([(topic, 1) for topic in FLOOR_SUBSCRIPTIONS])
        self._connected.set()
        self._session.connected()
        self._reack.set()  # a broker restarted without persistence lost the retained acknowledgements
        self._inbox.put(Message("", b"", False))  # an empty message wakes the store thread to acknowledge
        log.info("floor: connected to %s", self.broker.url)

    def _on_disconnect(self, client: Any, userdata: Any, flags: Any, reason: Any, properties: Any = None) -> None:
        self._reach.lost()
        kind, times = self._session.lost(reason)
        if kind != SessionWatch.LOST:
            if times:
                log.error("floor: %s: another floor with the same --client-id, or this floor started twice? Each "
                          "floor needs its own id; reconnecting",
                          describe_takeover(kind, self.broker, self.client_id, times))
        elif self._connected.is_set() and not self._stopping:
            log.warning("floor: lost the broker %s (%s); reconnecting", self.broker.url, reason)
        self._connected.clear()
        self._listening.clear()

    def _on_subscribe(self, client: Any, userdata: Any, mid: int, reasons: Any, properties: Any = None) -> None:
        if mid != self._subscribe_mid:
            return
        refused = [str(r) for r in reasons if getattr(r, "is_failure", False)]
        if refused:
            log.error("floor: the broker %s refused the floor's subscriptions (%s): check its ACL for the floor's "
                      "login", self.broker.url, ", ".join(refused))
            return
        self._listening.set()

    def _on_message(self, client: Any, userdata: Any, message: Any) -> None:
        payload = bytes(message.payload)
        size = len(payload)
        if size > size_limit(message.topic):
            payload = b""  # refused unread in the store thread; not held meanwhile
        self._inbox.put(Message(message.topic, payload, bool(message.retain), size))

    # -- the store thread --------------------------------------------------------------------

    def _store_loop(self) -> None:
        try:
            store = FloorStore(self.db)
        except FloorStoreError as exc:
            self._failure = exc
            self._ready.set()
            return
        self._ready.set()
        try:
            running = True
            while running:
                batch: list[Message] = []
                try:
                    item: Message | None = self._inbox.get(timeout=1.0)
                except queue.Empty:
                    item = Message("", b"", False)  # a second without a message: the alerts held back are due
                while True:
                    if item is None:
                        running = False
                    elif item.topic:
                        batch.append(item)
                    if len(batch) >= BATCH:
                        break
                    try:
                        item = self._inbox.get_nowait()
                    except queue.Empty:
                        break
                self._take(store, batch)
        except Exception as exc:  # noqa: BLE001 - sqlite3's, psycopg's or the disk's: the floor stops with the reason
            self._failure = FloorStoreError(f"cannot write the floor database {describe(self.db)}: {exc}; it holds "
                                            "every row it acknowledged")
        finally:
            store.close()

    def _take(self, store: FloorStore, batch: list[Message]) -> None:
        acks: dict[str, Ack] = {}
        alerts: list[Alert] = []
        store.begin()
        try:
            for message in batch:
                self._one(store, message, acks, alerts)
            alerts += store.flush_alerts()
            store.commit()
        except BaseException:
            store.rollback()
            raise
        if self._reack.is_set():
            self._reack.clear()
            for table, (journal, seq, digest) in store.latest_tails().items():
                acks.setdefault(table, Ack(journal, seq, digest))
        for table, ack in acks.items():
            self._client.publish(ack_topic(table), ack.payload(), qos=1, retain=True)
        for alert in alerts:
            if self._on_alert is not None:
                self._on_alert(alert)

    def _refuse_oversized(self, store: FloorStore, where: TableTopic, size: int, alerts: list[Alert]) -> None:
        """A table's message over its topic's limit: a row raises an alert (the copy cannot go on
        past a row it never took); a status or online word is logged once, until one fits."""
        what = (f"{'an' if where.kind == 'online' else 'a'} {where.kind} message of {size} bytes, over the "
                f"{MAX_BYTES[where.kind]} the floor takes")
        if where.kind == "row":
            assert where.journal is not None
            alert = store.refuse_unread(where.table, where.journal, "oversized", f"{what}: refused unread")
            if alert is not None:
                alerts.append(alert)
            return
        if (where.table, where.kind) not in self._oversized:
            self._oversized.add((where.table, where.kind))
            log.error("floor: table %s: refused %s, unread (said once until one fits)", where.table, what)

    def _one(self, store: FloorStore, message: Message, acks: dict[str, Ack], alerts: list[Alert]) -> None:
        try:
            where = parse_table_topic(message.topic)
        except PayloadError:
            log.warning("floor: ignored a message on %s", message.topic)
            return
        table = where.table
        if message.size > MAX_BYTES[where.kind]:
            self._refuse_oversized(store, where, message.size, alerts)
            return
        self._oversized.discard((table, where.kind))
        if where.kind == "online":
            store.set_online(table, message.payload.decode("utf-8", errors="replace"))
            return
        if where.kind == "status":
            try:
                status = parse_status(message.payload)
            except PayloadError as exc:
                log.warning("floor: table %s: %s", table, exc)
                return
            alert = store.set_status(table, status, live=not message.retained)
            if alert is not None:
                alerts.append(alert)
                if alert.journal is not None and alert.kind in ("cut", "rewritten"):
                    acks[table] = Ack(alert.journal, 0, None, resend=True)  # every row again: which one differs first?
            return
        assert where.journal is not None
        outcome = store.receive(table, where.journal, message.payload)
        if outcome.alert is not None:
            alerts.append(outcome.alert)
        if outcome.alert is not None and outcome.verdict is Verdict.BREAK:
            # Every row again: the rows before this one are compared, so the first that differs is named.
            acks[table] = Ack(where.journal, 0, None, resend=True)
            return
        tail = store.tail(table, where.journal) or (0, None)
        if outcome.verdict is Verdict.STORE:
            self.stored += 1
        if outcome.verdict in (Verdict.STORE, Verdict.DUPLICATE):
            acks[table] = Ack(where.journal, tail[0], tail[1])
        elif outcome.verdict is Verdict.GAP:
            now = self._clock()
            if now - self._resent_at.get(table, -RESEND_EVERY_S) >= RESEND_EVERY_S:
                self._resent_at[table] = now
                acks[table] = Ack(where.journal, tail[0], tail[1], resend=True)
                log.info("floor: table %s: %s; asked for them again", table, outcome.reason)
