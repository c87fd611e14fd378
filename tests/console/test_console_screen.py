"""The dealer's screen cannot mislead at the moment of paying (issue #46), in a real headless
Chromium at a tablet (1280x800), a tablet held upright (800x1280), a phone (390x844) and a board
screen (1920x1080), against a table whose reads the test makes (``console_table``):

- a read that waits is shown whole above the fold: its frame with each die's box, the dice, the
  reason, CONFIRM / HAND ENTRY / VOID; the previous roll's pay list is hidden meanwhile;
- a tap is debounced and carries an Idempotency-Key; a typed amount that is no amount of cents is
  refused on the page and places nothing; amounts show as they are journaled;
- a request with no answer, even sent again with its key, says in a banner that the bet may not
  have been placed; a silent stream turns the "live" mark off;
- bets read as a dealer says them, a come bet and its odds apart, chips never over a label, the
  roll's own number, no take-down the rules refuse, a note for a missing frame;
- tap targets of 44 px and words of 14 px; a board that fills its screen, digits 8 % of its height.

Every wait is on a condition (a locator, ``expect``), never on a fixed sleep. When
``DICETABLE_SCREENSHOTS`` names a folder, the manual's pictures of these views are saved there.
"""
from __future__ import annotations

import os
import re
import threading
import time
from pathlib import Path
from typing import Any

import cv2
import pytest

from controller.journal import INPUT
from tests.console.conftest import LOGINS, ConsoleTable, wait_for
from vision.sources import GeneratedSource

pytest.importorskip("playwright.sync_api", reason="Playwright is not installed (pip install -e '.[dev]')")
from playwright.sync_api import expect  # noqa: E402

SIZES = {
    "tablet": {"width": 1280, "height": 800},
    "upright": {"width": 800, "height": 1280},
    "phone": {"width": 390, "height": 844},
    "board": {"width": 1920, "height": 1080},
}
ALL = pytest.mark.parametrize("size", list(SIZES))
#: What a lost bet says (the issue's words).
LOST_BET = "not connected: this bet may not have been placed: check the bets list"


def shots() -> Path | None:
    named = os.environ.get("DICETABLE_SCREENSHOTS")
    return Path(named) if named else None


# --- the table, driven as its camera and its dealer would ---------------------------------------



class Dealt:
    """A table and its dealer's API client, to bring the table where a test needs it."""

    def __init__(self, table: ConsoleTable):
        self.table = table
        self.api = table.client("dana")
        self.frames = 0

    def state(self) -> dict:
        return self.api.get("/api/state").json()

    def bet(self, seat: str, bet: str, amount: int, **more: Any) -> None:
        answer = self.api.post("/api/bets", json={"seat": seat, "bet": bet, "amount": amount, **more})
        assert answer.status_code == 200, answer.text

    def press(self, event: str) -> None:
        answer = self.api.post("/api/actions", json={"event": event})
        assert answer.status_code == 200, answer.text

    def frame(self, dice: list[int]) -> dict:
        """A still frame of ``dice`` at rest, saved where the table keeps its frames: the read's
        ``frame``, ``boxes`` and ``size``."""
        source = GeneratedSource(seed=11 + self.frames, setting="rail", dice=len(dice))
        source.lay(dice)
        shot = source.read()
        self.frames += 1
        name = f"craps-test-{self.frames:04d}.jpg"
        self.table.frames.mkdir(parents=True, exist_ok=True)
        assert cv2.imwrite(str(self.table.frames / name), shot.image)
        label = shot.meta["label"]
        assert list(label.values) == dice  # the boxes are in the order of the read's dice
        return {"frame": name, "boxes": [list(d.box) for d in label.dice], "size": list(source.size)}

    def roll(self, dice: list[int], status: str = "ok", *, frame: bool = True, **read: Any) -> None:
        """LOCK, then the camera's read of ``dice``; an ``ok`` read is waited for until it is settled."""
        rolls = self.state()["rolls"]
        self.press("lock")
        shown = self.frame(dice) if frame else {}
        self.table.settle(dice if status != "no_read" else [], status, **{**shown, **read})
        if status == "ok":
            wait_for(lambda: self.state()["rolls"] == rolls + 1)
        else:
            wait_for(lambda: self.state()["phase"] == "pending")


@pytest.fixture
def dealt(console_table):
    made: list[Dealt] = []

    def make(game: str = "craps") -> Dealt:
        made.append(Dealt(console_table(game)))
        return made[-1]

    yield make
    for each in made:
        each.api.close()


