"""The pit's numbers on the floor: computed from the floor's copy of each journal by the same
function as at the table, so `floor report` and `journal report` agree key for key (also when the
demo publishes through a broker killed and started again mid-run, where win, rolls and faces are
checked against `journal export`); the floor list's shift win and hold, a table's shift report,
the accountants' CSV, and the page showing them."""
from __future__ import annotations

import csv
import io
import json
import signal
import subprocess
import sys
import time

import pytest

from controller.cli import main
from controller.floor.broker import parse_broker
from controller.floor.page import floor_view, start_page, table_history
from controller.floor.publisher import FloorPublisher
from controller.floor.shifts import ShiftBook, shifts_csv
from controller.floor.store import FloorStore
from controller.journal import Journal, export_lines
from controller.pit import report, rows_of_entries
from controller.rules import TableConfig
from controller.table import JournaledTable
from controller.web.users import add_user

from floorkit import floor_holds, floor_lines, start_floor, wait_until

SHIFT = [
    {"event": "shift_open", "bank": {"2500": 40}, "user": "=cmd|' /C calc'!A0"},
    {"event": "buy_in", "seat": "A", "amount": 10000, "user": "pat"},
    {"event": "bet", "seat": "A", "bet": "field", "amount": 300},
    {"event": "lock"},
    {"event": "read", "status": "uncertain", "dice": [2, 2], "confidence": 0.5, "frame": "a.jpg"},
    {"event": "manual", "dice": [2, 3], "user": "ana"},
    {"event": "fill", "slip": "F-1", "amount": 5000, "user": "pat"},
    {"event": "countersign", "slip": "F-1", "user": "sam"},
    {"event": "shift_close", "bank": {"2500": 42}, "user": "pat"},
    {"event": "shift_open", "bank": {"2500": 42}, "user": "sam"},
    {"event": "bet", "seat": "B", "bet": "field", "amount": 500},
    {"event": "lock"},
    {"event": "read", "status": "ok", "dice": [6, 6], "confidence": 0.9, "frame": "b.jpg"},
]


def journal_of(folder, table: str, events) -> list[str]:
    """``events`` journaled by a table named ``table``: the rows as `journal export` prints them."""
    with Journal.open(folder / table) as journal:
        played = JournaledTable.open(journal, "craps", TableConfig(), table_id=table)
        for event in events:
            played.submit(event)
        return list(export_lines(journal))


def received(store: FloorStore, table: str, lines: list[str], journal: str | None = None) -> None:
    """``lines`` of ``table``'s journal (by default the one they begin) as the floor takes them."""
    store.begin()
    for line in lines:
        store.receive(table, journal or json.loads(lines[0])["hash"], line)
    store.commit()


@pytest.fixture
def floor_db(tmp_path):
    """A floor holding craps-1 (two shifts, the second open) and craps-2 (no shift)."""
    db = tmp_path / "floor.sqlite3"
    with FloorStore(db) as store:
        received(store, "craps-1", journal_of(tmp_path, "craps-1", SHIFT))
        received(store, "craps-2", journal_of(tmp_path, "craps-2", SHIFT[2:6]))
    return db


def test_floor_report_is_journal_report_key_for_key(tmp_path, floor_db, capsys):
    for args in ([], ["--since", "2000-01-01T00:00Z"], ["--until", "2100-01-01T00:00:00+01:00"]):
        assert main(["journal", "--state-dir", str(tmp_path / "craps-1"), "report", "--json", *args]) == 0
        at_the_table = json.loads(capsys.readouterr().out)
        assert main(["floor", "--db", str(floor_db), "report", "--table", "craps-1", "--json", *args]) == 0
        on_the_floor = json.loads(capsys.readouterr().out)
        assert on_the_floor == at_the_table and list(on_the_floor) == list(at_the_table)
    assert main(["floor", "--db", str(floor_db), "report", "--table", "craps-1"]) == 0
    assert capsys.readouterr().out.startswith("table craps-1 (craps): rows 1 to")
    assert main(["floor", "--db", str(floor_db), "report", "--table", "craps-9"]) == 2
    assert "the floor holds no journal of table 'craps-9'" in capsys.readouterr().err


