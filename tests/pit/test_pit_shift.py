"""A shift's rules, as the table flow applies them to the pit's entries: one shift open at a time,
each fill and credit countersigned by a second user, no close while one waits; and the entries,
taken in any phase, change nothing the game, the journal's replay or its audit sees."""
from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from controller.audit import audit
from controller.cli import main
from controller.console.inputs import FIELDS
from controller.journal import Journal
from controller.pit.events import PIT_EVENTS, PitRefused, parse_pit_event
from controller.rules import TableConfig
from controller.table import JournaledTable, Phase, new_table, step

OPEN = {"event": "shift_open", "bank": {"2500": 40}, "user": "pat"}


def run(*events, game="craps"):
    """The state after ``events`` and whether each was taken."""
    state, taken = new_table(game, TableConfig()), []
    for event in events:
        result = step(state, event)
        state = result.state
        taken.append(result.accepted if result.accepted else result.effects[0]["reason"])
    return state, taken


@pytest.mark.parametrize("event, reason", [
    ({"event": "buy_in", "amount": 500}, "no shift is open at this table"),
    ({"event": "fill", "slip": "F-1", "amount": 500, "user": "pat"}, "no shift is open"),
    ({"event": "shift_close", "bank": {"25": 1}}, "no shift is open"),
    ({"event": "countersign", "slip": "F-1", "user": "sam"}, "no shift is open"),
])
def test_without_an_open_shift_only_opening_one_or_changing_the_dice_is_taken(event, reason):
    _, taken = run(event, {"event": "dice_set", "set": "new", "user": "pat"}, OPEN, OPEN)
    assert reason in taken[0] and taken[1:3] == [True, True]
    assert "a shift is open at this table" in taken[3]


def test_a_fill_counts_once_a_second_user_countersigns_it_and_a_close_waits_for_it():
    state, taken = run(OPEN,
                       {"event": "fill", "slip": "F-1", "amount": 50000, "user": "pat"},
                       {"event": "fill", "slip": "F-1", "amount": 100, "user": "sam"},
                       {"event": "credit", "slip": "C-1", "amount": 100},
                       {"event": "countersign", "slip": "F-1", "user": "pat"},
                       {"event": "countersign", "slip": "F-1"},
                       {"event": "countersign", "slip": "F-9", "user": "sam"},
                       {"event": "shift_close", "bank": {"2500": 40}, "user": "pat"},
                       {"event": "countersign", "slip": "F-1", "user": "sam"},
                       {"event": "countersign", "slip": "F-1", "user": "lee"},
                       {"event": "shift_close", "bank": {"2500": 40}, "user": "pat"})
    assert taken[0:2] == [True, True]
    assert "slip F-1 is already entered in this shift" in taken[2]
    assert "a credit is entered by a named user" in taken[3]
    assert "a second, different user countersigns it" in taken[4] and "a second, different user" in taken[5]
    assert "no slip F-9 in this shift" in taken[6]
    assert "slip F-1 still to be countersigned" in taken[7]
    assert taken[8] is True and "already countersigned by sam" in taken[9] and taken[10] is True
    shift = state.shift
    assert shift is not None and not shift.open and shift.fills == 50000 and shift.expected(win=700) == 150700


def test_pit_entries_are_taken_in_any_phase_and_change_nothing_of_the_game():
    read = {"event": "read", "status": "uncertain", "dice": [2, 3], "confidence": 0.5, "frame": None}
    before, _ = run({"event": "bet", "seat": "A", "bet": "pass", "amount": 500}, {"event": "lock"}, read,
                    {"event": "manual"})
    assert before.phase is Phase.MANUAL
    after, taken = run({"event": "bet", "seat": "A", "bet": "pass", "amount": 500}, {"event": "lock"}, read,
                       {"event": "manual"}, OPEN, {"event": "buy_in", "seat": "B", "amount": 2000, "user": "pat"},
                       {"event": "dice_set", "set": "blue", "user": "pat"})
    assert taken[4:] == [True, True, True]
    assert after.shift is not None and after.shift.drop == 2000
    assert replace(after, shift=None) == before