def dealer_page(browser, table: ConsoleTable, size: str):
    """The dealer's page at ``size``, logged in, its state shown and its stream live."""
    page = browser.page(SIZES[size])
    page.goto(f"{table.url}/login")
    page.fill("#user", "dana")
    page.fill("#password", LOGINS["dana"][1])
    page.click("button[type=submit]")
    page.wait_for_url(re.compile(r"/dealer$"))
    page.locator("#seats button").first.wait_for()
    page.locator("#link.up").wait_for()
    return page


def space(page, size: str, space_id: str):
    """The space the dealer taps: drawn to scale, or on a phone the list's button."""
    if size == "phone":
        return page.locator(f"#spaces [data-space='{space_id}']")
    return page.locator(f"#layout [data-space='{space_id}'] .space-box")


def posts(page, path: str) -> list:
    """Every POST the page sends to ``path`` from now on (kept as it goes)."""
    sent: list = []
    page.on("request", lambda request: sent.append(request) if request.method == "POST" and
            request.url.endswith(path) else None)
    return sent


def journaled(table: ConsoleTable, event: str) -> list[dict]:
    return [row.event for row in table.rows() if row.kind == INPUT and row.event.get("event") == event]


BOX = "(element) => { const r = element.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; }"


def in_view(page, locator, *, scrolled: bool = False) -> bool:
    """Wholly inside the window, the page not scrolled: above the fold (or, ``scrolled``, inside the
    window wherever the page is scrolled to: a banner that stays in view)."""
    left, top, right, bottom = locator.evaluate(BOX)
    width, height = page.viewport_size["width"], page.viewport_size["height"]
    unscrolled = scrolled or page.evaluate("window.scrollY") == 0
    return unscrolled and left >= 0 and top >= 0 and right <= width + 0.5 and bottom <= height + 0.5


# --- 1. a read that waits ---------------------------------------------------------------------------

@ALL
def test_a_waiting_read_is_shown_whole_above_the_fold_and_the_last_pay_list_is_not(browser, dealt, size):
    game = dealt()
    game.bet("A", "field", 100)
    game.bet("B", "any7", 100)
    game.roll([2, 2])  # the field wins, any seven loses: roll 1 has a pay list
    page = dealer_page(browser, game.table, size)
    expect(page.locator("#paylist li.pay-line")).to_have_count(2)
    game.roll([5, 6], "uncertain", reason="die 2 read two ways")
    waiting = page.locator("#waiting")
    expect(waiting).to_be_visible()
    expect(page.locator("#waiting-title")).to_contain_text("A read waits for you")
    frame = page.locator("#waiting .frame img")
    expect(frame).to_be_visible()
    assert frame.evaluate("(img) => img.complete && img.naturalWidth") == 640
    boxes = page.locator("#waiting .frame .boxes rect")
    expect(boxes).to_have_count(2)
    expect(page.locator("#waiting .frame .box-label")).to_have_text(["5", "6"])
    expect(page.locator("#waiting-dice .waiting-die")).to_have_text(["die 1: 5", "die 2: 6"])
    expect(page.locator("#waiting-reason")).to_contain_text("Why it waits: die 2 read two ways")
    buttons = [page.locator(f"#waiting button[data-action={action}]") for action in ("confirm", "manual", "void")]
    expect(page.locator("#waiting button[data-action]")).to_have_text(["CONFIRM", "HAND ENTRY", "VOID"])
    for shown in [frame, *boxes.all(), page.locator("#waiting-dice"), page.locator("#waiting-reason"), *buttons]:
        expect(shown).to_be_visible()
        expect(shown).to_be_enabled() if shown in buttons else None
        assert in_view(page, shown), f"{shown} is below the fold at {size}"
    # The previous roll's pay list is not there to be paid again; what is shown says whose it is.
    expect(page.locator("#paylist li.pay-line")).to_have_count(0)
    expect(page.locator("#paylist .pay-hidden")).to_have_text(
        "Roll 1's pay list is hidden while a read waits: pay this roll once it is settled.")
    expect(page.locator("#roll-title")).to_have_text("Previous roll 1: 2-2 = 4")
    expect(page.locator("#pay-title")).to_have_text("Pay and take: roll 1 (the previous roll)")
    if size == "tablet" and shots():
        page.screenshot(path=str(shots() / "console-dealer-read.png"))
    buttons[0].click()
    expect(waiting).to_be_hidden()
    expect(page.locator("#roll-title")).to_have_text("Roll 2: 5-6 = 11")
    expect(page.locator("#paylist li.pay-line")).to_have_count(0)  # roll 2 decided no bet
    expect(page.locator("#paylist")).to_have_text("Nothing to pay or take on this roll.")
    assert page.refused() == []


