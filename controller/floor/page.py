"""The floor page: every table's state, the alerts, tables offline, and a table's history.

Why it reads the floor's database rather than the service's memory: the database is the floor's
word (what was received and acknowledged), and reading it beside the service, read-only, keeps
the page unable to change anything. It uses the table console's web stack and logins
(:mod:`controller.web`): the users file of ``dicetable user``, a session cookie of its own
(``dicetable-floor``), the rate-limited login, and server-sent events. Every user of the file may
look (the page changes nothing); off loopback it serves only with TLS.

- ``GET /`` -- the page (``static/floor.html``, its style and script in ``/static/floor.css`` and
  ``/static/floor.js``: nothing inline, so the Content-Security-Policy allows this origin's files only).
- ``POST /api/login``, ``POST /api/logout``, ``GET /api/whoami`` -- :class:`controller.web.auth.Auth`.
- ``GET /api/floor`` -- the floor now (:func:`floor_view`); ``GET /api/events`` -- the same, pushed
  when it changes (``floor``), and each alert as it is raised (``alert``).
- ``GET /api/tables/{table}`` -- a table's journals, its last rows and its shift report
  (:func:`table_history`).
- ``GET /api/shifts.csv`` -- every shift of every table's current journal, for accounting
  (:func:`controller.floor.shifts.shifts_csv`).
- Any other path: 404 ``{"reason"}``; a method a path does not take: 405 ``{"reason"}``, after the
  401 of a path that needs a session.
"""
from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from controller.floor.shifts import LIST_ROWS, ShiftBook, shift_report, shifts_csv, summary
from controller.floor.store import Alert, FloorStore, FloorStoreError
from controller.floor.topics import SILENT_AFTER_S


COOKIE = "dicetable-floor"
#: How often the page's view of the database is read again for the browsers.
POLL_S = 1.0
#: Rows of a table's history shown.
HISTORY_ROWS = 50
STATIC = Path(__file__).with_name("static")


class PageError(ValueError):
    """The page cannot be served as asked (an address, a users file, TLS); the message says why."""


def floor_view(store: FloorStore, now: datetime | None = None, silent_after: float = SILENT_AFTER_S,
               book: ShiftBook | None = None) -> dict[str, Any]:
    """What the page shows: each table (online, silent, its status, its key, the copy's last row, its
    standing alerts, its last shift's numbers from ``book``) and every alert, newest first (those
    an acceptance answered say so)."""
    now = now or datetime.now(timezone.utc)
    book = book or ShiftBook()
    states = store.states()
    current = store.current_journals()
    alerts = store.alerts()
    keys = store.keys()
    silent = store.silent(silent_after, now)
    book.forget_except(current)
    budget = LIST_ROWS
    tables = []
    for table in store.tables():
        state = states.get(table, {})
        status = state.get("status") or {}
        journal = current.get(table)
        last = store.last_row(table, journal) if journal else None
        shift = None
        if journal and last:
            budget -= book.read(store, table, journal, limit=max(budget, 0))
            done = book.read_up_to(table, journal)
            shift = summary(book.settled(table, journal)) if done >= last[0] else {"reading": True, "read": done,
                                                                                   "rows": last[0]}
        tables.append({
            "table": table,
            "online": state.get("online"),
            "silent": table in silent,
            "heard_at": state.get("heard_at"),
            "status": status,
            "status_at": state.get("status_at"),
            "key": keys.get(table),
            "journal": journal,
            "rows": last[0] if last else 0,
            "last_ts": last[1] if last else None,
            "behind": max(0, status["seq"] - last[0]) if last and isinstance(status.get("seq"), int)
            and status.get("journal") == journal else 0,
            "alerts": sum(1 for a in alerts if a.table == table and not a.accepted),
            "shift": shift,
        })
    return {"tables": tables, "alerts": [a.to_json() for a in reversed(alerts)],
            "offline": [t["table"] for t in tables if t["online"] is False],
            "silent": [t["table"] for t in tables if t["silent"]]}


