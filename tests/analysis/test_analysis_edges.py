"""`dicetable edges` against values derived here from first principles.

Every expected value below is worked out in this file from the dice alone
(the number of ways to roll each total) and the payouts as the regulation
states them, without calling the rules engine; the edges module computes the
same numbers by running the engine over every dice outcome. Agreement means
the engine pays what the regulation says *and* the chain solver is right.
"""
from __future__ import annotations

import json
from fractions import Fraction as F
from itertools import product

import pytest

from controller.analysis.edges import EdgeError, house_edges
from controller.cli import main
from controller.rules import BET_KINDS, TableConfig

TWO_DICE = [a + b for a, b in product(range(1, 7), repeat=2)]
WAYS = {t: TWO_DICE.count(t) for t in range(2, 13)}  # 1, 2, 3, 4, 5, 6, 5, 4, 3, 2, 1
P = {t: F(w, 36) for t, w in WAYS.items()}
POINTS = (4, 5, 6, 8, 9, 10)


@pytest.fixture(scope="module")
def edges() -> dict:
    return {(r.game, r.bet, r.number, r.on): r for r in house_edges()}


def edge(edges, game, bet, number=None, on=None) -> F:
    return edges[(game, bet, number, on)].edge


def made_before_seven(t: int) -> F:
    """Chance that total ``t`` rolls before a 7."""
    return P[t] / (P[t] + P[7])


# --- craps line bets ---------------------------------------------------------

def test_pass_line_is_7_495(edges):
    win = P[7] + P[11] + sum(P[t] * made_before_seven(t) for t in POINTS)
    assert win == F(244, 495)
    assert edge(edges, "craps", "pass") == 1 - 2 * win == F(7, 495)


def test_dont_pass_barring_the_3_not_the_12(edges):
    """New York bars ace-deuce (3), not 12 (§4620.3(e)(2)): the don't wins on 2 and 12.

    Barring the 3 (2 ways) instead of the 12 (1 way) moves one more way out of
    the don't's wins into pushes, so the edge rises from the familiar 3/220 to
    41/990 per unit bet made.
    """
    win = P[2] + P[12] + sum(P[t] * (1 - made_before_seven(t)) for t in POINTS)
    push = P[3]
    lose = 1 - win - push
    row = edges[("craps", "dont_pass", None, None)]
    assert row.push == push == F(1, 18)
    assert row.edge == lose - win == F(41, 990)
    assert row.edge / (1 - row.push) == F(41, 935)  # per bet decided
    # The same arithmetic with the 12 barred gives the well-known figure.
    win_bar12 = P[2] + P[3] + sum(P[t] * (1 - made_before_seven(t)) for t in POINTS)
    assert (1 - win_bar12 - P[12]) - win_bar12 == F(3, 220)


def test_come_and_dont_come_are_pass_and_dont_pass_started_later(edges):
    assert edge(edges, "craps", "come") == F(7, 495)
    assert edge(edges, "craps", "dont_come") == F(41, 990)


@pytest.mark.parametrize("point", POINTS)
@pytest.mark.parametrize("on", ["pass", "dont_pass", "come", "dont_come"])
def test_odds_are_true_odds_edge_zero(edges, on, point):
    """Odds pay the true odds of §4620.3(e)(3), (e)(5)(iii)-(iv): their own edge is 0.

    (The line or come bet underneath keeps its own edge; come odds a table calls
    off on a come-out come back as a push, which costs nothing.)
    """
    assert edge(edges, "craps", "odds", point, on) == 0


# --- place bets: working on the come-out by default; a table may call them off, and then a
# place bet whose number the come-out makes the point is returned

PLACE_PAYS = {4: F(9, 5), 10: F(9, 5), 5: F(7, 5), 9: F(7, 5), 6: F(7, 6), 8: F(7, 6)}


def place_by_hand(n: int) -> tuple[F, F]:
    """(expected net, push chance) of a place bet on ``n`` made before a come-out roll, at a
    table that calls place bets off on the come-out.

    The bet is off on the come-out; a come-out roll of ``n`` makes ``n`` the
    point, where a place bet may not stand, so it is returned (a push). From a
    point ``q``: ``n`` wins, 7 loses, ``q`` goes back to a come-out.
    Unknowns: C (come-out) and P_q; P_q = (win - lose + P(q) C) / (P(n) + P(7) + P(q)).
    Substituting into C = P(stay) C + sum P(q) P_q gives one equation in C.
    """
    others = [q for q in POINTS if q != n]
    base = P[n] * PLACE_PAYS[n] - P[7]
    stay = 1 - P[n] - sum(P[q] for q in others)
    coeff = 1 - stay - sum(P[q] * P[q] / (P[n] + P[7] + P[q]) for q in others)
    value = sum(P[q] * base / (P[n] + P[7] + P[q]) for q in others) / coeff
    # The same system with "returned" as the reward gives the push chance.
    push = P[n] / coeff
    return value, push


