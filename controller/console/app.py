"""The console's web application: pages, the JSON API and the event streams (docs/console.md).

Thin on purpose: a handler checks who asks (:class:`~controller.web.auth.Auth`: 401 without a
session, then 403 without the CSRF token or the dealer's role), turns the request into the event a
button or the event stream would make, and hands it to the table's queue
(:meth:`~controller.console.link.TableLink.submit`); what it answers is what the table did. The
state it shows is built in :mod:`controller.console.views` from what the table stepped.

- ``GET /healthz`` (no login) -- 200 ``{"ok": true, "game": ..., "demo": ...}``.
- ``POST /api/login`` / ``POST /api/logout`` / ``GET /api/session`` -- :mod:`controller.web.auth`.
- ``GET /api/state``, ``GET /api/layout``, ``GET /api/events`` (server-sent ``state`` events),
  ``GET /frames/NAME`` -- any user.
- ``POST /api/bets`` (a ``bet``), ``POST /api/remove`` (a ``remove``), ``POST /api/actions``
  (``lock``, ``confirm``, ``void``, ``manual``, ``next_shooter``) -- a dealer: 200 with the journaled
  event, or 422 ``{"reason", "rule"}`` (``rule`` null for a malformed one); 503 when no table is
  being dealt or the table did not take it in time (then it never takes effect); 429 past the
  session's rate (:mod:`controller.web.inputs`). Each honours ``Idempotency-Key``: the same key again
  gets the first answer, and the table does it once.
- ``POST /api/verify`` -- any user: check the journal's chain now (202).
- ``GET /api/board``, ``GET /api/board/events`` (server-sent ``board`` events) -- no login.
- ``/``, ``/login``, ``/dealer``, ``/pit``, ``/board`` -- the pages; ``/static/...`` their files.
- Any other path: 404 ``{"reason"}``; a method a path does not take: 405 ``{"reason"}`` (``rule``
  null on the dealer's inputs), after the 401 of a path that needs a session.
"""
from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp

from controller.console.inputs import NotAnInput, Refused, read_event
from controller.console.link import NotTaken, TableLink
from controller.web.access import AllowedPeers, Network
from controller.web.auth import Auth, Denied, denied_response, read_body
from controller.web.errors import http_errors
from controller.web.files import Files
from controller.web.headers import SecurityHeaders
from controller.web.hosts import AllowedHosts, HostNames
from controller.web.inputs import IdempotencyKeys, InputRate, KeyRefused
from controller.web.push import Broadcast, sse
from controller.web.users import Users

log = logging.getLogger(__name__)

STATIC = Path(__file__).with_name("static")
#: The largest request body taken (one event).
MAX_BODY = 16 * 1024
#: Seconds between two looks at the devices' health.
HEALTH_EVERY_S = 2.0
#: What each POST takes: the events it accepts. A bet or a removal may leave ``event`` out (the URL
#: says which); a press must name its button, so that a body naming none presses nothing.
BETS, REMOVALS = ("bet",), ("remove",)
ACTIONS = ("lock", "confirm", "void", "manual", "next_shooter")
#: The paths anyone may use; every other needs a session (401 before anything else, a wrong method too).
PUBLIC = ("/healthz", "/api/login", "/api/board", "/api/board/events", "/login", "/board")
#: The paths whose refusals carry ``rule`` (null for any but the engine's): a wrong method's too.
WITH_RULE = ("/api/bets", "/api/remove", "/api/actions")
#: The event streams, by kind: the gate caps those of clients without a login kind by kind.
STREAMS = {"/api/board/events": "board", "/api/events": "state"}


def cookie_name(port: int) -> str:
    """The session cookie of the console on ``port``: browsers share cookies between the ports of
    one host, so two tables on one machine each need a name of their own (the device cookie is this
    name and ``_device``)."""
    return f"dicetable_console_{port}"


@dataclass(frozen=True)
class Answer:
    """A dealer's input answered: what an ``Idempotency-Key`` sent again gets again, to the byte."""

    status: int
    body: bytes
    seq: int | None = None

    @classmethod
    def of(cls, status: int, data: Any, seq: int | None = None) -> Answer:
        return cls(status, bytes(JSONResponse(data).body), seq)

    def response(self) -> Response:
        headers = {"X-Journal-Seq": str(self.seq)} if self.seq is not None else {}
        return Response(self.body, status_code=self.status, media_type="application/json", headers=headers)


