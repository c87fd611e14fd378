"""Logins, sessions, the CSRF token and the role checks, for any Starlette app.

The contract every handler follows (:meth:`Auth.require`):

- no session (no cookie, an unknown or expired one, a user removed or given another role since):
  **401**, before any other check;
- a state-changing request without the session's token in ``X-CSRF-Token``, or a user whose role
  is not the one needed: **403**.

``POST`` to the login (:meth:`Auth.login`) takes JSON ``{"user", "password"}`` and needs no token:
it sets the session cookie (``HttpOnly``, ``SameSite=Strict``, ``Secure`` over TLS) and answers
``{"user", "role", "csrf"}``, or 401. After five failed tries in five minutes from one address, or
for one user name, logins are refused with 429 until the oldest of them is five minutes old, even
with the right password, so guessing is slow whatever the hash costs. The token is also given by
:meth:`Auth.whoami` to a page of the same origin (after a reload); another site's page can neither
read it nor send the cookie (SameSite).

Sessions live in memory: a restart of the service logs everyone out, which is what a restart of
the table should do. Their number is bounded (the oldest goes first), as is the memory of failed
logins.
"""
from __future__ import annotations

import hmac
import json
import secrets
import threading
import time
from collections import OrderedDict, deque
from dataclasses import dataclass
from collections.abc import Callable, Iterable
from typing import Any

import anyio
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from controller.web.access import Network, client_address, is_https
from controller.web.users import User, Users

#: Idle time after which a session ends (a dealer's shift with breaks), and its longest life.
IDLE_S = 4 * 3600.0
MAX_AGE_S = 16 * 3600.0
#: Failed logins allowed per address and per user name within :data:`FAILURE_WINDOW_S`.
MAX_FAILURES = 5
FAILURE_WINDOW_S = 300.0
#: The largest login body read (a name and a password).
MAX_LOGIN_BODY = 4096


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
    """The open sessions, by cookie token."""

    def __init__(self, *, idle_s: float = IDLE_S, max_age_s: float = MAX_AGE_S, limit: int = 1000,
                 clock: Callable[[], float] = time.monotonic):
        self.idle_s, self.max_age_s, self.limit, self.clock = idle_s, max_age_s, limit, clock
        self._open: OrderedDict[str, Session] = OrderedDict()

    def open(self, user: User) -> Session:
        now = self.clock()
        session = Session(secrets.token_urlsafe(32), user.name, user.role, secrets.token_urlsafe(32), now, now)
        self._open[session.token] = session
        while len(self._open) > self.limit:
            self._open.popitem(last=False)
        return session

    def get(self, token: str | None) -> Session | None:
        """The live session of ``token`` (its idle time starts again), or None."""
        session = self._open.get(token) if token else None
        if session is None:
            return None
        now = self.clock()
        if now - session.seen > self.idle_s or now - session.created > self.max_age_s:
            del self._open[session.token]
            return None
        session.seen = now
        self._open.move_to_end(session.token)
        return session

    def alive(self, token: str) -> bool:
        """Whether ``token``'s session is open and not expired (its idle time left as it is)."""
        session = self._open.get(token)
        now = self.clock()
        return session is not None and now - session.seen <= self.idle_s and now - session.created <= self.max_age_s

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


#: Password checks run at once: each takes scrypt's memory, so a flood of logins is queued, not run together.
_HASHING = threading.BoundedSemaphore(2)


def _authenticate(users: Users, name: str, password: str) -> User | None:
    with _HASHING:
        return users.authenticate(name, password)


class Auth:
    """Logins against ``users`` and the sessions they open, under the cookie ``cookie`` (a name of its
    own per service, since browsers share cookies between the ports of one host). Only the reverse
    ``proxies`` named are believed about the client behind them (``X-Forwarded-For``,
    ``X-Forwarded-Proto``); any other peer counts as the client."""

    def __init__(self, users: Users, *, cookie: str, sessions: Sessions | None = None,
                 limiter: LoginLimiter | None = None, roles: tuple[str, ...] | None = None,
                 proxies: Iterable[Network] = ()):
        self.users = users
        self.cookie = cookie
        self.sessions = sessions if sessions is not None else Sessions()
        self.limiter = limiter if limiter is not None else LoginLimiter()
        self.roles = roles
        self.proxies = tuple(proxies)

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
        body = await read_json(request, MAX_LOGIN_BODY)
        if not isinstance(body, dict) or not isinstance(body.get("user"), str) or not isinstance(body.get("password"), str):
            raise Denied(400, 'send JSON {"user": NAME, "password": PASSWORD}')
        name, password = body["user"], body["password"]
        keys = (f"address {client_address(request.scope, self.proxies)}", f"user {name[:100]}")
        wait = self.limiter.wait(keys)
        if wait > 0:
            raise Denied(429, f"too many failed logins: try again in {int(wait) + 1} s",
                         {"Retry-After": str(int(wait) + 1)})
        user = await anyio.to_thread.run_sync(_authenticate, self.users, name, password)
        if user is None or (self.roles is not None and user.role not in self.roles):
            self.limiter.failed(keys)
            raise Denied(401, "wrong user name or password")
        self.limiter.succeeded(keys)
        old = request.cookies.get(self.cookie)
        if old:
            self.sessions.close(old)
        session = self.sessions.open(user)
        response = JSONResponse({"user": user.name, "role": user.role, "csrf": session.csrf})
        response.set_cookie(self.cookie, session.token, httponly=True, samesite="strict", path="/",
                            secure=is_https(request.scope, self.proxies))
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
    """At most ``limit`` bytes of the body; :class:`Denied` 413 for a longer one (read no further)."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise Denied(413, f"the body is longer than {limit} bytes")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise Denied(413, f"the body is longer than {limit} bytes")
        chunks.append(chunk)
    return b"".join(chunks)
