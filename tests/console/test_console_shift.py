"""The pit's shift through the console's API against a running table: entries only a pit user may
make, under the CSRF, unknown-field and idempotency rules; a fill countersigned by a second pit
user; the shift's numbers as `journal report` computes them from the same rows; the pit's alerts
for overrides, large payouts, biased dice and a variance, each with its frame."""
from __future__ import annotations

import json

import pytest

from controller.journal import Journal
from controller.pit import report, rows_of_entries
from tests.console.conftest import wait_for

OPEN = {"event": "shift_open", "bank": {"2500": 40, "500": 100}}




def journaled_report(table) -> dict:
    with Journal(table.journal_path, readonly=True) as journal:
        return report(rows_of_entries(journal.entries()))


def test_a_shift_is_run_by_two_pit_users_and_its_numbers_are_the_journals(console_table):
    table = console_table()
    with table.client("pete") as pete, table.client("pia") as pia, table.client("dana") as dealer:
        opened = pete.post("/api/shift", json=OPEN)
        assert opened.status_code == 200 and opened.json() == {**OPEN, "user": "pete", "via": "console"}
        assert pete.post("/api/shift", json={"event": "buy_in", "seat": "A", "amount": 10000}).status_code == 200
        dealer.post("/api/bets", json={"seat": "A", "bet": "field", "amount": 300})
        dealer.post("/api/actions", json={"event": "lock"})
        table.settle([6, 6], frame="twelve.jpg")
        wait_for(lambda: dealer.get("/api/state").json()["rolls"] == 1)
        assert pete.post("/api/shift", json={"event": "fill", "slip": "F-7", "amount": 50000}).status_code == 200
        own = pete.post("/api/shift", json={"event": "countersign", "slip": "F-7"})
        assert own.status_code == 422 and "a second, different user countersigns it" in own.json()["reason"]
        early = pete.post("/api/shift", json={"event": "shift_close", "bank": {"2500": 40}})
        assert early.status_code == 422 and "still to be countersigned" in early.json()["reason"]
        waiting = pia.get("/api/shift").json()["shift"]
        assert [(s["slip"], s["countersigned_by"]) for s in waiting["slips"]] == [("F-7", None)]
        assert pia.post("/api/shift", json={"event": "countersign", "slip": "F-7"}).status_code == 200
        assert pia.post("/api/dice", json={"set": "red 4411"}).status_code == 200
        closed = pete.post("/api/shift", json={"event": "shift_close", "bank": {"2500": 40, "500": 100, "100": 400}})
        assert closed.status_code == 200
        shown = pete.get("/api/shift").json()
    shift = shown["shift"]
    assert shift == journaled_report(table)["shifts"][-1]
    assert shift["win_cents"] == -300 and shift["drop_cents"] == 10000 and shift["fills_cents"] == 50000
    assert shift["expected_cents"] == 150000 + 50000 - 300 - 10000 and shift["closing_cents"] == 190000
    variance = [a for a in shown["alerts"] if a["kind"] == "variance"]
    assert variance and variance[0]["level"] == "alarm" and "variance of $3.00" in variance[0]["text"]
    assert shown["dice"]["set"]["set"] == "red 4411"
    users = [(r.event["event"], r.event.get("user")) for r in table.rows() if r.kind == "input"
             and r.event["event"] in ("shift_open", "fill", "countersign", "dice_set", "shift_close")]
    assert users == [("shift_open", "pete"), ("fill", "pete"), ("countersign", "pete"), ("shift_close", "pete"),
                     ("countersign", "pia"), ("dice_set", "pia"), ("shift_close", "pete")]


def test_only_the_pit_makes_entries_and_the_pit_still_cannot_bet_or_press(console_table):
    table = console_table()
    with table.client() as anonymous, table.client("dana") as dealer, table.client("pete") as pit:
        assert anonymous.post("/api/shift", json=OPEN).status_code == 401
        assert anonymous.get("/api/shift").status_code == 401
        refused = dealer.post("/api/shift", json=OPEN)
        assert refused.status_code == 403 and "only a pit may do this" in refused.json()["reason"]
        assert dealer.get("/api/shift").status_code == 403
        assert dealer.post("/api/dice", json={"set": "new"}).status_code == 403
        assert pit.post("/api/bets", json={"seat": "A", "bet": "pass", "amount": 500}).status_code == 403
        assert pit.post("/api/actions", json={"event": "lock"}).status_code == 403
        token = pit.headers.pop("X-CSRF-Token")
        assert pit.post("/api/shift", json=OPEN).status_code == 403
        pit.headers["X-CSRF-Token"] = token
        wrong = pit.post("/api/shift", json={"event": "bet", "seat": "A", "bet": "pass", "amount": 500})
        assert wrong.status_code == 422 and wrong.json()["rule"] is None and "takes 'shift_open' or" in wrong.json()["reason"]
        assert pit.post("/api/dice", json={"event": "lock"}).status_code == 422
        assert pit.put("/api/shift", json=OPEN).status_code == 405
    assert not any(r.event.get("event") in ("shift_open", "bet", "lock", "dice_set") for r in table.rows())