class Console:
    """The console's state, owned by the web server's loop: logins, the table being dealt (which
    the demo changes between games), and the two channels of updates (logged-in pages, the board)."""

    def __init__(self, users: Users, *, cookie: str, demo: bool = False, proxies: Iterable[Network] = ()):
        self.auth = Auth(users, cookie=cookie, proxies=proxies)
        self.rate = InputRate()
        self.keys: IdempotencyKeys[Answer] = IdempotencyKeys()
        self.files = Files(STATIC)
        self.demo = demo
        self.updates = Broadcast()
        self.board = Broadcast()
        self.link: TableLink | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self._state: bytes = sse("state", None)
        self._board: bytes = sse("board", None)
        self._tasks: set[asyncio.Task[Any]] = set()
        self._verified_at = 0.0
        self._checking: tuple[TableLink, asyncio.Task[Any]] | None = None

    # --- the server's thread ---------------------------------------------------------------

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.updates.bind(loop)
        self.board.bind(loop)
        self._spawn(self._watch())

    def close(self) -> None:
        """The server stops: end the streams and the background work."""
        for task in list(self._tasks):
            task.cancel()
        self.updates.close()
        self.board.close()

    def _spawn(self, work: Any) -> asyncio.Task[Any]:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def _check_chain(self, link: TableLink) -> None:
        """Check ``link``'s journal now, unless a check of it is under way: each is a process of its
        own, and a button pressed again and again must not start one each time. A check of a table
        no longer dealt (the demo moved on) is stopped for it."""
        if self._checking is not None:
            checked, task = self._checking
            if not task.done():
                if checked is link:
                    return
                task.cancel()
        self._checking = (link, self._spawn(link.verify()))

    async def _watch(self) -> None:
        """Every :data:`HEALTH_EVERY_S`: the devices' health; now and then, the journal's chain."""
        while True:
            await asyncio.sleep(HEALTH_EVERY_S)
            link = self.link
            if link is None:
                continue
            if link.poll_health():
                self.changed()
            now = asyncio.get_running_loop().time()
            if link.verify_every_s is not None and now - self._verified_at >= link.verify_every_s:
                self._verified_at = now
                self._check_chain(link)

    def changed(self) -> None:
        """The table or its health changed: push the new state, and the board if its part changed."""
        link = self.link
        self._state = sse("state", link.snapshot() if link else None)
        self.updates.send(self._state)
        board = sse("board", link.board() if link else None)
        if board != self._board:
            self._board = board
            self.board.send(board)

    def _attached(self, link: TableLink | None) -> None:
        self.link = link
        if link is not None:
            link.on_change = self.changed
            link.poll_health()
            if link.verify_every_s is not None:
                self._verified_at = asyncio.get_running_loop().time()
                self._check_chain(link)
        self.changed()

    # --- the table's thread ---------------------------------------------------------------

    def attach(self, link: TableLink) -> None:
        """Serve ``link``'s table from now on. Called in the table's thread, which owns its listeners."""
        loop = self.loop
        if loop is None or loop.is_closed():
            return
        link.loop = loop
        loop.call_soon_threadsafe(self._attached, link)
        link.controller.listeners.append(link.listener)  # after: its steps reach the loop after the attach

    def detach(self, link: TableLink) -> None:
        """Stop serving ``link``'s table (the demo moves to its next game, or the table stops)."""
        if link.listener in link.controller.listeners:
            link.controller.listeners.remove(link.listener)
        link.loop = None
        loop = self.loop
        if loop is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(lambda: self._attached(None) if self.link is link else None)
            except RuntimeError:
                pass

    # --- handlers ---------------------------------------------------------------------------

    def table(self) -> TableLink:
        if self.link is None:
            raise Denied(503, "no table is being dealt right now")
        return self.link

    async def healthz(self, request: Request) -> Response:
        return JSONResponse({"ok": True, "game": self.link.game if self.link else None, "demo": self.demo})

    async def state(self, request: Request) -> Response:
        self.auth.require(request)
        return JSONResponse(self.table().snapshot())

    async def layout(self, request: Request) -> Response:
        self.auth.require(request)
        return JSONResponse(self.table().layout)

    async def events(self, request: Request) -> Response:
        session = self.auth.require(request)
        return self.updates.response([self._state], allowed=self.auth.still(session))

    async def board_state(self, request: Request) -> Response:
        return JSONResponse(self.table().board())

    async def board_events(self, request: Request) -> Response:
        return self.board.response([self._board])

    async def frame(self, request: Request) -> Response:
        self.auth.require(request)
        path = self.table().frame(request.path_params["name"])
        if path is None:
            raise Denied(404, "no such frame")
        try:  # read whole: an answer sent from the file would hold its descriptor while the browser reads
            data = await anyio.to_thread.run_sync(path.read_bytes)
        except OSError:
            raise Denied(404, "no such frame") from None
        return Response(data, media_type="image/jpeg", headers={"Cache-Control": "private, max-age=86400"})

    async def verify(self, request: Request) -> Response:
        self.auth.require(request, change=True)
        self._check_chain(self.table())
        return JSONResponse({"verifying": True}, status_code=202)

    async def bets(self, request: Request) -> Response:
        return await self._step(request, BETS)

    async def remove(self, request: Request) -> Response:
        return await self._step(request, REMOVALS)

    async def actions(self, request: Request) -> Response:
        return await self._step(request, ACTIONS)

    async def _step(self, request: Request, allowed: tuple[str, ...]) -> Response:
        """A dealer's input: into the table's queue, answered with what the table did; once per
        ``Idempotency-Key``."""
        session = self.auth.require(request, role="dealer", change=True)
        wait = self.rate.take(session.token)
        if wait > 0:
            raise Denied(429, f"too many inputs at once: try again in {wait:.1f} s", {"Retry-After": str(int(wait) + 1)})
        try:
            body = await read_body(request, MAX_BODY)
        except Denied as exc:  # too long: a malformed bet, refused as the contract's 422 (read no further)
            raise _Unprocessable(exc.reason) from None
        path = request.url.path
        key = request.headers.get("idempotency-key")
        if key is None:
            return (await self._do(session.user, body, allowed, path)).response()
        fingerprint = hashlib.sha256(path.encode() + b"\0" + body).digest()
        try:
            answer = await self.keys.once(session.token, key.strip().strip('"'), fingerprint,
                                          lambda: self._do(session.user, body, allowed, path),
                                          keep=lambda answer: answer.status != 503)
        except KeyRefused as exc:
            raise _Unprocessable(str(exc)) from None
        return answer.response()

    async def _do(self, user: str, body: bytes, allowed: tuple[str, ...], path: str) -> Answer:
        """What the table did with ``user``'s ``body``, sent to ``path``: 503 when it did nothing."""
        try:
            event = read_event(body, allowed, path)
        except NotAnInput as exc:
            return Answer.of(422, {"reason": str(exc), "rule": None})
        except Refused as exc:  # journaled in a bounded form, and refused there
            event = exc.stand_in
        try:
            link = self.table()
            stepped = await link.submit(event, user)
        except Denied as exc:
            return Answer.of(exc.status, {"reason": exc.reason})
        except NotTaken as exc:
            return Answer.of(503, {"reason": str(exc)})
        except Exception as exc:  # noqa: BLE001 - the journal failed: the table stops, the browser is told
            log.exception("console: the table could not take %r", event)
            return Answer.of(503, {"reason": f"the table could not journal it: {exc}"})
        row = stepped.rows[0]
        if stepped.step.accepted:
            return Answer.of(200, row.event, row.seq)
        refusal = stepped.step.effects[0]
        return Answer.of(422, {"reason": refusal.get("reason"), "rule": refusal.get("rule")}, row.seq)

    # --- pages ------------------------------------------------------------------------------

    async def home(self, request: Request) -> Response:
        session = self.auth.session(request)
        if session is None:
            return RedirectResponse("/login", 303)
        return RedirectResponse("/dealer" if session.role == "dealer" else "/pit", 303)

    def page(self, name: str, *, login: bool = True, dealer: bool = False) -> Any:
        """The page ``static/NAME.html``; with ``login``, only for a session (else to the login page),
        and with ``dealer``, only for a dealer (a pit user is sent to the pit's page)."""

        async def serve(request: Request) -> Response:
            if login:
                session = self.auth.session(request)
                if session is None:
                    return RedirectResponse(f"/login?next=/{name}", 303)
                if dealer and session.role != "dealer":
                    return RedirectResponse("/pit", 303)
            return self.files.response(f"{name}.html", request)

        return serve


