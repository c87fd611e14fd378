"""The layouts and the pages' JSON, pure: every bet of every game has its space, drawn inside the
layout and apart from the others; the limits are the configuration's; the pay list is the engine's."""
from __future__ import annotations

import itertools

import pytest

from controller.console.layouts import LAYOUTS, layout_json, space_of
from controller.console.names import bet_name
from controller.console.views import (actions, bet_rows, board_json, pay_list, roll_json, settlement_line,
                                      table_json)
from controller.rules import BET_KINDS, TableConfig
from controller.table import TableState, new_table, step


@pytest.mark.parametrize("game", sorted(LAYOUTS))
def test_every_bet_of_the_game_has_a_space_and_every_space_is_a_bet_of_the_game(game):
    layout = LAYOUTS[game]
    offered = {(s.bet, s.number if isinstance(s.number, int) else None) for s in layout.spaces}
    for kind in BET_KINDS[game]:
        if kind.name == "odds":  # on the strips: behind the lines (the point) and on each come point
            assert {s.on for s in layout.spaces if s.bet == "odds"} == {"pass", "dont_pass", "come", "dont_come"}
            continue
        for number in kind.numbers:
            assert (kind.name, number) in offered, f"{game}: no space for {kind.name} {number}"
    names = {kind.name for kind in BET_KINDS[game]}
    assert all(space.bet in names for space in layout.spaces)
    assert len({space.id for space in layout.spaces}) == len(layout.spaces)


@pytest.mark.parametrize("game", sorted(LAYOUTS))
def test_spaces_lie_inside_the_layout_and_never_overlap(game):
    layout = LAYOUTS[game]
    for space in layout.spaces:
        assert 0 <= space.x and space.x + space.w <= layout.width + 1e-9
        assert 0 <= space.y and space.y + space.h <= layout.height + 1e-9
    for a, b in itertools.combinations(layout.spaces, 2):
        apart = (a.x + a.w <= b.x + 1e-9 or b.x + b.w <= a.x + 1e-9 or a.y + a.h <= b.y + 1e-9 or b.y + b.h <= a.y + 1e-9)
        assert apart, f"{a.id} overlaps {b.id}"


def test_each_space_shows_the_limits_of_the_tables_configuration():
    config = TableConfig.from_dict({"limits": {"default": 2500, "place": {"6": 3000}}, "min_bet": 100})
    spaces = {s["id"]: s for s in layout_json("craps", config)["spaces"]}
    assert (spaces["place-6"]["min"], spaces["place-6"]["max"]) == (100, 3000)
    assert spaces["field"]["max"] == 2500 and spaces["field"]["text"] == "$1.00 to $25.00"
    assert spaces["place-6"]["rule"] == "§4620.3(e)(4)"
    assert spaces["come-4"]["max"] is None and spaces["come-4"]["odds"] == {"4": 500}
    assert "take up to" in spaces["odds-pass"]["text"] and "lay up to" in spaces["odds-dont_pass"]["text"]
    hazard = {s["id"]: s for s in layout_json("hazard", TableConfig())["spaces"]}
    assert hazard["raffle-3"]["max"] == 150 and hazard["raffle-3"]["rule"] == "§4620.12(c)(1)"


def test_bets_on_the_layout_are_drawn_on_their_spaces():
    state = new_table("craps", TableConfig())
    for event in ({"event": "bet", "seat": "A", "bet": "pass", "amount": 500},
                  {"event": "bet", "seat": "B", "bet": "hard", "number": 8, "amount": 100},
                  {"event": "lock"}, {"event": "read", "status": "ok", "dice": [2, 2], "confidence": 1.0, "frame": None},
                  {"event": "bet", "seat": "A", "bet": "odds", "number": 4, "amount": 500, "on": "pass"},
                  {"event": "bet", "seat": "C", "bet": "come", "amount": 500},
                  {"event": "lock"}, {"event": "read", "status": "ok", "dice": [5, 4], "confidence": 1.0, "frame": None}):
        result = step(state, event)
        assert result.accepted, result.effects
        state = result.state
    rows = {(r["seat"], r["bet"], r["number"], r["on"]): r["space"] for r in bet_rows(state)}
    assert rows == {("A", "pass", None, None): "pass", ("A", "odds", 4, "pass"): "odds-pass",
                    ("B", "hard", 8, None): "hard-8", ("C", "come", 9, None): "come-9"}
    assert space_of("craps", "odds", 9, "come") == "come-9" and space_of("craps", "odds", 9, "dont_come") == "dont_come-9"
    assert space_of("hazard", "number", 11, None) == "number-11" and space_of("bang", "beat_dealer", None, None)


