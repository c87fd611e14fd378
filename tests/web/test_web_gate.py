"""The gate of a web server in the table's process: a budget of descriptors computed from the file
limit, connections counted against it stage by stage, and a real server that answers every client
it refuses with 503 and ``Retry-After``, lets go of silent sockets, serves a login from its reserve,
and never logs a traceback when the process is out of descriptors."""
from __future__ import annotations

import asyncio
import dataclasses
import logging
import socket
import subprocess
import sys
import textwrap
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from controller.web.budget import SERVER_OWN, Budget, BudgetError
from controller.web.pools import Pools, Refusal, Stage, Tally
from controller.web.serve import Listen, WebServer

REPO = Path(__file__).resolve().parents[2]


# --- the budget ------------------------------------------------------------------------------------

def test_the_budget_leaves_the_table_its_reserve_and_counts_no_descriptor_past_1024():
    budget = Budget.shared(1024, 20)
    assert budget.reserve == 128 and budget.connections == 1024 - 20 - 128 - SERVER_OWN
    assert budget.sessions + budget.refusing + budget.waiting + budget.anonymous == budget.connections
    assert budget.probation <= budget.sessions and budget.per_client <= budget.anonymous
    assert budget.streams <= budget.anonymous // 2 and budget.streams_per_client <= budget.streams
    # A higher limit is the table's margin: select() takes no descriptor numbered 1024 or more.
    assert Budget.shared(65536, 20) == dataclasses.replace(budget, limit=1024)
    assert Budget.shared(256, 20).reserve == 64
    with pytest.raises(BudgetError, match="leaves fewer than 16 connections beside the table's reserve of 64"):
        Budget.shared(150, 30)


# --- the pools -------------------------------------------------------------------------------------

SMALL = dataclasses.replace(Budget.shared(1024, 0), connections=20, sessions=6, probation=3, refusing=2, waiting=4,
                            anonymous=8, per_client=3, streams=2, streams_per_client=1, per_session=2)


def test_a_connection_waits_then_goes_to_its_share_or_is_refused_with_the_reason():
    pools = Pools(SMALL)
    first = [pools.enter("10.0.0.1") for _ in range(4)]
    assert all(c is not None and c.stage is Stage.WAITING for c in first)
    extra = [pools.enter("10.0.0.1") for _ in range(3)]  # the waiting share is full: on probation
    assert all(c is not None and c.stage is Stage.PROBATION for c in extra)
    assert pools.entry() is None and pools.enter("10.0.0.9") is None
    assert pools.admit(first[0], session=None, client="a", stream="board") is None
    assert pools.admit(first[1], session=None, client="a", stream="board") is Refusal.CLIENT_STREAMS
    assert first[1].stage is Stage.REFUSING
    assert pools.admit(first[2], session=None, client="b", stream="board") is None
    assert pools.admit(first[3], session=None, client="c", stream="board") is Refusal.STREAMS
    assert pools.admit(extra[0], session="s1", client="a", stream=None) is None
    assert pools.admit(extra[1], session="s1", client="a", stream=None) is None
    assert pools.admit(extra[2], session="s1", client="a", stream=None) is Refusal.SESSION
    assert pools.stages[Stage.ANONYMOUS] == 2 and pools.stages[Stage.SESSION] == 2
    for connection in first + extra:
        assert connection is not None
        pools.release(connection)
        pools.release(connection)  # a second time changes nothing
    assert pools.held == 0 and not (pools.clients or pools.streams or pools.client_streams or pools.sessions)


def test_a_client_holds_no_more_than_its_share_and_the_anonymous_no_more_than_theirs():
    pools = Pools(SMALL)
    admitted = []
    for n in range(12):
        connection = pools.enter("10.0.0.1")
        assert connection is not None
        refusal = pools.admit(connection, session=None, client=f"client-{n % 4}", stream=None)
        admitted.append(refusal)
        if refusal is not None:
            pools.release(connection)
    assert admitted.count(None) == SMALL.anonymous and set(admitted) == {None, Refusal.ALL}
    connection = pools.enter("10.0.0.1")
    assert connection is not None and pools.admit(connection, session="s", client="x", stream=None) is None


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["enter", "admit", "login", "refuse", "release"]),
                          st.integers(0, 30), st.sampled_from(["a", "b", "c"]), st.sampled_from([None, "board"])),
                max_size=120))
