"""The console's API against a running table: bets and presses journaled with their user before they
take effect, answered with what the table did; 401, 403 and 422 as the contract says; the state, the
pay list, the board and the event streams."""
from __future__ import annotations

import json
import threading
import time

import httpx
import pytest

from controller.main_loop import Submission, take
from controller.cli import main
from controller.journal import INPUT
from tests.console.conftest import wait_for


def rows(table):
    return table.rows()




def test_healthz_answers_without_a_login(console_table):
    table = console_table()
    with table.client() as c:
        answer = c.get("/healthz")
        assert answer.status_code == 200 and answer.json()["ok"] is True and answer.json()["game"] == "craps"


def test_another_sites_name_resolved_to_this_machine_reaches_nothing(console_table):
    """DNS rebinding: a page of evil.example, its name made to resolve to 127.0.0.1, would be the
    console's own origin to the browser; the name it sends in Host gives it away."""
    table = console_table()
    port = table.url.rsplit(":", 1)[1]
    with table.client() as c:
        for path in ("/board", "/api/board", "/healthz"):
            answer = c.get(path, headers={"Host": f"evil.example:{port}"})
            assert answer.status_code == 421, path
            assert "'evil.example'" in answer.json()["reason"] and "[console] hosts" in answer.json()["reason"]
        answer = c.post("/api/login", json={"user": "dana", "password": "dana-pass"},
                        headers={"Host": f"evil.example:{port}"})
        assert answer.status_code == 421 and "set-cookie" not in answer.headers
        for host in (f"localhost:{port}", f"127.0.0.1:{port}", f"[::1]:{port}"):
            assert c.get("/api/board", headers={"Host": host}).status_code == 200, host


def test_a_loopback_peer_is_limited_by_its_own_address_whatever_it_forwards(console_table):
    """No proxy is trusted unless the configuration names one: a program on the machine cannot
    guess the demo's or a user's password by naming a new address at every try."""
    table = console_table()
    with table.client() as c:
        for attempt in range(5):
            answer = c.post("/api/login", json={"user": "dana", "password": f"guess-{attempt}"},
                            headers={"X-Forwarded-For": f"203.0.113.{attempt}"})
            assert answer.status_code == 401
        answer = c.post("/api/login", json={"user": "pete", "password": "pete-pass"},
                        headers={"X-Forwarded-For": "203.0.113.200"})
        assert answer.status_code == 429


def test_a_wrong_method_or_path_is_answered_in_json_after_the_login_check(console_table):
    table = console_table()
    with table.client() as anonymous, table.client("dana") as dealer:
        for client in (anonymous, dealer):
            for path in ("/api/nope", "/nope", "/static/missing.js", "/frames/"):
                answer = client.get(path)
                assert answer.status_code == 404 and answer.json() == {"reason": f"no such path: {path}"}, path
            long = "/api/" + "x" * 5000
            assert client.get(long).json() == {"reason": f"no such path: {long[:200]}..."}
        # A path that needs a session: 401 before anything else, the wrong method included.
        for method, path in (("GET", "/api/bets"), ("DELETE", "/api/state"), ("GET", "/api/logout"),
                             ("PUT", "/api/actions")):
            answer = anonymous.request(method, path)
            assert answer.status_code == 401 and answer.json() == {"reason": "log in first"}, (method, path)
        # With a session, the method is named; the dealer's inputs carry rule null, as their refusals do.
        for method, path in (("GET", "/api/bets"), ("GET", "/api/remove"), ("PUT", "/api/actions")):
            answer = dealer.request(method, path)
            assert answer.status_code == 405 and answer.headers["allow"] == "POST", (method, path)
            assert answer.json() == {"reason": f"{path} does not take {method} (it takes POST)", "rule": None}
        answer = dealer.delete("/api/state")
        assert answer.status_code == 405 and answer.json() == {"reason": "/api/state does not take DELETE "
                                                                         "(it takes GET, HEAD)"}
        # Anyone may use a public path: its wrong method is said at once.
        for method, path in (("POST", "/api/board"), ("POST", "/healthz"), ("GET", "/api/login"),
                             ("POST", "/static/console.css")):
            answer = anonymous.request(method, path)
            assert answer.status_code == 405 and set(answer.json()) == {"reason"}, (method, path)
        assert len(rows(table)) == 1  # nothing reached the table


