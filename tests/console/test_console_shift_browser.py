"""A shift run by two pit users in a real headless Chromium, against the demo kept open: the pit
opens it with its bank counted by chip, sells chips, enters a fill that only the other pit user may
countersign, the dealer's rolls are settled, the dice are changed, and the close's count shows its
variance as an alert. `journal report` then says what an independent reading of `journal export`
says of the same rows, and what the page showed.

Chromium is Debian's, driven by Playwright as the other browser tests do (tests/conftest.py)."""
from __future__ import annotations

import json
import re
import subprocess
import sys
import time

import httpx

VIEWPORT = {"width": 1400, "height": 1000}


def pit_page(browser, url: str, user: str):
    page = browser.page(VIEWPORT)
    page.goto(f"{url}/login")
    page.fill("#user", user)
    page.fill("#password", user)
    page.click("button[type=submit]")
    page.wait_for_url(re.compile(r"/pit$"))
    page.wait_for_selector("#link.up")
    return page


def count_chips(page, form: str, chips: dict[str, int]) -> None:
    for chip, count in chips.items():
        page.fill(f"[data-count={form}] input[data-chip='{chip}']", str(count))


def said(page, text: str) -> None:
    page.locator("#pit-said", has_text=text).wait_for()


def settled_or_waiting(dealer: httpx.Client, rolls: int) -> None:
    """Until the demo's camera has read the throw: settled, or waiting for the dealer."""
    deadline = time.monotonic() + 30
    while (state := dealer.get("/api/state").json())["rolls"] == rolls and state["phase"] != "pending":
        assert time.monotonic() < deadline, "the throw was never read"
        time.sleep(0.1)