def test_a_read_the_camera_could_not_make_is_entered_by_hand_from_the_panel(browser, dealt):
    game = dealt()
    game.bet("A", "field", 100)
    page = dealer_page(browser, game.table, "tablet")
    game.roll([], "no_read", frame=False, reason="no still frame within the roll's frames")
    expect(page.locator("#waiting-title")).to_have_text("The camera could not read these dice: enter them by hand, or VOID")
    expect(page.locator("#waiting .frame.noframe")).to_have_text("no frame saved")
    confirm = page.locator("#waiting button[data-action=confirm]")
    expect(confirm).to_be_disabled()
    expect(page.locator("#waiting-why")).to_have_text(
        "CONFIRM cannot settle this read: nothing to confirm: the camera could not read these dice; enter them by hand or void")
    page.click("#waiting button[data-action=manual]")
    page.click("#entry button[data-die='0'][data-face='3']")
    page.click("#entry button[data-die='1'][data-face='6']")
    enter = page.locator("#entry button[data-entry=enter]")
    expect(enter).to_have_text("Enter 3-6")
    for target in page.locator("#waiting button").all():
        assert in_view(page, target)
    enter.click()
    expect(page.locator("#waiting")).to_be_hidden()
    expect(page.locator("#roll-title")).to_have_text("Roll 1: 3-6 = 9")
    expect(page.locator("#paylist li.pay-line")).to_have_text(["seat A: field wins, pay $1.00 (the $1.00 stake comes back with it)"])
    assert page.refused() == []


# --- 2. taps: debounced, keyed, amounts as journaled ---------------------------------------------------

@ALL
def test_a_double_tap_places_one_bet_and_every_input_carries_an_idempotency_key(browser, dealt, size):
    game = dealt()
    page = dealer_page(browser, game.table, size)
    sent = {path: posts(page, path) for path in ("/api/bets", "/api/remove", "/api/actions")}
    page.click("button[data-seat=B]")
    page.click("button[data-chip='100']")
    space(page, size, "field").dblclick()
    expect(page.locator("#notice")).to_contain_text("seat B field $1.00: journaled as row")
    # Two taps 80 ms apart, as a finger makes them: the second is the first. (The promise is kept
    # once both are made.)
    space(page, size, "any7").evaluate("""(target) => new Promise((done) => {
        target.dispatchEvent(new MouseEvent('click', {bubbles: true}));
        setTimeout(() => { target.dispatchEvent(new MouseEvent('click', {bubbles: true})); done(); }, 80);
    })""")
    expect(page.locator("#notice")).to_contain_text("seat B any seven $1.00: journaled as row")
    page.locator("#bets li[data-bet='B any seven'] button.take-down").click()
    expect(page.locator("#bets li[data-bet='B any seven']")).to_have_count(0)
    page.locator(".dealer-group button[data-action=lock]").dblclick()
    expect(page.locator("#phase")).to_have_attribute("data-phase", "locked")
    page.locator(".dealer-group button[data-action=void]").click()
    expect(page.locator("#phase")).to_have_attribute("data-phase", "betting")
    bets = [(b["seat"], b["bet"], b["amount"]) for b in journaled(game.table, "bet")]
    assert bets == [("B", "field", 100), ("B", "any7", 100)]
    assert len(journaled(game.table, "lock")) == 1 and len(journaled(game.table, "remove")) == 1
    everything = [request for requests in sent.values() for request in requests]
    assert len(everything) == 5  # a bet, a bet, a removal, a lock, a void: the repeats never left the page
    keys = [request.headers.get("idempotency-key") for request in everything]
    assert all(re.fullmatch(r"[0-9a-f]{32}", key or "") for key in keys) and len(set(keys)) == len(keys)
    assert page.refused() == []


