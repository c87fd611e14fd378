"""The ``[console]`` table of a table's configuration, checked at start with the rest of the file.

A configured table serves no console unless ``listen`` says where (or ``--console HOST:PORT``).
On loopback it serves plain HTTP (a reverse proxy on the Pi may carry it onto the network); on any
other address it serves TLS, so ``certificate`` and ``key`` must be named, or the start is refused:
a password must never cross a network in the clear. ``networks`` are the peers, besides loopback,
that may connect (the application refuses the others, and ``systemd/install.sh`` limits the unit's
sockets to them). ``users`` is the users file, beside the configuration by default.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from controller.web.access import Network, parse_networks
from controller.web.serve import Listen, parse_listen

#: The users file's name beside the configuration when ``[console] users`` does not name one.
USERS_FILE = "users"
#: Where the demo's console listens.
DEMO_LISTEN = Listen("127.0.0.1", 8080)
KEYS = ("listen", "users", "certificate", "key", "networks")
DEFAULTS: dict[str, Any] = {"listen": "", "users": USERS_FILE, "certificate": "", "key": "", "networks": []}


class ConsoleConfigError(ValueError):
    """Mistakes in ``[console]``: ``problems`` holds (key, message) for each."""

    def __init__(self, problems: list[tuple[str, str]]):
        self.problems = problems
        super().__init__("; ".join(f"console.{k}: {m}" for k, m in problems))


@dataclass(frozen=True)
class ConsoleSettings:
    listen: Listen | None
    users: Path
    certificate: Path | None = None
    key: Path | None = None
    networks: tuple[Network, ...] = ()

    @property
    def tls(self) -> bool:
        return self.certificate is not None and self.key is not None

    @classmethod
    def from_dict(cls, table: dict[str, Any], base: Path) -> ConsoleSettings:
        """From the merged ``[console]`` table; paths are relative to ``base`` (the file's folder)."""
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
        networks: tuple[Network, ...] = ()
        raw = table.get("networks")
        if not isinstance(raw, list) or not all(isinstance(n, str) for n in raw):
            problems.append(("networks", f'must be a list of networks such as ["192.168.1.0/24"] (got {raw!r})'))
        else:
            try:
                networks = parse_networks(raw)
            except ValueError as exc:
                problems.append(("networks", str(exc)))
        certificate, private_key = paths.get("certificate"), paths.get("key")
        if (certificate is None) != (private_key is None) and not any(k in ("certificate", "key") for k, _ in problems):
            problems.append(("certificate" if certificate is None else "key",
                             "name both the certificate and its key, or neither"))
        for name, path in (("certificate", certificate), ("key", private_key)):
            if path is not None and not path.is_file():
                problems.append((name, f"no such file: {path}"))
        settings = cls(listen, paths.get("users") or base / USERS_FILE, certificate, private_key, networks)
        if listen is not None and not problems:
            problem = settings.refusal(listen)
            if problem:
                problems.append(("listen", problem))
        if problems:
            raise ConsoleConfigError(problems)
        return settings

    def refusal(self, listen: Listen) -> str | None:
        """Why the console may not listen on ``listen``, or None: off loopback it needs TLS."""
        if listen.loopback or self.tls:
            return None
        return (f"{listen} is not loopback: on a network the console serves TLS (set console.certificate and "
                "console.key), or listens on 127.0.0.1 behind a reverse proxy (README, \"Console\")")

    def listening_on(self, listen: Listen | None) -> ConsoleSettings:
        """These settings with ``listen`` instead (``--console HOST:PORT`` or ``off``); ``ValueError``
        when they may not listen there."""
        problem = self.refusal(listen) if listen is not None else None
        if problem:
            raise ValueError(problem)
        return replace(self, listen=listen)


def users_path(config_path: Path | str) -> Path:
    """The users file of the configuration at ``config_path``: its ``[console] users`` (relative to
    it) or ``users`` beside it. Only that key is read, so a mistake elsewhere in the file (being
    mended) does not keep anyone from managing the users."""
    import tomllib

    path = Path(config_path)
    try:
        data = tomllib.loads(path.read_bytes().decode("utf-8-sig"))
    except FileNotFoundError:
        raise ValueError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ValueError(f"{path}: cannot read it: {exc}") from None
    console = data.get("console", {})
    name = console.get("users", USERS_FILE) if isinstance(console, dict) else None
    if not isinstance(name, str) or not name:
        raise ValueError(f"{path}: console.users: must be a file name (got {name!r})")
    return path.parent / name


def users_warning(settings: ConsoleSettings | None) -> str | None:
    """What ``run --check`` says of a console nobody can log in to (the table runs all the same)."""
    if settings is None or settings.listen is None:
        return None
    from controller.web.users import UsersError, read_users

    try:
        users = read_users(settings.users)
    except UsersError as exc:
        return f"console: {exc}: nobody can log in until it is mended"
    if not users:
        return (f"console: no users in {settings.users} yet: nobody can log in until one is added "
                "(dicetable user --config FILE add NAME --role dealer)")
    return None
