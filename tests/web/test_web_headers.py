"""The security headers on every answer of the console and of the floor page: pages, their files,
the API, its refusals (the peers', the host names', the logins'), errors and event streams."""
from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from controller.console.app import Console, build_app
from controller.web.hosts import HostNames
from controller.web.users import StaticUsers, add_user

EXPECTED = {
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "same-origin",
}


def assert_guarded(answer) -> None:
    for name, value in EXPECTED.items():
        assert answer.headers.get(name) == value, (answer.request.url, name, answer.headers.get(name))
    policy = answer.headers["content-security-policy"]
    for directive in ("default-src 'self'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'",
                      "base-uri 'none'"):
        assert directive in policy, (answer.request.url, policy)
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy
    assert len(answer.headers.get_list("content-security-policy")) == 1


def test_every_answer_of_the_console_carries_the_security_headers():
    users = StaticUsers.with_passwords({"dana": ("dealer", "dana-pass")})
    app = build_app(Console(users, cookie="dicetable_console_8080"), HostNames("127.0.0.1"))
    with TestClient(app, base_url="http://127.0.0.1", client=("127.0.0.1", 40000)) as client:
        answers = [client.get(path) for path in ("/login", "/board", "/static/dealer.js", "/static/console.css",
                                                  "/healthz", "/api/state", "/api/board")]
        assert [a.status_code for a in answers] == [200, 200, 200, 200, 200, 401, 503]
        answers.append(client.post("/api/login", json={"user": "dana", "password": "wrong"}))
        answers.append(client.post("/api/login", json={"user": "dana", "password": "dana-pass"}))
        assert [a.status_code for a in answers[-2:]] == [401, 200]
        answers.append(client.post("/api/bets", json={"seat": "A"}))  # no CSRF token
        assert answers[-1].status_code == 403
        for answer in answers:
            assert_guarded(answer)
    with TestClient(app, base_url="http://evil.example", client=("127.0.0.1", 40000)) as client:
        answer = client.get("/login")
        assert answer.status_code == 421
        assert_guarded(answer)
    with TestClient(app, base_url="http://127.0.0.1", client=("192.0.2.9", 40000)) as client:
        answer = client.get("/login")
        assert answer.status_code == 403
        assert_guarded(answer)


@pytest.fixture
def floor_app(tmp_path):
    from controller.floor.page import build_app as floor_build_app
    from controller.web.users import UsersFile

    add_user(tmp_path / "floor-users", "pat", "pit", "watch-the-floor")
    app, _, store = floor_build_app(tmp_path / "floor.sqlite3", UsersFile(tmp_path / "floor-users"))
    yield app
    store.close()


def test_every_answer_of_the_floor_page_carries_the_security_headers(floor_app):
    with TestClient(floor_app, base_url="http://127.0.0.1", client=("127.0.0.1", 40000)) as client:
        answers = [client.get(path) for path in ("/", "/static/floor.js", "/static/floor.css", "/api/floor")]
        assert [a.status_code for a in answers] == [200, 200, 200, 401]
        assert "<script>" not in answers[0].text and "<style>" not in answers[0].text and "style=" not in answers[0].text
        login = client.post("/api/login", json={"user": "pat", "password": "watch-the-floor"})
        answers += [login, client.get("/api/floor"), client.get("/api/tables/nobody")]
        assert [a.status_code for a in answers[-3:]] == [200, 200, 404]
        with client.stream("GET", "/api/events") as stream:
            assert_guarded(stream)
        for answer in answers:
            assert_guarded(answer)
    with TestClient(floor_app, base_url="http://evil.example", client=("127.0.0.1", 40000)) as client:
        assert_guarded(client.get("/"))
