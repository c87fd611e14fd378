"""Starting the console beside a table: the demo's, or a configured table's.

The server runs in a thread of its own (:class:`~controller.web.serve.WebServer`); a table is
attached to it with a :class:`~controller.console.link.TableLink` made in the table's thread.
Nothing here can stop a table: an address that cannot be had, or a certificate that will not load,
is said on standard error and the table runs without its console.
"""
from __future__ import annotations

import queue
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from controller.table_controller import TableController
from controller.console.app import STREAMS, Console, build_app, cookie_name
from controller.console.link import Health, TableLink
from controller.web.access import Network
from controller.web.hosts import HostNames
from controller.web.serve import Listen, WebServer, listening, tls_context
from controller.web.settings import WebSettings
from controller.web.users import StaticUsers, Users, UsersFile

#: Where the demo's console listens.
DEMO_LISTEN = Listen("127.0.0.1", 8080)
#: The demo's logins (only ever on loopback): name -> (role, password).
DEMO_LOGINS = {"dealer": ("dealer", "dealer"), "pit": ("pit", "pit")}


@dataclass
class RunningConsole:
    console: Console
    server: WebServer

    @property
    def url(self) -> str:
        return self.server.url

    def attach(self, controller: TableController, inputs: queue.Queue[Any], *, frames_dir: Path | None,
               health: Health | None = None, verify_every_s: float | None = 600.0) -> TableLink:
        """Serve ``controller``'s table; call it in the table's thread, before it takes inputs."""
        link = TableLink(controller, inputs, frames_dir=frames_dir, health=health, verify_every_s=verify_every_s)
        self.console.attach(link)
        return link

    def detach(self, link: TableLink) -> None:
        self.console.detach(link)

    def stop(self) -> None:
        self.server.stop()


def start(listen: Listen, users: Users, *, networks: Iterable[Network] = (), hosts: Iterable[str] = (),
          proxies: Iterable[Network] = (), tls: Any = None, demo: bool = False) -> RunningConsole | None:
    """The console listening on ``listen``, answering to the names it listens as and ``hosts``,
    believing ``X-Forwarded-*`` from ``proxies`` only; None (with a warning in the log) when it cannot.
    Its cookies are named after the port it listens on (:func:`~controller.console.app.cookie_name`)."""
    sock = listening(listen, "console")
    if sock is None:
        return None
    console = Console(users, cookie=cookie_name(sock.getsockname()[1]), demo=demo, proxies=proxies)
    server = WebServer(build_app(console, HostNames(listen.host, hosts), networks), listen, tls=tls,
                       on_loop=console.bind, on_stop=console.close, name="console", session=console.auth.session_of,
                       proxies=proxies, streams=STREAMS)
    if not server.start(sock=sock):
        return None
    return RunningConsole(console, server)


def start_demo(listen: Listen, err: IO[str] | None = None) -> RunningConsole | None:
    """The demo's console: the demo logins on loopback only; elsewhere the board alone (plain HTTP
    carries no password there, since none is accepted)."""
    err = err or sys.stderr
    users = StaticUsers.with_passwords(DEMO_LOGINS) if listen.loopback else StaticUsers([])
    running = start(listen, users, demo=listen.loopback)
    if running is None:
        print(f"console: {listen} is not free (or not this machine's); the demo plays without its console", file=err)
        return None
    if listen.loopback:
        print(f"console: {running.url} (demo logins: dealer/dealer, pit/pit; the board: {running.url}board)", file=err)
    else:
        print(f"console: {running.url}board (the demo's logins work on loopback only: on {listen.host} "
              "nobody can log in)", file=err)
    return running


def start_configured(settings: WebSettings, err: IO[str] | None = None) -> RunningConsole | None:
    """A configured table's console, with its users file and (off loopback) TLS."""
    err = err or sys.stderr
    assert settings.listen is not None
    for warning in settings.warnings():
        print(f"console: warning: {warning}", file=err)
    tls = None
    if settings.tls:
        assert settings.certificate is not None and settings.key is not None
        try:
            tls = tls_context(settings.certificate, settings.key)
        except ValueError as exc:
            print(f"console: {exc}; the table runs without its console", file=err)
            return None
    running = start(settings.listen, UsersFile(settings.users), networks=settings.networks, hosts=settings.hosts,
                    proxies=settings.trusted_proxies, tls=tls)
    if running is None:
        print(f"console: cannot listen on {settings.listen}; the table runs without its console", file=err)
    else:
        print(f"console: {running.url} (users: {settings.users})", file=err)
    return running
