"""The console end to end in a real headless Chromium, against a demo table kept open
(`dicetable run --keep-open`): a dealer bets for three seats by tapping the layout, locks, the dice
are read, and the pay list is what the rules engine settled; a refused bet shows its rule; a pit
user cannot bet; a wrong password is refused; the board updates after a roll.

Chromium is Debian's (``scripts/ensure-chromium.sh``, which ``make test`` runs first), driven by
Playwright through its executable path; no browser is downloaded. Each view is saved as a PNG in a
temporary folder, or, when ``DICETABLE_SCREENSHOTS`` names a folder, there
(``scripts/console-screenshots.sh`` makes the manual's pictures so).
"""
from __future__ import annotations

import re
import tempfile
from pathlib import Path

import pytest

pytest.importorskip("playwright.sync_api", reason="Playwright is not installed (pip install -e '.[dev]')")
from playwright.sync_api import expect  # noqa: E402

from controller.console.views import pay_list  # noqa: E402
from controller.journal import Journal  # noqa: E402

VIEWPORT = {"width": 1280, "height": 800}


def page_for(browser, url: str, user: str | None = None, password: str | None = None, viewport=VIEWPORT):
    """A new page (tests/conftest.py: ``page.refused()`` lists its errors and what the browser
    refused under the Content-Security-Policy), logged in when ``user`` is given."""
    page = browser.page(viewport)
    if user is not None:
        page.goto(f"{url}/login")
        page.fill("#user", user)
        page.fill("#password", password or user)
        page.click("button[type=submit]")
        page.wait_for_url(re.compile(r"/(dealer|pit)$"))
    return page


def settles_of(journal_dir: Path, roll_seq: int) -> list[dict]:
    """The rules engine's settle rows of the roll journaled at ``roll_seq``, in order."""
    with Journal.open(journal_dir, readonly=True) as journal:
        found = []
        for entry in journal.entries(roll_seq):
            if entry.event.get("event") != "settle":
                break
            found.append(entry.event)
        return found


def test_a_wrong_password_is_refused(demo, browser, shots):
    url, _ = demo
    page = page_for(browser, url)
    page.goto(f"{url}/login")
    expect(page.locator("#demo")).to_have_text("Demo logins: dealer / dealer, pit / pit, pit2 / pit2")  # once /healthz answered
    page.fill("#user", "dealer")
    page.fill("#password", "not-the-password")
    page.click("button[type=submit]")
    page.wait_for_selector("#error:not([hidden])")
    assert page.locator("#error").inner_text() == "wrong user name or password"
    assert page.url.endswith("/login")
    page.screenshot(path=str(shots / "console-login.png"))
    assert page.refused() == []


@pytest.mark.parametrize("next_path", ["/%5Cevil.test/phish", "//evil.test/phish", "https://evil.test/", "/%2F/evil.test"])
def test_after_a_login_the_browser_never_leaves_the_console(demo, browser, next_path):
    """``next`` is followed to paths of this console only (a browser reads ``/\\evil.test`` as ``//evil.test``)."""
    url, _ = demo
    page = page_for(browser, url)
    page.goto(f"{url}/login?next={next_path}")
    page.fill("#user", "pit")
    page.fill("#password", "pit")
    page.click("button[type=submit]")
    page.wait_for_url(re.compile(r"/(pit|evil\.test/phish|)$"))
    assert page.url.startswith(url + "/"), page.url
    assert page.refused() == []