def test_the_pay_list_says_what_to_pay_take_and_return_seat_by_seat():
    settled = [
        {"event": "settle", "seat": "C", "bet": "place", "number": 6, "amount": 600, "result": "win", "paid": 1300},
        {"event": "settle", "seat": "A", "bet": "pass", "number": None, "amount": 500, "result": "lose", "paid": 0},
        {"event": "settle", "seat": "C", "bet": "field", "number": None, "amount": 100, "result": "lose", "paid": 0},
        {"event": "settle", "seat": "B", "bet": "dont_pass", "number": None, "amount": 500, "result": "push", "paid": 500},
    ]
    assert settlement_line(settled[0])["text"] == "seat C: place 6 wins, pay $7.00"
    assert settlement_line(settled[1])["text"] == "seat A: pass line loses, take $5.00"
    assert settlement_line(settled[3])["text"] == "seat B: don't pass pushes, return $5.00"
    groups = pay_list(settled)
    assert [g["seat"] for g in groups] == ["C", "A", "B"]
    assert (groups[0]["pay"], groups[0]["take"], groups[0]["return"]) == (700, 100, 0)
    assert groups[2]["return"] == 500 and len(groups[0]["lines"]) == 2


def test_the_state_and_the_board_carry_the_contracted_fields_and_the_board_no_more():
    state = step(new_table("bang", TableConfig()), {"event": "bet", "seat": "D", "bet": "beat_dealer", "amount": 300}).state
    data = table_json(state, display="open", last_rolls=[], read=None)
    for key in ("game", "phase", "point", "shooter", "bets", "last_rolls"):
        assert key in data
    assert data["bets"] == [{"seat": "D", "bet": "beat_dealer", "number": None, "on": None, "amount": 300,
                             "space": "beat_dealer", "name": "beat the dealer", "removable": True, "stays": None}]
    assert data["roller"] == "dealer" and data["locked"] is False
    roll = {"seq": 9, "dice": [3, 4], "total": 7, "by": "dealer", "pay": [{"seat": "D"}], "read": {"frame": "x.jpg"}}
    board = board_json(state, [roll])
    assert board == {"game": "bang", "point": None, "shooter": "A", "roller": "dealer", "open": True, "rolls": 0,
                     "history": [{"dice": [3, 4], "total": 7, "by": "dealer"}]}


def _played(game: str, *events: dict) -> TableState:
    state = new_table(game, TableConfig())
    for event in events:
        result = step(state, event)
        assert result.accepted, result.effects
        state = result.state
    return state


def _roll(*dice: int) -> tuple[dict, dict]:
    return {"event": "lock"}, {"event": "read", "status": "ok", "dice": list(dice), "confidence": 1.0, "frame": None}


@pytest.mark.parametrize(("bet", "number", "on", "said"), [
    ("pass", None, None, "pass line"), ("dont_pass", None, None, "don't pass"), ("come", None, None, "come"),
    ("come", 6, None, "come 6"), ("odds", 6, "come", "come 6 odds"), ("dont_come", 4, None, "don't come 4"),
    ("odds", 4, "dont_come", "don't come 4 lay odds"), ("odds", 5, "pass", "pass line odds on 5"),
    ("odds", 10, "dont_pass", "don't pass lay odds on 10"), ("odds", 9, None, "odds on 9"),
    ("ace_deuce", None, None, "ace-deuce"), ("any7", None, None, "any seven"), ("any_craps", None, None, "any craps"),
    ("big6", None, None, "big 6"), ("hard", 8, None, "hard 8"), ("place", 4, None, "place 4"),
    ("raffle", 3, None, "raffle of 3s"), ("any_raffle", None, None, "any raffle"), ("number", 11, None, "number 11"),
    ("under7", None, None, "under 7"), ("beat_dealer", None, None, "beat the dealer"),
])
def test_bets_are_named_as_a_dealer_says_them(bet, number, on, said):
    assert bet_name(bet, number, on) == said