def test_a_double_tap_on_confirm_bets_nothing_on_the_space_that_comes_up_under_it(browser, dealt):
    """CONFIRM settles the read, the read's panel goes, and the layout moves up under the finger:
    the second tap of a double tap lands on a space. It is not taken; nor is a tick's second tap."""
    game = dealt()
    game.bet("A", "field", 100)
    game.roll([5, 6], "uncertain", reason="die 2 read two ways")
    page = dealer_page(browser, game.table, "tablet")
    sent = posts(page, "/api/bets")
    page.locator("#waiting button[data-action=confirm]").evaluate("""(confirm) => new Promise((done) => {
        const waiting = document.getElementById('waiting');
        new MutationObserver((changes, watch) => {
            if (!waiting.hidden) return;
            watch.disconnect();
            document.querySelector('#layout [data-space=field] .space-box').dispatchEvent(
                new MouseEvent('click', {bubbles: true}));
            done();
        }).observe(waiting, {attributes: true});
        confirm.click();
    })""")
    expect(page.locator("#roll-title")).to_have_text("Roll 1: 5-6 = 11")
    line = page.locator("#paylist li.pay-line").first
    line.locator("label").dblclick()
    expect(line).to_have_class(re.compile(r"\bdone\b"))
    expect(line.locator("input")).to_be_checked()
    expect(page.locator("#layout [data-space=field] .chip")).to_have_count(0)
    assert sent == [] and [(b["seat"], b["bet"]) for b in journaled(game.table, "bet")] == [("A", "field")]
    assert page.refused() == []


@ALL
def test_a_double_tap_on_take_down_takes_down_only_the_bet_tapped(browser, dealt, size):
    """The first tap takes the bet down and the bets list closes up: the bet below moves up under
    the finger. The second tap, on the same spot, is the first's and takes nothing down. The page's
    clock stands still, so the second tap is within a double tap's time however slow the table."""
    game = dealt()
    for seat in "ABCDEF":  # a pay list below the bets, so that the page does not shrink at its end
        game.bet(seat, "field", 100)
    game.roll([2, 2])
    game.bet("B", "ace_deuce", 100)
    game.bet("B", "place", 600, number=8)
    for seat in "CDE":
        game.bet(seat, "hard", 100, number=8)
    page = dealer_page(browser, game.table, size)
    page.locator("#bets li[data-bet='E hard 8'] button.take-down").click()  # the notice line is shown from now on
    expect(page.locator("#notice")).to_contain_text("take down seat E hard 8 $1.00: journaled as row")
    sent = posts(page, "/api/remove")
    page.clock.set_fixed_time(time.time() + 60)  # long after the page last moved
    first = page.locator("#bets li[data-bet='B ace-deuce'] button.take-down")
    first.scroll_into_view_if_needed()
    left, top, right, bottom = first.evaluate(BOX)
    spot = ((left + right) / 2, (top + bottom) / 2)
    page.mouse.click(*spot)
    expect(page.locator("#bets li[data-bet='B ace-deuce']")).to_have_count(0)
    under = page.evaluate("([x, y]) => document.elementFromPoint(x, y).closest('li').dataset.bet", list(spot))
    assert under == "B place 8"  # what the second tap lands on
    page.mouse.click(*spot)
    # A tap elsewhere, long after: its answer comes after anything the second tap would have sent.
    page.clock.set_fixed_time(time.time() + 120)
    page.locator("#bets li[data-bet='C hard 8'] button.take-down").click()
    expect(page.locator("#bets li[data-bet='C hard 8']")).to_have_count(0)
    expect(page.locator("#bets li[data-bet='B place 8'] button.take-down")).to_have_count(1)
    assert [(r["seat"], r["bet"]) for r in journaled(game.table, "remove")] == [("E", "hard"), ("B", "ace_deuce"), ("C", "hard")]
    assert len(sent) == 2
    assert page.refused() == []


def test_a_double_tap_on_enter_bets_nothing_on_the_space_that_moves_up_under_it(browser, dealt):
    """Enter closes the hand entry at once and the read's panel shrinks, before the table answers:
    at 800x1280 the layout moves up under the finger. The second tap of a double tap on Enter is
    the first's: no bet."""
    size = "upright"
    game = dealt()
    game.roll([6, 5], "uncertain", reason="die 1 read two ways")
    page = dealer_page(browser, game.table, size)
    sent = posts(page, "/api/bets")
    held: list = []
    page.route("**/api/actions", lambda route: held.append(route))  # the table's answer waits until the second tap
    page.clock.set_fixed_time(time.time() + 60)  # long after the page last moved
    page.locator("#waiting button[data-action=manual]").click()
    enter = page.locator("#entry button[data-entry=enter]")
    expect(enter).to_have_text("Enter 6-5")
    left, top, right, bottom = enter.evaluate(BOX)
    spot = [(left + right) / 2, (top + bottom) / 2]
    page.mouse.click(*spot)
    expect(page.locator("#notice")).to_have_text("HAND ENTRY 6-5 · sending")
    under = page.evaluate("([x, y]) => document.elementFromPoint(x, y).closest('[data-space]')", spot)
    assert under, "no space moved up under Enter: this test would show nothing"
    page.mouse.click(*spot)
    assert len(held) == 1
    held[0].continue_()
    expect(page.locator("#roll-title")).to_have_text("Roll 1: 6-5 = 11")
    expect(page.locator("#notice")).to_contain_text("HAND ENTRY 6-5: journaled as row")
    assert sent == [] and journaled(game.table, "bet") == []
    assert page.refused() == []


