"""Where the broker is and how to log in: ``mqtt://HOST:PORT`` or ``mqtts://HOST:PORT`` (TLS),
with a user name and a password file, and the paho client made from that.

Why a password *file*: the password of a table's broker user must not be in the table's
configuration, which operators copy and paste; the file can be readable by the service's
user alone. A URL may carry ``user:password@`` for a bench or the demo.
"""
from __future__ import annotations

import logging
import socket
import ssl
import stat
import sys
import threading
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable
from urllib.parse import unquote, urlsplit

from controller.web.users import loose_mode

log = logging.getLogger(__name__)

SCHEMES = {"mqtt": 1883, "mqtts": 8883}


class BrokerError(ValueError):
    """A broker URL or login that cannot be used; the message says which part and why."""


@dataclass(frozen=True)
class BrokerSettings:
    """A broker to connect to: host, port, TLS, and the login (None: anonymous)."""

    host: str
    port: int
    tls: bool = False
    username: str | None = None
    password: str | None = None
    cafile: str | None = None

    @property
    def url(self) -> str:
        """The URL without its password (for messages and logs)."""
        user = f"{self.username}@" if self.username else ""
        return f"{'mqtts' if self.tls else 'mqtt'}://{user}{self.host}:{self.port}"


def url_problem(url: Any) -> str | None:
    """Why ``url`` is not a broker URL, or None."""
    if not isinstance(url, str):
        return f"must be a string such as \"mqtt://HOST:PORT\" (got {url!r})"
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        return f"{url!r} is not a broker URL: {exc}"
    if parts.scheme not in SCHEMES:
        return f"must start with mqtt:// or mqtts:// (got {url!r})"
    if not parts.hostname:
        return f"names no host (got {url!r}; e.g. \"mqtt://127.0.0.1:1883\")"
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        return f"must be only mqtt[s]://[USER:PASSWORD@]HOST[:PORT] (got {url!r})"
    if port == 0:
        return f"port 0 is no port (got {url!r})"
    return None


def parse_broker(url: str, *, username: str | None = None, password_file: str | Path | None = None,
                 cafile: str | Path | None = None) -> BrokerSettings:
    """The settings of ``url``; a login given apart (``username``, ``password_file``) replaces
    one in the URL. :class:`BrokerError` names what is wrong."""
    problem = url_problem(url)
    if problem:
        raise BrokerError(problem)
    parts = urlsplit(url)
    user = username or (unquote(parts.username) if parts.username else None)
    password = unquote(parts.password) if parts.password else None
    if password_file:
        try:
            mode = stat.S_IMODE(Path(password_file).stat().st_mode)
            password = Path(password_file).read_text(encoding="utf-8").rstrip("\r\n")
        except (OSError, UnicodeError) as exc:
            raise BrokerError(f"cannot read the broker password file {password_file}: {exc}") from None
        loose = loose_mode(mode)  # the console's users file's rule: a secret others may read is none
        if loose:
            raise BrokerError(f"the broker password file {password_file} is not private: {loose} "
                              f"(mode {mode:04o}): chmod 0640 {password_file}")
        if not password:  # the broker would only say "not authorized", again and again
            raise BrokerError(f"the broker password file {password_file} is empty: it holds the password alone")
    if password is not None and not user:
        raise BrokerError("a broker password needs a user name")
    if cafile and not Path(cafile).is_file():
        raise BrokerError(f"no such CA file: {cafile}")
    assert parts.hostname is not None  # url_problem refused a URL without one
    return BrokerSettings(parts.hostname, parts.port or SCHEMES[parts.scheme], parts.scheme == "mqtts", user,
                          password, str(cafile) if cafile else None)


#: MQTT 5's reason code when the broker ends a session because a newer connection took its client id.
SESSION_TAKEN_OVER = 142
#: A persistent session's expiry (MQTT 5): never, as MQTT 3.1.1's ``clean_session`` false was.
SESSION_KEPT_S = 0xFFFFFFFF