def test_the_state_has_the_table_being_dealt(console_table):
    table = console_table()
    with table.client() as anonymous:
        assert anonymous.get("/api/state").status_code == 401
    with table.client("pete") as pit:
        state = pit.get("/api/state").json()
    assert state["game"] == "craps" and state["phase"] == "betting" and state["point"] is None
    assert state["shooter"] == "A" and state["bets"] == [] and state["last_rolls"] == []
    assert state["seats"] == list("ABCDEFGH")


def test_a_bet_is_journaled_with_its_user_and_answered_with_the_journaled_event(console_table):
    table = console_table()
    with table.client("dana") as dealer:
        answer = dealer.post("/api/bets", json={"event": "bet", "seat": "C", "bet": "place", "number": 6, "amount": 600})
        assert answer.status_code == 200
        assert answer.json() == {"event": "bet", "seat": "C", "bet": "place", "number": 6, "amount": 600,
                                 "user": "dana", "via": "console"}
        journaled = rows(table)[-1]
        assert journaled.kind == INPUT and journaled.event == answer.json()
        assert answer.headers["x-journal-seq"] == str(journaled.seq)
        assert dealer.get("/api/state").json()["bets"] == [
            {"seat": "C", "bet": "place", "number": 6, "on": None, "amount": 600, "space": "place-6", "name": "place 6",
             "removable": True, "stays": None}]


def test_the_browser_cannot_say_who_made_a_bet(console_table):
    table = console_table()
    with table.client("dana") as dealer:
        answer = dealer.post("/api/bets", json={"seat": "A", "bet": "pass", "amount": 500, "user": "pete", "via": "stream"})
        assert answer.status_code == 200 and answer.json()["user"] == "dana" and answer.json()["via"] == "console"


@pytest.mark.parametrize("bet, rule, words", [
    ({"seat": "C", "bet": "place", "number": 6, "amount": 700}, "§4620.3(e)(4)", "over the maximum of $6.00"),
    ({"seat": "C", "bet": "come", "amount": 500}, "§4620.3(e)(5)(i)", "come"),
    ({"seat": "C", "bet": "place", "number": 6, "amount": "600"}, None, "amount"),
    ({"seat": "A", "bet": "pass"}, None, "field 'amount' is missing"),
    ({"seat": "Z", "bet": "pass", "amount": 500}, "§4620.3(b)(1)", "seat 'Z' is not at this table"),
])
def test_a_refused_bet_is_422_with_reason_and_rule_journaled_and_changes_nothing(console_table, bet, rule, words):
    table = console_table()
    with table.client("dana") as dealer:
        before = dealer.get("/api/state").json()
        answer = dealer.post("/api/bets", json=bet)
        assert answer.status_code == 422
        body = answer.json()
        assert set(body) == {"reason", "rule"} and body["rule"] == rule and words in body["reason"]
        assert rows(table)[-1].event["event"] == "rejected" and rows(table)[-2].event["user"] == "dana"
        after = dealer.get("/api/state").json()
        assert after["bets"] == before["bets"] == [] and after["phase"] == "betting"


@pytest.mark.parametrize("path, body, words", [
    ("/api/bets", "not json", "takes one JSON object"),
    ("/api/bets", "[1, 2]", "takes one JSON object"),
    ("/api/bets", '{"event": "lock"}', "takes 'bet' events, not 'lock'"),
    ("/api/remove", '{"event": "bet", "seat": "A", "bet": "pass", "amount": 500}', "takes 'remove' events"),
    ("/api/actions", '{"event": "bet", "seat": "A", "bet": "pass", "amount": 500}', "not 'bet'"),
    ("/api/actions", '{"event": "read", "status": "ok", "dice": [3, 4]}', "not 'read'"),
    ("/api/actions", '{"event": "spin_done"}', "not 'spin_done'"),
    ("/api/actions", "{}", "names no event"),  # a press is named: an empty body must not LOCK
    ("/api/actions", '{"dice": [3, 4]}', "names no event"),
])
def test_a_body_that_is_not_this_urls_event_is_422_and_never_reaches_the_table(console_table, path, body, words):
    table = console_table()
    with table.client("dana") as dealer:
        count = len(rows(table))
        answer = dealer.post(path, content=body, headers={"content-type": "application/json"})
        assert answer.status_code == 422 and answer.json()["rule"] is None and words in answer.json()["reason"]
        assert len(rows(table)) == count and dealer.get("/api/state").json()["phase"] == "betting"


