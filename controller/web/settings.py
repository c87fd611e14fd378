"""Where a web service listens and who may use it: a table of its configuration (the table's
``[console]``), checked at start with the rest of the file.

A service serves nothing unless ``listen`` says where. On loopback it serves plain HTTP (a reverse
proxy on the machine may carry it onto the network); on any other address it serves TLS, so
``certificate`` and ``key`` must be named, or the start is refused: a password must never cross a
network in the clear. ``networks`` are the peers, besides loopback, that may connect (the
application refuses the others, and ``systemd/install.sh`` limits the unit's sockets to them).
``hosts`` are the names, besides the address it listens on, that browsers reach it by (a reverse
proxy's, a DNS name): a request naming any other host is refused (:mod:`controller.web.hosts`).
``trusted_proxies`` are the reverse proxies (addresses or networks) believed about the browser
behind them (``X-Forwarded-For``, ``X-Forwarded-Proto``); none by default, so every peer is its own
client for the login rate limit. One that cannot connect at all is a mistake; one that is every
address (``0.0.0.0/0``, ``::/0``) is taken but warned of (:meth:`WebSettings.warnings`), since every
client could then name itself another address at each try. ``users`` is the users file, beside the
configuration by default.
"""
from __future__ import annotations

import ipaddress
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from controller.web.access import Network, parse_networks
from controller.web.hosts import parse_hosts
from controller.web.serve import Listen, parse_listen
from messages import ConfigError

#: The users file's name beside the configuration when the table does not name one.
USERS_FILE = "users"
#: The loopback networks: a trusted proxy that reaches into one of them can connect.
LOOPBACK = (ipaddress.ip_network("127.0.0.0/8"), ipaddress.ip_network("::1/128"))
#: The table's keys and what each is when not given ("" listens nowhere).
DEFAULTS: dict[str, Any] = {"listen": "", "users": USERS_FILE, "certificate": "", "key": "", "networks": [],
                            "hosts": [], "trusted_proxies": []}


@dataclass(frozen=True)
class WebSettings:
    listen: Listen | None
    users: Path
    certificate: Path | None = None
    key: Path | None = None
    networks: tuple[Network, ...] = ()
    section: str = "console"
    hosts: tuple[str, ...] = ()
    trusted_proxies: tuple[Network, ...] = ()

    @property
    def tls(self) -> bool:
        return self.certificate is not None and self.key is not None

    @classmethod
    def from_dict(cls, table: dict[str, Any], base: Path, *, section: str = "console") -> WebSettings:
        """From the table merged over :data:`DEFAULTS`; paths are relative to
        ``base`` (the file's folder); ``section`` names the table in the messages."""
        problems: list[tuple[str, str]] = []
        listen = None
        if not isinstance(table.get("listen"), str):
            problems.append(("listen", f'must be "HOST:PORT", or "" for no console (got {table.get("listen")!r})'))
        elif table["listen"]:
            try:
                listen = parse_listen(table["listen"])
            except ValueError as exc:
                problems.append(("listen", str(exc)))
        paths: dict[str, Path | None] = {}
        for name in ("users", "certificate", "key"):
            value = table.get(name)
            if not isinstance(value, str) or (name == "users" and not value):
                problems.append((name, f"must be a file name (got {value!r})"))
                paths[name] = None
            else:
                paths[name] = base / value if value else None
        networks = _networks(table, "networks", problems, example="192.168.1.0/24")
        proxies = _networks(table, "trusted_proxies", problems, example="127.0.0.1")
        for proxy in proxies:
            if not any(proxy.version == n.version and proxy.overlaps(n)  # type: ignore[arg-type]
                       for n in (*LOOPBACK, *networks)):
                problems.append(("trusted_proxies", f"{proxy} may not connect at all: it is neither loopback nor in "
                                                    f"{section}.networks"))
        hosts: tuple[str, ...] = ()
        raw = table.get("hosts", [])
        if not isinstance(raw, list):
            problems.append(("hosts", f'must be a list of host names such as ["table7.lan"] (got {raw!r})'))
        else:
            try:
                hosts = parse_hosts(raw)
            except ValueError as exc:
                problems.append(("hosts", str(exc)))
        certificate, private_key = paths.get("certificate"), paths.get("key")
        if (certificate is None) != (private_key is None) and not any(k in ("certificate", "key") for k, _ in problems):
            problems.append(("certificate" if certificate is None else "key",
                             "name both the certificate and its key, or neither"))
        for name, path in (("certificate", certificate), ("key", private_key)):
            if path is not None and not path.is_file():
                problems.append((name, f"no such file: {path}"))
        settings = cls(listen, paths.get("users") or base / USERS_FILE, certificate, private_key, networks, section,
                       hosts, proxies)
        if listen is not None and not problems:
            problem = settings.refusal(listen)
            if problem:
                problems.append(("listen", problem))
        if problems:
            raise ConfigError.of(problems)
        return settings

    def warnings(self) -> list[str]:
        """What the service runs with all the same but the operator must hear of: a trusted proxy
        that is every address."""
        return [f"{self.section}.trusted_proxies: {proxy} trusts every peer as a reverse proxy: any client may then "
                "name itself another address in X-Forwarded-For at every try (the login rate limit counts none of "
                "them) and claim TLS; name the proxy's own address, such as 127.0.0.1"
                for proxy in self.trusted_proxies if proxy.prefixlen == 0]

    def refusal(self, listen: Listen) -> str | None:
        """Why the service may not listen on ``listen``, or None: off loopback it needs TLS."""
        if listen.loopback or self.tls:
            return None
        return (f"{listen} is not loopback: on a network the {self.section} serves TLS (set {self.section}.certificate "
                f"and {self.section}.key), or listens on 127.0.0.1 behind a reverse proxy (docs/console.md, \"On a network\")")

    def listening_on(self, listen: Listen | None) -> WebSettings:
        """These settings with ``listen`` instead (``--console HOST:PORT`` or ``off``); ``ValueError``
        when they may not listen there."""
        problem = self.refusal(listen) if listen is not None else None
        if problem:
            raise ValueError(problem)
        return replace(self, listen=listen)



def _networks(table: dict[str, Any], key: str, problems: list[tuple[str, str]], *, example: str) -> tuple[Network, ...]:
    """``table[key]`` as networks (none when it is missing); a problem under ``key`` when it is not a
    list of them."""
    raw = table.get(key, [])
    if not isinstance(raw, list) or not all(isinstance(n, str) for n in raw):
        problems.append((key, f'must be a list of networks such as ["{example}"] (got {raw!r})'))
        return ()
    try:
        return parse_networks(raw)
    except ValueError as exc:
        problems.append((key, str(exc)))
        return ()
