"""Every craps bet against every roll, in every context that matters.

The expected results come from this file's own statement of §4620.3(e),
written as "what comes back for a stake" (returned multiple) rather than the
engine's to/for tables, so a mistake in either shows up as a mismatch.
"""
from __future__ import annotations

from fractions import Fraction as F
from itertools import combinations_with_replacement

import pytest

from rules_helpers import bet, play, roll

ROLLS = list(combinations_with_replacement(range(1, 7), 2))  # 21 distinct rolls
POINTS = (4, 5, 6, 8, 9, 10)

# Net win per unit, restated from the regulation's tables.
WIN_TAKE_ODDS = {4: F(10, 5), 10: F(10, 5), 5: F(9, 6), 9: F(9, 6), 6: F(6, 5), 8: F(6, 5)}  # "$5 to win $10" ...
WIN_LAY_ODDS = {4: F(3, 6), 10: F(3, 6), 5: F(4, 6), 9: F(4, 6), 6: F(5, 6), 8: F(5, 6)}
WIN_PLACE = {4: F(9, 5), 10: F(9, 5), 5: F(7, 5), 9: F(7, 5), 6: F(7, 6), 8: F(7, 6)}
# "X for 1": everything that comes back is X stakes.
BACK_FOR_ONE = {"any7": 5, "any_craps": 8, "aces": 30, "twelve": 30, "ace_deuce": 15, "eleven": 15}
POINT_DICE = {4: (1, 3), 5: (1, 4), 6: (1, 5), 8: (2, 6), 9: (3, 6), 10: (4, 6)}  # one way to roll each
PROP_DICE = {"aces": (1, 1), "twelve": (6, 6), "ace_deuce": (1, 2), "eleven": (5, 6)}


def won(stake: int, net: F) -> int:
    """Stake plus the win, rounded down to the cent."""
    return stake + int(net * stake)  # int() truncates: wins are positive


def one_roll_expected(name: str, dice: tuple[int, int], field_double: bool = False) -> tuple[str, int]:
    """(result, paid) for a $5 one-roll bet."""
    t, s = sum(dice), 500
    if name == "field":
        if t in (2, 12) and field_double:
            return "win", 3 * s
        return ("win", 2 * s) if t in (2, 3, 4, 9, 10, 11, 12) else ("lose", 0)
    if name == "any7":
        hit = t == 7
    elif name == "any_craps":
        hit = t in (2, 3, 12)
    else:
        hit = tuple(sorted(dice)) == PROP_DICE[name]
    return ("win", BACK_FOR_ONE[name] * s) if hit else ("lose", 0)


@pytest.mark.parametrize("point_on", [False, True], ids=["come-out", "point-5"])
@pytest.mark.parametrize("name", ["field", "any7", "any_craps", "aces", "twelve", "ace_deuce", "eleven"])
@pytest.mark.parametrize("dice", ROLLS)
def test_one_roll_bets(name, dice, point_on):
    setup = [roll(2, 3)] if point_on else []
    state, effects = play("craps", [*setup, bet("A", name, 500), roll(*dice)])
    result, paid = one_roll_expected(name, dice)
    assert effects == [{"event": "settle", "seat": "A", "bet": name, "number": None, "amount": 500,
                        "result": result, "paid": paid}]
    assert state.layout == ()


@pytest.mark.parametrize("dice", ROLLS)
def test_field_with_2_and_12_at_2_to_1(dice):
    from controller.rules import TableConfig
    config = TableConfig(field_2_12_pays_2_to_1=True)
    _, effects = play("craps", [bet("A", "field", 500), roll(*dice)], config)
    result, paid = one_roll_expected("field", dice, field_double=True)
    assert (effects[0]["result"], effects[0]["paid"]) == (result, paid)


@pytest.mark.parametrize("point_on", [False, True], ids=["come-out", "point-4"])
@pytest.mark.parametrize("big", [6, 8])
@pytest.mark.parametrize("dice", ROLLS)
def test_big_6_and_8(big, dice, point_on):
    setup = [roll(1, 3)] if point_on else []
    state, effects = play("craps", [*setup, bet("A", f"big{big}", 500), roll(*dice)])
    t = sum(dice)
    if t == big:
        assert [(e["result"], e["paid"]) for e in effects] == [("win", 1000)]
    elif t == 7:
        assert [(e["result"], e["paid"]) for e in effects] == [("lose", 0)]
    else:
        assert effects == [] and len(state.layout) == 1  # stays up