def make_client(settings: BrokerSettings, client_id: str) -> Any:
    """A paho client for ``settings`` (login and TLS set, not yet connected: :func:`connect`),
    reconnecting by itself with a delay from 1 s up to 30 s. It speaks MQTT 5, whose broker says
    why it ends a connection: above all that another client took this one's id
    (:func:`taken_over`), which MQTT 3.1.1 shows only as a connection closed."""
    import paho.mqtt.client as mqtt

    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv5)
    if settings.username:
        client.username_pw_set(settings.username, settings.password)
    if settings.tls:
        client.tls_set(ca_certs=settings.cafile, cert_reqs=ssl.CERT_REQUIRED, tls_version=ssl.PROTOCOL_TLS_CLIENT)
    client.reconnect_delay_set(min_delay=1, max_delay=30)
    return client


def connect(client: Any, settings: BrokerSettings, *, persistent: bool) -> None:
    """Connect ``client`` in the background (paho's own thread, which reconnects). A ``persistent``
    session (the floor's) is resumed at each connection and kept by the broker while the client is
    away; any other starts clean and ends with the connection (a table's)."""
    from paho.mqtt.packettypes import PacketTypes
    from paho.mqtt.properties import Properties

    properties = Properties(PacketTypes.CONNECT)
    if persistent:
        properties.SessionExpiryInterval = SESSION_KEPT_S
    client.connect_async(settings.host, settings.port, keepalive=30, clean_start=not persistent,
                         properties=properties)
    client.loop_start()


def taken_over(reason: Any) -> bool:
    """Whether a disconnection's ``reason`` says another client connected with this one's id."""
    return getattr(reason, "value", None) == SESSION_TAKEN_OVER


def table_client_id(table_id: str) -> str:
    """A table's client id: a name space of its own (``dicetable-table-``), so that no table id can
    be a floor's (``dicetable-floor-...``) or another table's."""
    return f"dicetable-table-{table_id}"


class SessionWatch:
    """Tells a session taken over from a connection merely lost, and says when to log it.

    A broker gives a client id's session to the newest connection and closes the older one; when
    both clients reconnect by themselves they throw each other off about once a second for ever.
    An MQTT 5 broker says so (:func:`taken_over`: Mosquitto from 2.0.15); an older one (Debian's
    and Raspberry Pi OS's 2.0.11) only closes the connection, which looks like any lost one. So a
    connection closed :data:`times` times within ``window_s``, each within ``short_s`` of the
    broker accepting it, is taken for the same: a broker that restarted, or a network that failed,
    does not accept again at once only to close again. Either is said at once the first time, then
    at most once every ``every_s`` with how many came meanwhile."""

    TAKEN = "taken over"
    FLAPPING = "closed again and again"
    LOST = "lost"

    def __init__(self, clock: Callable[[], float], *, short_s: float = 10.0, window_s: float = 60.0,
                 times: int = 3, every_s: float = 60.0):
        self.clock, self.short_s, self.window_s, self.times, self.every_s = clock, short_s, window_s, times, every_s
        self._connected_at: float | None = None
        self._short: list[float] = []
        self._said_at: float | None = None
        self._unsaid = 0

    def connected(self) -> None:
        self._connected_at = self.clock()

    def lost(self, reason: Any) -> tuple[str, int]:
        """What a disconnection for ``reason`` was (:data:`TAKEN`, :data:`FLAPPING` or :data:`LOST`)
        and, for the first two, the count to say now, or 0 to say nothing yet: the sessions taken over
        since the last message, or the connections closed within ``window_s``."""
        now = self.clock()
        lasted = None if self._connected_at is None else now - self._connected_at
        self._connected_at = None
        if lasted is not None and lasted < self.short_s:
            self._short = [t for t in self._short if now - t < self.window_s] + [now]
        if taken_over(reason):
            return self.TAKEN, self._count(now)
        if lasted is not None and lasted < self.short_s and len(self._short) >= self.times:
            return self.FLAPPING, len(self._short) if self._count(now) else 0
        return self.LOST, 1

    def _count(self, now: float) -> int:
        self._unsaid += 1
        if self._said_at is not None and now - self._said_at < self.every_s:
            return 0
        self._said_at, said, self._unsaid = now, self._unsaid, 0
        return said