@pytest.mark.parametrize("n", POINTS)
def test_place_bets_per_bet_decided_are_the_textbook_values(edges, n):
    textbook = {6: F(1, 66), 8: F(1, 66), 5: F(1, 25), 9: F(1, 25), 4: F(1, 15), 10: F(1, 15)}[n]
    assert (P[7] - P[n] * PLACE_PAYS[n]) / (P[n] + P[7]) == textbook
    row = edges[("craps", "place", n, None)]
    assert row.edge / (1 - row.push) == textbook


@pytest.mark.parametrize("n", POINTS)
def test_place_bets_called_off_on_the_come_out_count_its_push_per_bet_made(n):
    value, push = place_by_hand(n)
    rows = house_edges(["craps"], TableConfig(place_bets_work_on_come_out=False))
    row = next(r for r in rows if r.bet == "place" and r.number == n)
    assert row.push == push
    assert row.edge == -value
    if n == 6:
        assert row.edge == F(2141, 191706)  # the 1/66 of decided bets, diluted by 26% returns


def test_place_bets_working_on_the_come_out_never_push(edges):
    """By default (§4620.3(e)(4) has no come-out exception) the come-out decides them too: 6 is 1/66 per bet made."""
    place6 = edges[("craps", "place", 6, None)]
    assert place6.push == 0
    assert place6.edge == F(1, 66)


# --- the other craps bets ------------------------------------------------------

def test_one_roll_craps_bets(edges):
    assert edge(edges, "craps", "any7") == 1 - 5 * P[7] == F(1, 6)  # 5 for 1
    craps = P[2] + P[3] + P[12]
    assert edge(edges, "craps", "any_craps") == 1 - 8 * craps == F(1, 9)  # 8 for 1
    assert edge(edges, "craps", "aces") == 1 - 30 * F(1, 36) == F(1, 6)  # 30 for 1
    assert edge(edges, "craps", "twelve") == F(1, 6)
    assert edge(edges, "craps", "ace_deuce") == 1 - 15 * F(2, 36) == F(1, 6)  # 15 for 1
    assert edge(edges, "craps", "eleven") == F(1, 6)
    field_win = sum(P[t] for t in (2, 3, 4, 9, 10, 11, 12))
    assert edge(edges, "craps", "field") == 1 - 2 * field_win == F(1, 9)


def test_field_with_2_and_12_at_2_to_1():
    rows = house_edges(["craps"], TableConfig(field_2_12_pays_2_to_1=True))
    field = next(r for r in rows if r.bet == "field")
    expected = -(sum(P[t] for t in (3, 4, 9, 10, 11)) + 2 * (P[2] + P[12]) - sum(P[t] for t in (5, 6, 7, 8)))
    assert field.edge == expected == F(1, 18)


@pytest.mark.parametrize("n, pays", [(4, 8), (10, 8), (6, 10), (8, 10)])
def test_hardways(edges, n, pays):
    hard = F(1, 36)  # the one pair
    easy = P[n] - hard
    win = hard / (hard + easy + P[7])
    assert edge(edges, "craps", "hard", n) == 1 - pays * win  # "X for 1"
    assert edge(edges, "craps", "hard", n) == (F(1, 9) if pays == 8 else F(1, 11))


def test_big_6_and_8(edges):
    assert edge(edges, "craps", "big6") == 1 - 2 * made_before_seven(6) == F(1, 11)
    assert edge(edges, "craps", "big8") == F(1, 11)


# --- hazard --------------------------------------------------------------------

THREE = list(product(range(1, 7), repeat=3))
NUMBER_FOR_ONE = {4: 60, 5: 30, 6: 18, 7: 12, 8: 8, 9: 6, 10: 6, 11: 6, 12: 6, 13: 8, 14: 12,
                  15: 18, 16: 30, 17: 60}


def hazard_edge(net_per_unit) -> F:
    return -sum((F(net_per_unit(d)) for d in THREE), F(0)) / len(THREE)


def triple(d):
    return d[0] == d[1] == d[2]


def test_hazard(edges):
    assert edge(edges, "hazard", "raffle", 3) == hazard_edge(lambda d: 180 if d == (3, 3, 3) else -1) == F(35, 216)
    assert edge(edges, "hazard", "any_raffle") == hazard_edge(lambda d: 30 if triple(d) else -1) == F(5, 36)
    low = hazard_edge(lambda d: 1 if sum(d) <= 10 and not triple(d) else -1)
    assert edge(edges, "hazard", "low") == low == F(1, 36)
    assert edge(edges, "hazard", "high") == hazard_edge(lambda d: 1 if sum(d) >= 11 and not triple(d) else -1)
    assert edge(edges, "hazard", "odd") == hazard_edge(lambda d: 1 if sum(d) % 2 and not triple(d) else -1)
    assert edge(edges, "hazard", "even") == hazard_edge(lambda d: 1 if sum(d) % 2 == 0 and not triple(d) else -1)
    for n, pays in NUMBER_FOR_ONE.items():
        assert edge(edges, "hazard", "number", n) == hazard_edge(lambda d, pays=pays, n=n: pays - 1 if sum(d) == n else -1)
    assert edge(edges, "hazard", "number", 4) == F(1, 6)
    assert edge(edges, "hazard", "number", 10) == F(1, 4)
    for face in range(1, 7):
        assert edge(edges, "hazard", "chuck", face) == hazard_edge(
            lambda d, face=face: d.count(face) if face in d else -1) == F(17, 216)