def test_the_connections_held_never_exceed_the_budget_and_all_return(operations):
    pools = Pools(SMALL)
    live = []
    for operation, index, client, stream in operations:
        if operation == "enter":
            connection = pools.enter(client)
            if connection is not None:
                live.append(connection)
        elif live:
            connection = live[index % len(live)]
            if operation in ("admit", "login") and connection.stage in (Stage.WAITING, Stage.PROBATION):
                pools.admit(connection, session="s" if operation == "login" else None, client=client, stream=stream)
            elif operation == "refuse":
                pools.refuse(connection)
            elif operation == "release":
                pools.release(connection)
                live.remove(connection)
        assert pools.held <= SMALL.connections and pools.held == len(live)
        assert pools.stages[Stage.ANONYMOUS] <= SMALL.anonymous and pools.stages[Stage.WAITING] <= SMALL.waiting
        assert pools.stages[Stage.SESSION] + pools.stages[Stage.PROBATION] <= SMALL.sessions
    for connection in live:
        pools.release(connection)
    assert pools.held == 0 and not (pools.clients or pools.streams or pools.client_streams or pools.sessions)


def test_the_refusals_are_summed_up_by_reason_and_client():
    tally = Tally()
    assert tally.summary(silent_s=5) is None
    for _ in range(3):
        tally.add(Refusal.CLIENT_STREAMS, "127.0.0.2")
    tally.add(Refusal.SILENT, "127.0.0.3")
    assert tally.summary(silent_s=5) == ("refused 4 connections from 2 clients with 503 (3 over a client's cap on "
                                         "event streams of a kind; 1 with no whole request within 5 s)")
    assert tally.summary(silent_s=5) is None  # counted afresh


# --- a real server ---------------------------------------------------------------------------------

async def _hello(request: Request) -> Response:
    return JSONResponse({"hello": True})


async def _events(request: Request) -> Response:
    async def forever() -> AsyncIterator[bytes]:
        yield b"event: hello\ndata: {}\n\n"
        while True:
            await asyncio.sleep(3600)
            yield b": keep-alive\n\n"

    return StreamingResponse(forever(), media_type="text/event-stream")


def _login(scope) -> str | None:
    """A request logs in by its ``Cookie: login=NAME``."""
    for key, value in scope["headers"]:
        if key == b"cookie" and value.startswith(b"login="):
            return value[6:].decode()
    return None


@pytest.fixture
def server():
    started = []

    def make(budget: Budget = SMALL) -> WebServer:
        app = Starlette(routes=[Route("/", _hello), Route("/events", _events), Route("/hold", _events)])
        web = WebServer(app, Listen("127.0.0.1", 0), name="test", session=_login, streams={"/events": "events"},
                        budget=budget, request_s=1.0)
        assert web.start()
        started.append(web)
        return web

    yield make
    for web in started:
        web.stop()


def _connect(port: int, source: str = "127.0.0.1") -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=15, source_address=(source, 0))
    return sock


