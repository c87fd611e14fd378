"""The door of a web server in the table's process: its own accept loop, a deadline on every
request, and admission within the descriptor budget (:mod:`controller.web.budget`), so that no
client can take from the table the descriptors its journal, camera and devices need.

Why its own accept loop: asyncio's accepts as many connections as wait, whatever they cost, and
when the process is out of descriptors it logs a traceback at every try. Here a connection is
accepted only while the budget has room for it (:meth:`Pools.entry`); otherwise the listening
socket is left unread until one closes, which the deadlines below make a matter of seconds. Out
of descriptors all the same (something else took them), it waits half a second, counts it, and
says so in the minute's summary: never a traceback.

Each accepted connection is wrapped (:class:`_Guard`) around uvicorn's own protocol, and each
request passes :class:`_Admission` first, which decides, as the request's head comes in, where the
connection belongs (:class:`~controller.web.pools.Pools`):

- a request with a valid login is served from the share reserved for logged-in users;
- one without is held to the caps on connections without a login (in all, per client, event
  streams per kind), and is its connection's last (``Connection: close``), so that a connection's
  share is decided once;
- a connection must send its whole request within :data:`REQUEST_S` (a keep-alive one its next
  request, each part of a body too); one that arrived while the waiting share was full has
  :data:`PROBATION_S`. When both shares are full, the connection that has waited longest without
  sending a byte (:data:`SILENT_S` at least) is answered and let go to make room: a client that
  means to ask something asks at once, and a flood of silent sockets must not keep the next
  client waiting in the kernel's queue.

Every client refused gets a 503 with ``Retry-After`` at once, never a reset, and the refusals are
counted in one line of the log a minute (:class:`~controller.web.pools.Tally`).
"""
from __future__ import annotations

import asyncio
import errno
import json
import logging
import socket
import ssl
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from controller.web.access import Network, client_address
from controller.web.budget import Budget
from controller.web.headers import HEADERS
from controller.web.pools import Connection, Pools, Refusal, Stage, Tally

log = logging.getLogger(__name__)

#: Where a request's scope carries its connection (``scope["state"]``, set per connection).
CONNECTION = "dicetable.connection"
#: Seconds a connection has to send its whole request, and each part of its body.
REQUEST_S = 5.0
#: Seconds a connection accepted on probation has to send its request.
PROBATION_S = 1.0
#: Seconds a connection must have sent nothing before it may be let go to make room for another.
SILENT_S = 0.25
#: The ``Retry-After`` of every 503 (seconds).
RETRY_AFTER_S = 5
#: Seconds between two summaries of the refusals in the log.
SUMMARY_S = 60.0
#: Seconds the accept loop waits after the process found no descriptor (or the accept failed).
PAUSE_S = 0.5
#: Connections accepted in one turn of the event loop, so that the others still get theirs.
ACCEPT_BATCH = 64
#: Accept errors that concern one client only (it went away): the next is accepted at once.
_ONE_CLIENT = {errno.ECONNABORTED, errno.EPROTO, errno.EPERM, errno.ENETDOWN, errno.ENETUNREACH,
               errno.EHOSTDOWN, errno.EHOSTUNREACH, errno.ENOPROTOOPT, errno.EOPNOTSUPP}

SessionOf = Callable[[Scope], "str | None"]
ProtocolFactory = Callable[[dict[str, Any]], asyncio.Protocol]


def refusal_head(reason: str, retry_after_s: int) -> tuple[list[tuple[bytes, bytes]], bytes]:
    """The headers and the body of a 503: ``{"reason"}``, ``Retry-After``, ``Connection: close``
    and the security headers every answer carries."""
    body = json.dumps({"reason": reason}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
               (b"retry-after", str(retry_after_s).encode()), (b"connection", b"close"), *HEADERS]
    return headers, body