@pytest.mark.parametrize("game", sorted(LAYOUTS))
def test_no_name_shown_is_an_identifier(game):
    """Every space and every bet of the catalogue has a name without an underscore: the page never
    shows ``ace_deuce`` or ``dont_pass``."""
    for space in layout_json(game, TableConfig())["spaces"]:
        assert "_" not in space["name"], space
    for kind in BET_KINDS[game]:
        for number in kind.numbers or (None,):
            for on in (("pass", "dont_pass", "come", "dont_come") if kind.name == "odds" else (None,)):
                assert "_" not in bet_name(kind.name, number, on)


def test_a_come_bet_and_its_odds_are_named_apart_on_the_layout_and_in_the_pay_list():
    state = _played("craps", {"event": "bet", "seat": "A", "bet": "pass", "amount": 500}, *_roll(2, 2),
                    {"event": "bet", "seat": "A", "bet": "come", "amount": 500}, *_roll(3, 3),
                    {"event": "bet", "seat": "A", "bet": "odds", "number": 6, "on": "come", "amount": 500})
    rows = {r["name"]: r for r in bet_rows(state)}
    assert set(rows) == {"pass line", "come 6", "come 6 odds"}
    assert rows["come 6"]["space"] == rows["come 6 odds"]["space"] == "come-6"
    result = step(state, {"event": "lock"})
    result = step(result.state, {"event": "read", "status": "ok", "dice": [4, 2], "confidence": 1.0, "frame": None})
    settles = [e for e in result.effects if e.get("event") == "settle"]
    lines = [line["text"] for group in pay_list(settles) for line in group["lines"]]
    assert lines == ["seat A: come 6 wins, pay $5.00", "seat A: come 6 odds wins, pay $6.00"]


def test_the_rules_say_which_bets_may_come_down():
    """A come bet moved to its point and a line bet once the point is up stay; their odds, place
    bets and bets not yet decided come down. The engine is asked, so no list of them is kept here."""
    state = _played("craps", {"event": "bet", "seat": "A", "bet": "pass", "amount": 500},
                    {"event": "bet", "seat": "B", "bet": "field", "amount": 100}, *_roll(2, 2),
                    {"event": "bet", "seat": "A", "bet": "odds", "number": 4, "on": "pass", "amount": 500},
                    {"event": "bet", "seat": "A", "bet": "come", "amount": 500},
                    {"event": "bet", "seat": "C", "bet": "place", "number": 6, "amount": 600}, *_roll(5, 4),
                    {"event": "bet", "seat": "A", "bet": "odds", "number": 9, "on": "come", "amount": 500},
                    {"event": "bet", "seat": "D", "bet": "come", "amount": 500})
    rows = {(r["seat"], r["name"]): r for r in bet_rows(state)}
    assert {key for key, row in rows.items() if row["removable"]} == {
        ("A", "pass line odds on 4"), ("A", "come 9 odds"), ("C", "place 6"), ("D", "come")}
    assert rows[("A", "come 9")]["stays"] == {
        "reason": "a come bet moved to the 9 may not be taken down (its odds may)", "rule": "§4620.3(e)(5)(i)"}
    assert "stays until the point of 4 is decided" in rows[("A", "pass line")]["stays"]["reason"]
    assert all(row["stays"] is None for row in rows.values() if row["removable"])


def test_the_presses_offered_are_those_the_table_would_take_now():
    betting = actions(new_table("craps", TableConfig()))
    assert {name for name, judged in betting.items() if judged["can"]} == {"lock", "next_shooter"}
    assert betting["confirm"] == {"can": False, "why": "nothing to confirm: no read is waiting for the dealer"}
    pending = _played("craps", {"event": "lock"},
                      {"event": "read", "status": "uncertain", "dice": [2, 5], "confidence": 0.5, "frame": None})
    assert {name for name, judged in actions(pending).items() if judged["can"]} == {"confirm", "void", "manual"}
    blind = _played("craps", {"event": "lock"},
                    {"event": "read", "status": "no_read", "dice": [], "confidence": 0.0, "frame": None})
    assert {name for name, judged in actions(blind).items() if judged["can"]} == {"void", "manual"}
    hazard = actions(new_table("hazard", TableConfig()))
    assert hazard["next_shooter"]["can"] is False and "no shooter" in hazard["next_shooter"]["why"]


def test_a_roll_is_numbered_as_the_tables_roll_not_its_journal_row():
    state = _played("craps", *_roll(3, 4), *_roll(5, 6))
    assert state.rolls == 2
    roll = roll_json(seq=41, number=state.rolls, ts=None, dice=[5, 6], source="read", by=None, read=None, settlements=[])
    assert (roll["number"], roll["seq"]) == (2, 41)
