"""The floor page: logins of the console's users file, every table's state, alerts, offline tables, history."""
from __future__ import annotations

import json

import pytest
from starlette.testclient import TestClient

from controller.floor.page import PageError, build_app, floor_view, start_page
from controller.floor.signing import table_key
from controller.floor.store import FloorStore
from controller.journal import Journal, export_line
from controller.web.users import add_user

from floorkit import signed


@pytest.fixture
def users(tmp_path):
    path = tmp_path / "floor-users"
    add_user(path, "pat", "pit", "watch-the-floor")
    return path


def _floor(tmp_path) -> FloorStore:
    """A floor holding two tables: craps-1 online with a signed status, craps-2 offline with an alert."""
    store = FloorStore(tmp_path / "floor.sqlite3")
    store.begin()
    for table in ("craps-1", "craps-2"):
        with Journal.open(tmp_path / table) as journal:
            journal.append({"event": "table", "game": "craps", "rules": {}, "table": table})
            journal.append({"event": "bet", "seat": "A", "bet": "pass", "amount": 500})
            lines = [export_line(e) for e in journal.entries()]
        first = json.loads(lines[0])["hash"]
        for line in lines:
            store.receive(table, first, line)
    key = table_key(tmp_path / "key")
    first = store.current_journal("craps-1")
    assert first is not None and (tail := store.tail("craps-1", first)) is not None
    store.set_status("craps-1", signed(key, "craps-1", {
        "game": "craps", "phase": "betting", "point": 6, "last_roll": [2, 4], "rolls": 9, "camera": "ok",
        "display": "not answering", "journal": first, "seq": 2, "head": tail[1]}), live=False)
    store.set_online("craps-1", "online")
    store.set_online("craps-2", "offline")
    store.raise_alert("craps-2", store.current_journal("craps-2"), 2, "cut", "rows were cut off its end")
    store.commit()
    return store


def _login(client: TestClient, password: str = "watch-the-floor"):
    return client.post("/api/login", json={"user": "pat", "password": password})


def test_nothing_but_the_page_itself_without_a_login(tmp_path, users):
    from controller.web.users import UsersFile

    _floor(tmp_path).close()
    app, _, store = build_app(tmp_path / "floor.sqlite3", UsersFile(users))
    with TestClient(app, base_url="http://127.0.0.1", client=("127.0.0.1", 40000)) as client:
        assert client.get("/").status_code == 200 and "dicetable floor" in client.get("/").text
        assert client.get("/api/floor").status_code == 401
        assert client.get("/api/tables/craps-1").status_code == 401
        assert _login(client, "wrong password").status_code == 401
    store.close()


def test_a_user_sees_every_table_the_alerts_the_tables_offline_and_a_tables_history(tmp_path, users):
    from controller.web.users import UsersFile

    _floor(tmp_path).close()
    app, _, store = build_app(tmp_path / "floor.sqlite3", UsersFile(users))
    with TestClient(app, base_url="http://127.0.0.1", client=("127.0.0.1", 40000)) as client:
        assert _login(client).status_code == 200
        view = client.get("/api/floor").json()
        tables = {t["table"]: t for t in view["tables"]}
        assert tables["craps-1"]["status"]["point"] == 6 and tables["craps-1"]["rows"] == 2
        assert tables["craps-1"]["status"]["display"] == "not answering" and tables["craps-1"]["online"] is True
        assert view["offline"] == ["craps-2"] and tables["craps-2"]["alerts"] == 1
        assert view["alerts"][0]["table"] == "craps-2" and view["alerts"][0]["seq"] == 2
        history = client.get("/api/tables/craps-1").json()
        assert [r["seq"] for r in history["rows"]] == [1, 2] and history["journals"][0]["rows"] == 2
        assert client.get("/api/tables/nobody").status_code == 404
        with client.stream("GET", "/api/events") as stream:
            lines = stream.iter_lines()
            assert next(line for line in lines if line.startswith("event:")) == "event: floor"
    store.close()


def test_the_page_answers_only_to_its_address_and_the_names_it_is_given(tmp_path, users):
    from controller.web.users import UsersFile

    _floor(tmp_path).close()
    app, _, store = build_app(tmp_path / "floor.sqlite3", UsersFile(users), hosts=("floor.casino.lan",))
    with TestClient(app, base_url="http://evil.example:8090", client=("127.0.0.1", 40000)) as client:
        answer = client.get("/")
        assert answer.status_code == 421 and "dicetable floor --hosts" in answer.json()["reason"]
        assert _login(client).status_code == 421
    for base in ("http://localhost:8090", "https://floor.casino.lan"):
        with TestClient(app, base_url=base, client=("127.0.0.1", 40000)) as client:
            assert client.get("/").status_code == 200 and _login(client).status_code == 200
    store.close()
    with pytest.raises(PageError, match="--hosts: 'floor:8090' is not a host name"):
        start_page(tmp_path / "floor.sqlite3", "127.0.0.1:0", users=str(users), hosts=("floor:8090",))


def test_the_login_limit_believes_x_forwarded_for_from_the_proxies_named_only(tmp_path, users):
    from controller.web.access import parse_networks
    from controller.web.users import UsersFile

    _floor(tmp_path).close()
    for proxies, blocked in (((), True), (parse_networks(["127.0.0.1"]), False)):
        app, _, store = build_app(tmp_path / "floor.sqlite3", UsersFile(users), proxies=proxies)
        with TestClient(app, base_url="http://127.0.0.1", client=("127.0.0.1", 40000)) as client:
            for attempt in range(5):
                answer = client.post("/api/login", json={"user": f"u{attempt}", "password": "guess"},
                                     headers={"X-Forwarded-For": "203.0.113.7"})
                assert answer.status_code == 401
            answer = client.post("/api/login", json={"user": "pat", "password": "watch-the-floor"},
                                 headers={"X-Forwarded-For": "203.0.113.8"})
            assert answer.status_code == (429 if blocked else 200)
        store.close()