def refusal_bytes(reason: str, retry_after_s: int) -> bytes:
    """A whole 503 answer as written to a socket whose request never came (whole)."""
    headers, body = refusal_head(reason, retry_after_s)
    return (b"HTTP/1.1 503 Service Unavailable\r\n" + b"".join(k + b": " + v + b"\r\n" for k, v in headers)
            + b"\r\n" + body)


class Gate:
    """Admission of ``budget``'s connections to a server named ``name`` (in the log).

    ``session(scope)`` says which login a request carries (None: none); the client of a request is
    its peer, or behind one of the trusted ``proxies`` the client it names (as for the login rate
    limit); ``streams`` maps the paths of event streams to their kind (``{"/api/board/events":
    "board"}``)."""

    def __init__(self, budget: Budget, *, name: str = "web", session: SessionOf | None = None,
                 proxies: Iterable[Network] = (), streams: Mapping[str, str] | None = None,
                 request_s: float = REQUEST_S, probation_s: float = PROBATION_S, retry_after_s: int = RETRY_AFTER_S):
        self.budget = budget
        self.name = name
        self.session = session
        self.proxies = tuple(proxies)
        self.streams = dict(streams or {})
        self.request_s, self.probation_s, self.retry_after_s = request_s, probation_s, retry_after_s
        self.pools = Pools(budget)
        self.tally = Tally()
        self.failed_accepts: Counter[str] = Counter()
        self._silent = refusal_bytes(Refusal.SILENT.value, retry_after_s)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._listener: socket.socket | None = None
        self._protocol: ProtocolFactory | None = None
        self._tls: ssl.SSLContext | None = None
        self._reading = False
        self._paused: asyncio.TimerHandle | None = None
        self._summary: asyncio.TimerHandle | None = None
        self._waiting: dict[_Guard, None] = {}
        """The connections waiting for their first request, the longest waiting first."""

    def app(self, app: ASGIApp) -> ASGIApp:
        """``app`` behind the admission of each request."""
        return _Admission(app, self)

    # --- the accept loop (the server's event loop) --------------------------------------------

    def open(self, listener: socket.socket, protocol: ProtocolFactory, tls: ssl.SSLContext | None = None) -> None:
        """Accept on ``listener`` from now on; ``protocol(state)`` makes the HTTP protocol of one
        connection, whose requests' scopes carry ``state`` (holding the connection)."""
        self._loop = asyncio.get_running_loop()
        self._listener, self._protocol, self._tls = listener, protocol, tls
        listener.setblocking(False)
        log.info("%s: %s", self.name, self.budget)
        self._read()
        self._summary = self._loop.call_later(SUMMARY_S, self._summarise)

    def close(self) -> None:
        """Accept no more (the server stops); the last summary goes to the log."""
        self._unread()
        for handle in (self._paused, self._summary):
            if handle is not None:
                handle.cancel()
        self._paused = self._summary = None
        self._listener = None
        self._log_summary("since the last count")

    def _read(self) -> None:
        if not self._reading and self._listener is not None and self._loop is not None and self._paused is None:
            self._loop.add_reader(self._listener.fileno(), self._accept)
            self._reading = True

    def _unread(self) -> None:
        if self._reading and self._listener is not None and self._loop is not None:
            self._loop.remove_reader(self._listener.fileno())
        self._reading = False

    def _pause(self) -> None:
        """Accept nothing for :data:`PAUSE_S`."""
        assert self._loop is not None
        self._unread()
        if self._paused is None:
            self._paused = self._loop.call_later(PAUSE_S, self._unpause)

    def _unpause(self) -> None:
        self._paused = None
        self._read()

    def _accept(self) -> None:
        listener = self._listener
        if listener is None:
            return
        waits = True  # the listening socket was readable: a connection waits to be accepted
        for _ in range(ACCEPT_BATCH):
            if self.pools.entry() is None:
                if not waits:
                    return  # called again at once if another waits (the reader is level-triggered)
                if not self._let_go_silent():
                    self._unread()  # until a connection leaves its stage (_room)
                    return
            try:
                sock, address = listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as exc:
                if exc.errno in _ONE_CLIENT:
                    continue
                self.failed_accepts[exc.strerror or str(exc)] += 1  # out of descriptors, most likely
                self._pause()
                return
            waits = False
            connection = self.pools.enter(str(address[0]) if isinstance(address, tuple) else "local")
            assert connection is not None  # entry() had room, and nothing ran since
            guard = _Guard(self, connection)
            self._serve(sock, guard)

    def _serve(self, sock: socket.socket, guard: _Guard) -> None:
        assert self._loop is not None and self._protocol is not None
        sock.setblocking(False)
        guard.inner = self._protocol({CONNECTION: guard})
        handshake = self.probation_s if guard.connection.stage is Stage.PROBATION else self.request_s
        connecting = self._loop.create_task(self._loop.connect_accepted_socket(
            lambda: guard, sock, ssl=self._tls, ssl_handshake_timeout=handshake if self._tls else None))
        connecting.add_done_callback(lambda task: self._connected(task, sock, guard))

    def _connected(self, task: asyncio.Task[Any], sock: socket.socket, guard: _Guard) -> None:
        """A connection that never came up (a TLS handshake that failed or took too long) is let go."""
        if task.cancelled() or task.exception() is not None:
            sock.close()
            self._lost(guard)

    def _let_go_silent(self) -> bool:
        """Answer and let go the connection waiting longest without a byte, if one has waited
        :data:`SILENT_S`: whether that made room for another."""
        if self.pools.held >= self.budget.connections or self._loop is None:
            return False
        now = self._loop.time()
        for guard in self._waiting:
            if guard.partial:
                continue
            if now - guard.since < SILENT_S:
                return False
            self._late(guard, False)
            return self.pools.entry() is not None
        return False

    def _room(self) -> None:
        """A connection left its stage: accept again if the accepting had stopped for want of room."""
        if not self._reading and self.pools.entry() is not None:
            self._read()

    # --- one connection ----------------------------------------------------------------------

    def _wait(self, guard: _Guard) -> None:
        """Give ``guard``'s connection its time to send a whole request."""
        assert self._loop is not None
        guard.stop_clock()
        stage = guard.connection.stage
        seconds = self.probation_s if stage is Stage.PROBATION else self.request_s
        guard.timer = self._loop.call_later(seconds, self._late, guard, False)
        if stage in (Stage.WAITING, Stage.PROBATION):
            guard.since = self._loop.time()
            self._waiting[guard] = None

    def _late(self, guard: _Guard, stalled: bool) -> None:
        """``guard``'s request (or part of its body, when ``stalled``) did not come in time: a 503,
        unless it is a keep-alive connection that simply sent nothing more, which is just closed."""
        guard.timer = None
        self._waiting.pop(guard, None)
        transport = guard.transport
        if transport is None or transport.is_closing():
            return
        connection = guard.connection
        if not guard.responding and (stalled or guard.partial or connection.stage in (Stage.WAITING, Stage.PROBATION)):
            self.tally.add(Refusal.SILENT, connection.client or connection.peer)
            self.pools.refuse(connection)
            self._room()
            transport.write(self._silent)
        transport.close()

    def _begun(self, guard: _Guard) -> None:
        """A whole request head came: its clock stops; the body has its own (:meth:`_deadline`)."""
        guard.stop_clock()
        guard.partial = False
        self._waiting.pop(guard, None)

    def _finished(self, guard: _Guard) -> None:
        """The answer was sent: a connection kept alive has its time again for the next request."""
        guard.responding = False
        if guard.transport is not None and not guard.transport.is_closing():
            self._wait(guard)

    def _lost(self, guard: _Guard) -> None:
        guard.stop_clock()
        self._waiting.pop(guard, None)
        self.pools.release(guard.connection)
        self._room()

    def _deadline(self, guard: _Guard, receive: Receive) -> Receive:
        """``receive``, where each part of the request's body must come within :data:`REQUEST_S`."""
        whole = False

        async def receive_in_time() -> Message:
            nonlocal whole
            if whole:
                return await receive()
            try:
                message = await asyncio.wait_for(receive(), self.request_s)
            except TimeoutError:
                self._late(guard, True)
                return {"type": "http.disconnect"}
            whole = message["type"] != "http.request" or not message.get("more_body", False)
            return message

        return receive_in_time

    def _tracked(self, guard: _Guard, send: Send, last: bool) -> Send:
        """``send``, noting when the answer starts and ends; a ``last`` answer closes its connection."""

        async def send_tracked(message: Message) -> None:
            if message["type"] == "http.response.start":
                guard.responding = True
                if last:
                    message = {**message, "headers": [*message.get("headers", []), (b"connection", b"close")]}
            await send(message)
            if message["type"] == "http.response.body" and not message.get("more_body", False):
                self._finished(guard)

        return send_tracked

    # --- the log -----------------------------------------------------------------------------

    def _summarise(self) -> None:
        self._log_summary("in the last minute")
        if self._loop is not None and self._listener is not None:
            self._summary = self._loop.call_later(SUMMARY_S, self._summarise)

    def _log_summary(self, when: str) -> None:
        parts = []
        refused = self.tally.summary(silent_s=self.request_s)
        if refused:
            parts.append(refused)
        if self.failed_accepts:
            parts.append("stopped accepting for a moment " + ", ".join(
                f"{count} time{'s' if count != 1 else ''} ({why})" for why, count in self.failed_accepts.most_common()))
            self.failed_accepts = Counter()
        if parts:
            log.warning("%s: %s %s; at most %d connections held of %d", self.name, when, "; ".join(parts),
                        self.pools.peak, self.budget.connections)
            self.pools.peak = self.pools.held


