"""Every hazard and Bang bet against every roll, from this file's own restatement
of §4620.12(c) and §4620.15(d) as "what comes back for a $1.50 / $5 stake"."""
from __future__ import annotations

from itertools import combinations_with_replacement

import pytest

from rules_helpers import bet, play, refused, roll

THREE = list(combinations_with_replacement(range(1, 7), 3))  # 56 distinct rolls
TWO = list(combinations_with_replacement(range(1, 7), 2))

# §4620.12(c)(6), "for 1": all that comes back, per unit.
NUMBER_BACK = {4: 60, 5: 30, 6: 18, 7: 12, 8: 8, 9: 6, 10: 6, 11: 6, 12: 6, 13: 8, 14: 12, 15: 18, 16: 30, 17: 60}


def hazard_back(name: str, number: int | None, dice: tuple[int, int, int]) -> int:
    """Units returned per unit staked (0: lost)."""
    t, triple = sum(dice), len(set(dice)) == 1
    if name == "raffle":
        return 181 if triple and dice[0] == number else 0  # 180 to 1
    if name == "any_raffle":
        return 31 if triple else 0  # 30 to 1
    if name in ("low", "high", "odd", "even"):
        if triple:
            return 0
        wins = {"low": t <= 10, "high": t >= 11, "odd": t % 2 == 1, "even": t % 2 == 0}[name]
        return 2 if wins else 0
    if name == "number":
        return NUMBER_BACK[number] if t == number else 0
    if name == "chuck":
        shows = dice.count(number)
        return 1 + shows if shows else 0  # 1, 2 or 3 to 1
    raise AssertionError(name)


HAZARD_BETS = ([("raffle", n) for n in range(1, 7)] + [("any_raffle", None), ("low", None), ("high", None),
               ("odd", None), ("even", None)] + [("number", n) for n in range(4, 18)]
               + [("chuck", n) for n in range(1, 7)])


@pytest.mark.parametrize("name,number", HAZARD_BETS)
def test_hazard_bet_against_every_roll(name, number):
    """One case per bet; the 56 distinct rolls are checked inside (216 ordered rolls reduce to them)."""
    stake = 150 if name == "raffle" else 500
    placed, _ = play("hazard", [bet("A", name, stake, number)])
    for dice in THREE:
        state, effects = play(placed, [roll(*dice)])
        back = hazard_back(name, number, dice)
        assert effects == [{"event": "settle", "seat": "A", "bet": name, "number": number, "amount": stake,
                            "result": "win" if back else "lose", "paid": back * stake}], dice
        assert state.layout == ()


def test_hazard_raffle_pays_180_to_1_on_the_maximum():
    _, effects = play("hazard", [bet("A", "raffle", 150, 4), roll(4, 4, 4)])
    assert effects[0]["paid"] == 150 + 180 * 150  # $271.50


def test_hazard_takes_three_dice():
    from controller.rules import new_game
    assert refused(new_game("hazard"), roll(3, 4)).rule == "§4620.12(a)(2)"


# --- Bang -------------------------------------------------------------------

def bang_one_roll_back(name: str, t: int) -> int:
    if name == "field":
        return 2 if t in (2, 3, 4, 9, 10, 11, 12) else 0
    if name == "under7":
        return 2 if t in (2, 3, 4, 5, 6) else 0
    if name == "over7":
        return 2 if t in (8, 9, 10, 11, 12) else 0
    if name == "any7":
        return 5 if t == 7 else 0  # 4 to 1
    raise AssertionError(name)


@pytest.mark.parametrize("whose", ["dealer", "shooter"])
@pytest.mark.parametrize("name", ["field", "under7", "over7", "any7"])
@pytest.mark.parametrize("dice", TWO)
def test_bang_inside_one_roll_bets(name, dice, whose):
    setup = [roll(2, 2, by="dealer")] if whose == "shooter" else []
    state, effects = play("bang", [*setup, bet("A", name, 500), roll(*dice, by=whose)])
    back = bang_one_roll_back(name, sum(dice))
    assert effects == [{"event": "settle", "seat": "A", "bet": name, "number": None, "amount": 500,
                        "result": "win" if back else "lose", "paid": back * 500}]


@pytest.mark.parametrize("big", [6, 8])
@pytest.mark.parametrize("dice", TWO)
def test_bang_big_6_and_8_stay_up_across_rolls(big, dice):
    state, effects = play("bang", [bet("A", f"big{big}", 500), roll(*dice, by="dealer")])
    t = sum(dice)
    if t == big:
        assert [(e["result"], e["paid"]) for e in effects] == [("win", 1000)]
    elif t == 7:
        assert [(e["result"], e["paid"]) for e in effects] == [("lose", 0)]
    else:
        assert effects == []
        # still there through the shooter's roll and into the next game
        state, effects = play(state, [roll(1, 1, by="shooter"), roll(1, 2, by="dealer")])
        assert effects == [] and len(state.layout) == 1


@pytest.mark.parametrize("dealer", TWO)
@pytest.mark.parametrize("shooter", TWO)
def test_beat_the_dealer(dealer, shooter):
    state, effects = play("bang", [bet("A", "beat_dealer", 500), roll(*dealer)])
    assert effects == [] and state.dealer_point == sum(dealer)
    state, effects = play(state, [roll(*shooter)])
    wins = sum(shooter) > sum(dealer)  # ties go to the house
    assert effects == [{"event": "settle", "seat": "A", "bet": "beat_dealer", "number": None, "amount": 500,
                        "result": "win" if wins else "lose", "paid": 1000 if wins else 0}]
    assert state.dealer_point is None and state.shooter == "B"
