"""Which peers may connect, and what a request says of its client behind a reverse proxy.

Why in the application as well as in the unit's ``IPAddressAllow=``: the table also runs outside
systemd (a laptop, a bench), and a console listening on a network should refuse strangers there
too. The peer checked is the socket's, never a header: a header is whatever the client wrote.
Only a proxy the configuration names (``[console] trusted_proxies``, ``dicetable floor
--trusted-proxies``; none by default) is believed about the client behind it
(``X-Forwarded-For``, for the login rate limit) and about TLS (``X-Forwarded-Proto``, for the
cookie's ``Secure`` flag). Any other peer, loopback included, is its own client: a program on the
machine that is not the proxy could otherwise name a new address at every try and never be
limited.
"""
from __future__ import annotations

import ipaddress
import json
from collections.abc import Iterable

from starlette.types import ASGIApp, Receive, Scope, Send

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def is_loopback(host: str) -> bool:
    """Whether ``host`` (an address or ``localhost``) is this machine's loopback."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def parse_networks(values: Iterable[str]) -> tuple[Network, ...]:
    """``["192.168.1.0/24", "10.0.0.5"]`` as networks; ``ValueError`` naming the one that is not."""
    found = []
    for value in values:
        try:
            found.append(ipaddress.ip_network(value, strict=False))
        except (TypeError, ValueError):
            raise ValueError(f"{value!r} is not an IP network (such as 192.168.1.0/24)") from None
    return tuple(found)


def _in(host: str | None, networks: Iterable[Network]) -> bool:
    """Whether the address ``host`` lies in one of ``networks`` (an IPv4 address mapped into IPv6 as
    itself); False for anything that is not an address."""
    if host is None:
        return False
    try:
        address = ipaddress.ip_address(host.strip().strip("[]"))
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return any(address in network for network in networks)


def peer_allowed(host: str | None, networks: Iterable[Network]) -> bool:
    """Loopback always; otherwise an address inside one of ``networks``."""
    if host is None:
        return False
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or _in(host, networks)


def _peer(scope: Scope) -> str | None:
    client = scope.get("client")
    return client[0] if client else None


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers") or ():
        if key.lower() == name:
            return value.decode("latin-1")
    return None


def client_address(scope: Scope, proxies: Iterable[Network] = ()) -> str:
    """The client's address: the peer's; or, when the peer is one of the trusted ``proxies``, the
    last address in ``X-Forwarded-For`` that is not one of them (each proxy adds the address it was
    reached from at the end, so the addresses before the first untrusted one, read from the end,
    are whatever the client wrote)."""
    proxies = tuple(proxies)
    peer = _peer(scope) or "unknown"
    if not _in(peer, proxies):
        return peer
    hops = [hop.strip() for hop in (_header(scope, b"x-forwarded-for") or "").split(",") if hop.strip()]
    for hop in reversed(hops):
        if not _in(hop, proxies):
            return hop
    return hops[0] if hops else peer


def is_https(scope: Scope, proxies: Iterable[Network] = ()) -> bool:
    """Whether the browser reached us over TLS: ours, or a trusted proxy's that says so."""
    if scope.get("scheme") in ("https", "wss"):
        return True
    return _in(_peer(scope), proxies) and (_header(scope, b"x-forwarded-proto") or "").lower() == "https"


class AllowedPeers:
    """ASGI middleware: 403 for a peer neither on loopback nor in ``networks``."""

    def __init__(self, app: ASGIApp, networks: Iterable[Network] = ()):
        self.app = app
        self.networks = tuple(networks)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket") and not peer_allowed(_peer(scope), self.networks):
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1008})
                return
            body = json.dumps({"reason": "this address may not use the console (console.networks)"}).encode()
            await send({"type": "http.response.start", "status": 403,
                        "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send)