def test_a_body_too_long_is_refused_unread(console_table):
    table = console_table()
    with table.client("dana") as dealer:
        count = len(rows(table))
        answer = dealer.post("/api/bets", content=b"{" + b" " * 20000 + b"}", headers={"content-type": "application/json"})
        assert answer.status_code == 422 and answer.json() == {"reason": "the body is longer than 16384 bytes", "rule": None}
        assert len(rows(table)) == count


def test_401_before_anything_then_403_for_the_token_and_the_role(console_table):
    table = console_table()
    bet = {"seat": "A", "bet": "pass", "amount": 500}
    with table.client() as anonymous, table.client("pete") as pit, table.client("dana") as dealer:
        assert anonymous.post("/api/bets", json=bet).status_code == 401
        assert anonymous.post("/api/actions", json={"event": "lock"}).status_code == 401
        refused = pit.post("/api/bets", json=bet)
        assert refused.status_code == 403 and "only a dealer" in refused.json()["reason"]
        assert pit.post("/api/actions", json={"event": "lock"}).status_code == 403
        del dealer.headers["X-CSRF-Token"]
        assert dealer.post("/api/bets", json=bet).status_code == 403
        dealer.headers["X-CSRF-Token"] = "forged"
        assert dealer.post("/api/bets", json=bet).status_code == 403
    assert not any(r.event.get("via") == "console" for r in rows(table))
    assert table.controller.state.phase.value == "betting"


def test_three_seats_bet_lock_read_and_the_pay_list_is_what_the_engine_settled(console_table):
    table = console_table()
    with table.client("dana") as dealer:
        for bet in ({"seat": "A", "bet": "pass", "amount": 500}, {"seat": "B", "bet": "field", "amount": 300},
                    {"seat": "C", "bet": "any7", "amount": 100}):
            assert dealer.post("/api/bets", json=bet).status_code == 200
        locked = dealer.post("/api/actions", json={"event": "lock"})
        assert locked.status_code == 200 and locked.json() == {"event": "lock", "user": "dana", "via": "console"}
        assert dealer.post("/api/bets", json={"seat": "D", "bet": "pass", "amount": 500}).status_code == 422
        table.settle([3, 4])
        state = wait_for(lambda: (s := dealer.get("/api/state").json())["last_rolls"] and s)
    roll = state["last_rolls"][0]
    assert roll["dice"] == [3, 4] and roll["total"] == 7 and roll["source"] == "read"
    settled = [r.event for r in rows(table) if r.event.get("event") == "settle"]
    lines = [line for group in roll["pay"] for line in group["lines"]]
    assert [(ln["seat"], ln["bet"], ln["amount"], ln["result"], ln["paid"]) for ln in lines] == [
        (s["seat"], s["bet"], s["amount"], s["result"], s["paid"]) for s in settled]
    by_seat = {group["seat"]: group for group in roll["pay"]}
    assert by_seat["A"]["pay"] == 500 and by_seat["B"]["take"] == 300 and by_seat["C"]["pay"] == 400
    assert by_seat["A"]["lines"][0]["text"] == "seat A: pass line wins, pay $5.00"
    assert by_seat["B"]["lines"][0]["text"] == "seat B: field loses, take $3.00"
    assert state["phase"] == "betting" and state["bets"] == []
    assert state["session"]["seats"]["A"] == {"net": 500, "staked": 500, "bets": 1, "won": 1, "lost": 0, "pushed": 0}
    assert state["reads"]["counts"] == {"ok": 1, "uncertain": 0, "no_read": 0}


def test_the_dealer_confirms_an_unsure_read_or_enters_the_dice_by_hand(console_table):
    table = console_table()
    with table.client("dana") as dealer:
        dealer.post("/api/bets", json={"seat": "A", "bet": "field", "amount": 100})
        dealer.post("/api/actions", json={"event": "lock"})
        table.settle([2, 2], status="uncertain", reason="die 2 read two ways", boxes=[[10, 10, 40, 40], [80, 10, 40, 40]],
                     size=[640, 480])
        pending = wait_for(lambda: (s := dealer.get("/api/state").json())["phase"] == "pending" and s)
        assert pending["pending"]["confirmable"] and pending["read"]["boxes"] == [[10, 10, 40, 40], [80, 10, 40, 40]]
        entered = dealer.post("/api/actions", json={"event": "manual", "dice": [2, 3]})
        assert entered.status_code == 200 and entered.json()["dice"] == [2, 3]
        state = dealer.get("/api/state").json()
        assert state["last_rolls"][0]["dice"] == [2, 3] and state["last_rolls"][0]["source"] == "manual"
        assert state["last_rolls"][0]["read"]["status"] == "uncertain"  # the read the dealer overruled
        assert state["last_rolls"][0]["users"] == ["dana"]
        refused = dealer.post("/api/actions", json={"event": "confirm"})
        assert refused.status_code == 422 and "nothing to confirm" in refused.json()["reason"]