# --- bang ------------------------------------------------------------------------

def test_bang_one_roll_bets(edges):
    assert edge(edges, "bang", "field") == F(1, 9)
    assert edge(edges, "bang", "under7") == 1 - 2 * sum(P[t] for t in range(2, 7)) == F(1, 6)
    assert edge(edges, "bang", "over7") == F(1, 6)
    assert edge(edges, "bang", "any7") == 1 - 5 * P[7] == F(1, 6)  # 4 to 1


def test_bang_big_6_and_8_across_dealer_and_shooter_rolls(edges):
    """Active on every roll, dealer's and shooter's alike: still 5/11 against 6/11."""
    assert edge(edges, "bang", "big6") == F(1, 11)
    assert edge(edges, "bang", "big8") == F(1, 11)


def test_beat_the_dealer_ties_to_the_house(edges):
    """The shooter's total must beat the dealer's; a tie loses (§4620.15(d)(8))."""
    win = sum(P[d] * P[s] for d in P for s in P if s > d)
    assert win == (1 - sum(p * p for p in P.values())) / 2
    assert edge(edges, "bang", "beat_dealer") == 1 - 2 * win == F(73, 648)


# --- the command ---------------------------------------------------------------------

def test_every_bet_of_the_catalogue_has_one_row(edges):
    expected = set()
    for game, kinds in BET_KINDS.items():
        for kind in kinds:
            for number in kind.numbers:
                ons = ("pass", "dont_pass", "come", "dont_come") if kind.name == "odds" else (None,)
                expected |= {(game, kind.name, number, on) for on in ons}
    assert set(edges) == expected


def test_edges_json_for_one_game(capsys):
    assert main(["edges", "--game", "bang", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {r["game"] for r in rows} == {"bang"}
    assert all({"game", "bet", "number", "edge"} <= set(r) for r in rows)
    beat = next(r for r in rows if r["bet"] == "beat_dealer")
    assert beat["edge"] == "73/648" and beat["number"] is None
    assert all(F(r["edge"]) >= 0 for r in rows)


def test_edges_table_is_readable(capsys):
    assert main(["edges", "--game", "hazard"]) == 0
    out = capsys.readouterr().out
    assert "raffle" in out and "35/216" in out and "16.2037%" in out


def test_edges_table_gives_the_edge_per_bet_decided(capsys):
    """Don't pass: 41/990 per bet made, pushed 1/18 of the time, so 41/935 per bet decided."""
    assert main(["edges", "--game", "craps"]) == 0
    row = next(line.split() for line in capsys.readouterr().out.splitlines() if line.split()[1:2] == ["dont_pass"])
    assert row[-4:] == ["41/990", "4.1414%", "5.56%", "4.3850%"]  # 41/935 = 0.043850...


def test_edges_with_a_configuration_file(tmp_path, capsys):
    toml = tmp_path / "table.toml"
    toml.write_text("[rules]\nfield_2_12_pays_2_to_1 = true\n")
    assert main(["edges", "--game", "craps", "--json", "--config", str(toml)]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert next(r for r in rows if r["bet"] == "field")["edge"] == "1/18"


def test_edges_reports_a_bad_configuration(tmp_path, capsys):
    toml = tmp_path / "table.toml"
    toml.write_text("[rules]\nno_such_option = 1\n")
    assert main(["edges", "--config", str(toml)]) == 2
    assert "no_such_option" in capsys.readouterr().err


def test_limits_off_the_payout_unit_give_the_largest_stake_the_engine_takes():
    """A $7 limit in quarters makes the most one may lay against the 4 $8.40
    (lay 6 to 5 behind $7), which the engine refuses as not a whole number of
    quarters; the analysis lays $8.25 instead. It wins 2 in 3 (the 7 before the
    4) and is paid half, 412.5 cents, rounded down to 400: edge 25/3 per 825."""
    config = TableConfig.from_dict({"payout_unit": 25, "limits": {"default": 700}})
    rows = {(r.bet, r.number, r.on): r for r in house_edges(["craps"], config)}
    lay4 = rows[("odds", 4, "dont_pass")]
    assert lay4.amount == 825
    assert lay4.edge == (F(1, 3) * 825 - F(2, 3) * 400) / 825 == F(1, 99)
    assert all(r.amount % 25 == 0 for r in rows.values())


def test_a_bet_never_accepted_is_reported_with_the_engines_reason(capsys):
    with pytest.raises(EdgeError, match=r"craps pass: .*under the table minimum of \$6\.00"):
        house_edges(["craps"], TableConfig(min_bet=600))  # built directly: from_dict refuses such a table