INVALID = {
    "0": "“0” is no bet: the least is $0.01",
    "-5": "“-5” is no amount: a bet is never negative",
    "0.001": "“0.001” has more decimals than cents: at most two after the point",
    "0.005": "“0.005” has more decimals than cents: at most two after the point",
    "3.333": "“3.333” has more decimals than cents: at most two after the point",
    "1e9": "“1e9” is not an amount: type dollars and cents, as 12.50",
    "1000000000": "$1,000,000,000.00 is more than any bet at this table may be ($6.00 at most)",
    "abc": "“abc” is not an amount: type dollars and cents, as 12.50",
    "5,50": "“5,50” is not an amount: type dollars and cents, as 12.50",
}


@ALL
def test_a_typed_amount_that_is_no_amount_of_cents_is_refused_on_the_page(browser, dealt, size):
    game = dealt()
    page = dealer_page(browser, game.table, size)
    sent = posts(page, "/api/bets")
    page.click("button[data-chip='500']")
    typed = page.locator("#amount")
    says = page.locator("#amount-says")
    for text, why in INVALID.items():
        typed.fill(text)
        expect(says).to_have_text(why)
        expect(says).to_have_class(re.compile(r"\bbad\b"))
        expect(typed).to_have_attribute("aria-invalid", "true")
        space(page, size, "field").click()
        expect(page.locator("#notice.refused")).to_have_text(f"Nothing placed: {why}")
    assert sent == [] and journaled(game.table, "bet") == []  # nothing left the page, not the $5.00 chip either
    typed.fill("3.5")
    expect(says).to_have_text("bets $3.50")
    space(page, size, "field").click()
    notice = page.locator("#notice")
    expect(notice).to_contain_text("seat A field $3.50: journaled as row")
    expect(notice).to_have_class(re.compile(r"\bdone\b"))
    assert in_view(page, notice, scrolled=True)  # where the tap was, the answer is in view
    assert [b["amount"] for b in journaled(game.table, "bet")] == [350]
    expect(page.locator("#bets li[data-bet='A field'] .bet-amount")).to_have_text("$3.50")
    # A refusal after a success replaces it: one line says what the last tap did.
    typed.fill("5.5")
    space(page, size, "field").click()
    expect(notice).to_have_class(re.compile(r"\brefused\b"))
    expect(notice).to_contain_text("Refused seat A field $5.50: ")
    expect(notice).not_to_contain_text("journaled")
    assert page.locator("#notice").count() == 1
    assert page.refused() == []


# --- 3. no answer, no stream ---------------------------------------------------------------------------

@ALL
def test_a_bet_with_no_answer_says_it_may_not_have_been_placed(browser, dealt, size):
    game = dealt()
    page = dealer_page(browser, game.table, size)
    tries: list[str] = []

    def cut(route):
        tries.append(route.request.headers["idempotency-key"])
        route.abort()

    page.route("**/api/bets", cut)
    space(page, size, "field").click()
    banner = page.locator("#lost")
    expect(banner).to_be_visible(timeout=20000)
    expect(banner.locator("li")).to_have_text([f"{LOST_BET} (seat A field $1.00)"])
    expect(page.locator("#notice.lost")).to_contain_text("seat A field $1.00: no answer from the table")
    assert len(tries) == 4 and len(set(tries)) == 1  # the first try and three more, all with one key
    assert journaled(game.table, "bet") == []
    assert in_view(page, banner, scrolled=True)
    page.click("#lost button.checked")
    expect(banner).to_be_hidden()


def test_a_bet_whose_answer_was_lost_is_confirmed_by_sending_it_again_with_its_key(browser, dealt):
    game = dealt()
    page = dealer_page(browser, game.table, "tablet")
    tries: list[str] = []

    def lose_the_first_answer(route):
        tries.append(route.request.headers["idempotency-key"])
        if len(tries) == 1:
            route.fetch()  # the table takes the bet; its answer never reaches the page
            route.abort()
        else:
            route.continue_()

    page.route("**/api/bets", lose_the_first_answer)
    space(page, "tablet", "field").click()
    notice = page.locator("#notice.done")
    expect(notice).to_contain_text("seat A field $1.00: journaled as row")
    expect(notice).to_contain_text("(confirmed on try 2 with the same key)")
    expect(page.locator("#lost")).to_be_hidden()
    assert len(tries) == 2 and tries[0] == tries[1]
    assert [(b["seat"], b["bet"]) for b in journaled(game.table, "bet")] == [("A", "field")]


