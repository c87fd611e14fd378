"""Logins, sessions, CSRF and roles on a small Starlette app: 401 before anything else, then 403."""
from __future__ import annotations

import asyncio

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from controller.web.access import AllowedPeers, parse_networks
from controller.web.auth import SESSIONS_PER_USER, Auth, Denied, LoginLimiter, Sessions, denied_response, same_origin
from controller.web.users import StaticUsers, UsersFile, add_user, remove_user


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def make_app(users, *, clock=None, networks=(), proxies=()):
    clock = clock or Clock()
    auth = Auth(users, cookie="test_session", sessions=Sessions(clock=clock), limiter=LoginLimiter(clock=clock),
                proxies=parse_networks(proxies))

    async def change(request: Request) -> JSONResponse:
        session = auth.require(request, role="dealer", change=True)
        return JSONResponse({"changed_by": session.user})

    async def look(request: Request) -> JSONResponse:
        return JSONResponse({"user": auth.require(request).user})

    app = Starlette(routes=[
        Route("/api/login", auth.login, methods=["POST"]),
        Route("/api/logout", auth.logout, methods=["POST"]),
        Route("/api/session", auth.whoami),
        Route("/change", change, methods=["POST"]),
        Route("/look", look),
    ], exception_handlers={Denied: denied_response})
    return AllowedPeers(app, networks), auth


USERS = StaticUsers.with_passwords({"dana": ("dealer", "dana-pass"), "pete": ("pit", "pete-pass")})


def client(app, host="127.0.0.1"):
    return TestClient(app, base_url="http://127.0.0.1", client=(host, 40000))


def login(c, user, password):
    return c.post("/api/login", json={"user": user, "password": password})


def test_a_login_sets_an_httponly_samesite_cookie_and_gives_the_csrf_token():
    app, _ = make_app(USERS)
    with client(app) as c:
        answer = login(c, "dana", "dana-pass")
        assert answer.status_code == 200
        body = answer.json()
        assert body["user"] == "dana" and body["role"] == "dealer" and len(body["csrf"]) > 30
        cookie = answer.headers["set-cookie"].lower()
        assert "test_session=" in cookie and "httponly" in cookie and "samesite=strict" in cookie
        assert "secure" not in cookie  # plain HTTP on loopback
        assert c.get("/api/session").json()["csrf"] == body["csrf"]  # again after a reload


@pytest.mark.parametrize("user, password", [("dana", "wrong"), ("nobody", "dana-pass"), ("pete", "dana-pass")])
def test_a_wrong_password_or_user_is_401_and_sets_no_cookie(user, password):
    app, _ = make_app(USERS)
    with client(app) as c:
        answer = login(c, user, password)
        assert answer.status_code == 401 and answer.json() == {"reason": "wrong user name or password"}
        assert "set-cookie" not in answer.headers
        assert c.get("/look").status_code == 401


@pytest.mark.parametrize("body", ['{"user": "dana"}', "not json", '["dana", "dana-pass"]', '{"user": 1, "password": 2}'])
def test_a_login_body_that_is_not_the_two_strings_is_a_clear_400(body):
    app, _ = make_app(USERS)
    with client(app) as c:
        answer = c.post("/api/login", content=body, headers={"content-type": "application/json"})
        assert answer.status_code == 400 and "reason" in answer.json()


def test_without_a_session_401_comes_before_any_other_check():
    app, _ = make_app(USERS)
    with client(app) as c:
        assert c.post("/change").status_code == 401  # no token either: still 401
        assert c.post("/change", headers={"X-CSRF-Token": "x"}).status_code == 401
        c.cookies.set("test_session", "forged")
        assert c.post("/change").status_code == 401


def test_with_a_session_a_change_needs_the_token_and_the_role():
    app, _ = make_app(USERS)
    with client(app) as dealer, client(app) as pit:
        token = login(dealer, "dana", "dana-pass").json()["csrf"]
        assert dealer.post("/change").status_code == 403
        assert dealer.post("/change", headers={"X-CSRF-Token": token + "x"}).status_code == 403
        assert dealer.post("/change", headers={"X-CSRF-Token": token}).json() == {"changed_by": "dana"}
        pit_token = login(pit, "pete", "pete-pass").json()["csrf"]
        answer = pit.post("/change", headers={"X-CSRF-Token": pit_token})
        assert answer.status_code == 403 and "only a dealer" in answer.json()["reason"]
        assert pit.get("/look").json() == {"user": "pete"}  # looking needs no role and no token
        # One session's token does not serve another.
        assert pit.post("/change", headers={"X-CSRF-Token": token}).status_code == 403


