"""Who may log in: a users file of its own, beside the configuration, with slow-hashed passwords.

Why a file of its own: the configuration is readable by whoever reads the table's settings, the
users file only by root and the service's group (mode 0640), and ``dicetable user add|remove|list``
rewrites it without touching the configuration. One user a line::

    # dicetable users: NAME ROLE PASSWORD-HASH (managed by `dicetable user`)
    alice dealer scrypt$16384$8$1$<salt>$<key>

The hash is scrypt from the standard library (memory-hard: 16 MiB and tens of milliseconds per
try on a desktop, more on a Pi), with a salt of its own per user, so a copied file gives up no
password cheaply. The service re-reads the file when it changes, so a user added or removed takes
effect at the next request without a restart.

- :func:`hash_password`, :func:`check_password` -- the hash and its constant-time check.
- :class:`UsersFile` -- the file as a running service reads it; :class:`StaticUsers` -- logins held
  in memory (the demo's).
- :func:`add_user`, :func:`remove_user`, :func:`read_users` -- what ``dicetable user`` does.
"""
from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import logging
import os
import re
import secrets
import stat
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Iterable, Mapping
from typing import Protocol

log = logging.getLogger(__name__)

#: The roles a user may have: a dealer bets and presses; the pit watches.
ROLES = ("dealer", "pit")
#: A user name: letters, digits and ``_ . @ -``, at most 64 characters, no spaces (the file is split on them).
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}")
#: The shortest password ``dicetable user add`` takes.
MIN_PASSWORD = 8
#: The longest password checked (a longer one is refused before it is hashed: no work for nothing).
MAX_PASSWORD = 1024
#: scrypt's cost: N (CPU and memory), r (block size), p (parallelism): 128 * N * r bytes = 16 MiB.
SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**14, 8, 1
_SCRYPT_MAXMEM = 64 * 1024 * 1024
#: The file's mode: read and write for root, read for the service's group, nothing for others.
FILE_MODE = 0o640
HEADER = "# dicetable users: NAME ROLE PASSWORD-HASH (managed by `dicetable user`; mode 0640, root and the service's group)\n"


class UsersError(ValueError):
    """A users file that cannot be used, or a user that cannot be added; the message says which and why."""


@dataclass(frozen=True)
class User:
    name: str
    role: str
    password_hash: str = field(repr=False)


def hash_password(password: str, *, salt: bytes | None = None) -> str:
    """``scrypt$N$r$p$salt$key`` (salt and key in base64) for ``password``."""
    salt = salt if salt is not None else secrets.token_bytes(16)
    key = hashlib.scrypt(password.encode("utf-8"), salt=salt, n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P,
                         maxmem=_SCRYPT_MAXMEM, dklen=32)
    return "$".join(("scrypt", str(SCRYPT_N), str(SCRYPT_R), str(SCRYPT_P), _b64(salt), _b64(key)))


def check_password(password: str, stored: str) -> bool:
    """Whether ``password`` hashes to ``stored``; False for a hash this code cannot read (never raises)."""
    parsed = _parse_hash(stored)
    if parsed is None or len(password) > MAX_PASSWORD:
        return False
    n, r, p, salt, key = parsed
    try:
        found = hashlib.scrypt(password.encode("utf-8", "surrogatepass"), salt=salt, n=n, r=r, p=p,
                               maxmem=_SCRYPT_MAXMEM, dklen=len(key))
    except (ValueError, MemoryError):
        return False
    return hmac.compare_digest(found, key)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _parse_hash(stored: str) -> tuple[int, int, int, bytes, bytes] | None:
    parts = stored.split("$")
    if len(parts) != 6 or parts[0] != "scrypt":
        return None
    try:
        n, r, p = int(parts[1]), int(parts[2]), int(parts[3])
        salt, key = base64.b64decode(parts[4], validate=True), base64.b64decode(parts[5], validate=True)
    except ValueError:
        return None
    # Bounded, so that a hand-edited line cannot make one login take minutes or gigabytes.
    if not (2 <= n <= 2**20 and n & (n - 1) == 0 and 1 <= r <= 32 and 1 <= p <= 16 and salt and 16 <= len(key) <= 64):
        return None
    return n, r, p, salt, key