@ALL
def test_a_silent_stream_turns_the_live_mark_off_and_says_so(browser, dealt, monkeypatch, size):
    """The console's loop is held still: its stream says nothing, not even alive. The page says it
    is not connected within two of the stream's beats, and live again once they come back."""
    monkeypatch.setattr("controller.console.app.ALIVE_S", 1.0)
    game = dealt()
    page = dealer_page(browser, game.table, size)
    loop = game.table.running.console.loop
    assert loop is not None
    release = threading.Event()
    try:
        loop.call_soon_threadsafe(release.wait)
        expect(page.locator("#link")).to_have_text("not connected", timeout=20000)
        expect(page.locator("#link")).to_have_class(re.compile(r"\bdown\b"))
        offline = page.locator("#offline")
        expect(offline).to_be_visible()
        expect(offline).to_contain_text("not connected: nothing heard from the table")
        assert in_view(page, offline, scrolled=True)
    finally:
        release.set()
    expect(page.locator("#link")).to_have_text("live", timeout=20000)
    expect(page.locator("#offline")).to_be_hidden()


# --- 4. bets as a dealer says them; chips, rolls, controls, frames --------------------------------------

def with_come_bet_and_odds(game: Dealt) -> None:
    """Point 4 with pass line odds; a come bet moved to the 6 with its odds; place 6, hard 8 and
    five seats on ace-deuce (more than its space holds)."""
    game.bet("A", "pass", 500)
    game.roll([2, 2])
    game.bet("A", "odds", 500, number=4, on="pass")
    game.bet("A", "come", 500)
    game.roll([3, 3])
    game.bet("A", "odds", 500, number=6, on="come")
    game.bet("B", "place", 600, number=8)
    game.bet("C", "hard", 100, number=8)
    for seat in "ABCDE":
        game.bet(seat, "ace_deuce", 100)


TEXTS_OUTSIDE_CHIPS = """(svg) => [...svg.querySelectorAll('text')].filter((t) => !t.closest('.chip'))
    .map((t) => { const r = t.getBoundingClientRect(); return [t.textContent, r.left, r.top, r.right, r.bottom]; })"""
CHIPS = """(svg) => [...svg.querySelectorAll('.chip')].map((c) => {
    const r = c.querySelector('.chip-disc').getBoundingClientRect(); return [c.dataset.bet || '+', r.left, r.top, r.right, r.bottom]; })"""


@ALL
def test_bets_read_as_a_dealer_says_them_and_chips_never_cover_a_label(browser, dealt, size):
    game = dealt()
    with_come_bet_and_odds(game)
    page = dealer_page(browser, game.table, size)
    bets = page.locator("#bets")
    for said in ("pass line", "pass line odds on 4", "come 6", "come 6 odds", "place 8", "hard 8", "ace-deuce"):
        expect(bets.locator(f"li[data-bet='A {said}'], li[data-bet='B {said}'], li[data-bet='C {said}']")).not_to_have_count(0)
    body = page.locator("body").inner_text()
    assert "_" not in body, re.findall(r"\S*_\S*", body)
    expect(page.locator("#roll-title")).to_have_text("Roll 2: 3-3 = 6")
    assert page.locator("#roll-title").get_attribute("data-seq") != "2"  # the journal's row is not the roll
    if size == "phone":
        come = page.locator("#spaces [data-space='come-6'] .badge")
        expect(come).to_have_text(["A $5.00", "A odds $5.00"])
        assert come.nth(0).evaluate("(b) => getComputedStyle(b).backgroundColor") != \
            come.nth(1).evaluate("(b) => getComputedStyle(b).backgroundColor")
    else:
        come = page.locator("#layout [data-space='come-6'] .chip")
        expect(come).to_have_count(2)
        assert [come.nth(i).get_attribute("class") for i in range(2)] == ["chip flat", "chip odds"]
        assert [come.nth(i).locator("title").text_content() for i in range(2)] == [
            "seat A come 6 $5.00", "seat A come 6 odds $5.00"]
        shapes = [come.nth(i).locator(".chip-disc").evaluate("(d) => [d.tagName, getComputedStyle(d).fill]") for i in range(2)]
        assert shapes[0][0] == "circle" and shapes[1][0] == "rect" and shapes[0][1] != shapes[1][1]
        drawing = page.locator("#layout svg.layout")
        texts = drawing.evaluate(TEXTS_OUTSIDE_CHIPS)
        chips = drawing.evaluate(CHIPS)
        assert len(chips) >= 8 and page.locator("#layout [data-space=ace_deuce] .chip.more").count() == 1
        for bet, *c in chips:
            for text, *t in texts:
                apart = c[2] <= t[0] or t[2] <= c[0] or c[3] <= t[1] or t[3] <= c[1]
                assert apart, f"the chip of {bet} covers {text!r} at {size}"
    # Take down only what the rules let come down: a come bet on its point and the pass line stay.
    expect(bets.locator("li[data-bet='A come 6'] button")).to_have_count(0)
    expect(bets.locator("li[data-bet='A come 6'] .stays")).to_have_text("stays (§4620.3(e)(5)(i))")
    expect(bets.locator("li[data-bet='A pass line'] button")).to_have_count(0)
    for removable in ("A come 6 odds", "A pass line odds on 4", "B place 8", "C hard 8"):
        expect(bets.locator(f"li[data-bet='{removable}'] button.take-down")).to_have_count(1)
    if size == "tablet" and shots():
        page.screenshot(path=str(shots() / "console-dealer-bets.png"), full_page=True)
    bets.locator("li[data-bet='A come 6 odds'] button.take-down").click()
    expect(page.locator("#notice")).to_contain_text("take down seat A come 6 odds $5.00: journaled as row")
    expect(bets.locator("li[data-bet='A come 6 odds']")).to_have_count(0)
    assert page.refused() == []


