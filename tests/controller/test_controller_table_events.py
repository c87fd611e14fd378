"""The table reads each input once into a typed event; what is no table event is refused with why."""
from __future__ import annotations

import re

import pytest

from controller.journal import INPUT, Journal
from controller.rules import Bet, MalformedEvent, NextShooter, Remove, TableConfig
from controller.table import JournaledTable
from controller.table.events import Manual, Press, Read, Refused, SpinDone, parse_table_event
from messages.devices import ButtonEvent


@pytest.mark.parametrize("data, typed", [
    ({"event": "bet", "seat": "A", "bet": "place", "number": 6, "amount": 600}, Bet("A", "place", 600, 6)),
    ({"event": "remove", "seat": "A", "bet": "pass"}, Remove("A", "pass")),
    ({"event": "next_shooter"}, NextShooter()),
    ({"event": "lock"}, Press(ButtonEvent.LOCK)),
    ({"event": "confirm", "via": "panel"}, Press(ButtonEvent.CONFIRM)),
    ({"event": "void"}, Press(ButtonEvent.VOID)),
    ({"event": "unclear"}, Press(ButtonEvent.UNCLEAR)),
    ({"event": "manual"}, Manual(None)),
    ({"event": "manual", "dice": [3, 5]}, Manual((3, 5))),
    ({"event": "spin_done"}, SpinDone()),
    ({"event": "read", "status": "uncertain", "dice": [2, 6], "confidence": 0.5, "frame": "r1.jpg"},
     Read("uncertain", (2, 6), 0.5, "r1.jpg", None)),
])
def test_each_table_event_has_its_typed_value(data, typed):
    assert parse_table_event(data, 2) == typed


@pytest.mark.parametrize("seen, kept", [([1, 4, 6], (1, 4, 6)), ([1, 4], ()), ([1, 9, 4], ())])
def test_a_no_read_keeps_what_it_half_saw_only_as_a_whole_roll(seen, kept):
    read = parse_table_event({"event": "read", "status": "no_read", "dice": seen, "reason": "dice touching"}, 3)
    assert read == Read("no_read", kept, 0.0, None, "dice touching")


@pytest.mark.parametrize("data, says", [
    (["lock"], "an event is a JSON object, not list"),
    ({"event": "malformed", "line": "{lock"}, "not a JSON event object: '{lock'"),
    ({"event": "shuffle"}, "unknown event 'shuffle'"),
    ({"event": "manual", "dice": [3]}, "manual: this game throws 2 dice, got 1"),
    ({"event": "read", "status": "sure", "dice": [3, 4]}, "read: status must be one of ok, uncertain, no_read"),
    ({"event": "read", "status": "ok", "dice": [3, 4], "confidence": 1.5}, "confidence must be a number from 0 to 1"),
])
def test_what_is_no_table_event_is_refused_with_why(data, says):
    with pytest.raises(Refused, match=re.escape(says)):
        parse_table_event(data, 2)


def test_a_malformed_game_event_is_refused_by_the_rules_parser():
    with pytest.raises(MalformedEvent, match="field 'amount' is missing"):
        parse_table_event({"event": "bet", "seat": "A", "bet": "pass"}, 2)


def test_the_journal_keeps_each_input_as_it_came(tmp_path):
    inputs = [{"event": "bet", "seat": "A", "bet": "pass", "amount": 500, "via": "stream"},
              {"event": "lock", "via": "panel"},
              {"event": "read", "status": "ok", "dice": [3, 4], "confidence": 0.97, "frame": "r1.jpg", "ms": 41}]
    with Journal.open(tmp_path) as journal:
        table = JournaledTable.open(journal, "craps", TableConfig())
        for event in inputs:
            table.submit(event)
        assert [e.event for e in journal.entries() if e.kind == INPUT][1:] == inputs