def journal(state_dir, *action: str) -> str:
    done = subprocess.run([sys.executable, "-m", "controller.cli", "journal", "--state-dir", str(state_dir), *action],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def the_last_shift_from_the_export(lines: list[str]) -> dict:
    """The last shift's arithmetic, read from `journal export` by this test alone: the inputs the
    row after does not refuse, and the settle rows between the shift's opening and its close."""
    rows = [json.loads(line) for line in lines]
    taken = [row for row, after in zip(rows, rows[1:] + [None]) if row["kind"] == "input"
             and not (after and after["kind"] == "effect" and after["event"]["event"] == "rejected")]
    opened = [row for row in taken if row["event"]["event"] == "shift_open"][-1]
    closed = next(row for row in taken if row["event"]["event"] == "shift_close" and row["seq"] > opened["seq"])
    within = [row for row in rows if opened["seq"] < row["seq"] <= closed["seq"]]
    entries = [row["event"] for row in taken if opened["seq"] < row["seq"] <= closed["seq"]]
    signed = {e["slip"] for e in entries if e["event"] == "countersign"}
    bank = lambda counts: sum(int(chip) * n for chip, n in counts.items())  # noqa: E731
    shift = {
        "opening": bank(opened["event"]["bank"]),
        "fills": sum(e["amount"] for e in entries if e["event"] == "fill" and e["slip"] in signed),
        "credits": sum(e["amount"] for e in entries if e["event"] == "credit" and e["slip"] in signed),
        "drop": sum(e["amount"] for e in entries if e["event"] == "buy_in"),
        "win": sum(r["event"]["amount"] - r["event"]["paid"] for r in within if r["event"]["event"] == "settle"),
        "handle": sum(e["amount"] for e in entries if e["event"] == "bet"),
        "closing": bank(closed["event"]["bank"]),
        "users": [(e["event"], e.get("user")) for e in [opened["event"], *entries]
                  if e["event"] in ("shift_open", "fill", "credit", "countersign", "dice_set", "shift_close")],
    }
    shift["expected"] = shift["opening"] + shift["fills"] - shift["credits"] + shift["win"] - shift["drop"]
    return shift


def test_two_pit_users_run_a_shift_and_the_report_is_the_exports(demo, browser, shots):
    url, state_dir = demo
    pit, pit2 = pit_page(browser, url, "pit"), pit_page(browser, url, "pit2")

    pit.wait_for_selector("#open-form:not([hidden])")
    count_chips(pit, "open", {"2500": 40, "500": 100, "100": 100})
    pit.locator("[data-count=open] .chips-total", has_text="$1,600.00").wait_for()
    pit.click("#open-shift")
    pit.wait_for_selector("[data-shift=open]")
    pit2.wait_for_selector("[data-shift=open]")  # pushed to the other pit user's page
    for seat, amount in (("A", "100"), ("B", "50")):
        pit.select_option("#buyin-seat", seat)
        pit.fill("#buyin-amount", amount)
        pit.click("#buyin")
        said(pit, "buy_in: journaled as row")
    pit.fill("#slip-number", "F-9")
    pit.fill("#slip-amount", "500")
    pit.click("#slip-enter")
    assert pit.locator("button[data-countersign='F-9']").is_disabled()  # not by the user who entered it
    pit2.click("button[data-countersign='F-9']")
    said(pit2, "countersign: journaled as row")
    pit2.select_option("#slip-kind", "credit")
    pit2.fill("#slip-number", "C-1")
    pit2.fill("#slip-amount", "200")
    pit2.click("#slip-enter")
    pit.click("button[data-countersign='C-1']")
    said(pit, "countersign: journaled as row")

    # The dealer bets and throws (through the API: the dealer's own page has its own tests).
    with httpx.Client(base_url=url, timeout=20) as dealer:
        dealer.headers["X-CSRF-Token"] = dealer.post("/api/login", json={"user": "dealer", "password": "dealer"}).json()["csrf"]
        for _ in range(2):
            rolls = dealer.get("/api/state").json()["rolls"]
            for seat in ("A", "B"):
                assert dealer.post("/api/bets", json={"seat": seat, "bet": "field", "amount": 300}).status_code == 200
            assert dealer.post("/api/actions", json={"event": "lock"}).status_code == 200
            settled_or_waiting(dealer, rolls)
            state = dealer.get("/api/state").json()
            if state["phase"] == "pending":  # an unsure read: the dealer confirms it or enters the dice
                press = {"event": "confirm"} if state["pending"]["confirmable"] else {"event": "manual", "dice": [3, 4]}
                assert dealer.post("/api/actions", json=press).status_code == 200

    pit2.fill("#dice-set-name", "red 4411-4415")
    pit2.click("#dice-set")
    said(pit2, "dice_set: journaled as row")
    count_chips(pit, "close", {"2500": 40, "500": 100, "100": 100, "25": 7})
    pit.click("#close-shift")
    pit.wait_for_selector("[data-shift=closed]")
    pit.wait_for_selector("#alerts [data-kind=variance]")
    shown_expected = int(pit.get_attribute("[data-expected]", "data-expected"))
    shown_variance = int(pit.get_attribute("[data-variance]", "data-variance"))
    pit.screenshot(path=str(shots / "console-pit-shift.png"), full_page=True)

    found = json.loads(journal(state_dir, "report", "--json"))
    mine = the_last_shift_from_the_export(journal(state_dir, "export").splitlines())
    shift = found["shifts"][-1]
    assert (shift["opening_cents"], shift["fills_cents"], shift["credits_cents"], shift["drop_cents"]) == (
        mine["opening"], mine["fills"], mine["credits"], mine["drop"]) == (160000, 50000, 20000, 15000)
    assert shift["win_cents"] == mine["win"] and shift["handle_cents"] == mine["handle"] == 1200
    assert shift["expected_cents"] == mine["expected"] == shown_expected
    assert shift["closing_cents"] == mine["closing"] == 160175
    assert shift["variance_cents"] == mine["closing"] - mine["expected"] == shown_variance
    assert mine["users"] == [("shift_open", "pit"), ("fill", "pit"), ("countersign", "pit2"), ("credit", "pit2"),
                             ("countersign", "pit"), ("dice_set", "pit2"), ("shift_close", "pit")]
    assert found["dice"]["set"]["set"] == "red 4411-4415"
    assert pit.refused() == [] and pit2.refused() == []