def served_view(store: FloorStore, silent_after: float = SILENT_AFTER_S, book: ShiftBook | None = None) -> dict[str, Any]:
    """:func:`floor_view` as the browsers get it: a database that cannot be read now (being made,
    briefly locked) is said in ``error``, and the page serves on."""
    try:
        return floor_view(store, silent_after=silent_after, book=book)
    except Exception as exc:  # noqa: BLE001 - a database being created, or briefly locked: say so, serve on
        return {"tables": [], "alerts": [], "offline": [], "silent": [],
                "error": f"cannot read the floor's database: {exc}"}


def table_history(store: FloorStore, table: str, journal: str | None = None,
                  book: ShiftBook | None = None) -> dict[str, Any] | None:
    """A table's journals (oldest first), the last :data:`HISTORY_ROWS` rows of one (the current by
    default) and its shift report, or None when the floor holds nothing of that table."""
    journals = store.journals(table)
    if not journals:
        return None
    current = store.current_journal(table)
    chosen = journal if journal in [j for j, _, _ in journals] else current
    rows = [json.loads(line) for line in store.last_lines(table, HISTORY_ROWS, chosen)] if chosen else []
    line = {j: how for j, how, _ in store.line(table)}
    return {"table": table, "journal": chosen,
            "journals": [{"journal": j, "first_ts": ts, "rows": n,
                          "place": "current" if j == current else "line" if j in line else "apart"}
                         for j, ts, n in journals],
            "rows": rows, "alerts": [a.to_json() for a in store.alerts(table)],
            "report": shift_report((book or ShiftBook()).tally(store, table, chosen)) if chosen else None}


@dataclass
class Page:
    """The running page: :meth:`alert` pushes an alert to the browsers (from any thread)."""

    server: Any
    events: Any
    store: FloorStore

    @property
    def url(self) -> str:
        return str(self.server.url)

    def alert(self, alert: Alert) -> None:
        from controller.web.push import sse

        self.events.publish(sse("alert", alert.to_json()))

    def stop(self) -> None:
        self.server.stop()
        self.store.close()


