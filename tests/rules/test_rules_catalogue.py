"""BET_KINDS (what the analysis iterates) and the engine agree: every bet and number
of the catalogue is accepted somewhere, and nothing outside it is."""
from __future__ import annotations

import pytest

from controller.rules import BET_KINDS, BetRejected, apply, new_game, open_bets, parse_event
from rules_helpers import bet, play, roll

POINT_DICE = {4: (1, 3), 5: (1, 4), 6: (1, 5), 8: (2, 6), 9: (3, 6), 10: (4, 6)}


def settings(game: str, name: str, number: int | None) -> list[list[dict]]:
    """A few states in which a bet of the game can be made: fresh, and one roll on."""
    if game == "craps" and name == "odds":
        assert number is not None  # odds are made on a point
        return [[bet("A", "pass", 500), roll(*POINT_DICE[number])]]
    return {
        "craps": [[], [roll(2, 2)], [roll(5, 5)]],
        "hazard": [[]],
        "bang": [[], [roll(3, 4)]],
    }[game]


CASES = [(game, kind.name, number) for game, kinds in BET_KINDS.items() for kind in kinds for number in kind.numbers]


@pytest.mark.parametrize("game,name,number", CASES)
def test_every_catalogued_bet_is_accepted_somewhere(game, name, number):
    accepted = []
    for setup in settings(game, name, number):
        state, _ = play(game, setup)
        try:
            accepted.append(apply(state, parse_event(bet("A", name, 100, number))).state)
        except BetRejected:
            continue
    assert accepted, f"{game} {name} {number} refused in every setting"
    assert all(any((b.bet, b.number, b.amount) == (name, number, 100) for b in open_bets(s)) for s in accepted)


@pytest.mark.parametrize("game", list(BET_KINDS))
def test_bets_outside_the_catalogue_are_refused(game):
    state = new_game(game)
    for name in ("pass_line", "big7", "raffle" if game != "hazard" else "field"):
        with pytest.raises(BetRejected):
            apply(state, parse_event(bet("A", name, 100)))