class _Unprocessable(Denied):
    """A body that is not the event the URL takes: 422 in the shape of a refusal, ``rule`` null."""

    def __init__(self, reason: str):
        super().__init__(422, reason)


async def _unprocessable(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, Denied)
    return JSONResponse({"reason": exc.reason, "rule": None}, status_code=422)


def build_app(console: Console, names: HostNames, networks: Iterable[Network] = ()) -> ASGIApp:
    """The console as an ASGI app: only loopback and ``networks`` may connect, and only by one of
    ``names`` (:mod:`controller.web.hosts`: no other site's page reaches it by DNS rebinding)."""
    auth = console.auth
    routes = [
        Route("/healthz", console.healthz),
        Route("/api/login", auth.login, methods=["POST"]),
        Route("/api/logout", auth.logout, methods=["POST"]),
        Route("/api/session", auth.whoami),
        Route("/api/state", console.state),
        Route("/api/layout", console.layout),
        Route("/api/events", console.events),
        Route("/api/board", console.board_state),
        Route("/api/board/events", console.board_events),
        Route("/api/bets", console.bets, methods=["POST"]),
        Route("/api/remove", console.remove, methods=["POST"]),
        Route("/api/actions", console.actions, methods=["POST"]),
        Route("/api/verify", console.verify, methods=["POST"]),
        Route("/frames/{name}", console.frame),
        Route("/", console.home),
        Route("/login", console.page("login", login=False)),
        Route("/board", console.page("board", login=False)),
        Route("/dealer", console.page("dealer", dealer=True)),
        Route("/pit", console.page("pit")),
        Route("/static/{name:path}", console.files.serve, methods=["GET", "HEAD"]),
    ]
    errors = http_errors(auth, public=PUBLIC, public_prefixes=("/static/",), with_rule=WITH_RULE)
    app = Starlette(routes=routes, exception_handlers={_Unprocessable: _unprocessable, Denied: denied_response,
                                                      HTTPException: errors})
    return SecurityHeaders(AllowedPeers(AllowedHosts(app, names, setting="[console] hosts"), networks))
