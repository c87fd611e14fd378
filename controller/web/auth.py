"""Logins, sessions, the CSRF token and the role checks, for any Starlette app.

The contract every handler follows (:meth:`Auth.require`):

- no session (no cookie, an unknown or expired one, a user removed or given another role since):
  **401**, before any other check;
- a state-changing request without the session's token in ``X-CSRF-Token``, or a user whose role
  is not the one needed: **403**.

``POST`` to the login (:meth:`Auth.login`) takes JSON ``{"user", "password"}`` sent as
``application/json`` (400 otherwise) and needs no token; a login whose ``Origin`` names another
site is refused 403, so that another site's page cannot log a browser into another account (a
login without ``Origin``, from a program, is taken). It sets the session cookie (``HttpOnly``,
``SameSite=Strict``, ``Secure`` over TLS) and answers ``{"user", "role", "csrf"}``, or 401.

Guessing is slow whatever the hash costs (OWASP's authentication cheat sheet): five failed tries
in five minutes from one address, or for one user name, and logins are refused with 429 until the
oldest of them is five minutes old, even with the right password. A try is counted before its
password is checked, in the same step of the server's loop as the look at the count, so tries
sent together are counted together: no more than five passwords are ever checked, and a refused
one is not hashed at all. A browser that logged in before carries a device cookie (OWASP's "device
cookies"): signed, naming the user, sent to the login only. Its tries count for that cookie alone,
so a flood of wrong passwords from elsewhere never locks out the dealer's own browser.

The token is also given by :meth:`Auth.whoami` to a page of the same origin (after a reload);
another site's page can neither read it nor send the cookie (SameSite).

Sessions live in memory, as does the key that signs the device cookies: a restart of the service
logs everyone out, which is what a restart of the table should do. A user holds at most
:data:`SESSIONS_PER_USER` sessions (a new one ends that user's least recently used, never another
user's); the memory of failed logins is bounded too.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import threading
import time
from collections import OrderedDict, deque
from dataclasses import dataclass
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import urlsplit

import anyio
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.types import Scope

from controller.web.access import Network, client_address, is_https
from controller.web.hosts import header_host, header_port, normal
from controller.web.users import User, Users

#: Idle time after which a session ends (a dealer's shift with breaks), and its longest life.
IDLE_S = 4 * 3600.0
MAX_AGE_S = 16 * 3600.0
#: Failed logins allowed per address and per user name within :data:`FAILURE_WINDOW_S`.
MAX_FAILURES = 5
FAILURE_WINDOW_S = 300.0
#: The largest login body read (a name and a password).
MAX_LOGIN_BODY = 4096
#: Sessions one user may hold at once (a shared pit login on several screens); a new one ends the oldest.
SESSIONS_PER_USER = 32
#: Sessions held in all before a login is refused (503) rather than end another user's.
SESSIONS_IN_ALL = 10000
#: How long a device cookie is kept by the browser (it is signed with a key that lasts until a restart).
DEVICE_MAX_AGE_S = 30 * 24 * 3600


class Denied(Exception):
    """A request refused: ``status`` and the ``reason`` the JSON answer gives."""

    def __init__(self, status: int, reason: str, headers: dict[str, str] | None = None):
        super().__init__(reason)
        self.status = status
        self.reason = reason
        self.headers = headers or {}


async def denied_response(request: Request, exc: Exception) -> Response:
    """The Starlette exception handler for :class:`Denied`: ``{"reason": ...}`` with its status."""
    assert isinstance(exc, Denied)
    return JSONResponse({"reason": exc.reason}, status_code=exc.status, headers=exc.headers)


@dataclass
class Session:
    token: str
    user: str
    role: str
    csrf: str
    created: float
    seen: float


class Sessions:
    """The open sessions, by cookie token: at most ``per_user`` a user (a new one ends the same
    user's least recently used), and ``limit`` in all (then a login is refused, never another
    user's session ended)."""

    def __init__(self, *, idle_s: float = IDLE_S, max_age_s: float = MAX_AGE_S, per_user: int = SESSIONS_PER_USER,
                 limit: int = SESSIONS_IN_ALL, clock: Callable[[], float] = time.monotonic):
        self.idle_s, self.max_age_s, self.per_user, self.limit, self.clock = idle_s, max_age_s, per_user, limit, clock
        self._open: OrderedDict[str, Session] = OrderedDict()

    def open(self, user: User) -> Session:
        """A new session for ``user``; :class:`Denied` 503 when every session in all is taken."""
        now = self.clock()
        if len(self._open) >= self.limit:
            for token in [t for t, s in self._open.items() if self._expired(s, now)]:
                del self._open[token]
            if len(self._open) >= self.limit:
                raise Denied(503, "too many sessions are open: try again later", {"Retry-After": "60"})
        mine = [token for token, s in self._open.items() if s.user == user.name]  # least recently used first
        for token in mine[:max(0, len(mine) - self.per_user + 1)]:
            del self._open[token]
        session = Session(secrets.token_urlsafe(32), user.name, user.role, secrets.token_urlsafe(32), now, now)
        self._open[session.token] = session
        return session

    def _expired(self, session: Session, now: float) -> bool:
        return now - session.seen > self.idle_s or now - session.created > self.max_age_s

    def get(self, token: str | None) -> Session | None:
        """The live session of ``token`` (its idle time starts again), or None."""
        session = self._open.get(token) if token else None
        if session is None:
            return None
        now = self.clock()
        if self._expired(session, now):
            del self._open[session.token]
            return None
        session.seen = now
        self._open.move_to_end(session.token)
        return session

    def alive(self, token: str) -> bool:
        """Whether ``token``'s session is open and not expired (its idle time left as it is)."""
        session = self._open.get(token)
        return session is not None and not self._expired(session, self.clock())

    def close(self, token: str) -> None:
        self._open.pop(token, None)

    def __len__(self) -> int:
        return len(self._open)


class LoginLimiter:
    """Failed logins by key (an address, a user name); a key with :data:`MAX_FAILURES` failures in
    the window is blocked until the oldest of them leaves it."""

    def __init__(self, *, failures: int = MAX_FAILURES, window_s: float = FAILURE_WINDOW_S, limit: int = 10000,
                 clock: Callable[[], float] = time.monotonic):
        self.failures, self.window_s, self.limit, self.clock = failures, window_s, limit, clock
        self._seen: OrderedDict[str, deque[float]] = OrderedDict()

    def _recent(self, key: str) -> deque[float]:
        now = self.clock()
        times = self._seen.get(key, deque())
        while times and now - times[0] >= self.window_s:
            times.popleft()
        return times

    def wait(self, keys: Iterable[str]) -> float:
        """Seconds until a login under ``keys`` may be tried again (0: now)."""
        waits = [0.0]
        for key in keys:
            times = self._recent(key)
            if len(times) >= self.failures:
                waits.append(times[-self.failures] + self.window_s - self.clock())
        return max(waits)

    def failed(self, keys: Iterable[str]) -> None:
        now = self.clock()
        for key in keys:
            times = self._recent(key)
            times.append(now)
            while len(times) > self.failures:
                times.popleft()
            self._seen[key] = times
            self._seen.move_to_end(key)
        while len(self._seen) > self.limit:
            self._seen.popitem(last=False)

    def succeeded(self, keys: Iterable[str]) -> None:
        for key in keys:
            self._seen.pop(key, None)


class DeviceCookies:
    """OWASP's device cookies: ``NAME.NONCE.SIGNATURE``, issued at each successful login, naming its
    user; ``key`` signs them (a new one at every start: the cookies of a restarted service are
    worth nothing, like its sessions)."""

    def __init__(self, key: bytes | None = None):
        self.key = key if key is not None else secrets.token_bytes(32)

    def _signature(self, name: str, nonce: str) -> str:
        return hmac.new(self.key, f"{name}.{nonce}".encode(), hashlib.sha256).hexdigest()[:32]

    def issue(self, user: str) -> str:
        name = base64.urlsafe_b64encode(user.encode()).decode().rstrip("=")
        nonce = secrets.token_urlsafe(16)
        return f"{name}.{nonce}.{self._signature(name, nonce)}"

    def check(self, value: str | None, user: str) -> str | None:
        """The nonce of ``value`` when it is a device cookie this server issued for ``user``, else None."""
        if not value or value.count(".") != 2:
            return None
        name, nonce, signature = value.split(".")
        try:
            named = base64.urlsafe_b64decode(name + "=" * (-len(name) % 4)).decode()
        except (ValueError, UnicodeDecodeError):
            return None
        if named != user or not hmac.compare_digest(signature.encode(), self._signature(name, nonce).encode()):
            return None
        return nonce


#: Password checks run at once: each takes scrypt's memory, so a flood of logins is queued, not run together.
_HASHING = threading.BoundedSemaphore(2)


def _authenticate(users: Users, name: str, password: str) -> User | None:
    with _HASHING:
        return users.authenticate(name, password)


class Auth:
    """Logins against ``users`` and the sessions they open, under the cookie ``cookie`` (a name of its
    own per service, since browsers share cookies between the ports of one host), the device cookie
    under ``cookie`` + ``_device``. Only the reverse ``proxies`` named are believed about the client
    behind them (``X-Forwarded-For``, ``X-Forwarded-Proto``); any other peer counts as the client."""

    def __init__(self, users: Users, *, cookie: str, sessions: Sessions | None = None,
                 limiter: LoginLimiter | None = None, roles: tuple[str, ...] | None = None,
                 proxies: Iterable[Network] = (), devices: DeviceCookies | None = None):
        self.users = users
        self.cookie = cookie
        self.device_cookie = f"{cookie}_device"
        self.sessions = sessions if sessions is not None else Sessions()
        self.limiter = limiter if limiter is not None else LoginLimiter()
        self.devices = devices if devices is not None else DeviceCookies()
        self.roles = roles
        self.proxies = tuple(proxies)

    def session_of(self, scope: Scope) -> str | None:
        """The token of the live session a request (its ``scope``) carries, or None: what the gate
        asks of each request, to serve it from the share reserved for logged-in users."""
        session = self.session(Request(scope))
        return session.token if session is not None else None

    def session(self, request: Request) -> Session | None:
        """The request's live session, while its user still exists with the same role."""
        session = self.sessions.get(request.cookies.get(self.cookie))
        if session is None:
            return None
        user = self.users.lookup(session.user)
        if user is None or user.role != session.role:
            self.sessions.close(session.token)
            return None
        return session

    def still(self, session: Session) -> Callable[[], bool]:
        """Whether ``session`` may still see what it was allowed to see: open, not expired, its user
        there with the same role (an event stream asks before every message)."""
        def check() -> bool:
            user = self.users.lookup(session.user)
            return self.sessions.alive(session.token) and user is not None and user.role == session.role

        return check

    def require(self, request: Request, *, role: str | None = None, change: bool = False) -> Session:
        """The session, or :class:`Denied`: 401 without one; 403 for a change without the session's
        CSRF token, or for a user without ``role``."""
        session = self.session(request)
        if session is None:
            raise Denied(401, "log in first")
        if change:
            sent = request.headers.get("x-csrf-token", "")
            if not hmac.compare_digest(sent.encode("utf-8", "replace"), session.csrf.encode()):
                raise Denied(403, "missing or wrong X-CSRF-Token (log in again if the page is old)")
        if role is not None and session.role != role:
            raise Denied(403, f"only a {role} may do this (you are {session.user}, {session.role})")
        return session

    async def login(self, request: Request) -> Response:
        origin = request.headers.get("origin")
        if origin is not None and not same_origin(origin, request.headers.get("host", "")):
            raise Denied(403, f"a login from the page of another site ({origin[:100]}) is refused")
        if request.headers.get("content-type", "").split(";")[0].strip().lower() != "application/json":
            raise Denied(400, 'send JSON {"user": NAME, "password": PASSWORD} as application/json')
        body = await read_json(request, MAX_LOGIN_BODY)
        if not isinstance(body, dict) or not isinstance(body.get("user"), str) or not isinstance(body.get("password"), str):
            raise Denied(400, 'send JSON {"user": NAME, "password": PASSWORD}')
        name, password = body["user"], body["password"]
        device = self.devices.check(request.cookies.get(self.device_cookie), name)
        keys = ((f"device {device}",) if device is not None else
                (f"address {client_address(request.scope, self.proxies)}", f"user {name[:100]}"))
        # The look at the count and the try counted in it are one step: no await between them.
        wait = self.limiter.wait(keys)
        if wait > 0:
            raise Denied(429, f"too many failed logins: try again in {int(wait) + 1} s",
                         {"Retry-After": str(int(wait) + 1)})
        self.limiter.failed(keys)
        user = await anyio.to_thread.run_sync(_authenticate, self.users, name, password)
        if user is None or (self.roles is not None and user.role not in self.roles):
            raise Denied(401, "wrong user name or password")
        self.limiter.succeeded(keys)
        old = request.cookies.get(self.cookie)
        if old:
            self.sessions.close(old)
        session = self.sessions.open(user)
        secure = is_https(request.scope, self.proxies)
        response = JSONResponse({"user": user.name, "role": user.role, "csrf": session.csrf})
        response.set_cookie(self.cookie, session.token, httponly=True, samesite="strict", path="/", secure=secure)
        response.set_cookie(self.device_cookie, self.devices.issue(user.name), max_age=DEVICE_MAX_AGE_S, httponly=True,
                            samesite="strict", path=request.url.path, secure=secure)
        return response

    async def logout(self, request: Request) -> Response:
        session = self.require(request, change=True)
        self.sessions.close(session.token)
        response = JSONResponse({"user": None})
        response.delete_cookie(self.cookie, path="/", httponly=True, samesite="strict",
                               secure=is_https(request.scope, self.proxies))
        return response

    async def whoami(self, request: Request) -> Response:
        """``{"user", "role", "csrf"}`` of the request's session (401 without one): a page reloaded
        gets its token again."""
        session = self.require(request)
        return JSONResponse({"user": session.user, "role": session.role, "csrf": session.csrf})


async def read_json(request: Request, limit: int) -> Any:
    """The request's JSON body; :class:`Denied` 413 past ``limit`` bytes, 400 when it is not JSON.
    (A caller that must journal what it cannot parse reads the body itself.)"""
    body = await read_body(request, limit)
    try:
        return json.loads(body)
    except (ValueError, RecursionError):
        raise Denied(400, "the body is not JSON") from None


async def read_body(request: Request, limit: int) -> bytes:
    """At most ``limit`` bytes of the body; :class:`Denied` 413 for a longer one (read no further),
    400 when the client left (or was let go, too slow) before sending it all."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise Denied(413, f"the body is longer than {limit} bytes")
    chunks, size = [], 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise Denied(413, f"the body is longer than {limit} bytes")
            chunks.append(chunk)
    except ClientDisconnect:
        raise Denied(400, "the body did not come whole") from None
    return b"".join(chunks)


def same_origin(origin: str, host: str) -> bool:
    """Whether a browser's ``Origin`` names the server it sent the request to (``host``, the
    request's ``Host``): the same host name, and the same port where ``Host`` names one (a reverse
    proxy may send the name alone)."""
    parts = urlsplit(origin)
    try:
        port = parts.port
    except ValueError:
        return False
    if parts.scheme not in ("http", "https") or not parts.hostname or normal(parts.hostname) != header_host(host):
        return False
    wanted = header_port(host)
    return wanted is None or wanted == (port or (443 if parts.scheme == "https" else 80))
