"""Which host names a service answers to: the ``Host`` header checked against where it listens.

Why: a console on 127.0.0.1 is still reachable from another web site open in a browser on the same
machine, by DNS rebinding. That site's name (``evil.example``) is made to resolve to 127.0.0.1, so
its page talks to the console as its own origin: the cookie's SameSite and the CSRF token do not
stop it, and the demo's public logins would let it bet and press. The browser still sends the
name it resolved in ``Host``, so a server that answers only the names it is really reached by
cannot be used so. A header from a client that is not a browser proves nothing, and is not meant
to: this stops other pages, not other programs.

Accepted (:class:`HostNames`), with any port (a reverse proxy serves on its own):

- the address or name the service listens on;
- on loopback, or on every address (``0.0.0.0``, ``::``): ``localhost`` and the loopback
  addresses (``127.0.0.1``, ``[::1]``...);
- on every address: any IP address as well, since a browser sends an address in ``Host`` only for
  a page it loaded from that address, never for another site's name;
- the names the operator lists (``[console] hosts``, ``dicetable floor --hosts``): those a
  reverse proxy or a DNS name gives it (``table7.lan``).

Anything else is answered 421 (Misdirected Request) with the reason; no ``Host`` at all, 400.
"""
from __future__ import annotations

import ipaddress
import json
import re
from collections.abc import Iterable

from starlette.types import ASGIApp, Receive, Scope, Send

#: A host name as an operator may list it: DNS labels of letters, digits, ``-`` and ``_``.
HOST_NAME = re.compile(r"(?=.{1,253}$)[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?"
                       r"(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)*")
_EVERY_ADDRESS = ("0.0.0.0", "::", "")


def _address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def normal(host: str) -> str:
    """``host`` as compared: lower case, without brackets around an IPv6 address or a final dot,
    an address in its short form (``[0:0::1]`` is ``::1``)."""
    host = host.strip().lower()
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    host = host.rstrip(".")
    address = _address(host)
    return str(address) if address is not None else host


def host_problem(value: object) -> str | None:
    """Why ``value`` cannot be listed as a host name to answer to, or None."""
    if not isinstance(value, str) or not value:
        return f"must be a host name such as \"table7.lan\" (got {value!r})"
    if _address(normal(value)) is not None or HOST_NAME.fullmatch(value.rstrip(".")):
        return None
    return f"{value!r} is not a host name or address (no scheme, port or path: \"table7.lan\")"


def parse_hosts(values: Iterable[object]) -> tuple[str, ...]:
    """The names of ``values``, compared form; ``ValueError`` naming the first that is not one."""
    found = []
    for value in values:
        problem = host_problem(value)
        if problem:
            raise ValueError(problem)
        assert isinstance(value, str)
        found.append(normal(value))
    return tuple(found)


def header_host(header: str) -> str:
    """The host of a ``Host`` header, without its port (``[::1]:8080`` is ``::1``)."""
    header = header.strip()
    if header.startswith("["):
        return normal(header[:header.find("]") + 1] if "]" in header else header)
    name, colon, port = header.rpartition(":")
    return normal(name if colon and port.isdigit() and ":" not in name else header)


def header_port(header: str) -> int | None:
    """The port a ``Host`` header names (``[::1]:8080`` is 8080), or None when it names none."""
    header = header.strip()
    _, colon, port = header.rpartition("]:" if header.startswith("[") else ":")
    if not colon or not port.isdigit() or (not header.startswith("[") and header.count(":") > 1):
        return None
    return int(port)


class HostNames:
    """The host names a service listening on ``listen_host`` answers to, with ``extra`` names."""

    def __init__(self, listen_host: str, extra: Iterable[str] = ()):
        listen = normal(listen_host)
        self.every_address = listen in _EVERY_ADDRESS
        address = _address(listen)
        self.loopback = self.every_address or listen == "localhost" or bool(address and address.is_loopback)
        self.names = frozenset({normal(name) for name in extra} | ({listen} if not self.every_address else set()))

    def allows(self, host: str) -> bool:
        """Whether a request whose ``Host`` names ``host`` (portless, :func:`header_host`) is for us."""
        if host in self.names:
            return True
        address = _address(host)
        if self.loopback and (host == "localhost" or (address is not None and address.is_loopback)):
            return True
        return self.every_address and address is not None

    def __str__(self) -> str:
        shown = sorted(self.names | ({"localhost", "127.0.0.1", "::1"} if self.loopback else set()))
        return ", ".join(f"[{n}]" if ":" in n else n for n in shown) + (" or any address" if self.every_address else "")


class AllowedHosts:
    """ASGI middleware: 421 for a request whose ``Host`` is not one of ``names`` (400 with none).

    ``setting`` names where an operator adds a name (``[console] hosts``), for the reason given."""

    def __init__(self, app: ASGIApp, names: HostNames, *, setting: str):
        self.app = app
        self.names = names
        self.setting = setting

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = [value.decode("latin-1") for key, value in scope.get("headers") or () if key.lower() == b"host"]
        if len(headers) == 1 and self.names.allows(header_host(headers[0])):
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        if len(headers) != 1:
            status, reason = 400, "the request must name its host in one Host header"
        else:
            status = 421
            reason = (f"this server does not answer to the host name {header_host(headers[0])!r} (it answers to "
                      f"{self.names}); if that name is really this server's, add it to {self.setting}")
        body = json.dumps({"reason": reason}).encode()
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})