class Users(Protocol):
    """Where a login is checked: the users file, or the demo's logins."""

    def lookup(self, name: str) -> User | None:
        """The user named ``name`` as it stands now, or None."""

    def authenticate(self, name: str, password: str) -> User | None:
        """The user when ``password`` is theirs, else None (slow on purpose, whichever way)."""


@functools.cache
def _dummy_hash() -> str:
    """Checked against when the name is unknown, so a wrong name costs as long as a wrong password
    (the time taken does not tell which names exist)."""
    return hash_password(secrets.token_hex(16))


def _authenticate(users: Users, name: str, password: str) -> User | None:
    user = users.lookup(name) if isinstance(name, str) else None
    ok = check_password(password, user.password_hash if user else _dummy_hash())
    return user if ok and user is not None else None


class StaticUsers:
    """Logins held in memory: the demo's ``dealer``/``dealer`` and ``pit``/``pit``."""

    def __init__(self, users: Iterable[User]):
        self._users = {u.name: u for u in users}

    @classmethod
    def with_passwords(cls, logins: Mapping[str, tuple[str, str]]) -> StaticUsers:
        """From ``{name: (role, password)}``."""
        return cls(User(name, role, hash_password(password)) for name, (role, password) in logins.items())

    def lookup(self, name: str) -> User | None:
        return self._users.get(name)

    def authenticate(self, name: str, password: str) -> User | None:
        return _authenticate(self, name, password)


def parse_users(text: str, source: str) -> dict[str, User]:
    """The users of a file's ``text``; :class:`UsersError` naming the line of the first mistake."""
    users: dict[str, User] = {}
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split()
        if len(parts) != 3:
            raise UsersError(f"{source}: line {number}: expected NAME ROLE PASSWORD-HASH")
        name, role, digest = parts
        if not NAME.fullmatch(name):
            raise UsersError(f"{source}: line {number}: {name!r} is not a user name")
        if role not in ROLES:
            raise UsersError(f"{source}: line {number}: role {role!r} is not one of {', '.join(ROLES)}")
        if _parse_hash(digest) is None:
            raise UsersError(f"{source}: line {number}: the password hash of {name} is not one this program "
                             "wrote (set the password again with `dicetable user add`)")
        if name in users:
            raise UsersError(f"{source}: line {number}: {name} is listed twice")
        users[name] = User(name, role, digest)
    return users


def format_users(users: Iterable[User]) -> str:
    return HEADER + "".join(f"{u.name} {u.role} {u.password_hash}\n" for u in sorted(users, key=lambda u: u.name))


def loose_mode(mode: int) -> str | None:
    """What is wrong with a users file's permission bits, or None: others may not read it, nor the group write it."""
    if mode & 0o007:
        return "other users may read or write it"
    if mode & 0o020:
        return "its group may write it"
    return None


def read_users(path: Path | str) -> dict[str, User]:
    """The users in the file at ``path`` (none when there is no file); :class:`UsersError` when it
    cannot be read, is open to other users, or holds a mistake."""
    path = Path(path)
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):
            raise UsersError(f"{path}: not a file")
        problem = loose_mode(info.st_mode)
        if problem:
            raise UsersError(f"{path}: {problem} (mode {stat.S_IMODE(info.st_mode):04o}): chmod 0640 {path}")
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except UnicodeDecodeError:
        raise UsersError(f"{path}: not UTF-8 text") from None
    except OSError as exc:
        raise UsersError(f"{path}: cannot read it: {exc.strerror or exc}") from None
    return parse_users(text, str(path))


