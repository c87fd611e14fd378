"""Serve an ASGI app with uvicorn from a thread of its own, beside whatever the caller runs.

Why a thread and an event loop of its own: the table's loop is plain blocking Python and must not
wait for a browser; the server's loop serves every browser without touching it. The socket is
bound here, before the thread starts, so the caller learns at once whether the address was free:
a port already in use (another program, a second table on one machine) is a warning, and the
table runs on without its console. On loopback it serves plain HTTP; elsewhere it serves TLS with
the certificate and key given (``[console]``), or a reverse proxy on this machine does
(docs/console.md, "On a network").

The connections come in through :class:`~controller.web.gate.Gate`, never through uvicorn's own
accept loop: the server holds no more connections than the descriptor budget measured at its start
(:class:`~controller.web.budget.Budget`) allows, whatever its clients do.
"""
from __future__ import annotations

import asyncio
import logging
import socket
import ssl
import threading
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from controller.web.access import Network, is_loopback
from controller.web.budget import Budget, BudgetError
from controller.web.gate import PROBATION_S, REQUEST_S, Gate, SessionOf

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Listen:
    """Where to listen: ``host`` (an address or ``localhost``) and ``port``."""

    host: str
    port: int

    @property
    def loopback(self) -> bool:
        return is_loopback(self.host)

    def url(self, tls: bool = False, port: int | None = None) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{'https' if tls else 'http'}://{host}:{self.port if port is None else port}/"

    def __str__(self) -> str:
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"


def parse_listen(text: str) -> Listen:
    """``HOST:PORT`` (``127.0.0.1:8080``, ``[::1]:8080``, ``0.0.0.0:8443``) as a :class:`Listen`;
    ``ValueError`` saying what is wrong."""
    if not isinstance(text, str) or ":" not in text:
        raise ValueError(f"{text!r} is not HOST:PORT (such as 127.0.0.1:8080)")
    host, _, port = text.rpartition(":")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    elif ":" in host:
        raise ValueError(f"{text!r}: write an IPv6 address in brackets, as [::1]:8080")
    if not host or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ValueError(f"{text!r} is not HOST:PORT with a port from 0 to 65535")
    return Listen(host, int(port))