def test_a_dealer_bets_for_three_seats_locks_and_pays_what_the_engine_settled(demo, browser, shots):
    url, journal_dir = demo
    board = page_for(browser, url, viewport={"width": 1400, "height": 560})
    board.goto(f"{url}/board")
    board.wait_for_selector("#link.up")
    shown_before = board.locator(".board-roll").count()

    dealer = page_for(browser, url, "dealer")
    dealer.wait_for_selector("svg.layout [data-space=field]")
    first_roll = dealer.locator("#roll-title").get_attribute("data-seq")
    assert first_roll is not None  # the demo played a roll before it kept its table open
    for seat, chip, space in (("A", "100", "field"), ("B", "200", "any_craps"), ("C", "100", "hard-8")):
        dealer.click(f"button[data-seat={seat}]")
        dealer.click(f"button[data-chip='{chip}']")
        dealer.click(f"[data-space={space}] .space-box")
        dealer.wait_for_selector(f"[data-space={space}] .chip[data-seat={seat}]")
        # The state is pushed before the answer reaches the page (docs/console.md): the chip may show
        # a moment before the answer's row does. (Waits go through locators: a wait_for_function
        # evaluates a string, which the console's Content-Security-Policy may refuse.)
        dealer.locator("#notice.done", has_text="journaled as row").wait_for()

    # A bet over the space's maximum: refused, with the reason and the paragraph cited.
    dealer.click("button[data-seat=D]")
    dealer.fill("#amount", "5.5")
    dealer.click("[data-space=field] .space-box")
    dealer.wait_for_selector("#notice.refused")
    notice = dealer.locator("#notice").inner_text()
    assert "Refused seat D field $5.50" in notice and "over the maximum of $5.00" in notice
    assert re.search(r"\(§4620\.3\(e\)", dealer.locator("#notice .rule").inner_text())
    assert dealer.locator("[data-space=field] .chip[data-seat=D]").count() == 0

    dealer.click("button[data-action=lock]")
    dealer.wait_for_selector("#phase[data-phase]:not([data-phase=betting])")
    # The generated dice are thrown; an unsure read waits for the dealer, as at a table.
    title = dealer.locator("#roll-title")
    settled_or_waiting = dealer.locator(f"#roll-title:not([data-seq='{first_roll}']), #waiting:not([hidden])")
    settled_or_waiting.first.wait_for(timeout=30000)
    if dealer.locator("#waiting").is_visible():  # an unsure read: the dealer enters the dice as they lie
        dealer.click("#waiting button[data-action=manual]")
        dealer.click("#entry button[data-entry=enter]")
    expect(title).not_to_have_attribute("data-seq", first_roll, timeout=30000)
    expect(dealer.locator("#waiting")).to_be_hidden()
    roll_seq = int(title.get_attribute("data-seq"))
    assert re.fullmatch(rf"Roll {title.get_attribute('data-number')}: \d-\d = \d+", title.text_content())
    settled = settles_of(journal_dir, roll_seq)
    shown = [line.get_attribute("data-line") for line in dealer.locator("li.pay-line").all()]
    assert shown == [line["text"] for group in pay_list(settled) for line in group["lines"]]
    assert {"A", "B"} <= {s["seat"] for s in settled}  # the one-roll bets are always decided

    # The dealer ticks a line: on the screen only, nothing is journaled.
    with Journal.open(journal_dir, readonly=True) as journal:
        rows = len(journal)
    dealer.locator("li.pay-line input").first.check()
    assert "done" in dealer.locator("li.pay-line").first.get_attribute("class")
    with Journal.open(journal_dir, readonly=True) as journal:
        assert len(journal) == rows
    dealer.screenshot(path=str(shots / "console-dealer.png"), full_page=True)

    # The board, open all along, shows the new roll first.
    dice = dealer.locator("#roll .dice").first.get_attribute("data-dice")
    board.locator(".board-roll").nth(min(shown_before, 19)).wait_for()  # one more, or the board's 20
    assert board.locator(".board-roll.latest .dice").get_attribute("data-dice") == dice
    assert dealer.refused() == [] and board.refused() == []


def test_a_pit_user_sees_everything_and_cannot_bet(demo, browser, shots):
    url, _ = demo
    pit = page_for(browser, url, "pit")
    assert pit.url.endswith("/pit")
    pit.wait_for_selector("#journal code.hash")
    pit.wait_for_selector("[data-verify=ok]", timeout=30000)
    assert re.fullmatch(r"[0-9a-f]{64}", pit.locator("#journal code.hash").inner_text())
    assert pit.locator("#health").inner_text().count("ok") >= 2
    assert pit.locator("button[data-action]").count() == 0 and pit.locator("svg.layout").count() == 0
    pit.goto(f"{url}/dealer")
    assert pit.url.endswith("/pit")  # the dealer's page is not for the pit
    answer = pit.evaluate("""async () => {
        const session = await (await fetch('/api/session')).json();
        const answer = await fetch('/api/bets', {method: 'POST', headers: {'Content-Type': 'application/json',
            'X-CSRF-Token': session.csrf}, body: JSON.stringify({seat: 'A', bet: 'field', amount: 100})});
        return {status: answer.status, body: await answer.json()};
    }""")
    assert answer["status"] == 403 and "only a dealer" in answer["body"]["reason"]
    pit.wait_for_selector(".roll-card .frame img")
    state = pit.evaluate("async () => (await fetch('/api/state')).json()")
    titles = pit.locator(".roll-card strong[data-seq]")
    # Rolls by the table's count, as the dealer's screen and the board say them, never by journal row.
    assert [t.strip() for t in titles.all_inner_texts()][:1] == [f"Roll {state['last_rolls'][0]['number']}:"]
    assert titles.first.get_attribute("data-seq") == str(state["last_rolls"][0]["seq"])
    named = pit.locator("#bets td:nth-child(2)").all_inner_texts()
    assert named == [bet["name"] for bet in state["bets"]]  # as a dealer says them (controller/console/names.py)
    shown = pit.locator("body").inner_text()
    assert "var/craps/journal.sqlite3" in shown and tempfile.gettempdir() not in shown  # no scratch path
    pit.screenshot(path=str(shots / "console-pit.png"), full_page=True)
    assert pit.refused() == []


def test_a_double_tap_places_one_bet(demo, browser):
    """The page puts an Idempotency-Key on each tap, the same on a second tap of the same space at once."""
    url, journal_dir = demo
    with Journal.open(journal_dir, readonly=True) as journal:
        before = len(journal)
    dealer = page_for(browser, url, "dealer")
    dealer.wait_for_selector("svg.layout [data-space=field]")
    dealer.click("button[data-seat=E]")
    dealer.click("button[data-chip='100']")
    dealer.dblclick("[data-space=field] .space-box")
    dealer.locator("#notice.done", has_text="journaled as row").wait_for()
    dealer.wait_for_selector("[data-space=field] .chip[data-seat=E]")
    with Journal.open(journal_dir, readonly=True) as journal:
        bets = [e.event for e in journal.entries(before) if e.event.get("event") == "bet" and e.event.get("seat") == "E"]
    assert [(b["bet"], b["amount"]) for b in bets] == [("field", 100)]
    assert dealer.refused() == []
