"""The layouts and the pages' JSON, pure: every bet of every game has its space, drawn inside the
layout and apart from the others; the limits are the configuration's; the pay list is the engine's."""
from __future__ import annotations

import itertools

import pytest

from controller.console.layouts import LAYOUTS, layout_json, space_of
from controller.console.views import bet_rows, board_json, pay_list, settlement_line, table_json
from controller.rules import BET_KINDS, TableConfig
from controller.table import new_table, step


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
    assert settlement_line(settled[1])["text"] == "seat A: pass loses, take $5.00"
    assert settlement_line(settled[3])["text"] == "seat B: dont_pass pushes, return $5.00"
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
                             "space": "beat_dealer"}]
    assert data["roller"] == "dealer" and data["locked"] is False
    roll = {"seq": 9, "dice": [3, 4], "total": 7, "by": "dealer", "pay": [{"seat": "D"}], "read": {"frame": "x.jpg"}}
    board = board_json(state, [roll])
    assert board == {"game": "bang", "point": None, "shooter": "A", "roller": "dealer", "open": True, "rolls": 0,
                     "history": [{"dice": [3, 4], "total": 7, "by": "dealer"}]}