def test_five_failures_block_the_name_and_the_address_even_with_the_right_password_then_time_mends_it():
    clock = Clock()
    app, _ = make_app(USERS, clock=clock)
    with client(app) as c, client(app, host="127.0.0.2") as elsewhere:
        for _ in range(5):
            assert login(c, "dana", "guess").status_code == 401
        blocked = login(c, "dana", "dana-pass")
        assert blocked.status_code == 429 and int(blocked.headers["retry-after"]) > 0
        assert login(elsewhere, "dana", "dana-pass").status_code == 429  # the name is blocked from anywhere
        assert login(c, "pete", "pete-pass").status_code == 429  # and the address for any name
        assert login(elsewhere, "pete", "pete-pass").status_code == 200
        clock.now += 301
        assert login(c, "dana", "dana-pass").status_code == 200


def test_a_session_ends_when_idle_too_long():
    clock = Clock()
    app, _ = make_app(USERS, clock=clock)
    with client(app) as c:
        login(c, "dana", "dana-pass")
        clock.now += 3600
        assert c.get("/look").status_code == 200
        clock.now += 5 * 3600
        assert c.get("/look").status_code == 401


def test_logout_needs_the_token_and_ends_the_session():
    app, auth = make_app(USERS)
    with client(app) as c:
        token = login(c, "dana", "dana-pass").json()["csrf"]
        assert c.post("/api/logout").status_code == 403
        assert c.post("/api/logout", headers={"X-CSRF-Token": token}).status_code == 200
        assert c.get("/look").status_code == 401 and len(auth.sessions) == 0


def test_a_user_removed_from_the_file_or_given_another_role_is_logged_out(tmp_path):
    path = tmp_path / "users"
    add_user(path, "dana", "dealer", "dana-pass")
    app, _ = make_app(UsersFile(path))
    with client(app) as c:
        assert login(c, "dana", "dana-pass").status_code == 200
        add_user(path, "dana", "pit", "dana-pass")
        assert c.get("/look").status_code == 401
        assert login(c, "dana", "dana-pass").status_code == 200
        remove_user(path, "dana")
        assert c.get("/look").status_code == 401


def test_the_cookie_is_secure_behind_a_tls_proxy_named_trusted_only():
    app, _ = make_app(USERS, proxies=["127.0.0.1"])
    with client(app) as c:
        answer = c.post("/api/login", json={"user": "dana", "password": "dana-pass"},
                        headers={"X-Forwarded-Proto": "https"})
        assert "secure" in answer.headers["set-cookie"].lower()
    app, _ = make_app(USERS)
    with client(app) as c:
        answer = c.post("/api/login", json={"user": "dana", "password": "dana-pass"},
                        headers={"X-Forwarded-Proto": "https"})
        assert "secure" not in answer.headers["set-cookie"].lower()  # no proxy named: the peer says nothing
    app, _ = make_app(USERS, networks=parse_networks(["10.0.0.0/8"]), proxies=["127.0.0.1"])
    with client(app, host="10.1.2.3") as c:
        answer = c.post("/api/login", json={"user": "dana", "password": "dana-pass"},
                        headers={"X-Forwarded-Proto": "https"})
        assert "secure" not in answer.headers["set-cookie"].lower()  # a header from another peer proves nothing


def test_a_peer_not_named_a_proxy_cannot_escape_the_rate_limit_with_x_forwarded_for():
    """A program on the machine (a loopback peer) that named a new address at every try would
    otherwise never be limited."""
    app, _ = make_app(USERS)
    with client(app) as c:
        for attempt in range(5):
            answer = c.post("/api/login", json={"user": f"u{attempt}", "password": "guess"},
                            headers={"X-Forwarded-For": f"203.0.113.{attempt}"})
            assert answer.status_code == 401
        answer = c.post("/api/login", json={"user": "pete", "password": "pete-pass"},
                        headers={"X-Forwarded-For": "203.0.113.99"})
        assert answer.status_code == 429  # the peer's own address is what counts