@pytest.mark.parametrize("event, message", [
    ({"event": "shift_open"}, "bank must be an object of 1 to 16 chip denominations"),
    ({"event": "shift_open", "bank": {}}, "bank must be an object"),
    ({"event": "shift_open", "bank": {"25.0": 1}}, "a denomination is a whole number of cents"),
    ({"event": "shift_open", "bank": {"025": 1}}, "a denomination is a whole number of cents"),
    ({"event": "shift_open", "bank": {"25": -1}}, "must be a whole number of chips"),
    ({"event": "shift_open", "bank": {"25": True}}, "must be a whole number of chips"),
    ({"event": "shift_open", "bank": {str(d): 1 for d in range(1, 18)}}, "1 to 16 chip denominations"),
    ({"event": "buy_in", "amount": 0}, "amount must be a whole number of cents above 0"),
    ({"event": "buy_in", "amount": 10.5}, "amount must be a whole number of cents above 0"),
    ({"event": "buy_in", "amount": 500, "seat": 3}, "seat must be a seat's name"),
    ({"event": "fill", "slip": "", "amount": 500}, "slip must be text of 1 to 32 characters"),
    ({"event": "credit", "slip": "x" * 33, "amount": 500}, "slip must be text of 1 to 32 characters"),
    ({"event": "dice_set"}, "set must be text of 1 to 64 characters"),
])
def test_a_malformed_entry_is_refused_naming_its_field(event, message):
    with pytest.raises(PitRefused, match=message):
        parse_pit_event(event)
    _, taken = run(OPEN, event)
    assert message in taken[1]


def test_a_journal_with_pit_entries_replays_and_audits_as_before(tmp_path):
    entries = [OPEN, {"event": "bet", "seat": "A", "bet": "field", "amount": 300},
               {"event": "buy_in", "seat": "A", "amount": 1000, "user": "pat"}, {"event": "lock"},
               {"event": "fill", "slip": "F-1", "amount": 500, "user": "pat"},
               {"event": "read", "status": "ok", "dice": [3, 3], "confidence": 0.9, "frame": None},
               {"event": "countersign", "slip": "F-1", "user": "pat"},
               {"event": "countersign", "slip": "F-1", "user": "sam"},
               {"event": "shift_close", "bank": {"2500": 40}, "user": "pat"}]
    with Journal(tmp_path / "journal.sqlite3") as journal:
        table = JournaledTable.open(journal, "craps", TableConfig())
        for event in entries:
            table.submit(event)
        state, rows = table.state, len(journal)
    with Journal(tmp_path / "journal.sqlite3") as journal:
        again = JournaledTable.open(journal, "craps", TableConfig())
        assert again.state == state and len(journal) == rows and again.completed == 0
        audited = audit(journal)
    assert audited.ok and audited.to_json()["settlements"] == 1


def test_a_journal_is_not_archived_with_a_shift_open_unless_forced(tmp_path, capsys):
    """The next journal would begin without the shift, and its report needs its opening and its close."""
    with Journal(tmp_path / "state" / "journal.sqlite3") as journal:
        JournaledTable.open(journal, "craps", TableConfig()).submit(OPEN)
    archive = ["journal", "--state-dir", str(tmp_path / "state"), "archive", "--to", str(tmp_path / "archive")]
    assert main(archive) == 2
    assert "a shift is open" in capsys.readouterr().err
    with Journal(tmp_path / "state" / "journal.sqlite3") as journal:
        table = JournaledTable.open(journal, "craps", TableConfig())
        assert table.submit({"event": "shift_close", "bank": {"2500": 40}, "user": "pat"}).accepted
    assert main(archive) == 0


def test_the_console_takes_the_fields_docs_events_lists_for_each_pit_input():
    """docs/events.md is the contract the console's input check holds inputs to."""
    page = (Path(__file__).resolve().parents[2] / "docs" / "events.md").read_text()
    section = page.split("### The pit's inputs")[1].split("###")[0]
    listed = {}
    for line in section.splitlines():
        cells = line.split("|")
        if len(cells) > 3 and cells[1].strip().startswith("`"):
            fields = tuple(name for name in re.findall(r"`([a-z_]+)`", cells[2]))
            for event in re.findall(r"`([a-z_]+)`", cells[1]):
                listed[event] = fields
    assert set(listed) == set(PIT_EVENTS)
    assert {event: set(fields) for event, fields in listed.items()} == {e: set(FIELDS[e]) for e in PIT_EVENTS}