def test_a_field_an_entry_does_not_take_is_refused_and_journaled_bounded_and_a_key_counts_once(console_table):
    table = console_table()
    with table.client("pete") as pit:
        odd = pit.post("/api/shift", json={**OPEN, "note": "x" * 500})
        assert odd.status_code == 422 and "shift_open has no field 'note'" in odd.json()["reason"]
        long_bank = {str(d): 1 for d in range(1, 60)}
        too_long = pit.post("/api/shift", json={"event": "shift_open", "bank": long_bank})
        assert too_long.status_code == 422 and "more than the 400" in too_long.json()["reason"]
        first, again = (pit.post("/api/shift", json=OPEN, headers={"Idempotency-Key": "open-1"}) for _ in range(2))
        assert first.status_code == again.status_code == 200 and first.content == again.content
        assert first.headers["x-journal-seq"] == again.headers["x-journal-seq"]
    inputs = [r.event for r in table.rows() if r.kind == "input" and r.seq > 1]
    assert [e["event"] for e in inputs] == ["malformed", "malformed", "shift_open"]
    assert all(len(json.dumps(e)) < 1500 for e in inputs)


def test_overrides_and_large_payouts_raise_alerts_with_their_frames(console_table):
    table = console_table(large_payout=500)
    with table.client("dana") as dealer, table.client("pete") as pit:
        assert pit.get("/api/shift").json() == {"shift": None, "dice": {"shift": None, "set": None}, "alerts": [],
                                                "large_payout": 500}
        pit.post("/api/shift", json=OPEN)
        dealer.post("/api/bets", json={"seat": "B", "bet": "any7", "amount": 200})
        dealer.post("/api/actions", json={"event": "lock"})
        table.settle([2, 2], status="uncertain", frame="four.jpg")
        wait_for(lambda: dealer.get("/api/state").json()["phase"] == "pending")
        dealer.post("/api/actions", json={"event": "manual", "dice": [3, 4]})  # the camera's 2-2 corrected to 3-4
        dealer.post("/api/actions", json={"event": "lock"})
        dealer.post("/api/actions", json={"event": "void"})
        alerts = wait_for(lambda: len((a := pit.get("/api/shift").json()["alerts"])) >= 3 and a)
    kinds = [(a["kind"], a["frame"], a["level"]) for a in alerts]
    assert kinds == [("void", None, "warning"), ("payout", "four.jpg", "warning"), ("correction", "four.jpg", "warning")]
    assert "seat B any7 paid $10.00 on $2.00" in alerts[1]["text"] and "correction by dana" in alerts[2]["text"]


def test_dice_that_keep_showing_one_face_are_flagged_over_the_set(console_table):
    table = console_table()
    with table.client("pete") as pit:
        pit.post("/api/dice", json={"set": "loaded"})
        for roll in range(70):
            table.inputs.put({"event": "lock"})
            table.settle([6, roll % 6 + 1])
        dice = wait_for(lambda: (d := pit.get("/api/shift").json())["dice"]["set"]["rolls"] == 70 and d)
    alarm = dice["dice"]["set"]["alarm"]
    assert alarm is not None and alarm["face"] == 6
    flagged = [a for a in dice["alerts"] if a["kind"] == "dice"]
    assert flagged[0]["level"] == "alarm" and "face 6 comes up too often" in flagged[0]["text"]
    assert journaled_report(table)["dice"]["set"] == dice["dice"]["set"]


@pytest.mark.parametrize("path", ["/api/shift", "/api/dice"])
def test_a_wrong_method_on_an_entry_path_is_json_with_a_null_rule(console_table, path):
    table = console_table()
    with table.client("pete") as pit:
        answer = pit.delete(path)
    assert answer.status_code == 405 and answer.json()["rule"] is None