def test_behind_a_trusted_proxy_each_client_it_names_is_limited_apart():
    app, _ = make_app(USERS, proxies=["127.0.0.1"])
    with client(app) as proxy:
        for _ in range(5):
            answer = proxy.post("/api/login", json={"user": "nobody", "password": "guess"},
                                headers={"X-Forwarded-For": "203.0.113.7"})
            assert answer.status_code == 401
        blocked = proxy.post("/api/login", json={"user": "pete", "password": "pete-pass"},
                             headers={"X-Forwarded-For": "203.0.113.7"})
        assert blocked.status_code == 429
        # An address the client wrote before the proxy's own does not hide it.
        spoofed = proxy.post("/api/login", json={"user": "pete", "password": "pete-pass"},
                             headers={"X-Forwarded-For": "198.51.100.1, 203.0.113.7"})
        assert spoofed.status_code == 429
        other = proxy.post("/api/login", json={"user": "pete", "password": "pete-pass"},
                           headers={"X-Forwarded-For": "203.0.113.8"})
        assert other.status_code == 200


def test_the_client_behind_trusted_proxies_is_the_last_address_they_did_not_add():
    from controller.web.access import client_address

    proxies = parse_networks(["127.0.0.1", "10.0.0.0/8"])

    def scope(peer, forwarded=None):
        headers = [(b"x-forwarded-for", forwarded.encode())] if forwarded else []
        return {"type": "http", "client": (peer, 1234), "headers": headers}

    assert client_address(scope("127.0.0.1", "1.2.3.4, 203.0.113.7, 10.0.0.5"), proxies) == "203.0.113.7"
    assert client_address(scope("127.0.0.1"), proxies) == "127.0.0.1"
    assert client_address(scope("192.168.1.9", "203.0.113.7"), proxies) == "192.168.1.9"
    assert client_address(scope("127.0.0.1", "203.0.113.7"), ()) == "127.0.0.1"
    assert client_address(scope("::ffff:127.0.0.1", "203.0.113.7"), proxies) == "203.0.113.7"


def test_peers_outside_loopback_and_the_networks_named_are_refused():
    app, _ = make_app(USERS, networks=parse_networks(["192.168.1.0/24"]))
    with client(app, host="192.168.1.77") as inside, client(app, host="192.168.2.1") as outside:
        assert inside.get("/look").status_code == 401
        refused = outside.get("/look")
        assert refused.status_code == 403 and "may not use" in refused.json()["reason"]
    with pytest.raises(ValueError, match="'192.168.1' is not an IP network"):
        parse_networks(["192.168.1"])


class CountedUsers:
    """The users, counting the passwords checked (each check is a slow hash)."""

    def __init__(self, users):
        self.users = users
        self.checked = 0

    def lookup(self, name):
        return self.users.lookup(name)

    def authenticate(self, name, password):
        self.checked += 1
        return self.users.authenticate(name, password)


def test_logins_sent_together_are_counted_together_and_a_refused_one_is_not_hashed():
    """The look at the count and the try counted are one step: 40 guesses at once check five passwords."""
    counted = CountedUsers(USERS)
    app, _ = make_app(counted)

    async def guesses() -> list[int]:
        transport = httpx.ASGITransport(app=app, client=("127.0.0.2", 40000))
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as c:
            answers = await asyncio.gather(*(c.post("/api/login", json={"user": "dana", "password": f"guess-{n}"})
                                             for n in range(40)))
        return [a.status_code for a in answers]

    statuses = asyncio.run(guesses())
    assert sorted(statuses) == [401] * 5 + [429] * 35 and counted.checked == 5
    with client(app, host="127.0.0.3") as c:
        blocked = login(c, "dana", "dana-pass")  # the right password, the name throttled: 429, never checked
        assert blocked.status_code == 429 and int(blocked.headers["retry-after"]) > 0 and counted.checked == 5


def test_a_browser_that_logged_in_before_keeps_logging_in_while_its_name_is_throttled():
    """OWASP's device cookies: a flood of wrong passwords from elsewhere locks out the name for
    browsers without one, never the dealer's own."""
    clock = Clock()
    app, _ = make_app(USERS, clock=clock)
    with client(app) as dealer, client(app, host="127.0.0.2") as flood, client(app, host="127.0.0.3") as stranger:
        answer = login(dealer, "dana", "dana-pass")
        device = next(h for h in answer.headers.get_list("set-cookie") if h.startswith("test_session_device="))
        attributes = device.lower()
        assert "httponly" in attributes and "samesite=strict" in attributes and "path=/api/login" in attributes
        assert "secure" not in attributes  # plain HTTP on loopback
        for _ in range(5):
            assert login(flood, "dana", "guess").status_code == 401
        assert login(stranger, "dana", "dana-pass").status_code == 429
        assert login(dealer, "dana", "dana-pass").status_code == 200
        # The device's own failures count for it alone.
        for _ in range(5):
            assert login(dealer, "dana", "wrong").status_code == 401
        assert login(dealer, "dana", "dana-pass").status_code == 429
        clock.now += 301
        assert login(dealer, "dana", "dana-pass").status_code == 200


