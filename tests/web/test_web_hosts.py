"""The Host header: a service answers only to the names it is reached by, so that another site's page
cannot reach it by DNS rebinding (its own name resolved to 127.0.0.1)."""
from __future__ import annotations

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from controller.web.hosts import AllowedHosts, HostNames, header_host, host_problem, parse_hosts


def app_for(names: HostNames):
    async def hello(request: Request) -> JSONResponse:
        return JSONResponse({"hello": True})

    return AllowedHosts(Starlette(routes=[Route("/", hello)]), names, setting="[console] hosts")


@pytest.mark.parametrize("header, host", [
    ("127.0.0.1:8080", "127.0.0.1"), ("localhost", "localhost"), ("[::1]:8080", "::1"), ("[::1]", "::1"),
    ("Table7.LAN.:443", "table7.lan"), ("evil.example:8080", "evil.example"), ("[0:0::1]:80", "::1"),
])
def test_the_host_of_a_header_is_its_name_without_the_port(header, host):
    assert header_host(header) == host


def test_on_loopback_only_the_loopback_names_and_those_configured_are_answered():
    names = HostNames("127.0.0.1", ["table7.lan"])
    for host in ("127.0.0.1", "localhost", "::1", "127.0.0.2", "table7.lan"):
        assert names.allows(host), host
    for host in ("evil.example", "localhost.evil.example", "192.168.1.7", "table7.lan.evil.example"):
        assert not names.allows(host), host


def test_on_one_network_address_only_that_address_and_the_names_configured():
    names = HostNames("192.168.10.7", ["table7.lan"])
    assert names.allows("192.168.10.7") and names.allows("table7.lan")
    assert not names.allows("localhost") and not names.allows("127.0.0.1") and not names.allows("192.168.10.8")
    assert not names.allows("evil.example")


def test_on_every_address_any_address_but_only_the_names_configured():
    names = HostNames("0.0.0.0", ["table7.lan"])
    for host in ("192.168.10.7", "10.1.2.3", "::1", "localhost", "127.0.0.1", "table7.lan"):
        assert names.allows(host), host
    assert not names.allows("evil.example")
    assert not HostNames("::").allows("evil.example") and HostNames("::").allows("fe80::1")


def test_a_page_reached_by_another_sites_name_is_refused_with_the_reason():
    with TestClient(app_for(HostNames("127.0.0.1")), base_url="http://evil.example:8080") as client:
        answer = client.get("/")
        assert answer.status_code == 421
        reason = answer.json()["reason"]
        assert "'evil.example'" in reason and "localhost" in reason and "[console] hosts" in reason
    with TestClient(app_for(HostNames("127.0.0.1")), base_url="http://localhost:8080") as client:
        assert client.get("/").json() == {"hello": True}
    with TestClient(app_for(HostNames("127.0.0.1", ["table7.lan"])), base_url="https://table7.lan") as client:
        assert client.get("/").json() == {"hello": True}


def test_the_names_answered_are_listed_once_each_in_the_form_a_browser_uses():
    assert str(HostNames("127.0.0.1")) == "127.0.0.1, [::1], localhost"
    assert str(HostNames("::1", ["::1", "table7.lan"])) == "127.0.0.1, [::1], localhost, table7.lan"
    assert str(HostNames("0.0.0.0", ["table7.lan"])) == "127.0.0.1, [::1], localhost, table7.lan or any address"
    assert str(HostNames("192.168.10.7")) == "192.168.10.7"


def test_a_request_without_one_host_is_refused():
    import asyncio
    import json

    sent: list[dict] = []

    async def receive() -> dict:
        return {"type": "http.request", "body": b""}

    async def send(message: dict) -> None:
        sent.append(message)

    for headers in ([], [(b"host", b"127.0.0.1"), (b"host", b"evil.example")]):
        sent.clear()
        scope = {"type": "http", "method": "GET", "path": "/", "headers": headers, "client": ("127.0.0.1", 40000)}
        asyncio.run(app_for(HostNames("127.0.0.1"))(scope, receive, send))
        assert sent[0]["status"] == 400 and "one Host header" in json.loads(sent[1]["body"])["reason"]


def test_names_an_operator_lists_are_checked():
    assert parse_hosts(["Table7.LAN", "192.168.10.7", "[::1]"]) == ("table7.lan", "192.168.10.7", "::1")
    for bad in ("https://table7.lan", "table7.lan:443", "table7.lan/console", "", "*.lan", 7):
        assert host_problem(bad), bad
    with pytest.raises(ValueError, match="'table7.lan:443' is not a host name"):
        parse_hosts(["table7.lan:443"])