@pytest.mark.parametrize("game", ["hazard", "bang"])
def test_chips_never_cover_a_label_in_hazard_and_bang_either(browser, dealt, game):
    table = dealt(game)
    for seat in "ABCDEF":
        table.bet(seat, "raffle" if game == "hazard" else "field", 100, **({"number": 3} if game == "hazard" else {}))
    table.bet("A", "number" if game == "hazard" else "under7", 100, **({"number": 9} if game == "hazard" else {}))
    page = dealer_page(browser, table.table, "tablet")
    drawing = page.locator("#layout svg.layout")
    expect(drawing.locator(".chip")).to_have_count(7)
    texts, chips = drawing.evaluate(TEXTS_OUTSIDE_CHIPS), drawing.evaluate(CHIPS)
    for bet, *c in chips:
        for text, *t in texts:
            assert c[2] <= t[0] or t[2] <= c[0] or c[3] <= t[1] or t[3] <= c[1], f"the chip of {bet} covers {text!r}"
    assert "_" not in page.locator("body").inner_text()


@ALL
def test_presses_the_table_would_refuse_are_greyed_and_a_game_without_a_shooter_has_no_next_shooter(browser, dealt, size):
    craps = dealt()
    page = dealer_page(browser, craps.table, size)
    actions = page.locator(".dealer-group button[data-action]")
    expect(actions).to_have_text(["LOCK", "CONFIRM", "VOID", "HAND ENTRY", "NEXT SHOOTER"])
    enabled = [button.get_attribute("data-action") for button in actions.all() if button.is_enabled()]
    assert enabled == ["lock", "next_shooter"]
    assert actions.nth(1).get_attribute("title") == "nothing to confirm: no read is waiting for the dealer"
    hazard = dealt("hazard")
    page = dealer_page(browser, hazard.table, size)
    expect(page.locator(".dealer-group button[data-action]")).to_have_text(["LOCK", "CONFIRM", "VOID", "HAND ENTRY"])
    assert page.refused() == []


@ALL
def test_a_frame_gone_from_the_disk_shows_a_note_never_a_broken_image(browser, dealt, size):
    game = dealt()
    game.press("lock")
    game.table.settle([1, 2], frame="craps-gone.jpg", boxes=[[10, 10, 40, 40], [60, 60, 40, 40]], size=[640, 480])
    wait_for(lambda: game.state()["rolls"] == 1)
    page = dealer_page(browser, game.table, size)
    missing = page.locator("#roll .frame.missing")
    expect(missing).to_have_text("frame craps-gone.jpg could not be loaded")
    expect(missing).to_be_visible()
    assert missing.evaluate("(m) => m.getBoundingClientRect().height") > 100
    assert page.locator("#roll img").count() == 0


# --- 5. a phone, and the board --------------------------------------------------------------------------

