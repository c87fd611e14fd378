"""Where the broker is and how to log in: ``mqtt://HOST:PORT`` or ``mqtts://HOST:PORT`` (TLS),
with a user name and a password file, and the paho client made from that.

Why a password *file*: the password of a table's broker user must not be in the table's
configuration, which operators copy and paste; the file can be readable by the service's
user alone. A URL may carry ``user:password@`` for a bench or the demo.
"""
from __future__ import annotations

import ssl
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

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
            password = Path(password_file).read_text(encoding="utf-8").rstrip("\r\n")
        except (OSError, UnicodeError) as exc:
            raise BrokerError(f"cannot read the broker password file {password_file}: {exc}") from None
    if password is not None and not user:
        raise BrokerError("a broker password needs a user name")
    if cafile and not Path(cafile).is_file():
        raise BrokerError(f"no such CA file: {cafile}")
    assert parts.hostname is not None  # url_problem refused a URL without one
    return BrokerSettings(parts.hostname, parts.port or SCHEMES[parts.scheme], parts.scheme == "mqtts", user,
                          password, str(cafile) if cafile else None)


def make_client(settings: BrokerSettings, client_id: str, *, clean_session: bool = True) -> Any:
    """A paho client for ``settings`` (login and TLS set, not yet connected), reconnecting by
    itself with a delay from 1 s up to 30 s."""
    import paho.mqtt.client as mqtt

    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=clean_session,
                         protocol=mqtt.MQTTv311)
    if settings.username:
        client.username_pw_set(settings.username, settings.password)
    if settings.tls:
        client.tls_set(ca_certs=settings.cafile, cert_reqs=ssl.CERT_REQUIRED, tls_version=ssl.PROTOCOL_TLS_CLIENT)
    client.reconnect_delay_set(min_delay=1, max_delay=30)
    return client


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
