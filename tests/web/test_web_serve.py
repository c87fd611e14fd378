"""The server in its own thread: real sockets, a port in use is a warning, TLS, and event streams
that drop a slow browser instead of waiting for it."""
from __future__ import annotations

import asyncio
import logging
import shutil
import socket
import ssl
import subprocess
import threading
from collections.abc import AsyncGenerator
from typing import cast

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from controller.web.push import Broadcast, sse
from controller.web.serve import Listen, WebServer, parse_listen, tls_context


def _app(broadcast: Broadcast | None = None) -> Starlette:
    async def hello(request: Request) -> JSONResponse:
        return JSONResponse({"hello": request.url.scheme})

    async def events(request: Request) -> Response:
        assert broadcast is not None
        return broadcast.response([sse("hello", {"n": 0})])

    return Starlette(routes=[Route("/", hello), Route("/events", events)])


@pytest.mark.parametrize("text, host, port", [
    ("127.0.0.1:8080", "127.0.0.1", 8080), ("[::1]:8443", "::1", 8443), ("localhost:0", "localhost", 0),
    ("0.0.0.0:80", "0.0.0.0", 80),
])
def test_listen_addresses_are_host_and_port(text, host, port):
    listen = parse_listen(text)
    assert (listen.host, listen.port) == (host, port)
    assert parse_listen(str(listen)) == listen


@pytest.mark.parametrize("text", ["8080", "127.0.0.1", "127.0.0.1:http", "::1:8080", "127.0.0.1:70000", ":8080"])
def test_a_listen_address_that_is_not_host_port_is_refused_with_an_example(text):
    with pytest.raises(ValueError, match="HOST:PORT|brackets"):
        parse_listen(text)


def test_loopback_is_told_from_a_network_address():
    assert Listen("127.0.0.1", 1).loopback and Listen("::1", 1).loopback and Listen("localhost", 1).loopback
    assert not Listen("0.0.0.0", 1).loopback and not Listen("192.168.1.5", 1).loopback


def test_the_server_runs_in_its_own_thread_and_stops():
    server = WebServer(_app(), Listen("127.0.0.1", 0), name="test-web")
    assert server.start()
    try:
        assert server.port and server.url == f"http://127.0.0.1:{server.port}/"
        assert httpx.get(server.url).json() == {"hello": "http"}
        assert any(t.name == "test-web" for t in threading.enumerate())
    finally:
        server.stop()
    assert not any(t.name == "test-web" for t in threading.enumerate())
    with pytest.raises(httpx.ConnectError):
        httpx.get(server.url)


def test_a_port_already_in_use_is_a_warning_and_no_failure(caplog):
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    try:
        server = WebServer(_app(), Listen("127.0.0.1", taken.getsockname()[1]), name="console")
        with caplog.at_level(logging.WARNING):
            assert server.start() is False
        assert "console: cannot listen on 127.0.0.1:" in caplog.text and "running without it" in caplog.text
        server.stop()  # nothing to stop: no error either
    finally:
        taken.close()


def test_tls_with_the_certificate_and_key_given(tmp_path):
    if shutil.which("openssl") is None:
        pytest.skip("no openssl command to make a test certificate")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True)
    server = WebServer(_app(), Listen("127.0.0.1", 0), tls=tls_context(cert, key))
    assert server.start()
    try:
        assert server.url.startswith("https://")
        trusted = ssl.create_default_context(cafile=str(cert))
        assert httpx.get(server.url, verify=trusted).json() == {"hello": "https"}
        with pytest.raises(httpx.HTTPError):
            httpx.get(server.url.replace("https", "http"))
    finally:
        server.stop()
    with pytest.raises(ValueError, match="no such file"):
        tls_context(tmp_path / "missing.pem", key)
    with pytest.raises(ValueError, match="cannot load the certificate"):
        tls_context(key, key)


def test_every_stream_gets_what_is_published_from_another_thread():
    broadcast = Broadcast()
    server = WebServer(_app(broadcast), Listen("127.0.0.1", 0), on_loop=broadcast.bind, on_stop=broadcast.close)
    assert server.start()
    received: list[list[str]] = [[], []]
    ready = threading.Barrier(3)

    def listen(index: int) -> None:
        with httpx.stream("GET", server.url + "events", timeout=10) as answer:
            assert answer.headers["content-type"].startswith("text/event-stream")
            for line in answer.iter_lines():
                if line.startswith("data:"):
                    received[index].append(line)
                    if len(received[index]) == 1:
                        ready.wait()
                    if len(received[index]) == 3:
                        return

    readers = [threading.Thread(target=listen, args=(i,)) for i in range(2)]
    try:
        for reader in readers:
            reader.start()
        ready.wait(timeout=10)
        publisher = threading.Thread(target=lambda: [broadcast.publish(sse("n", {"n": n})) for n in (1, 2)])
        publisher.start()
        publisher.join()
        for reader in readers:
            reader.join(timeout=10)
    finally:
        server.stop()
    assert received[0] == received[1] == ['data: {"n":0}', 'data: {"n":1}', 'data: {"n":2}']


def test_a_subscriber_that_does_not_read_is_dropped_not_waited_for():
    async def scenario() -> tuple[int, int, list[bytes]]:
        broadcast = Broadcast(backlog=4)
        broadcast.bind(asyncio.get_running_loop())
        slow = broadcast.response([])  # never read
        fast = broadcast.response([])
        stream = cast(AsyncGenerator[bytes, None], fast.body_iterator)
        got = [await stream.__anext__()]
        for n in range(3):
            broadcast.send(sse("n", n))
            got.append(await stream.__anext__())
        for n in range(3, 6):  # the slow one's queue fills up: it is dropped, the fast one goes on
            broadcast.send(sse("n", n))
            got.append(await stream.__anext__())
        await cast(AsyncGenerator[bytes, None], slow.body_iterator).aclose()
        await stream.aclose()
        return broadcast.dropped, broadcast.subscribers, got

    dropped, left, got = asyncio.run(scenario())
    assert dropped == 1 and left == 0
    assert got[1:] == [sse("n", n) for n in range(6)]


def test_a_quiet_stream_says_alive_as_an_event_a_page_hears_or_as_a_comment(monkeypatch):
    """With ``alive`` a quiet stream sends an ``alive`` event (at once, and after each quiet spell)
    that a page's EventSource receives; without it, the comment that only keeps proxies from
    closing the stream."""
    monkeypatch.setattr("controller.web.push.KEEPALIVE_S", 0.01)

    async def scenario(broadcast: Broadcast) -> list[bytes]:
        broadcast.bind(asyncio.get_running_loop())
        stream = cast(AsyncGenerator[bytes, None], broadcast.response([sse("state", 1)]).body_iterator)
        got = [await stream.__anext__() for _ in range(3)]
        await stream.aclose()
        return got

    alive = sse("alive", {"every": 0.01})
    assert asyncio.run(scenario(Broadcast(alive=0.01))) == [
        b"retry: 1000\n\n" + sse("state", 1) + alive, alive, alive]
    assert asyncio.run(scenario(Broadcast())) == [b"retry: 1000\n\n" + sse("state", 1), b": keep-alive\n\n",
                                                  b": keep-alive\n\n"]