def describe_takeover(kind: str, broker: BrokerSettings, client_id: str, times: int) -> str:
    """The first half of the log line for a session taken over (:class:`SessionWatch`), naming the id."""
    if kind == SessionWatch.TAKEN:
        return (f"the broker {broker.url} gave the session of client id {client_id} to another client that connected "
                f"with the same id ({times} time{'' if times == 1 else 's since the last message'})")
    return (f"the broker {broker.url} closed the connection {times} times within a minute, each within seconds of "
            f"accepting it: most likely another client connects with the same client id {client_id}, and the broker "
            f"gives the session to the newest")


#: MQTT 5's reason codes of a login refused (3.1.1's 4 and 5 arrive as these too).
LOGIN_REFUSED = (134, 135)


def unreached(exc: BaseException | None, broker: BrokerSettings) -> tuple[str, str]:
    """The kind of a failure to reach ``broker`` (``DNS``, ``refused``, ``TLS``, ``unreachable``)
    and what it was, in words, from the exception a connection attempt raised."""
    where = f"{broker.host}:{broker.port}"
    if isinstance(exc, socket.gaierror):
        return "DNS", f"the name {broker.host} cannot be resolved ({exc.strerror or exc})"
    if isinstance(exc, ConnectionRefusedError):
        return "refused", f"nothing listens at {where} (connection refused)"
    if isinstance(exc, ssl.SSLCertVerificationError):
        return "TLS", f"TLS: the broker's certificate is refused ({exc.verify_message or exc})"
    if isinstance(exc, ssl.SSLError):
        return "TLS", f"TLS: {exc.reason or exc}"
    if isinstance(exc, TimeoutError):
        return "unreachable", f"{where} does not answer (timed out)"
    if isinstance(exc, OSError):
        return "unreachable", f"{where} cannot be reached ({exc.strerror or exc})"
    return "unreachable", f"{where} cannot be reached ({exc or 'no reason given'})"


def refusal(reason: Any) -> tuple[str, str]:
    """The kind of a connection the broker refused (``login``, or ``refused``) and what it said."""
    if getattr(reason, "value", None) in LOGIN_REFUSED:
        return "login", f"the broker refused the login ({reason}): check the user name and the password file"
    return "refused", f"the broker refused the connection ({reason})"


def _utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class ReachWatch:
    """Whether a client (``who``: "floor", or "table ID") reaches its broker, and since when not.

    Why: a broker that cannot be reached costs the table nothing, so nothing else would show it; a
    TLS mistake or a wrong password would go unseen for days. Each failure is logged as it happens
    (the first attempt is at once, the next within 30 s), once for each kind (name service,
    connection refused, TLS, login) until the kind changes or the broker is reached; :meth:`state`
    says since when it has not been reached (the pit's page shows it)."""

    def __init__(self, who: str, broker: BrokerSettings, clock: Callable[[], str] = _utc_now):
        self.who, self.broker, self._clock = who, broker, clock
        self._lock = threading.Lock()
        self._since: str | None = clock()
        self._said: str | None = None

    def failed(self, client: Any = None, userdata: Any = None) -> None:
        """paho's ``on_connect_fail``: called while the attempt's exception is being handled."""
        self._say(*unreached(sys.exc_info()[1], self.broker))

    def refused(self, reason: Any) -> None:
        """The broker answered the connection with a refusal (``reason``: its reason code)."""
        self._say(*refusal(reason))

    def _say(self, kind: str, text: str) -> None:
        with self._lock:
            said, self._said = self._said, kind
        if said != kind:
            log.warning("floor: %s cannot reach the broker %s: %s (said once until it changes)", self.who,
                        self.broker.url, text)

    def reached(self) -> None:
        with self._lock:
            said, self._said, self._since = self._said, None, None
        if said is not None:
            log.warning("floor: %s reached the broker %s", self.who, self.broker.url)

    def lost(self) -> None:
        with self._lock:
            if self._since is None:
                self._since = self._clock()

    def state(self) -> str | None:
        """Since when the broker has not been reached (UTC), or None while it is."""
        with self._lock:
            return self._since