def test_the_floor_list_and_a_tables_page_carry_its_shift(tmp_path, floor_db):
    with FloorStore(floor_db, readonly=True) as store:
        view = {t["table"]: t for t in floor_view(store)["tables"]}
        history = table_history(store, "craps-1")
    with Journal.open(tmp_path / "craps-1", readonly=True) as journal:
        expected = report(rows_of_entries(journal.entries()))
    shift = view["craps-1"]["shift"]
    assert shift["open"] is True and shift["win_cents"] == expected["shifts"][-1]["win_cents"] == -500
    assert shift["hold"] == -1.0 and shift["drop_cents"] == 0 and view["craps-2"]["shift"] is None
    assert history is not None and history["report"]["shift"] == expected["shifts"][-1]
    json.dumps(view, allow_nan=False)


def test_a_page_just_started_reads_long_journals_over_several_looks(floor_db, monkeypatch):
    with FloorStore(floor_db, readonly=True) as store:
        whole = {t["table"]: t["shift"] for t in floor_view(store, book=ShiftBook())["tables"]}
        monkeypatch.setattr("controller.floor.page.LIST_ROWS", 8)
        book = ShiftBook()
        looks = [{t["table"]: t["shift"] for t in floor_view(store, book=book)["tables"]} for _ in range(8)]
    assert looks[0]["craps-1"]["reading"] is True and looks[0]["craps-1"]["read"] == 8
    assert looks[0]["craps-2"] == {"reading": True, "read": 0, "rows": looks[0]["craps-2"]["rows"]}
    assert looks[-1] == whole and whole["craps-1"]["open"] is True


def test_the_book_reads_each_journal_once_and_counts_an_input_before_its_verdict_only_until_it_comes(tmp_path):
    lines = journal_of(tmp_path, "craps-3", [SHIFT[0], {"event": "buy_in", "seat": "Z", "amount": 700, "user": "pat"},
                                             SHIFT[1]])
    db = tmp_path / "floor.sqlite3"
    book = ShiftBook()
    with FloorStore(db) as store:
        received(store, "craps-3", lines[:3])  # the header, the opening, the buy-in for no seat: no verdict yet
        journal = store.current_journal("craps-3")
        assert journal is not None
        assert book.tally(store, "craps-3", journal).shift.numbers.drop == 700  # as `floor report` would count it now
        received(store, "craps-3", lines[3:], journal)  # its refusal, then a buy-in taken
        tally = book.tally(store, "craps-3", journal)
    assert tally.shift is not None and tally.shift.numbers.drop == 10000 and tally.last is not None
    assert tally.last[0] == len(lines) == 5


def test_the_accountants_csv_has_a_line_a_shift_and_quotes_what_would_run_as_a_formula(floor_db):
    with FloorStore(floor_db, readonly=True) as store:
        text = shifts_csv(store, ShiftBook())
    lines = list(csv.DictReader(io.StringIO(text)))
    assert [(line["table"], line["opened_by"], line["closed_by"]) for line in lines] == [
        ("craps-1", "'=cmd|' /C calc'!A0", "pat"), ("craps-1", "sam", "")]
    first = lines[0]
    assert (first["opening_cents"], first["fills_cents"], first["drop_cents"], first["closing_cents"]) == (
        "100000", "5000", "10000", "105000")
    assert int(first["variance_cents"]) == 105000 - (100000 + 5000 + int(first["win_cents"]) - 10000)
    assert first["overrides"] == "1" and lines[1]["closing_cents"] == "" and lines[1]["win_cents"] == "-500"