class _Guard(asyncio.Protocol):
    """One connection's protocol: uvicorn's (``inner``), watched for the gate."""

    def __init__(self, gate: Gate, connection: Connection):
        self.gate = gate
        self.connection = connection
        self.inner: asyncio.Protocol = asyncio.Protocol()
        self.transport: asyncio.Transport | None = None
        self.timer: asyncio.TimerHandle | None = None
        self.since = 0.0
        """When it began to wait for its first request (the event loop's clock)."""
        self.partial = False
        """Bytes came since the last request began (a request under way)."""
        self.responding = False

    def stop_clock(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        self.gate._wait(self)
        self.inner.connection_made(transport)

    def data_received(self, data: bytes) -> None:
        self.partial = True
        self.inner.data_received(data)

    def eof_received(self) -> bool | None:
        return self.inner.eof_received()

    def connection_lost(self, exc: Exception | None) -> None:
        self.gate._lost(self)
        self.inner.connection_lost(exc)

    def pause_writing(self) -> None:
        self.inner.pause_writing()

    def resume_writing(self) -> None:
        self.inner.resume_writing()


class _Admission:
    """ASGI middleware: each request is admitted to its connection's share, or answered 503."""

    def __init__(self, app: ASGIApp, gate: Gate):
        self.app = app
        self.gate = gate

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        state = scope.get("state") if scope["type"] == "http" else None
        guard = state.get(CONNECTION) if isinstance(state, dict) else None
        if not isinstance(guard, _Guard):  # not through the gate (an app served otherwise, a test's client)
            await self.app(scope, receive, send)
            return
        gate = self.gate
        gate._begun(guard)
        session = gate.session(scope) if gate.session is not None else None
        connection = guard.connection
        if connection.stage in (Stage.WAITING, Stage.PROBATION):
            client = client_address(scope, gate.proxies)
            stream = gate.streams.get(scope["path"]) if scope["method"] in ("GET", "HEAD") else None
            refusal = gate.pools.admit(connection, session=session, client=client, stream=stream)
            gate._room()
            if refusal is not None:
                gate.tally.add(refusal, client)
                headers, body = refusal_head(refusal.value, gate.retry_after_s)
                guard.responding = True
                await send({"type": "http.response.start", "status": 503, "headers": headers})
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, gate._deadline(guard, receive), gate._tracked(guard, send, last=session is None))
