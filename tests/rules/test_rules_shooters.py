"""Who holds the dice: craps shooter rotation (§4620.3(c)(4)-(6)) and Bang's games (§4620.15(c))."""
from __future__ import annotations

from controller.rules import TableConfig, new_game
from rules_helpers import bet, play, refused, roll

NEXT = {"event": "next_shooter"}
THREE_SEATS = TableConfig(seats=("A", "B", "C"))


def test_seven_out_passes_the_dice_to_the_left():
    state, _ = play("craps", [roll(2, 2), roll(3, 4)], THREE_SEATS)
    assert state.shooter == "B" and state.point is None and not state.shooter_has_rolled


def test_a_seven_on_the_come_out_keeps_the_shooter():
    state, _ = play("craps", [roll(3, 4), roll(5, 6), roll(1, 1)], THREE_SEATS)
    assert state.shooter == "A" and state.shooter_has_rolled


def test_making_the_point_keeps_the_shooter_who_may_then_pass_the_dice():
    state, _ = play("craps", [roll(2, 2), roll(1, 3)], THREE_SEATS)
    assert state.shooter == "A" and state.point is None
    state, effects = play(state, [NEXT])  # §4620.3(c)(5), on completion of a decision
    assert state.shooter == "B" and effects == []


def test_refusing_to_shoot_and_naming_the_next_shooter():
    state, _ = play("craps", [NEXT], THREE_SEATS)  # §4620.3(c)(6)
    assert state.shooter == "B"
    state, _ = play(state, [{"event": "next_shooter", "seat": "A"}])
    assert state.shooter == "A"


def test_rotation_wraps_around_the_table():
    state, _ = play("craps", [NEXT, NEXT, NEXT], THREE_SEATS)
    assert state.shooter == "A"


def test_the_shooter_cannot_hand_over_the_dice_during_a_point():
    state, _ = play("craps", [roll(2, 2)], THREE_SEATS)
    assert refused(state, NEXT).rule == "§4620.3(c)(5)"
    assert refused(play("craps", [], THREE_SEATS)[0], {"event": "next_shooter", "seat": "Q"}).rule == "§4620.3(b)(1)"


def test_bets_stay_with_their_seats_when_the_dice_move():
    state, _ = play("craps", [bet("C", "place", 600, 6), bet("B", "big8", 500), roll(2, 2), roll(3, 4)], THREE_SEATS)
    # the seven-out took the place bet and the big 8 with it; nothing is left over
    assert state.layout == () and state.shooter == "B"


def test_bang_game_after_game_the_dice_go_left():
    state = new_game("bang", THREE_SEATS)
    assert state.shooter == "A" and state.roller == "dealer"
    state, _ = play(state, [roll(3, 3)])
    assert state.roller == "shooter" and state.dealer_point == 6
    state, _ = play(state, [roll(1, 1)])
    assert state.shooter == "B" and state.roller == "dealer" and state.dealer_point is None
    state, _ = play(state, [roll(2, 2), roll(6, 6), roll(2, 2), roll(6, 6)])
    assert state.shooter == "A"


def test_bang_next_shooter_only_before_the_dealers_roll():
    state, _ = play("bang", [NEXT], THREE_SEATS)
    assert state.shooter == "B"
    state, _ = play(state, [roll(3, 3)])
    assert refused(state, NEXT).rule == "§4620.15(c)(5)"


def test_bang_inside_bets_settle_on_both_rolls_of_a_game():
    state, effects = play("bang", [bet("A", "field", 500), bet("A", "beat_dealer", 500), roll(2, 2)])
    assert [(e["bet"], e["result"]) for e in effects] == [("field", "win")]  # beat_dealer waits
    state, effects = play(state, [bet("A", "under7", 500), roll(1, 2)])
    assert [(e["bet"], e["result"]) for e in effects] == [("beat_dealer", "lose"), ("under7", "win")]
    assert state.layout == ()