def test_the_page_shows_each_tables_shift_and_serves_the_csv(tmp_path, floor_db, browser):
    add_user(tmp_path / "floor-users", "pat", "pit", "watch-the-floor")
    page = start_page(floor_db, "127.0.0.1:0", users=str(tmp_path / "floor-users"))
    assert page is not None
    try:
        view = browser.page({"width": 1300, "height": 900})
        view.goto(page.url)
        view.fill("input[name=user]", "pat")
        view.fill("input[name=password]", "watch-the-floor")
        view.click("button[type=submit]")
        line = view.locator(".card", has_text="craps-1").locator(".shift-line")
        line.wait_for()
        assert line.get_attribute("data-shift") == "open" and "win -$5.00" in line.inner_text()
        assert "hold -100.00 %" in line.inner_text()
        assert "no shift yet" in view.locator(".card", has_text="craps-2").inner_text()
        view.locator(".card", has_text="craps-1").click()
        view.locator("#shift", has_text="opened").wait_for()
        assert "by sam" in view.locator("#shift").inner_text()
        answer = view.request.get(f"{page.url.rstrip('/')}/api/shifts.csv")
        assert answer.status == 200 and answer.headers["content-type"].startswith("text/csv")
        assert answer.text().startswith("table,game,journal,opened_seq")
        assert view.refused() == []
    finally:
        page.stop()


def sent_as_at_the_next_start(state_dir, table: str, broker) -> None:
    """What a table's next start does with the rows the floor has not acknowledged when it stopped
    (its publisher's drain ran out): sends them."""
    publisher = FloorPublisher(state_dir, table, parse_broker(broker.url("demo"))).start()
    assert publisher.close(drain_s=60), f"{table}'s rows were not acknowledged at its next start either"


def test_with_the_broker_killed_and_started_again_mid_run_the_floor_and_the_tables_report_alike(
        tmp_path, broker, capsys):
    db = tmp_path / "floor.sqlite3"
    floor = start_floor(db, broker)
    demo = subprocess.Popen([sys.executable, "-m", "controller.cli", "run", "--rolls", "6", "--console", "off",
                             "--state-dir", str(tmp_path / "var"), "--floor", broker.url("demo")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    try:
        wait_until(lambda: len(floor_lines(db, "demo-craps")) > 30, timeout=60, what="the first craps rows")
        assert demo.poll() is None  # mid-run
        broker.kill()
        time.sleep(1.0)
        broker.start()
        out, err = demo.communicate(timeout=180)
        assert demo.returncode == 0, err
        for game in ("craps", "hazard", "bang"):
            if f"not every row acknowledged as demo-{game}" in out:  # the drain ran out (a loaded machine)
                sent_as_at_the_next_start(tmp_path / "var" / game, f"demo-{game}", broker)
            wait_until(floor_holds(db, tmp_path / "var" / game, f"demo-{game}"), timeout=60,
                       what=f"demo-{game}'s copy")
    finally:
        if demo.poll() is None:
            demo.send_signal(signal.SIGINT)
            demo.wait(30)
        floor.stop()
    for game in ("craps", "hazard", "bang"):
        assert main(["journal", "--state-dir", str(tmp_path / "var" / game), "report", "--json"]) == 0
        at_the_table = json.loads(capsys.readouterr().out)
        assert main(["floor", "--db", str(db), "report", "--table", f"demo-{game}", "--json"]) == 0
        assert json.loads(capsys.readouterr().out) == at_the_table
        assert at_the_table["table"] == f"demo-{game}" and at_the_table["shifts"][-1]["variance_cents"] == 0
        assert main(["journal", "--state-dir", str(tmp_path / "var" / game), "export"]) == 0
        rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
        settles = [r["event"] for r in rows if r["event"]["event"] == "settle"]
        rolls = [r["event"]["dice"] for r in rows if r["event"]["event"] == "roll"]
        assert at_the_table["win_cents"] == sum(s["amount"] - s["paid"] for s in settles)
        assert at_the_table["rolls"] == len(rolls) == 6
        assert at_the_table["faces"] == [[sum(1 for dice in rolls if dice[place] == face) for face in range(1, 7)]
                                         for place in range(len(rolls[0]))]