def test_a_bet_is_taken_down_and_the_next_shooter_called(console_table):
    table = console_table()
    with table.client("dana") as dealer:
        dealer.post("/api/bets", json={"seat": "B", "bet": "place", "number": 8, "amount": 600})
        removed = dealer.post("/api/remove", json={"seat": "B", "bet": "place", "number": 8})
        assert removed.status_code == 200 and removed.json()["event"] == "remove"
        assert dealer.get("/api/state").json()["bets"] == []
        assert dealer.post("/api/actions", json={"event": "next_shooter", "seat": "D"}).status_code == 200
        assert dealer.get("/api/state").json()["shooter"] == "D"


def test_journal_recall_shows_who_made_each_console_input(console_table, capsys):
    table = console_table()
    with table.client("dana") as dana, table.client("dora") as dora:
        dana.post("/api/bets", json={"seat": "A", "bet": "pass", "amount": 500})
        dora.post("/api/bets", json={"seat": "B", "bet": "place", "number": 6, "amount": 900})  # refused: over $6
        dora.post("/api/actions", json={"event": "lock"})
        table.settle([5, 6])
        wait_for(lambda: dana.get("/api/state").json()["last_rolls"])
    assert main(["journal", "--file", str(table.journal_path), "recall", "1"]) == 0
    out = capsys.readouterr().out
    assert "by dana (console): bet A pass $5.00" in out
    assert "by dora (console): refused bet B place 6 $9.00" in out
    assert "by dora (console): lock" in out
    assert main(["journal", "--file", str(table.journal_path), "recall", "1", "--json"]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    assert [(a["user"], a["event"], a["accepted"]) for a in json.loads(line)["actions"]] == [
        ("dana", "bet", True), ("dora", "bet", False), ("dora", "lock", True)]


def test_a_bet_the_journal_cannot_keep_as_sent_is_refused_and_recall_still_shows_who(console_table, capsys):
    table = console_table()
    with table.client("dana") as dana:
        body = b'{"seat": "A", "bet": "pass", "amount": 500, "note": "\\ud800"}'  # half of a UTF-16 pair
        answer = dana.post("/api/bets", content=body, headers={"Content-Type": "application/json"})
        assert answer.status_code == 422 and answer.json()["rule"] is None
        assert dana.get("/api/state").json()["bets"] == []
    seq = int(answer.headers["X-Journal-Seq"])
    (row,) = [row for row in rows(table) if row.seq == seq]
    assert row.event["event"] == "malformed" and (row.event["user"], row.event["via"]) == ("dana", "console")
    with table.client("dana") as dana:
        answer = dana.post("/api/bets", json={"seat": "A", "bet": "pass", "amount": True})  # JSON's true is no amount
        assert answer.status_code == 422 and answer.json()["rule"] is None
        dana.post("/api/actions", json={"event": "lock"})
        table.settle([6, 6])
        wait_for(lambda: dana.get("/api/state").json()["last_rolls"])
    assert main(["journal", "--file", str(table.journal_path), "recall", "1"]) == 0
    out = capsys.readouterr().out
    assert "by dana (console): refused malformed" in out
    assert "by dana (console): refused bet A pass\n" in out  # no "$0.01" made of a true


def _events(url: str, cookies, name: str, count: int, out: list, ready: threading.Event) -> None:
    with httpx.stream("GET", url, cookies=cookies, timeout=20) as answer:
        kind = None
        for line in answer.iter_lines():
            if line.startswith("event: "):
                kind = line[7:]
            elif line.startswith("data: ") and kind == name:
                out.append(json.loads(line[6:]))
                ready.set()
                if len(out) >= count:
                    return


def test_the_event_stream_pushes_each_change_and_the_board_needs_no_login(console_table):
    table = console_table()
    with table.client("dana") as dealer, table.client() as anonymous:
        assert anonymous.get("/api/events").status_code == 401
        assert anonymous.get("/api/board").json()["history"] == []
        states: list = []
        boards: list = []
        ready = [threading.Event(), threading.Event()]
        readers = [threading.Thread(target=_events, args=(table.url + "/api/events", dealer.cookies, "state", 3, states,
                                                          ready[0]), daemon=True),
                   threading.Thread(target=_events, args=(table.url + "/api/board/events", None, "board", 3, boards,
                                                          ready[1]), daemon=True)]
        for reader in readers:
            reader.start()
        assert ready[0].wait(10) and ready[1].wait(10)
        dealer.post("/api/bets", json={"seat": "A", "bet": "pass", "amount": 500})
        dealer.post("/api/actions", json={"event": "lock"})
        table.settle([6, 6])
        for reader in readers:
            reader.join(10)
    assert states[0]["bets"] == [] and states[1]["bets"][0]["seat"] == "A"
    assert states[2]["locked"] is True
    assert boards[0]["history"] == [] and boards[1]["open"] is False
    assert boards[2]["history"] == [{"dice": [6, 6], "total": 12, "by": None}] and boards[2]["open"] is True
    assert "bets" not in boards[2] and "pay" not in json.dumps(boards[2])


def test_a_frame_is_served_to_a_user_and_a_path_outside_the_frames_is_not(console_table):
    table = console_table()
    table.frames.mkdir(parents=True)
    (table.frames / "craps-1.jpg").write_bytes(b"\xff\xd8jpeg")
    (table.frames.parent / "secret.jpg").write_bytes(b"no")
    with table.client() as anonymous, table.client("pete") as pit:
        assert anonymous.get("/frames/craps-1.jpg").status_code == 401
        answer = pit.get("/frames/craps-1.jpg")
        assert answer.status_code == 200 and answer.content == b"\xff\xd8jpeg"
        assert answer.headers["content-type"] == "image/jpeg"
        for name in ("..%2Fsecret.jpg", "missing.jpg", ".hidden"):
            assert pit.get(f"/frames/{name}").status_code == 404
        for name in ("a" * 5000 + ".jpg", "a%00b.jpg"):  # more than a file name may hold; a NUL
            answer = pit.get(f"/frames/{name}")
            assert answer.status_code == 404 and answer.json() == {"reason": "no such frame"}


def test_the_pit_sees_device_faults_as_alerts_and_the_journal_checked(console_table):
    table = console_table(verify_every_s=600)
    with table.client("pete") as pit:
        checked = wait_for(lambda: (s := pit.get("/api/state").json())["journal"]["verify"] and s)
        verify = checked["journal"]["verify"]
        assert verify["ok"] is True and verify["rows"] >= 1 and len(checked["journal"]["head"]) == 64
        table.health = {"camera": {"ok": False, "detail": "lost: no camera on /dev/video0"},
                        "display": {"ok": True, "detail": "answering"}}
        state = wait_for(lambda: (s := pit.get("/api/state").json())["alerts"] and s)
        assert state["alerts"] == [{"level": "warning", "text": "camera: lost: no camera on /dev/video0"}]
        assert state["health"]["display"]["ok"] is True
        assert pit.post("/api/verify").status_code == 202


def test_pages_send_a_visitor_to_log_in_and_a_pit_user_to_the_pit(console_table):
    table = console_table()
    with table.client() as anonymous, table.client("pete") as pit, table.client("dana") as dealer:
        for path in ("/dealer", "/pit"):
            answer = anonymous.get(path)
            assert answer.status_code == 303 and answer.headers["location"] == f"/login?next={path}"
        assert anonymous.get("/board").status_code == 200 and anonymous.get("/login").status_code == 200
        assert pit.get("/dealer").headers["location"] == "/pit"
        assert pit.get("/pit").status_code == 200 and dealer.get("/dealer").status_code == 200
        assert dealer.get("/").headers["location"] == "/dealer" and pit.get("/").headers["location"] == "/pit"
        page = dealer.get("/dealer")
        assert "script-src 'self'" in page.headers["content-security-policy"]
        assert page.headers["x-frame-options"] == "DENY"


def test_a_request_withdrawn_before_the_table_took_it_is_never_journaled(console_table):
    """The console gave up waiting (a busy table): the table then skips it, so a request answered
    "not taken" cannot take effect later."""
    from concurrent.futures import Future

    table = console_table()
    reply: Future = Future()
    assert reply.cancel()
    count = len(rows(table))
    take(table.controller, Submission({"event": "lock", "user": "dana", "via": "console"}, reply))
    assert len(rows(table)) == count and table.controller.state.phase.value == "betting"


def test_an_event_stream_ends_when_its_user_logs_out(console_table):
    """What a logged-out (or removed) user's open page would go on seeing stops at the next message."""
    table = console_table()
    with table.client("pete") as pit, table.client("dana") as dealer:
        ended = threading.Event()
        received: list[str] = []

        def watch() -> None:
            with httpx.stream("GET", table.url + "/api/events", cookies=pit.cookies, timeout=20) as answer:
                for line in answer.iter_lines():
                    if line == "event: state":
                        received.append(line)
            ended.set()

        threading.Thread(target=watch, daemon=True).start()
        wait_for(lambda: received)
        assert pit.post("/api/logout").status_code == 200
        dealer.post("/api/bets", json={"seat": "A", "bet": "pass", "amount": 500})
        assert ended.wait(10) and len(received) == 1


def test_a_quiet_stream_says_it_is_alive_at_a_pace_the_page_is_told(console_table, monkeypatch):
    """Each stream says ``alive`` (with its pace) at once and then whenever it has been quiet that
    long: an EventSource never shows a comment, and the page must tell a quiet stream from a dead one."""
    monkeypatch.setattr("controller.console.app.ALIVE_S", 0.2)
    table = console_table()
    with table.client("dana") as dealer:
        for url, cookies in ((table.url + "/api/events", dealer.cookies), (table.url + "/api/board/events", None)):
            kinds: list[str] = []
            with httpx.stream("GET", url, cookies=cookies, timeout=20) as answer:
                lines = answer.iter_lines()
                for line in lines:
                    if line.startswith("event: "):
                        kinds.append(line[7:])
                        if kinds[-1] == "alive":
                            assert json.loads(next(lines).removeprefix("data: ")) == {"every": 0.2}
                    if kinds.count("alive") == 3:
                        break
            assert kinds[0] in ("state", "board") and kinds[1:] == ["alive"] * 3, kinds


def test_check_the_chain_now_pressed_again_and_again_runs_one_check_at_a_time(console_table, monkeypatch):
    """Each check is a process of its own: a user pressing the button twenty times while one runs
    must not start twenty (it would take the Pi's cores from the table)."""
    import asyncio

    from controller.console.link import TableLink

    running = []
    release = threading.Event()

    async def slow_check(link) -> None:
        running.append(link)
        while not release.is_set():
            await asyncio.sleep(0.02)
        link.verified = {"ok": True, "rows": 1}
        link.on_change()

    monkeypatch.setattr(TableLink, "verify", slow_check)
    table = console_table()
    with table.client("pete") as pit:
        for _ in range(20):
            assert pit.post("/api/verify").status_code == 202
        wait_for(lambda: running)
        time.sleep(0.3)
        assert len(running) == 1
        release.set()
        wait_for(lambda: pit.get("/api/state").json()["journal"]["verify"])
        assert pit.post("/api/verify").status_code == 202
        wait_for(lambda: len(running) == 2)  # once it is over, the next press checks again


def test_two_tables_on_one_host_keep_their_own_sessions(console_table):
    """Browsers share cookies between the ports of one host: each console's cookies carry its port."""
    first, second = console_table("craps"), console_table("hazard")
    with httpx.Client(timeout=20) as browser:  # one cookie jar for both, as a browser has
        for table, user in ((first, "dana"), (second, "dora")):
            answer = browser.post(table.url + "/api/login", json={"user": user, "password": f"{user}-pass"})
            port = table.url.rsplit(":", 1)[1]
            assert answer.status_code == 200 and f"dicetable_console_{port}=" in answer.headers["set-cookie"]
        assert browser.get(first.url + "/api/session").json()["user"] == "dana"
        assert browser.get(second.url + "/api/session").json()["user"] == "dora"


def test_the_pages_files_are_served_from_memory_and_a_browser_that_has_them_gets_304(console_table):
    table = console_table()
    with table.client() as c:
        answer = c.get("/static/common.js")
        assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/javascript")
        again = c.get("/static/common.js", headers={"If-None-Match": answer.headers["etag"]})
        assert again.status_code == 304 and again.content == b""
        assert c.get("/login").headers["content-type"].startswith("text/html")


@pytest.mark.parametrize("path, body, words", [
    ("/api/bets", {"seat": "A", "bet": "pass", "amount": 500, "note": "x" * 16000}, "bet has no field 'note'"),
    ("/api/actions", {"event": "lock", "seat": "A"}, "lock has no field 'seat' (docs/events.md: it takes no field"),
    ("/api/actions", {"event": "next_shooter", "seat": "D" * 16000}, "the value of seat is 16002 characters long"),
    ("/api/bets", {"seat": "A", "bet": "pass", "amount": 10 ** 200}, "the value of amount is 201 characters long"),
])
def test_a_field_the_event_does_not_take_is_refused_before_the_table_and_journaled_in_a_bounded_form(
        console_table, path, body, words):
    """A refusal costs the journal a few hundred bytes, whatever was sent: its start, its length and
    its SHA-256, with who sent it."""
    table = console_table()
    with table.client("dana") as dealer:
        answer = dealer.post(path, json=body)
        assert answer.status_code == 422 and answer.json()["rule"] is None and words in answer.json()["reason"]
        assert dealer.get("/api/state").json()["phase"] == "betting"
    seq = int(answer.headers["X-Journal-Seq"])
    journaled = [row for row in rows(table) if row.seq >= seq]
    assert [row.event["event"] for row in journaled] == ["malformed", "rejected"]
    malformed = journaled[0].event
    assert (malformed["user"], malformed["via"]) == ("dana", "console") and words in malformed["problem"]
    assert all(len(json.dumps(row.event)) < 1500 for row in journaled)
    if len(json.dumps(body)) > 200:
        assert malformed["bytes"] == len(answer.request.content) and len(malformed["sha256"]) == 64


def test_an_input_sent_twice_with_one_idempotency_key_is_done_once_and_answered_alike(console_table):
    table = console_table()
    bet = {"seat": "C", "bet": "field", "amount": 100}
    with table.client("dana") as dealer:
        first, second = (dealer.post("/api/bets", json=bet, headers={"Idempotency-Key": "tap-1"}) for _ in range(2))
        assert first.status_code == second.status_code == 200 and first.content == second.content
        assert first.headers["x-journal-seq"] == second.headers["x-journal-seq"]
        refused = dealer.post("/api/bets", json={**bet, "amount": 200}, headers={"Idempotency-Key": "tap-1"})
        assert refused.status_code == 422 and "another request" in refused.json()["reason"]
        assert dealer.post("/api/bets", json=bet, headers={"Idempotency-Key": "tap-2"}).status_code == 200
        assert dealer.get("/api/state").json()["bets"][0]["amount"] == 200  # two keys, two bets
    with table.client("dora") as other:  # keys are per session: another dealer's tap-1 is its own
        assert other.post("/api/bets", json=bet, headers={"Idempotency-Key": "tap-1"}).status_code == 200
    bets = [r for r in rows(table) if r.event.get("event") == "bet"]
    assert [b.event["user"] for b in bets] == ["dana", "dana", "dora"]


def test_a_repeat_while_the_first_is_under_way_waits_for_its_answer(console_table):
    """A double tap: both requests reach the console before the table took the first."""
    table = console_table()
    with table.client("dana") as dealer:
        answers: list = [None, None]

        def tap(index: int) -> None:
            answers[index] = dealer.post("/api/actions", json={"event": "lock"}, headers={"Idempotency-Key": "double"})

        taps = [threading.Thread(target=tap, args=(i,)) for i in range(2)]
        for thread in taps:
            thread.start()
        for thread in taps:
            thread.join(20)
        assert [a.status_code for a in answers] == [200, 200] and answers[0].content == answers[1].content
    assert sum(1 for r in rows(table) if r.event.get("event") == "lock") == 1


def test_a_session_past_its_input_rate_is_answered_429_before_the_table(console_table):
    from controller.web.inputs import InputRate

    table = console_table()
    table.running.console.rate = InputRate(burst=3, per_second=0.01)
    with table.client("dana") as dealer:
        count = len(rows(table))
        statuses = [dealer.post("/api/actions", json={"event": "void"}).status_code for _ in range(4)]
        assert statuses == [422, 422, 422, 429]  # VOID with nothing locked: refused by the table, journaled
        throttled = dealer.post("/api/actions", json={"event": "void"})
        assert throttled.status_code == 429 and int(throttled.headers["retry-after"]) >= 1
        assert len(rows(table)) == count + 6  # three inputs, three refusals; nothing of the fourth or fifth