@pytest.mark.parametrize("number", [4, 6, 8, 10])
@pytest.mark.parametrize("dice", ROLLS)
def test_hardways_with_a_point(number, dice):
    state, effects = play("craps", [roll(2, 3), bet("A", "hard", 500, number), roll(*dice)])
    t = sum(dice)
    if dice == (number // 2, number // 2):
        back = 10 if number in (6, 8) else 8  # 10 for 1 / 8 for 1
        assert [(e["result"], e["paid"]) for e in effects] == [("win", back * 500)]
    elif t in (7, number):
        assert [(e["result"], e["paid"]) for e in effects] == [("lose", 0)]
    else:
        assert effects == [] and len(state.layout) == 1


@pytest.mark.parametrize("dice", ROLLS)
def test_hardways_work_on_the_come_out_by_default(dice):
    """§4620.3(e)(10) has no come-out exception: the pair wins, the number any other way or a 7 loses."""
    state, effects = play("craps", [bet("A", "hard", 500, 6), roll(*dice)])
    if dice == (3, 3):
        assert [(e["result"], e["paid"]) for e in effects] == [("win", 5000)]
    elif sum(dice) in (6, 7):
        assert [(e["result"], e["paid"]) for e in effects] == [("lose", 0)]
    else:
        assert effects == [] and len(state.layout) == 1


@pytest.mark.parametrize("dice", ROLLS)
def test_hardways_called_off_on_the_come_out_when_configured(dice):
    from controller.rules import TableConfig
    config = TableConfig(hardways_work_on_come_out=False)
    state, effects = play("craps", [bet("A", "hard", 500, 6), roll(*dice)], config)
    assert effects == [] and len(state.layout) == 1


PLACE_STAKE = {4: 500, 10: 500, 5: 500, 9: 500, 6: 600, 8: 600}


@pytest.mark.parametrize("number", POINTS)
@pytest.mark.parametrize("dice", ROLLS)
@pytest.mark.parametrize("come_out", [False, True], ids=["with-a-point", "on-the-come-out"])
def test_place_bets_win_on_their_number_and_lose_on_a_7(number, dice, come_out):
    """§4620.3(e)(4), with no come-out exception by default: the come-out decides them too."""
    point_dice = (2, 2) if number != 4 else (5, 5)  # a point other than the place number
    stake = PLACE_STAKE[number]
    before = [] if come_out else [roll(*point_dice)]
    state, effects = play("craps", [*before, bet("A", "place", stake, number), roll(*dice)])
    t = sum(dice)
    if t == number:
        assert [(e["result"], e["paid"]) for e in effects] == [("win", won(stake, WIN_PLACE[number]))]
        if come_out:
            assert state.point == number and state.layout == ()  # paid off the layout: nothing stands on the point
    elif t == 7:
        assert [(e["result"], e["paid"]) for e in effects] == [("lose", 0)]
    else:
        assert effects == [] and len(state.layout) == 1


@pytest.mark.parametrize("number", POINTS)
@pytest.mark.parametrize("dice", ROLLS)
def test_place_bets_called_off_on_the_come_out_when_configured(number, dice):
    """Off on the come-out; when the come-out makes its number the point, it comes back."""
    from controller.rules import TableConfig
    config = TableConfig(place_bets_work_on_come_out=False)
    state, effects = play("craps", [bet("A", "place", 500, number), roll(*dice)], config)
    if sum(dice) == number:
        assert [(e["result"], e["paid"]) for e in effects] == [("push", 500)]
        assert state.point == number and state.layout == ()
    else:
        assert effects == [] and len(state.layout) == 1


def test_place_table_of_the_regulation():
    """§4620.3(e)(4): $5 on 4 wins $9, $5 on 5 wins $7, $6 on 6 wins $7."""
    for number, stake, win in [(4, 500, 900), (10, 500, 900), (5, 500, 700), (9, 500, 700),
                               (6, 600, 700), (8, 600, 700)]:
        point = (5, 5) if number == 4 else (2, 2)
        _, effects = play("craps", [roll(*point), bet("A", "place", stake, number), roll(*POINT_DICE[number])])
        assert effects[0]["paid"] - stake == win, number


@pytest.mark.parametrize("dice", ROLLS)
def test_pass_line_come_out(dice):
    state, effects = play("craps", [bet("A", "pass", 500), roll(*dice)])
    t = sum(dice)
    if t in (7, 11):
        assert [(e["result"], e["paid"]) for e in effects] == [("win", 1000)]
    elif t in (2, 3, 12):
        assert [(e["result"], e["paid"]) for e in effects] == [("lose", 0)]
    else:
        assert effects == [] and state.point == t


@pytest.mark.parametrize("dice", ROLLS)
def test_dont_pass_come_out_bars_ace_deuce(dice):
    state, effects = play("craps", [bet("A", "dont_pass", 500), roll(*dice)])
    t = sum(dice)
    if t in (2, 12):
        assert [(e["result"], e["paid"]) for e in effects] == [("win", 1000)]
    elif t == 3:
        assert [(e["result"], e["paid"]) for e in effects] == [("push", 500)]
    elif t in (7, 11):
        assert [(e["result"], e["paid"]) for e in effects] == [("lose", 0)]
    else:
        assert effects == [] and state.point == t


TAKE_STAKE = {4: 500, 10: 500, 5: 600, 9: 600, 6: 500, 8: 500}  # the table's maxima behind $5


@pytest.mark.parametrize("point", POINTS)
@pytest.mark.parametrize("dice", ROLLS)
def test_pass_line_and_odds_on_the_point(point, dice):
    odds = TAKE_STAKE[point]
    state, effects = play("craps", [bet("A", "pass", 500), roll(*POINT_DICE[point]),
                                    bet("A", "odds", odds, point), roll(*dice)])
    t = sum(dice)
    got = [(e["bet"], e["number"], e["result"], e["paid"]) for e in effects]
    if t == point:
        assert got == [("pass", None, "win", 1000), ("odds", point, "win", won(odds, WIN_TAKE_ODDS[point]))]
        assert state.point is None
    elif t == 7:
        assert got == [("pass", None, "lose", 0), ("odds", point, "lose", 0)]
        assert state.point is None and state.shooter == "B"
    else:
        assert got == [] and state.point == point


@pytest.mark.parametrize("point", POINTS)
@pytest.mark.parametrize("dice", ROLLS)
def test_dont_pass_and_lay_odds_on_the_point(point, dice):
    state, effects = play("craps", [bet("A", "dont_pass", 500), roll(*POINT_DICE[point]),
                                    bet("A", "odds", 600, point), roll(*dice)])
    t = sum(dice)
    got = [(e["bet"], e["result"], e["paid"]) for e in effects]
    if t == 7:
        assert got == [("dont_pass", "win", 1000), ("odds", "win", won(600, WIN_LAY_ODDS[point]))]
    elif t == point:
        assert got == [("dont_pass", "lose", 0), ("odds", "lose", 0)]
    else:
        assert got == []


def test_odds_tables_of_the_regulation():
    """§4620.3(e)(3): take $5/$6/$5 to win $10/$9/$6; lay $6 to win $3/$4/$5."""
    take = {4: (500, 1000), 5: (600, 900), 6: (500, 600)}
    lay = {4: (600, 300), 5: (600, 400), 6: (600, 500)}
    for point in (4, 5, 6):
        stake, win = take[point]
        _, effects = play("craps", [bet("A", "pass", 500), roll(*POINT_DICE[point]),
                                    bet("A", "odds", stake, point), roll(*POINT_DICE[point])])
        assert effects[1]["paid"] - stake == win
        stake, win = lay[point]
        _, effects = play("craps", [bet("A", "dont_pass", 500), roll(*POINT_DICE[point]),
                                    bet("A", "odds", stake, point), roll(3, 4)])
        assert effects[1]["paid"] - stake == win


@pytest.mark.parametrize("dice", ROLLS)
def test_come_bet_first_roll(dice):
    state, effects = play("craps", [roll(2, 2), bet("A", "come", 500), roll(*dice)])
    t = sum(dice)
    if t in (7, 11):
        assert [(e["bet"], e["number"], e["result"], e["paid"]) for e in effects] == [("come", None, "win", 1000)]
    elif t in (2, 3, 12):
        assert [(e["result"], e["paid"]) for e in effects] == [("lose", 0)]
    else:
        assert effects == []
        assert [(w.bet, w.number) for w in state.layout] == [("come", t)]


@pytest.mark.parametrize("dice", ROLLS)
def test_dont_come_bet_first_roll(dice):
    state, effects = play("craps", [roll(2, 2), bet("A", "dont_come", 500), roll(*dice)])
    t = sum(dice)
    if t in (2, 12):
        assert [(e["result"], e["paid"]) for e in effects] == [("win", 1000)]
    elif t == 3:
        assert [(e["result"], e["paid"]) for e in effects] == [("push", 500)]
    elif t in (7, 11):
        assert [(e["result"], e["paid"]) for e in effects] == [("lose", 0)]
    else:
        assert [(w.bet, w.number) for w in state.layout] == [("dont_come", t)]


def _come_on(number: int, kind: str = "come", odds: int = 0, config=None):
    """A state with point 4 (or 10) and seat A's come bet moved to ``number``, with odds."""
    point_dice = (1, 3) if number != 4 else (4, 6)
    events = [roll(*point_dice), bet("A", kind, 500), roll(*POINT_DICE[number])]
    if odds:
        events.append(bet("A", "odds", odds, number))
    state, _ = play("craps", events, config)
    return state


@pytest.mark.parametrize("number", POINTS)
@pytest.mark.parametrize("dice", ROLLS)
def test_come_point_with_odds(number, dice):
    odds = TAKE_STAKE[number]
    state, effects = play(_come_on(number, "come", odds), [roll(*dice)])
    t = sum(dice)
    got = [(e["bet"], e["number"], e["result"], e["paid"]) for e in effects]
    if t == number:
        assert got == [("come", number, "win", 1000), ("odds", number, "win", won(odds, WIN_TAKE_ODDS[number]))]
    elif t == 7:
        assert got == [("come", number, "lose", 0), ("odds", number, "lose", 0)]
    else:
        assert ("come", number) in [(w.bet, w.number) for w in state.layout]


@pytest.mark.parametrize("number", POINTS)
@pytest.mark.parametrize("dice", ROLLS)
def test_dont_come_point_with_lay_odds(number, dice):
    state, effects = play(_come_on(number, "dont_come", 600), [roll(*dice)])
    t = sum(dice)
    got = [(e["bet"], e["result"], e["paid"]) for e in effects]
    if t == 7:
        assert got == [("dont_come", "win", 1000), ("odds", "win", won(600, WIN_LAY_ODDS[number]))]
    elif t == number:
        assert got == [("dont_come", "lose", 0), ("odds", "lose", 0)]
    else:
        assert got == []


@pytest.mark.parametrize("dice", [(3, 4), (2, 4)])
def test_come_odds_work_on_the_come_out_by_default(dice):
    """§4620.3(e)(5)(iii) has no come-out exception: the odds are decided with their come point."""
    state = _come_on(6, "come", 500)
    state, _ = play(state, [roll(1, 3)])  # the point of 4 is made: next roll is a come-out
    assert state.point is None
    _, effects = play(state, [roll(*dice)])
    got = [(e["bet"], e["result"], e["paid"]) for e in effects]
    if sum(dice) == 6:
        assert got == [("come", "win", 1000), ("odds", "win", won(500, WIN_TAKE_ODDS[6]))]
    else:
        assert got == [("come", "lose", 0), ("odds", "lose", 0)]


@pytest.mark.parametrize("dice", [(3, 4), (2, 4)])
def test_come_odds_are_returned_on_the_come_out_when_configured_off(dice):
    """A come point decided on the come-out: the flat bet is decided, the odds come back."""
    from controller.rules import TableConfig
    config = TableConfig(come_odds_work_on_come_out=False)
    state = _come_on(6, "come", 500, config)
    state, _ = play(state, [roll(1, 3)])  # the point of 4 is made: next roll is a come-out
    assert state.point is None
    _, effects = play(state, [roll(*dice)])
    got = [(e["bet"], e["result"], e["paid"]) for e in effects]
    flat = ("come", "win", 1000) if sum(dice) == 6 else ("come", "lose", 0)
    assert got == [flat, ("odds", "push", 500)]


def test_dont_come_lay_odds_work_on_the_come_out():
    state = _come_on(6, "dont_come", 600)
    state, _ = play(state, [roll(1, 3)])
    _, effects = play(state, [roll(3, 4)])
    assert [(e["bet"], e["result"], e["paid"]) for e in effects] == [("dont_come", "win", 1000), ("odds", "win", 1100)]


def test_rounding_of_odd_amounts_is_down_to_the_cent():
    """$3.01 placed on the 6 at 7-6 wins 351.1666... cents: 351 is paid."""
    _, effects = play("craps", [roll(2, 2), bet("A", "place", 301, 6), roll(3, 3)])
    assert effects[0]["paid"] == 301 + 351


@pytest.mark.parametrize("name, number, stake, dice, win", [
    ("place", 5, 301, (2, 3), 421),  # 7 to 5: 421.4 cents
    ("place", 4, 301, (1, 3), 541),  # 9 to 5: 541.8
    ("odds", 5, 301, (1, 4), 451),   # 3 to 2: 451.5
    ("odds", 6, 301, (2, 4), 361),   # 6 to 5: 361.2
], ids=["place-7:5", "place-9:5", "odds-3:2", "odds-6:5"])
def test_fractions_of_a_cent_are_dropped_not_rounded(name, number, stake, dice, win):
    """Where the exact win ends in half a cent or more, rounding to the nearest would pay a cent more."""
    events = [roll(5, 5), bet("A", "place", stake, number)] if name == "place" else \
        [bet("A", "pass", 500), roll(*dice), bet("A", "odds", stake, number)]
    _, effects = play("craps", events + [roll(*dice)])
    (settled,) = [e for e in effects if e["bet"] == name]
    assert settled["result"] == "win" and settled["paid"] == stake + win