def test_a_device_cookie_of_another_user_or_forged_is_no_device_cookie():
    app, auth = make_app(USERS)
    with client(app) as c:
        login(c, "pete", "pete-pass")
        for _ in range(5):
            assert login(c, "dana", "guess").status_code == 401  # pete's device cookie does not vouch for dana
        assert login(c, "dana", "dana-pass").status_code == 429
    name, nonce, signature = auth.devices.issue("dana").split(".")
    assert auth.devices.check(f"{name}.{nonce}.{signature}", "dana") == nonce
    assert auth.devices.check(f"{name}.{nonce}.{'0' * 32}", "dana") is None
    assert auth.devices.check(f"{name}.{nonce}.{signature}", "pete") is None
    assert auth.devices.check("not.a-cookie", "dana") is None


@pytest.mark.parametrize("origin, status", [("http://127.0.0.1", 200), (None, 200), ("http://evil.example", 403),
                                            ("null", 403), ("http://127.0.0.1.evil.example", 403)])
def test_a_login_from_another_sites_page_is_refused_one_without_origin_is_taken(origin, status):
    app, _ = make_app(USERS)
    with client(app) as c:
        headers = {"Origin": origin} if origin else {}
        answer = c.post("/api/login", json={"user": "dana", "password": "dana-pass"}, headers=headers)
        assert answer.status_code == status
        if status == 403:
            assert "another site" in answer.json()["reason"] and "set-cookie" not in answer.headers


@pytest.mark.parametrize("origin, host, same", [
    ("http://127.0.0.1:8080", "127.0.0.1:8080", True), ("http://127.0.0.1:9000", "127.0.0.1:8080", False),
    ("https://table7.lan", "table7.lan", True), ("https://table7.lan:8443", "table7.lan", True),  # a proxy's $host
    ("https://table7.lan", "table7.lan:443", True), ("http://[::1]:8080", "[::1]:8080", True),
    ("http://localhost:8080", "127.0.0.1:8080", False), ("file://", "127.0.0.1:8080", False),
])
def test_an_origin_is_this_servers_when_it_names_the_host_and_port_the_request_went_to(origin, host, same):
    assert same_origin(origin, host) is same


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data", None])
def test_a_login_takes_json_only(content_type):
    """Another site's form may post text/plain without asking: a login must not take it."""
    app, _ = make_app(USERS)
    with client(app) as c:
        headers = {"Content-Type": content_type} if content_type else {}
        answer = c.post("/api/login", content=b'{"user": "dana", "password": "dana-pass"}', headers=headers)
        assert answer.status_code == 400 and "application/json" in answer.json()["reason"]
        assert "set-cookie" not in answer.headers


def test_a_users_sessions_are_capped_without_ending_another_users():
    app, auth = make_app(USERS)
    with client(app) as dealer:
        login(dealer, "dana", "dana-pass")
        pits = []
        for _ in range(SESSIONS_PER_USER + 5):
            pit = client(app)
            login(pit, "pete", "pete-pass")
            pits.append(pit)
        assert dealer.get("/look").json() == {"user": "dana"}
        assert pits[0].get("/look").status_code == 401 and pits[-1].get("/look").status_code == 200
        assert len(auth.sessions) == SESSIONS_PER_USER + 1


def test_when_every_session_is_taken_a_login_is_refused_rather_than_end_anothers():
    users = StaticUsers.with_passwords({"dana": ("dealer", "dana-pass"), "pete": ("pit", "pete-pass"),
                                        "dora": ("dealer", "dora-pass")})
    auth = Auth(users, cookie="test_session", sessions=Sessions(limit=2))
    app = Starlette(routes=[Route("/api/login", auth.login, methods=["POST"])], exception_handlers={Denied: denied_response})
    with client(app) as c:
        assert login(c, "dana", "dana-pass").status_code == 200
        c.cookies.clear()
        assert login(c, "pete", "pete-pass").status_code == 200
        c.cookies.clear()
        refused = login(c, "dora", "dora-pass")
        assert refused.status_code == 503 and refused.headers["retry-after"] == "60" and len(auth.sessions) == 2