TAP_TARGETS = """() => [...document.querySelectorAll('button, a, input, select, [role=button]')]
    .filter((e) => e.getClientRects().length && !e.closest('svg.layout') && getComputedStyle(e).visibility !== 'hidden')
    .map((e) => { const t = e.type === 'checkbox' ? e.closest('label') : e; const r = t.getBoundingClientRect();
                  return [e.outerHTML.slice(0, 90), r.width, r.height]; })"""
SMALL_TEXT = """() => { const found = []; const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    while (walk.nextNode()) { const node = walk.currentNode; const parent = node.parentElement;
      if (!node.textContent.trim() || !parent || parent.closest('svg') || !parent.getClientRects().length) continue;
      const size = parseFloat(getComputedStyle(parent).fontSize);
      if (size < 14) found.push([node.textContent.trim().slice(0, 40), size]); }
    return found; }"""


@ALL
def test_every_tap_target_is_44_px_and_every_word_14_px(browser, dealt, size):
    """On a phone everything counts (the layout is a list of buttons there); elsewhere all but the
    drawing to scale, whose spaces are the felt's."""
    game = dealt()
    with_come_bet_and_odds(game)
    game.roll([6, 5], "uncertain", reason="die 1 read two ways")
    page = dealer_page(browser, game.table, size)
    page.locator("#waiting button[data-action=manual]").click()
    page.locator("#entry button[data-entry=enter]").wait_for()
    assert page.locator("#layout svg.layout").is_visible() is (size != "phone")
    assert page.locator("#spaces").is_visible() is (size == "phone")
    small = [(what, width, height) for what, width, height in page.evaluate(TAP_TARGETS) if width < 44 or height < 44]
    assert small == [], small
    assert page.evaluate(SMALL_TEXT) == []
    assert page.evaluate("document.documentElement.scrollWidth") <= SIZES[size]["width"]
    if size == "phone" and shots():
        page.screenshot(path=str(shots() / "console-dealer-phone.png"))


DIGITS = """(element) => { const style = getComputedStyle(element); const canvas = document.createElement('canvas');
    const context = canvas.getContext('2d'); context.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    const digits = element.textContent.replace(/[^0-9]/g, ''); const m = context.measureText(digits);
    return [digits, m.actualBoundingBoxAscent + m.actualBoundingBoxDescent]; }"""


@ALL
def test_the_board_fills_its_screen_and_its_digits_are_read_across_the_pit(browser, dealt, size):
    game = dealt()
    game.bet("A", "pass", 500)
    for first, second in [(2, 2), (3, 5), (6, 6), (4, 5), (1, 2), (5, 5), (2, 3), (6, 4), (1, 1), (3, 4),
                          (2, 2), (5, 3), (6, 2), (1, 4), (3, 3), (2, 5), (4, 4), (6, 5), (1, 3), (5, 6), (2, 4)]:
        game.roll([first, second])
    page = browser.page(SIZES[size])
    page.goto(f"{game.table.url}/board")
    page.locator("#link.up").wait_for()
    latest = page.locator("#board-latest .board-roll.latest")
    expect(latest).to_have_attribute("data-total", "6")
    expect(page.locator("#board-point")).to_have_text("POINT 8")
    width, height = SIZES[size]["width"], SIZES[size]["height"]
    assert page.evaluate("[document.documentElement.scrollWidth, document.documentElement.scrollHeight]") == [width, height]
    left, top, right, bottom = page.locator("main.board").evaluate(BOX)
    assert (left, top, right, bottom) == (0, 0, width, height)
    tiles = [tile for tile in page.locator("#board-rolls .board-roll").all() if tile.is_visible()]
    assert len(tiles) >= 6
    shown = [page.locator(".board-top"), latest, *tiles]
    boxes = [each.evaluate(BOX) for each in shown]
    assert all(0 <= b[0] and 0 <= b[1] and b[2] <= width and b[3] <= height for b in boxes)  # whole, none cut
    spread = (max(b[2] for b in boxes) - min(b[0] for b in boxes), max(b[3] for b in boxes) - min(b[1] for b in boxes))
    assert spread[0] >= 0.9 * width and spread[1] >= 0.8 * height, spread
    # Every digit at least 8 % of the screen's height on a landscape screen (of its width upright).
    least = 0.08 * min(width, height)
    for each in [page.locator("#board-point"), latest.locator(".board-total"), *[t.locator(".board-total") for t in tiles]]:
        digits, tall = each.evaluate(DIGITS)
        assert digits and tall >= least, f"{digits} is {tall:.0f} px tall at {size}, less than {least:.0f}"
    if size == "board" and shots():
        page.screenshot(path=str(shots() / "console-board.png"))
    assert page.refused() == []
