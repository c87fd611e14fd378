"""Every bet's maximum, as the regulations write it, accepted to the cent and refused a cent over.

The amounts below are restated from the texts (9 NYCRR §4620.3(e), §4620.12(c)(1) and (c)(7)(ii),
§4620.15(e)), not read from the engine's configuration, so a changed default limit fails here.
"""
from __future__ import annotations

import pytest

from rules_helpers import bet, play, refused, roll

POINT_4 = [roll(2, 2)]  # come and don't come bets need an established point (§4620.3(e)(5)(i))

CRAPS = [
    ("pass", None, [], 500), ("dont_pass", None, [], 500),
    ("come", None, POINT_4, 500), ("dont_come", None, POINT_4, 500),
    ("place", 4, [], 500), ("place", 5, [], 500), ("place", 6, [], 600),
    ("place", 8, [], 600), ("place", 9, [], 500), ("place", 10, [], 500),
    ("field", None, [], 500), ("big6", None, [], 500), ("big8", None, [], 500),
    ("any7", None, [], 500), ("any_craps", None, [], 500),
    ("hard", 4, [], 500), ("hard", 6, [], 500), ("hard", 8, [], 500), ("hard", 10, [], 500),
    ("aces", None, [], 500), ("ace_deuce", None, [], 500), ("eleven", None, [], 500), ("twelve", None, [], 500),
]
HAZARD: list[tuple[str, int | None, list, int]] = ([("raffle", n, [], 150) for n in range(1, 7)]
          + [(name, None, [], 500) for name in ("any_raffle", "low", "high", "odd", "even")]
          + [("number", n, [], 500) for n in range(4, 18)] + [("chuck", n, [], 500) for n in range(1, 7)])
BANG: list[tuple[str, int | None, list, int]] = [(name, None, [], 500) for name in ("field", "under7", "over7", "any7", "big6", "big8", "beat_dealer")]
CASES = [("craps", *c) for c in CRAPS] + [("hazard", *c) for c in HAZARD] + [("bang", *c) for c in BANG]


@pytest.mark.parametrize("game,name,number,setup,maximum", CASES,
                         ids=[f"{g}-{n}{'' if k is None else k}" for g, n, k, _, _ in CASES])
def test_the_regulation_maximum_and_a_cent_over(game, name, number, setup, maximum):
    ready, _ = play(game, setup)
    play(ready, [bet("A", name, maximum, number)])
    over = refused(ready, bet("A", name, maximum + 1, number))
    assert f"over the maximum of ${maximum // 100}.{maximum % 100:02d}" in str(over)


# §4620.3(e)(3)(i) and (e)(5)(iii): odds taken behind a $5 line or come bet; (ii) and (iv): laid.
TAKE = {4: 500, 5: 600, 6: 500, 8: 500, 9: 600, 10: 500}
LAY = {4: 600, 5: 600, 6: 600, 8: 600, 9: 600, 10: 600}
DICE = {4: (2, 2), 5: (2, 3), 6: (3, 3), 8: (4, 4), 9: (4, 5), 10: (5, 5)}


@pytest.mark.parametrize("point", sorted(TAKE))
@pytest.mark.parametrize("flat", ["pass", "dont_pass"])
def test_line_odds_maximum_behind_five_dollars(flat, point):
    ready, _ = play("craps", [bet("A", flat, 500), roll(*DICE[point])])
    most = (TAKE if flat == "pass" else LAY)[point]
    play(ready, [bet("A", "odds", most, point, on=flat)])
    refused(ready, bet("A", "odds", most + 1, point, on=flat))


@pytest.mark.parametrize("point", [5, 6, 8, 9, 10])
@pytest.mark.parametrize("flat", ["come", "dont_come"])
def test_come_odds_maximum_behind_five_dollars(flat, point):
    # the shooter's point is 4; the next roll moves the come or don't come bet to its own point
    ready, _ = play("craps", [roll(2, 2), bet("A", flat, 500), roll(*DICE[point])])
    most = (TAKE if flat == "come" else LAY)[point]
    play(ready, [bet("A", "odds", most, point, on=flat)])
    refused(ready, bet("A", "odds", most + 1, point, on=flat))
