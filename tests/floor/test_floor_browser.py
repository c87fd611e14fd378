"""The floor page in a real headless Chromium: a user logs in, sees every table, the alerts and a
table's history, under the page's Content-Security-Policy with nothing refused.

Chromium is Debian's (``scripts/ensure-chromium.sh``, which ``make test`` runs first), driven by
Playwright through its executable path; no browser is downloaded. The page's picture is saved in a
temporary folder, or, when ``DICETABLE_SCREENSHOTS`` names a folder, there.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from controller.floor.page import start_page
from controller.floor.store import FloorStore
from controller.floor.signing import table_key
from controller.journal import Journal, export_line

from floorkit import signed
from controller.web.users import add_user

@pytest.fixture
def floor_page(tmp_path):
    """A floor holding two tables (craps-1 online, craps-2 offline with an alert), its page on a free
    port of loopback, and a user ``pat``."""
    with FloorStore(tmp_path / "floor.sqlite3") as store:
        store.begin()
        for table in ("craps-1", "craps-2"):
            with Journal.open(tmp_path / table) as journal:
                journal.append({"event": "table", "game": "craps", "rules": {}, "table": table})
                journal.append({"event": "bet", "seat": "A", "bet": "pass", "amount": 500})
                lines = [export_line(e) for e in journal.entries()]
            for line in lines:
                store.receive(table, json.loads(lines[0])["hash"], line)
        first = store.current_journal("craps-1")
        store.set_status("craps-1", signed(table_key(tmp_path / "key"), "craps-1", {
            "game": "craps", "phase": "betting", "point": 6, "last_roll": [2, 4], "rolls": 9, "camera": "ok",
            "display": "ok", "journal": first, "seq": 2}), live=False)
        store.set_online("craps-1", "online")
        store.set_online("craps-2", "offline")
        store.raise_alert("craps-2", store.current_journal("craps-2"), 2, "cut", "rows were cut off its end")
        store.commit()
    add_user(tmp_path / "floor-users", "pat", "pit", "watch-the-floor")
    page = start_page(tmp_path / "floor.sqlite3", "127.0.0.1:0", users=str(tmp_path / "floor-users"))
    assert page is not None
    yield page.url.rstrip("/")
    page.stop()


@pytest.fixture
def shots(tmp_path) -> Path:
    named = os.environ.get("DICETABLE_SCREENSHOTS")
    return Path(named) if named else tmp_path


def test_a_user_logs_in_and_sees_the_tables_the_alert_and_a_history_with_nothing_refused(floor_page, browser, shots):
    from playwright.sync_api import expect  # present: the browser fixture skips without Playwright

    page = browser.page({"width": 1300, "height": 800})
    answer = page.goto(floor_page)
    assert "script-src 'self'" in answer.headers["content-security-policy"]
    page.wait_for_selector("#login:not(.hidden)")
    page.fill("input[name=user]", "pat")
    page.fill("input[name=password]", "watch-the-floor")
    page.click("button[type=submit]")
    page.wait_for_selector(".card")
    assert page.locator("#n-tables").inner_text() == "2"
    assert page.locator("#n-alerts").inner_text() == "1"
    assert "table craps-2, row 2" in page.locator("#alerts").inner_text()
    assert page.locator("#offline").inner_text() == "craps-2"
    # The page's own style sheet is applied: a die is drawn as a light square, not as text.
    # Each floor event redraws the cards, so the check retries on the die that is on the page now.
    expect(page.locator(".die").first).to_have_css("background-color", "rgb(244, 241, 234)")
    page.locator(".card", has_text="craps-1").click()
    page.wait_for_selector("table.rows td")
    assert page.locator("#history-title").text_content() == "History of craps-1"
    page.wait_for_selector("#live:text('live')")
    page.screenshot(path=str(shots / "floor.png"))
    assert page.refused() == []