def tls_context(certificate: Path | str, key: Path | str) -> ssl.SSLContext:
    """A server TLS context from PEM files; ``ValueError`` naming the file that will not load."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    try:
        context.load_cert_chain(str(certificate), str(key))
    except FileNotFoundError as exc:
        raise ValueError(f"no such file: {exc.filename}") from None
    except (ssl.SSLError, OSError) as exc:
        raise ValueError(f"cannot load the certificate {certificate} with the key {key}: {exc}") from None
    return context


#: Connections the kernel keeps waiting to be accepted: a burst of clients waits there the moment it
#: takes the gate to accept (and answer) them, rather than being turned away unanswered.
BACKLOG = 1024


def bind(listen: Listen) -> socket.socket:
    """A listening socket on ``listen``; ``OSError`` (address in use, not this machine's...) otherwise."""
    infos = socket.getaddrinfo(listen.host, listen.port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if family == socket.AF_INET6:
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        sock.bind(address)
        sock.listen(BACKLOG)
    except OSError:
        sock.close()
        raise
    return sock


def listening(listen: Listen, name: str) -> socket.socket | None:
    """:func:`bind`, or None with a warning in the log naming ``name`` and why (the caller runs on
    without its server)."""
    try:
        return bind(listen)
    except OSError as exc:
        log.warning("%s: cannot listen on %s (%s); running without it", name, listen, exc.strerror or exc)
        return None


class WebServer:
    """An ASGI ``app`` served on ``listen`` from a daemon thread.

    ``on_loop(loop)`` is called in the server's thread once its event loop runs and before the
    first request (the place to bind a :class:`~controller.web.push.Broadcast`); ``on_stop()``
    there when it stops (to end the event streams, which would otherwise hold the shutdown).
    ``session(scope)`` names the login a request carries, for the share of connections reserved to
    logged-in users; ``proxies``, ``streams`` and ``request_s`` are the gate's
    (:class:`~controller.web.gate.Gate`), and ``budget`` its budget (measured at the start when not
    given).
    """

    def __init__(self, app: Any, listen: Listen, *, tls: ssl.SSLContext | None = None,
                 on_loop: Callable[[asyncio.AbstractEventLoop], None] | None = None,
                 on_stop: Callable[[], None] | None = None, name: str = "web", session: SessionOf | None = None,
                 proxies: Iterable[Network] = (), streams: Mapping[str, str] | None = None,
                 budget: Budget | None = None, request_s: float = REQUEST_S):
        self.app = app
        self.listen = listen
        self.tls = tls
        self.on_loop = on_loop
        self.on_stop = on_stop
        self.name = name
        self.session = session
        self.proxies = tuple(proxies)
        self.streams = dict(streams or {})
        self.budget = budget
        self.request_s = request_s
        self.port: int | None = None
        self.gate: Gate | None = None
        self._server: Any = None
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._started = threading.Event()

    @property
    def url(self) -> str:
        return self.listen.url(self.tls is not None, self.port)

    def start(self, timeout: float = 10.0, *, sock: socket.socket | None = None) -> bool:
        """Serve on ``sock`` (bound by :func:`listening`), or bind one now; False (with a warning in
        the log) when the address cannot be had or the file limit leaves no room for connections."""
        import uvicorn

        sock = sock or listening(self.listen, self.name)
        if sock is None:
            return False
        try:
            budget = self.budget or Budget.measure()
        except BudgetError as exc:
            log.warning("%s: %s; running without it", self.name, exc)
            sock.close()
            return False
        self.port = sock.getsockname()[1]
        self.gate = Gate(budget, name=self.name, session=self.session, proxies=self.proxies, streams=self.streams,
                         request_s=self.request_s, probation_s=min(PROBATION_S, self.request_s))
        config = uvicorn.Config(self.gate.app(self.app), http="h11", log_level="error", access_log=False,
                                lifespan="off", proxy_headers=False, server_header=False, date_header=False,
                                timeout_keep_alive=max(1, round(self.request_s)), timeout_graceful_shutdown=2, ws="none")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._run, args=(sock,), name=self.name, daemon=True)
        self._thread.start()
        if not self._started.wait(timeout):
            log.warning("%s: the server did not start within %.0f s", self.name, timeout)
        return True

    def _run(self, sock: socket.socket) -> None:
        async def main() -> None:
            self._loop = asyncio.get_running_loop()
            if self.on_loop is not None:
                self.on_loop(self._loop)
            server = self._server
            gate = self.gate
            assert gate is not None
            server.config.load()
            # No socket of uvicorn's own: the gate accepts, and hands each connection to uvicorn's protocol.
            serving = asyncio.ensure_future(server.serve(sockets=[]))
            try:
                while not server.started and not serving.done():
                    await asyncio.sleep(0.01)
                if server.started:
                    gate.open(sock, lambda state: server.config.http_protocol_class(
                        config=server.config, server_state=server.server_state, app_state=state), self.tls)
                    self._started.set()
                await serving
            finally:
                gate.close()
                self._started.set()

        try:
            asyncio.run(main())
        except Exception:  # noqa: BLE001 - the web server failing must never take the caller down
            log.exception("%s: the server stopped", self.name)
        finally:
            sock.close()

    def stop(self, timeout: float = 5.0) -> None:
        """End the streams, stop serving, and wait for the thread (at most ``timeout``)."""
        if self._server is None or self._thread is None:
            return
        loop = self._loop
        if loop is not None and not loop.is_closed():
            try:
                if self.on_stop is not None:
                    loop.call_soon_threadsafe(self.on_stop)
                if self.gate is not None:
                    loop.call_soon_threadsafe(self.gate.close)
            except RuntimeError:
                pass
        self._server.should_exit = True
        self._thread.join(timeout)
        self._server = None
