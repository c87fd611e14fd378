"""Events the rules refuse: each names its paragraph and changes nothing."""
from __future__ import annotations

import pytest

from controller.rules import (DICE, GAMES, Bet, BetRejected, MalformedEvent, Roll, TableConfig, apply, new_game,
                              open_bets, parse_event)
from rules_helpers import bet, play, refused, remove, roll


def craps_with_point(point_dice=(2, 2), events=()):
    state, _ = play("craps", [roll(*point_dice), *events])
    return state


CASES = [
    # (name, game, setup events, refused event, rule)
    ("pass over the limit", "craps", [], bet("A", "pass", 501), "§4620.3(e)(1)"),
    ("pass adding up over the limit", "craps", [bet("A", "pass", 300)], bet("A", "pass", 201), "§4620.3(e)(1)"),
    ("place 6 over $6", "craps", [roll(2, 2)], bet("A", "place", 601, 6), "§4620.3(e)(4)"),
    ("place 5 over $5", "craps", [roll(2, 2)], bet("A", "place", 501, 5), "§4620.3(e)(4)"),
    ("place bet on the point", "craps", [roll(3, 3)], bet("A", "place", 600, 6), "§4620.3(e)(4)"),
    ("place 7", "craps", [], bet("A", "place", 500, 7), "§4620.3(e)(4)"),
    ("place without a number", "craps", [], bet("A", "place", 500), "§4620.3(e)(4)"),
    ("come before a point", "craps", [], bet("A", "come", 500), "§4620.3(e)(5)(i)"),
    ("don't come before a point", "craps", [], bet("A", "dont_come", 500), "§4620.3(e)(5)(ii)"),
    ("pass after the point", "craps", [roll(2, 2)], bet("A", "pass", 500), "§4620.3(e)(1)"),
    ("don't pass after the point", "craps", [roll(2, 2)], bet("A", "dont_pass", 500), "§4620.3(e)(2)"),
    ("take down a moved come bet", "craps", [roll(2, 2), bet("A", "come", 500), roll(3, 3)],
     remove("A", "come", 6), "§4620.3(e)(5)(i)"),
    ("take down a moved don't come bet", "craps", [roll(2, 2), bet("A", "dont_come", 500), roll(3, 3)],
     remove("A", "dont_come", 6), "§4620.3(e)(5)(ii)"),
    ("take down a pass bet with a point", "craps", [bet("A", "pass", 500), roll(2, 2)],
     remove("A", "pass"), "§4620.3(e)(1)"),
    ("odds without a line bet", "craps", [roll(2, 2)], bet("A", "odds", 500, 4), "§4620.3(e)(3)"),
    ("odds on the come-out", "craps", [bet("A", "pass", 500)], bet("A", "odds", 500, 4), "§4620.3(e)(3)"),
    ("odds over the table: $6 on 4 behind $5", "craps", [bet("A", "pass", 500), roll(2, 2)],
     bet("A", "odds", 600, 4), "§4620.3(e)(3)(i)"),
    ("odds over the table: $7 on 5 behind $5", "craps", [bet("A", "pass", 500), roll(2, 3)],
     bet("A", "odds", 700, 5), "§4620.3(e)(3)(i)"),
    ("odds over in two steps", "craps", [bet("A", "pass", 500), roll(3, 3), bet("A", "odds", 300, 6)],
     bet("A", "odds", 201, 6), "§4620.3(e)(3)(i)"),
    ("lay over $6 behind $5", "craps", [bet("A", "dont_pass", 500), roll(2, 2)],
     bet("A", "odds", 601, 4), "§4620.3(e)(3)(ii)"),
    ("odds on a come bet still in the box", "craps", [roll(2, 2), bet("A", "come", 500)],
     bet("A", "odds", 500, 6, on="come"), "§4620.3(e)(5)(iii)"),
    ("come odds over the table", "craps", [roll(2, 2), bet("A", "come", 500), roll(3, 3)],
     bet("A", "odds", 501, 6), "§4620.3(e)(5)(iii)"),
    ("ambiguous odds", "craps", [bet("A", "pass", 500), bet("A", "dont_pass", 500), roll(2, 2)],
     bet("A", "odds", 500, 4), "§4620.3(e)(3)"),
    ("remove odds not there", "craps", [bet("A", "pass", 500), roll(2, 2)], remove("A", "odds", 4), "§4620.3(e)(3)"),
    ("hard 5", "craps", [], bet("A", "hard", 500, 5), "§4620.3(e)(10)"),
    ("field with a number", "craps", [], bet("A", "field", 500, 4), "§4620.3(e)(6)"),
    ("hard way over the limit", "craps", [], bet("A", "hard", 501, 8), "§4620.3(e)(10)"),
    ("zero amount", "craps", [], bet("A", "field", 0), "§4620.3(e)(6)"),
    ("negative amount", "craps", [], bet("A", "any7", -500), "§4620.3(e)(8)"),
    ("unknown seat", "craps", [], bet("Z", "field", 500), "§4620.3(b)(1)"),
    ("a hazard bet in craps", "craps", [], bet("A", "raffle", 100, 3), "§4620.3"),
    ("remove a bet not there", "craps", [], remove("A", "field"), "§4620.3(e)(6)"),
    ("three dice in craps", "craps", [], roll(1, 2, 3), "§4620.3(a)(2)"),
    ("a seven on a die", "craps", [], roll(7, 1), "§4620.3(a)(2)"),
    ("dealer's roll in craps", "craps", [], roll(1, 2, by="dealer"), "§4620.3(b)(2)"),
    ("passing the dice with a point", "craps", [roll(2, 2)], {"event": "next_shooter"}, "§4620.3(c)(5)"),
    ("raffle over $1.50", "hazard", [], bet("A", "raffle", 151, 2), "§4620.12(c)(1)"),
    ("raffle adding up over $1.50", "hazard", [bet("A", "raffle", 100, 2)], bet("A", "raffle", 51, 2),
     "§4620.12(c)(1)"),
    ("hazard number 3", "hazard", [], bet("A", "number", 500, 3), "§4620.12(c)(6)"),
    ("hazard number 18", "hazard", [], bet("A", "number", 500, 18), "§4620.12(c)(6)"),
    ("chuck 7", "hazard", [], bet("A", "chuck", 500, 7), "§4620.12(c)(7)(i)"),
    ("hazard low over $5", "hazard", [], bet("A", "low", 501), "§4620.12(c)(7)(ii)"),
    ("odds' \"on\" on a hazard bet", "hazard", [], bet("A", "low", 500, on="pass"), "§4620.12(c)(3)"),
    ("odds' \"on\" on a bang bet", "bang", [], bet("A", "field", 500, on="pass"), "§4620.15(d)(2)"),
    ("odds' \"on\" on a craps field bet", "craps", [], bet("A", "field", 500, on="pass"), "§4620.3(e)(6)"),
    ("hazard has no shooter", "hazard", [], {"event": "next_shooter"}, "§4620.12(b)"),
    ("outside bet after the dealer's roll", "bang", [roll(3, 4)], bet("A", "beat_dealer", 500), "§4620.15(c)(4)"),
    ("outside bet taken down after the dealer's roll", "bang", [bet("A", "beat_dealer", 500), roll(3, 4)],
     remove("A", "beat_dealer"), "§4620.15(c)(4)"),
    ("bang over $5", "bang", [], bet("A", "under7", 501), "§4620.15(e)"),
    ("shooter's roll first", "bang", [], roll(3, 4, by="shooter"), "§4620.15(c)(3)"),
    ("dealer rolls twice", "bang", [roll(3, 4)], roll(3, 4, by="dealer"), "§4620.15(c)(5)"),
    ("a craps bet in bang", "bang", [], bet("A", "pass", 500), "§4620.15"),
]