class UsersFile:
    """The users file as a running service sees it: read again whenever it changed on disk.

    A file that went wrong (a mistake in it, a mode open to other users) lets nobody in until it is
    mended, and says why in the log once per change, rather than keep users that were removed."""

    def __init__(self, path: Path | str):
        self.path = Path(path)
        self._lock = threading.Lock()
        self._seen: tuple[int, int, int, int] | None = None
        self._users: dict[str, User] = {}
        self.problem: str | None = None
        self._refresh()

    def _refresh(self) -> None:
        try:
            info = self.path.stat()
            key = (info.st_mtime_ns, info.st_size, info.st_ino, info.st_mode)
        except OSError:
            key = (0, 0, 0, 0)
        with self._lock:
            if key == self._seen:
                return
            self._seen = key
            try:
                self._users, self.problem = read_users(self.path), None
                if not self._users:
                    log.warning("no users in %s: nobody can log in until one is added: dicetable user --users %s add "
                                "NAME --role dealer|pit", self.path, self.path)
            except UsersError as exc:
                self._users, self.problem = {}, str(exc)
                log.error("console logins refused until the users file is mended: %s", exc)

    def lookup(self, name: str) -> User | None:
        self._refresh()
        return self._users.get(name)

    def authenticate(self, name: str, password: str) -> User | None:
        return _authenticate(self, name, password)


def check_new_user(name: str, role: str, password: str) -> None:
    """:class:`UsersError` saying what is wrong with a user about to be added."""
    if not NAME.fullmatch(name):
        raise UsersError(f"{name!r} is not a user name (letters, digits and _ . @ -, at most 64, no spaces)")
    if role not in ROLES:
        raise UsersError(f"role {role!r} is not one of {', '.join(ROLES)}")
    if len(password) < MIN_PASSWORD:
        raise UsersError(f"the password is shorter than {MIN_PASSWORD} characters")
    if len(password) > MAX_PASSWORD:
        raise UsersError(f"the password is longer than {MAX_PASSWORD} characters")


def add_user(path: Path | str, name: str, role: str, password: str, *, group: str | None = None) -> bool:
    """Add ``name`` (or set its role and password); True when the user is new."""
    check_new_user(name, role, password)
    users = read_users(path)
    new = name not in users
    users[name] = User(name, role, hash_password(password))
    write_users(path, users.values(), group=group)
    return new


def remove_user(path: Path | str, name: str) -> bool:
    """Remove ``name``; False when there was no such user (the file is then left as it was)."""
    users = read_users(path)
    if users.pop(name, None) is None:
        return False
    write_users(path, users.values())
    return True


def write_users(path: Path | str, users: Iterable[User], *, group: str | None = None) -> None:
    """Replace the file at once (a reader sees the old file or the new one, never half of one).

    A file that was there keeps its owner and group, and a mode no looser than 0640; a new one is
    made 0640, and, when root writes it, owned by root and ``group`` (the service's), so that the
    service can read it and nobody else can."""
    path = Path(path)
    try:
        old = path.stat()
    except FileNotFoundError:
        old = None
    except OSError as exc:
        raise UsersError(f"{path}: {exc.strerror or exc}") from None
    mode = stat.S_IMODE(old.st_mode) & FILE_MODE if old else FILE_MODE
    owner = (old.st_uid, old.st_gid) if old else (0, _gid(group)) if os.geteuid() == 0 else None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    except OSError as exc:
        raise UsersError(f"{path}: cannot write beside it: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            os.fchmod(out.fileno(), mode)
            if owner is not None and os.geteuid() == 0:
                os.fchown(out.fileno(), *owner)
            out.write(format_users(users))
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except OSError as exc:
        Path(temporary).unlink(missing_ok=True)
        raise UsersError(f"{path}: cannot write it: {exc.strerror or exc}") from None
    try:
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)
    except OSError:
        pass  # the rename is done; a folder that cannot be synced (some file systems) loses nothing more


def _gid(group: str | None) -> int:
    """The group id of ``group`` (the service's), or root's when it is not given; :class:`UsersError`
    for a group that does not exist."""
    if group is None:
        return 0
    import grp

    try:
        return grp.getgrnam(group).gr_gid
    except KeyError:
        raise UsersError(f"no group {group!r} on this machine (systemd/install.sh creates dicetable)") from None