def test_a_wrong_method_or_path_is_answered_in_json_after_the_login_check(tmp_path, users):
    from controller.web.users import UsersFile

    _floor(tmp_path).close()
    app, _, store = build_app(tmp_path / "floor.sqlite3", UsersFile(users))
    with TestClient(app, base_url="http://127.0.0.1", client=("127.0.0.1", 40000)) as client:
        assert client.get("/api/nope").status_code == 404
        assert client.get("/api/nope").json() == {"reason": "no such path: /api/nope"}
        answer = client.post("/api/floor")
        assert answer.status_code == 401 and answer.json() == {"reason": "log in first"}
        answer = client.post("/")
        assert answer.status_code == 405 and "does not take POST" in answer.json()["reason"]
        assert _login(client).status_code == 200
        answer = client.post("/api/floor")
        assert answer.status_code == 405 and answer.json() == {"reason": "/api/floor does not take POST (it takes GET, HEAD)"}
    store.close()


def test_a_table_quiet_too_long_while_online_is_shown_silent(tmp_path):
    from datetime import datetime, timedelta, timezone

    with _floor(tmp_path) as store:
        later = datetime.now(timezone.utc) + timedelta(minutes=5)
        tables = {t["table"]: t for t in floor_view(store, later)["tables"]}
        assert tables["craps-1"]["silent"] and not tables["craps-2"]["silent"]


def test_the_page_is_refused_without_users_and_off_loopback_without_tls(tmp_path, users):
    with pytest.raises(PageError, match="needs TLS"):
        start_page(tmp_path / "floor.sqlite3", "0.0.0.0:0", users=str(users))
    with pytest.raises(PageError, match="--listen"):
        start_page(tmp_path / "floor.sqlite3", "nowhere", users=str(users))
    (tmp_path / "open-users").write_text("")
    (tmp_path / "open-users").chmod(0o666)
    with pytest.raises(PageError, match="--users"):
        start_page(tmp_path / "floor.sqlite3", "127.0.0.1:0", users=str(tmp_path / "open-users"))


def test_without_a_users_file_the_page_serves_and_lets_nobody_in(tmp_path, caplog):
    import httpx

    page = start_page(tmp_path / "floor.sqlite3", "127.0.0.1:0")
    assert page is not None
    try:
        assert "dicetable user --users" in caplog.text and str(tmp_path / "floor-users") in caplog.text
        with httpx.Client(base_url=page.url.rstrip("/"), timeout=10) as client:
            assert client.get("/").status_code == 200
            assert client.post("/api/login", json={"user": "pat", "password": "watch-the-floor"}).status_code == 401
    finally:
        page.stop()


def test_the_page_served_pushes_an_alert_to_a_browser(tmp_path, users):
    import httpx

    _floor(tmp_path).close()
    page = start_page(tmp_path / "floor.sqlite3", "127.0.0.1:0", users=str(users))
    assert page is not None
    try:
        with httpx.Client(base_url=page.url.rstrip("/"), timeout=10) as client:
            assert client.post("/api/login", json={"user": "pat", "password": "watch-the-floor"}).status_code == 200
            with client.stream("GET", "/api/events") as stream:
                lines = stream.iter_lines()
                assert next(line for line in lines if line.startswith("event:")) == "event: floor"
                with FloorStore(tmp_path / "floor.sqlite3") as store:
                    store.begin()
                    alert = store.raise_alert("craps-1", None, 7, "rewritten", "row 7 differs")
                    store.commit()
                page.alert(alert)
                assert next(line for line in lines if line.startswith("event:")) == "event: alert"
                assert json.loads(next(lines).removeprefix("data: "))["seq"] == 7
    finally:
        page.stop()


def test_an_event_stream_ends_when_its_user_logs_out(tmp_path, users):
    """What a logged-out user's open page would go on seeing stops at the next message."""
    import threading

    import httpx

    _floor(tmp_path).close()
    page = start_page(tmp_path / "floor.sqlite3", "127.0.0.1:0", users=str(users))
    assert page is not None
    try:
        with httpx.Client(base_url=page.url.rstrip("/"), timeout=10) as client:
            token = client.post("/api/login", json={"user": "pat", "password": "watch-the-floor"}).json()["csrf"]
            received: list[str] = []
            first, ended = threading.Event(), threading.Event()

            def watch() -> None:
                with httpx.stream("GET", page.url + "api/events", cookies=client.cookies, timeout=20) as answer:
                    for line in answer.iter_lines():
                        if line.startswith("event: "):
                            received.append(line)
                            first.set()
                ended.set()

            threading.Thread(target=watch, daemon=True).start()
            assert first.wait(10)
            assert client.post("/api/logout", headers={"X-CSRF-Token": token}).status_code == 200
            with FloorStore(tmp_path / "floor.sqlite3") as store:
                store.begin()
                alert = store.raise_alert("craps-1", None, 7, "rewritten", "row 7 differs")
                store.commit()
            page.alert(alert)
            assert ended.wait(10) and received == ["event: floor"]
    finally:
        page.stop()


def test_a_page_without_users_says_once_how_to_add_one(tmp_path, caplog):
    users = tmp_path / "floor-users"
    page = start_page(tmp_path / "floor.sqlite3", "127.0.0.1:0", users=str(users))
    assert page is not None
    page.stop()
    said = [r.getMessage() for r in caplog.records if "nobody can log in" in r.getMessage()]
    assert len(said) == 1 and f"dicetable user --users {users} add NAME" in said[0] and "console" not in said[0]