def _answer(sock: socket.socket) -> tuple[int, dict[str, str], bytes]:
    """The status, headers and (what came of the) body of the next answer on ``sock``."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        assert chunk, f"closed before an answer: {data!r}"
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    status, *lines = head.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines)}
    while len(body) < int(headers.get("content-length", len(body))):
        body += sock.recv(65536)
    return int(status.split()[1]), headers, body


def _get(port: int, path: str = "/", *, cookie: str | None = None, source: str = "127.0.0.1",
         sock: socket.socket | None = None) -> tuple[socket.socket, int, dict[str, str], bytes]:
    sock = sock or _connect(port, source)
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n".encode()
                 + (f"Cookie: {cookie}\r\n".encode() if cookie else b"") + b"\r\n")
    return (sock, *_answer(sock))


def _refused(status: int, headers: dict[str, str]) -> bool:
    return (status == 503 and headers.get("retry-after") == "5" and headers.get("connection") == "close"
            and headers.get("x-frame-options") == "DENY")


def test_a_socket_that_sends_nothing_or_half_a_request_is_answered_503_and_closed(server):
    web = server()
    silent = _connect(web.port)
    half = _connect(web.port)
    half.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
    for sock in (silent, half):
        status, headers, body = _answer(sock)
        assert _refused(status, headers) and b"no whole request came in time" in body
        assert sock.recv(10) == b""  # then closed, not reset
        sock.close()


def test_a_request_without_a_login_is_its_connections_last_one_with_a_login_keeps_it(server):
    web = server()
    sock, status, headers, _ = _get(web.port)
    assert status == 200 and headers["connection"] == "close"
    sock.close()
    sock, status, headers, _ = _get(web.port, cookie="login=dana")
    assert status == 200 and "connection" not in headers
    _, status, _, _ = _get(web.port, cookie="login=dana", sock=sock)  # the same connection again
    assert status == 200
    sock.close()


def test_clients_over_their_caps_get_503_and_a_login_is_served_from_its_reserve(server, caplog):
    web = server()
    held = []
    sock, status, _, _ = _get(web.port, "/events")
    assert status == 200
    held.append(sock)
    sock, status, headers, body = _get(web.port, "/events")  # one stream a client (SMALL)
    assert _refused(status, headers) and b"this client holds as many of these event streams" in body
    sock, status, _, _ = _get(web.port, "/events", source="127.0.0.2")
    assert status == 200
    held.append(sock)
    sock, status, headers, body = _get(web.port, "/events", source="127.0.0.3")  # two streams in all
    assert _refused(status, headers) and b"the server holds as many of these event streams" in body
    for source in ("127.0.0.4", "127.0.0.5", "127.0.0.6", "127.0.0.7", "127.0.0.8", "127.0.0.9"):
        sock, status, _, _ = _get(web.port, "/hold", source=source)  # a long answer of no stream kind
        assert status == 200
        held.append(sock)
    sock, status, headers, body = _get(web.port, source="127.0.0.10")
    assert _refused(status, headers) and b"the server holds as many connections without a login" in body
    sock, status, _, _ = _get(web.port, cookie="login=dana", source="127.0.0.10")
    assert status == 200
    for sock in held:
        sock.close()
    with caplog.at_level(logging.WARNING, logger="controller.web.gate"):
        web.stop()
    (line,) = [r.getMessage() for r in caplog.records if r.name == "controller.web.gate"]
    assert line.startswith("test: since the last count refused 3 connections from 3 clients with 503 (")
    assert "1 over the cap on connections without a login" in line and line.endswith("at most 9 connections held of 20")


def test_silent_sockets_are_let_go_to_make_room_for_a_client_that_asks(server):
    web = server()
    silent = [_connect(web.port) for _ in range(SMALL.waiting + SMALL.probation + 5)]
    time.sleep(0.5)
    sock, status, _, _ = _get(web.port)  # answered long before the silent ones' time is up
    assert status == 200
    for sock in silent:
        status, headers, _ = _answer(sock)
        assert _refused(status, headers)
        sock.close()


def test_out_of_descriptors_the_gate_waits_and_logs_no_traceback(tmp_path):
    """The process's file limit far below its budget (something else took the descriptors): the
    accept fails, the gate waits and tries again, counts it in one line, and serves once it can."""
    script = textwrap.dedent("""
        import dataclasses, logging, resource, sys
        from starlette.applications import Starlette
        from starlette.responses import JSONResponse
        from starlette.routing import Route
        from controller.web.budget import Budget
        from controller.web.serve import Listen, WebServer

        logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
        async def hello(request):
            return JSONResponse({"hello": True})
        server = WebServer(Starlette(routes=[Route("/", hello)]), Listen("127.0.0.1", 0), name="starved",
                           budget=Budget.shared(1024, 0), request_s=1.0)
        assert server.start()
        resource.setrlimit(resource.RLIMIT_NOFILE, (40, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
        print(server.port, flush=True)
        sys.stdin.readline()
        server.stop()
    """)
    process = subprocess.Popen([sys.executable, "-c", script], cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None and process.stdin is not None
        port = int(process.stdout.readline())
        flood = [socket.create_connection(("127.0.0.1", port), timeout=15) for _ in range(200)]
        time.sleep(1.5)
        for sock in flood:
            sock.close()
        deadline = time.monotonic() + 20
        while True:
            try:
                _, status, _, _ = _get(port)
                break
            except (OSError, AssertionError):
                assert time.monotonic() < deadline, "the server never served again"
                time.sleep(0.2)
        assert status == 200
        process.stdin.close()
        assert process.wait(20) == 0
    finally:
        if process.poll() is None:
            process.kill()
    assert process.stderr is not None
    err = process.stderr.read()
    assert "Traceback" not in err and len(err) < 2000, err
    assert "stopped accepting for a moment" in err and "(Too many open files)" in err