def probe(settings: BrokerSettings, client_id: str, timeout: float = 10.0) -> str | None:
    """Connect to the broker of ``settings`` and log in, within ``timeout`` seconds: None when it
    answers yes, otherwise one sentence saying why not (``run --check``)."""
    import time

    answer: dict[str, Any] = {}
    done = threading.Event()
    client = make_client(settings, client_id)
    client.reconnect_delay_set(min_delay=timeout, max_delay=timeout)  # one attempt

    def on_connect(client: Any, userdata: Any, flags: Any, reason: Any, properties: Any = None) -> None:
        answer["reason"] = reason
        done.set()

    def on_fail(client: Any, userdata: Any) -> None:
        answer["failed"] = sys.exc_info()[1]
        done.set()

    client.on_connect, client.on_connect_fail = on_connect, on_fail
    deadline = time.monotonic() + timeout
    try:
        client.connect_async(settings.host, settings.port, keepalive=30)
        client.loop_start()
        done.wait(max(0.0, deadline - time.monotonic()))
    finally:
        client.disconnect()
        client.loop_stop()
    if "failed" in answer:
        return unreached(answer["failed"], settings)[1]
    if "reason" not in answer:
        return f"{settings.host}:{settings.port} did not answer within {timeout:g} s"
    if getattr(answer["reason"], "is_failure", False):
        return refusal(answer["reason"])[1]
    return None


@dataclass(frozen=True)
class FloorLink:
    """A table's ``[floor]``: which table it is on the floor, and the broker it publishes to."""

    table_id: str
    broker: BrokerSettings


#: The keys of a table's ``[floor]`` section.
FLOOR_KEYS = ("broker", "table_id", "username", "password_file", "cafile")


def floor_link(section: dict[str, Any], base: Path) -> tuple[FloorLink | None, list[tuple[str, str]]]:
    """A table's ``[floor]`` (files relative to ``base``, the configuration's folder) as a
    :class:`FloorLink`, or None when no broker is named; with every problem by its dotted key."""
    from controller.floor.topics import table_id_problem

    problems: list[tuple[str, str]] = []
    for key in FLOOR_KEYS:
        if not isinstance(section.get(key, ""), str):
            problems.append((f"floor.{key}", f"must be a string (got {section[key]!r})"))
    if problems:
        return None, problems
    url, table_id = section.get("broker", ""), section.get("table_id", "")
    if not url:
        named = [key for key in FLOOR_KEYS if section.get(key)]
        return None, [(f"floor.{key}", "needs floor.broker") for key in named]
    problem = url_problem(url)
    if problem:
        problems.append(("floor.broker", problem))
    problem = table_id_problem(table_id) if table_id else "must name this table on the floor (floor.broker is set)"
    if problem:
        problems.append(("floor.table_id", problem))
    files = {key: base / section[key] for key in ("password_file", "cafile") if section.get(key)}
    for key, path in files.items():
        if not path.is_file():
            problems.append((f"floor.{key}", f"no such file: {path}"))
    if files.get("cafile") and not url.startswith("mqtts://"):
        problems.append(("floor.cafile", "is for a TLS broker (mqtts://)"))
    if files.get("password_file") and not section.get("username"):
        problems.append(("floor.password_file", "needs floor.username"))
    if problems:
        return None, problems
    try:
        broker = parse_broker(url, username=section.get("username") or None, password_file=files.get("password_file"),
                              cafile=files.get("cafile"))
    except BrokerError as exc:
        return None, [("floor.broker", str(exc))]
    return FloorLink(table_id, broker), []