@pytest.mark.parametrize("game,setup,event,rule", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_refused_with_its_rule(game, setup, event, rule):
    state, _ = play(game, setup)
    rejection = refused(state, event)
    assert rejection.rule == rule, rejection.reason
    assert rejection.reason
    line = rejection.to_json(event)
    assert line["event"] == "rejected" and line["refused"] == event["event"]
    assert line["rule"] == rule and line["reason"] == rejection.reason


@pytest.mark.parametrize("dice", [(True, 6), (6, False), (0, 6), (7, 1), (2.0, 5)])
def test_the_engine_itself_refuses_a_face_that_is_not_1_to_6(dice):
    """Events from JSON are checked before they reach the engine, but the engine
    is a public API of its own: a bool (which Python counts as 0 or 1) is no face."""
    state = new_game("craps")
    with pytest.raises(BetRejected) as info:
        apply(state, Roll(dice=dice))
    assert info.value.rule == "§4620.3(a)(2)" and "1 to 6" in info.value.reason


@pytest.mark.parametrize("game,event", [
    ("craps", Bet(seat="A", bet="pass", amount=True)),
    ("craps", Bet(seat="A", bet="pass", amount=500.0)),  # type: ignore[arg-type]
    ("craps", Bet(seat="A", bet="place", amount=500, number=6.0)),  # type: ignore[arg-type]
    ("hazard", Bet(seat="A", bet="raffle", amount=100, number=True)),
])
def test_the_engine_itself_refuses_an_amount_or_number_that_is_not_a_whole_number(game, event):
    """A bool or a float would otherwise pass as 1 cent, $5 or a 6, and reach the layout and the journal."""
    state = new_game(game)
    with pytest.raises(BetRejected):
        apply(state, event)


def test_inside_bets_are_open_again_after_the_dealers_roll():
    state, _ = play("bang", [roll(3, 4), bet("A", "field", 500), bet("A", "big6", 500)])
    assert [b.bet for b in open_bets(state)] == ["big6", "field"]


def test_come_odds_may_be_taken_down_but_not_the_come_bet():
    state, _ = play("craps", [roll(2, 2), bet("A", "come", 500), roll(3, 3), bet("A", "odds", 500, 6)])
    refused(state, remove("A", "come", 6))
    state, effects = play(state, [remove("A", "odds", 6)])
    assert effects == [{"event": "returned", "seat": "A", "bet": "odds", "number": 6, "amount": 500}]
    assert [(b.bet, b.number, b.amount) for b in open_bets(state)] == [("come", 6, 500)]


def test_place_bets_can_be_called_off_before_any_roll():
    state, effects = play("craps", [roll(2, 2), bet("A", "place", 600, 8), remove("A", "place", 8)])
    assert effects == [{"event": "returned", "seat": "A", "bet": "place", "number": 8, "amount": 600}]
    assert state.layout == ()


def test_six_dollars_odds_on_five_behind_five_dollars_is_accepted():
    state, _ = play("craps", [bet("A", "pass", 500), roll(1, 4), bet("A", "odds", 600, 5)])
    assert [(b.bet, b.number, b.amount, b.on) for b in open_bets(state)] == [
        ("pass", None, 500, None), ("odds", 5, 600, "pass")]


def test_odds_scale_with_a_smaller_line_bet():
    state, _ = play("craps", [bet("A", "pass", 250), roll(1, 4)])
    play(state, [bet("A", "odds", 300, 5)])
    assert refused(state, bet("A", "odds", 301, 5)).rule == "§4620.3(e)(3)(i)"


def test_on_names_the_bet_when_a_seat_has_two():
    state, _ = play("craps", [bet("A", "pass", 500), bet("A", "dont_pass", 500), roll(2, 2),
                              bet("A", "odds", 600, 4, on="dont_pass")])
    assert [(b.bet, b.amount, b.on) for b in open_bets(state) if b.bet == "odds"] == [("odds", 600, "dont_pass")]


def test_table_limits_come_from_the_configuration():
    config = TableConfig.from_dict({"limits": {"default": 2500, "raffle": 300}})
    play("craps", [bet("A", "pass", 2500)], config)
    play("hazard", [bet("A", "raffle", 300, 1)], config)
    assert refused(new_game("hazard", config), bet("A", "raffle", 301, 1)).rule == "§4620.12(c)(1)"


def test_minimum_bet():
    config = TableConfig(min_bet=100)
    rejection = refused(new_game("craps", config), bet("A", "field", 99))
    assert "minimum" in rejection.reason


def test_the_minimum_does_not_apply_to_odds():
    """Odds go behind a flat bet that met the minimum; the regulation sizes them by their maximum only."""
    config = TableConfig(min_bet=100)
    state, _ = play("craps", [bet("A", "pass", 100), roll(2, 2), bet("A", "odds", 50, 4)], config)
    assert [(w.bet, w.amount, w.odds) for w in state.layout] == [("pass", 100, 50)]


MALFORMED = [
    [],
    "roll",
    {},
    {"event": "dance"},
    {"event": "bet", "seat": "A", "bet": "field"},
    {"event": "bet", "seat": "A", "bet": "field", "amount": 5.0},
    {"event": "bet", "seat": "A", "bet": "field", "amount": True},
    {"event": "bet", "seat": "", "bet": "field", "amount": 500},
    {"event": "bet", "seat": "A", "bet": "place", "number": "6", "amount": 500},
    {"event": "roll"},
    {"event": "roll", "dice": "33"},
    {"event": "roll", "dice": [3, "3"]},
    {"event": "roll", "dice": [3, 3], "by": "croupier"},
]


@pytest.mark.parametrize("data", MALFORMED, ids=[repr(m) for m in MALFORMED])
def test_malformed_events_are_refused_clearly(data):
    with pytest.raises(MalformedEvent) as info:
        parse_event(data)
    assert info.value.rule is None and info.value.reason
    assert info.value.to_json(data)["event"] == "rejected"


def test_events_round_trip_through_json():
    for data in [bet("A", "place", 600, 6), bet("B", "odds", 500, 4, on="come"), remove("A", "come"),
                 roll(3, 4), roll(1, 2, by="dealer"), {"event": "next_shooter"},
                 {"event": "next_shooter", "seat": "C"}]:
        assert parse_event(data).to_json() == data


def test_fields_the_rules_do_not_know_are_ignored():
    event = parse_event({"event": "roll", "dice": [3, 4], "confidence": 0.97, "frame": "x.png"})
    assert event == parse_event(roll(3, 4))


@pytest.mark.parametrize("game", GAMES)
def test_the_dice_table_is_what_each_game_throws(game):
    """``DICE`` is the one table of dice per game: a roll of that many dice is thrown, one more is refused."""
    apply(new_game(game), Roll((1,) * DICE[game]))
    with pytest.raises(BetRejected, match=f"throws {DICE[game]} dice"):
        apply(new_game(game), Roll((1,) * (DICE[game] + 1)))


def test_unknown_game():
    with pytest.raises(ValueError, match="unknown game"):
        new_game("roulette")


def test_a_rejection_leaves_the_state_usable():
    state = craps_with_point()
    with pytest.raises(BetRejected):
        apply(state, parse_event(bet("A", "place", 600, 4)))
    state, _ = play(state, [bet("A", "place", 600, 6)])
    assert len(state.layout) == 1