def build_app(db: Path | str, users: Any, *, networks: tuple[Any, ...] = (), listen_host: str = "127.0.0.1",
              hosts: tuple[str, ...] = (), proxies: tuple[Any, ...] = (),
              silent_after: float = SILENT_AFTER_S, book: ShiftBook | None = None) -> tuple[Any, Any, FloorStore]:
    """The Starlette app of the page over the database ``db``, with its event channel and store;
    ``book`` keeps each table's shift (:mod:`controller.floor.shifts`), read in the app's loop only.
    It answers only to the names it listens as (``listen_host``) and ``hosts``
    (:mod:`controller.web.hosts`: no other site's page reaches it by DNS rebinding), and believes
    ``X-Forwarded-*`` from the reverse ``proxies`` only."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import FileResponse, JSONResponse, Response
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles

    from controller.web.access import AllowedPeers
    from starlette.exceptions import HTTPException

    from controller.web.auth import Auth, Denied, denied_response
    from controller.web.errors import http_errors
    from controller.web.headers import SecurityHeaders
    from controller.web.hosts import AllowedHosts, HostNames
    from controller.web.push import Broadcast, sse

    store = _open_store(db)
    auth = Auth(users, cookie=COOKIE, proxies=proxies)
    events = Broadcast()
    book = book if book is not None else ShiftBook()

    async def page(request: Request) -> Response:
        return FileResponse(STATIC / "floor.html", headers={"Cache-Control": "no-cache"})

    async def floor(request: Request) -> Response:
        auth.require(request)
        return JSONResponse(served_view(store, silent_after, book))

    async def stream(request: Request) -> Response:
        session = auth.require(request)  # the stream ends once its user logs out, expires or is removed
        return events.response([sse("floor", served_view(store, silent_after, book))], allowed=auth.still(session))

    async def shifts(request: Request) -> Response:
        auth.require(request)
        return Response(shifts_csv(store, book), media_type="text/csv; charset=utf-8",
                        headers={"Content-Disposition": 'attachment; filename="shifts.csv"', "Cache-Control": "no-store"})

    async def history(request: Request) -> Response:
        auth.require(request)
        found = table_history(store, request.path_params["table"], request.query_params.get("journal"), book)
        if found is None:
            raise Denied(404, f"the floor holds nothing of table {request.path_params['table']!r}")
        return JSONResponse(found)

    app = Starlette(routes=[
        Route("/", page),
        Route("/api/login", auth.login, methods=["POST"]),
        Route("/api/logout", auth.logout, methods=["POST"]),
        Route("/api/whoami", auth.whoami),
        Route("/api/floor", floor),
        Route("/api/events", stream),
        Route("/api/tables/{table}", history),
        Route("/api/shifts.csv", shifts),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ], exception_handlers={Denied: denied_response,
                           HTTPException: http_errors(auth, public=("/", "/api/login"), public_prefixes=("/static/",))})
    guarded = AllowedPeers(AllowedHosts(app, HostNames(listen_host, hosts), setting="dicetable floor --hosts"), networks)
    return SecurityHeaders(guarded), events, store


def _open_store(db: Path | str) -> FloorStore:
    """The database read-only; a floor starting on a new database makes it first (the service's
    store makes the same schema an instant later, and never over rows)."""
    try:
        return FloorStore(db, readonly=True)
    except FloorStoreError:
        FloorStore(db).close()
        return FloorStore(db, readonly=True)


def default_users(db: Path | str) -> Path:
    """The page's users file when none is named: ``floor-users`` beside the database (in the current
    folder for a PostgreSQL database)."""
    from controller.floor.backends import is_url

    return Path("floor-users") if is_url(db) else Path(db).parent / "floor-users"


def start_page(db: Path | str, listen: str, *, users: str | Path | None = None, certificate: str | None = None,
               key: str | None = None, networks: tuple[str, ...] = (), hosts: tuple[str, ...] = (),
               trusted_proxies: tuple[str, ...] = (), silent_after: float = SILENT_AFTER_S) -> Page | None:
    """Serve the page of the database ``db`` on ``listen`` (``HOST:PORT``), its logins from ``users``
    (:func:`default_users` by default; a file not there yet lets nobody in until a user is added),
    to browsers that reach it by the address it listens on or one of the names ``hosts``; the
    client behind one of ``trusted_proxies`` (networks) is the one it names in ``X-Forwarded-For``.
    :class:`PageError` when it cannot be served as asked; None, with a warning, when the address is
    taken (the floor keeps the journals all the same)."""
    from controller.web.access import parse_networks
    from controller.web.hosts import parse_hosts
    from controller.web.serve import WebServer, parse_listen, tls_context
    from controller.web.users import UsersError, UsersFile

    try:
        where = parse_listen(listen)
    except ValueError as exc:
        raise PageError(f"--listen: {exc}") from None
    try:
        names = parse_hosts(hosts)
    except ValueError as exc:
        raise PageError(f"--hosts: {exc}") from None
    users = Path(users) if users else default_users(db)  # a file not there yet: UsersFile says how to add one
    if bool(certificate) != bool(key):
        raise PageError("--certificate and --key: both or neither")
    if not where.loopback and not certificate:
        raise PageError(f"--listen {listen}: off this machine the page needs TLS (--certificate and --key), "
                        "since a password must not cross the network in the clear")
    try:
        people = UsersFile(users)
        if people.problem and users.exists():  # a file open to other users, or with a mistake: said at the start
            raise PageError(f"--users: {people.problem}")
        allowed = parse_networks(networks)
        proxies = parse_networks(trusted_proxies)
        tls = tls_context(certificate, key) if certificate and key else None
    except (UsersError, ValueError, OSError) as exc:
        raise PageError(str(exc)) from None
    book = ShiftBook()
    try:
        app, events, store = build_app(db, people, networks=allowed, listen_host=where.host, hosts=names,
                                       proxies=proxies, silent_after=silent_after, book=book)
    except FloorStoreError as exc:  # a database it can neither open nor make: said, not a traceback
        raise PageError(str(exc)) from None
    from controller.web.push import sse

    async def poll() -> None:
        """Push the floor to the browsers whenever what they would see changed."""
        last = None
        while True:
            await asyncio.sleep(POLL_S)
            if not events.subscribers:
                continue
            now = served_view(store, silent_after, book)
            if now != last:
                events.send(sse("floor", now))
                last = now

    def on_loop(loop: asyncio.AbstractEventLoop) -> None:
        events.bind(loop)
        loop.create_task(poll())

    server = WebServer(app, where, tls=tls, on_loop=on_loop, on_stop=events.close, name="floor page")
    if not server.start():  # the warning names the address and why
        store.close()
        return None
    return Page(server, events, store)
