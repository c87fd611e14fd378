"""`dicetable simulate`: the compiled table is the engine, and the measured edge finds the exact one."""
from __future__ import annotations

import json
from fractions import Fraction as F

import numpy as np
import pytest

from controller.analysis.betspec import BetSpec, parse_bet_spec
from controller.analysis.compile import CompileError, _check_bets_all_settle, compile_table, plan
from controller.analysis.edges import analysis_config, house_edges
from controller.analysis.runner import TransitionTable, play
from controller.analysis.simulate import simulate
from controller.analysis.stats import ratio_edge, t_95
from controller.cli import main
from controller.rules import Bet, Roll, TableConfig, apply, new_game
from controller.rules.dice import all_rolls

ROLLS = 200_000


@pytest.fixture(scope="module")
def exact() -> dict:
    return {(r.game, r.bet, r.number): r.edge for r in house_edges() if r.on is None}


def specs(*texts: str) -> list[BetSpec]:
    return [parse_bet_spec(t) for t in texts]


@pytest.mark.parametrize("game, bet, key, width", [
    ("craps", "pass", ("craps", "pass", None), 0.02),
    ("craps", "hard:6", ("craps", "hard", 6), 0.08),  # pays 9 to 1: a wide spread
    ("craps", "field", ("craps", "field", None), 0.01),
    ("hazard", "low", ("hazard", "low", None), 0.01),
    ("bang", "beat_dealer", ("bang", "beat_dealer", None), 0.02),
    ("bang", "big8", ("bang", "big8", None), 0.03),
])
def test_simulated_edge_agrees_with_the_exact_edge(exact, game, bet, key, width):
    """A bet that cannot push is worth the same wherever it is made, so the
    long-run edge of re-betting it is the `edges` value; the simulation must
    find it inside its interval, and the interval must be narrow enough to mean
    something (about one percent for an even-money bet at 200,000 rolls)."""
    report = simulate(game, specs(bet), rolls=ROLLS, seed=7)
    measured = report.bets[0].measured
    assert measured.contains(exact[key]), (measured, float(exact[key]))
    assert measured.high - measured.low < width
    assert report.bets[0].expected == pytest.approx(float(exact[key]), abs=1e-12)


def test_the_simulation_tells_new_york_dont_pass_from_the_vegas_one(exact):
    """Barring the 3 (41/990) against barring the 12 (3/220): the interval separates them."""
    measured = simulate("craps", specs("dont_pass"), rolls=ROLLS, seed=3).bets[0].measured
    assert measured.contains(exact[("craps", "dont_pass", None)])
    assert not measured.contains(F(3, 220))


def test_odds_behind_the_line_measure_zero_and_the_line_keeps_its_edge(exact):
    report = simulate("craps", specs("pass", "odds:pass"), rolls=ROLLS, seed=11)
    line, odds = report.bets
    assert odds.amount is None and odds.expected == pytest.approx(0, abs=1e-12)
    assert odds.measured.contains(0)
    assert line.measured.contains(exact[("craps", "pass", None)])
    assert odds.measured.action > 0


def test_place_bets_made_again_after_each_decision_push_less_often_than_a_fresh_one():
    """At a table that calls place bets off on the come-out, re-betting a place 6 makes it on
    come-outs and during points alike, so its long-run edge per bet made lies between the
    fresh-table value (made on a come-out, 26% returned) and 1/66 (never returned)."""
    config = TableConfig(place_bets_work_on_come_out=False)
    fresh = next(r.edge for r in house_edges(["craps"], config) if r.bet == "place" and r.number == 6)
    report = simulate("craps", specs("place:6"), rolls=ROLLS, seed=5, config=config)
    expected = report.bets[0].expected
    assert float(fresh) < expected < 1 / 66
    assert report.bets[0].measured.contains(expected)


def test_a_place_bet_remade_keeps_its_edge(exact):
    """A place bet working on every roll has the same edge however often it is made again."""
    report = simulate("craps", specs("place:6"), rolls=ROLLS, seed=5)
    assert exact[("craps", "place", 6)] == F(1, 66)
    assert report.bets[0].expected == pytest.approx(1 / 66, rel=1e-9)
    assert report.bets[0].measured.contains(report.bets[0].expected)


def test_the_compiled_table_is_the_engine():
    config = analysis_config()
    table = compile_table("craps", plan("craps", specs("pass"), config), config)
    # A fresh table (nobody has rolled yet), the come-out after a decision, one state per point.
    assert table.states == 8
    outcomes = all_rolls(2)
    fresh = apply(new_game("craps", config), Bet("A", "pass", 500)).state
    for d, dice in enumerate(outcomes):
        step = apply(fresh, Roll(dice))
        paid = sum(e.paid - e.amount for e in step.effects)
        assert table.net[table.start, d, 0] == paid
        assert table.action[table.start, d, 0] == sum(e.amount for e in step.effects)
    # A point of 4, then the 4: back to the come-out, paid even money.
    four = table.next_state[table.start, outcomes.index((1, 3))]
    assert four != table.start
    assert table.net[four, outcomes.index((2, 2)), 0] == 500
    come_out = table.next_state[table.start, outcomes.index((1, 1))]  # craps: lost, still a come-out
    assert table.net[table.start, outcomes.index((1, 1)), 0] == -500
    assert table.next_state[four, outcomes.index((2, 2))] == come_out


def test_every_roll_is_played_exactly_once_with_uneven_tables():
    config = analysis_config()
    table = compile_table("craps", plan("craps", specs("field"), config), config)
    totals = play(table, rolls=10_007, seed=1, tables=32)
    assert totals.action.sum() == 10_007 * 500  # one field bet settled per roll


def test_a_table_plays_on_until_its_bets_are_decided_so_none_is_dropped():
    """With one roll per table most pass bets are still open when the rolls run
    out; dropping them would leave only come-out decisions (8 wins to 4 losses:
    the "edge" printed was -37.5%). Played to the end, every table settles its
    bet and the estimate finds 7/495 inside its interval."""
    config = analysis_config()
    table = compile_table("craps", plan("craps", specs("pass"), config), config)
    totals = play(table, rolls=3000, seed=1, tables=3000)
    assert (totals.action > 0).all()
    assert totals.played_out > 0
    assert ratio_edge(totals.net[:, 0], totals.action[:, 0]).contains(F(7, 495))


def test_bets_that_are_never_all_settled_at_once_are_refused():
    """Playing on until no bet is open must end: a table whose open states only
    lead to open states (here 1 <-> 2, never back to the idle 0) is refused."""
    zeros = np.zeros((3, 2, 1), dtype=np.int64)
    looping = TransitionTable(next_state=np.array([[1, 1], [2, 2], [1, 2]]), net=zeros, action=zeros,
                              idle=np.array([True, False, False]), labels=("a", "b"))
    with pytest.raises(CompileError, match="some bet is always open"):
        _check_bets_all_settle(looping)
    _check_bets_all_settle(TransitionTable(next_state=np.array([[1, 1], [2, 2], [0, 2]]), net=zeros,
                                           action=zeros, idle=np.array([True, False, False]), labels=("a",)))


@pytest.mark.parametrize("bets", [["come", "odds:come"], ["dont_come", "odds:dont_come"],
                                  ["pass", "odds:pass", "come", "odds:come", "place:6", "dont_come", "odds:dont_come"]])
def test_odds_behind_come_bets_wait_until_the_come_bet_stands_on_its_number(bets):
    """A come bet in the come box has no number yet: its odds are offered once it moves to one."""
    report = simulate("craps", [parse_bet_spec(b) for b in bets], rolls=4000, seed=3)
    odds = [b for b in report.bets if b.label.startswith("odds")]
    assert odds and all(b.measured.action > 0 for b in odds)


def test_a_seed_gives_the_same_run_and_another_seed_another():
    one = simulate("bang", specs("field", "big6"), rolls=20_000, seed=1)
    again = simulate("bang", specs("field", "big6"), rolls=20_000, seed=1)
    other = simulate("bang", specs("field", "big6"), rolls=20_000, seed=2)
    assert one.total == again.total
    assert one.total != other.total


def test_ratio_edge_interval_from_independent_tables():
    rng = np.random.default_rng(0)
    # 400 tables of 1,000 even-money bets of 10 cents, won with probability 0.45: edge 0.1.
    action = np.full(400, 1000 * 10)
    net = rng.choice([10, -10], size=(400, 1000), p=[0.45, 0.55]).sum(axis=1)
    estimate = ratio_edge(net, action)
    assert estimate.contains(0.1)
    assert estimate.high - estimate.low == pytest.approx(2 * 1.96 * np.sqrt(0.99 / 400_000), rel=0.05)


@pytest.mark.parametrize("df, exact", [(1, 12.706), (4, 2.776), (5, 2.571), (6, 2.447), (10, 2.228), (31, 2.040),
                                      (100, 1.984), (4095, 1.961)])
def test_the_interval_uses_students_t_for_the_number_of_tables(df, exact):
    assert t_95(df) == pytest.approx(exact, abs=0.004)


def test_a_few_tables_give_a_wider_interval_than_the_normal_would():
    net, action = np.array([-40.0, -60.0, -55.0]), np.array([1000.0, 1000.0, 1000.0])
    estimate = ratio_edge(net, action)
    residual = net - net.sum() / action.sum() * action
    se = np.sqrt(3 / 2 * residual @ residual) / action.sum()
    assert estimate.high - estimate.edge == pytest.approx(4.303 * se, rel=1e-3)  # t with 2 degrees of freedom


@pytest.mark.parametrize("bets, message", [
    (["raffle:1"], "craps has no bet 'raffle'"),
    (["place"], "place needs a number"),
    (["odds"], "say which bet the odds back"),
    (["pass=1000"], "over the maximum"),
    (["pass", "pass"], "given twice"),
])
def test_bets_that_cannot_be_simulated_are_refused_with_the_reason(bets, message):
    with pytest.raises(CompileError, match=message):
        simulate("craps", specs(*bets), rolls=100, seed=1)


QUARTERS_TO_7 = {"payout_unit": 25, "limits": {"default": 700}}  # maximum lay on 4: $8.40, not in quarters


def test_odds_at_the_maximum_are_rounded_down_to_the_payout_unit():
    """Each point's maximum odds are rounded down to a stake the engine takes,
    so the lay is on at every point (odds refused on any point are an error)."""
    config = TableConfig.from_dict(QUARTERS_TO_7)
    report = simulate("craps", specs("dont_pass", "odds:dont_pass"), rolls=3000, seed=1, config=config)
    odds = report.bets[1]
    assert odds.measured.action > 0 and odds.measured.action % 25 == 0


@pytest.mark.parametrize("bets, message", [
    (["pass", "odds:pass=2000"], r"odds:pass refused on 4: .*over the maximum"),
    (["odds:come"], r"odds:come stands behind a come bet: request come too \(--bet come\)"),
])
def test_odds_that_would_silently_stay_off_are_refused_with_the_reason(bets, message):
    with pytest.raises(CompileError, match=message):
        simulate("craps", specs(*bets), rolls=100, seed=1)


def test_simulate_command_json(capsys):
    assert main(["simulate", "--game", "hazard", "--bet", "low", "--bet", "chuck:3=200",
                 "--rolls", "20000", "--seed", "4", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["rolls"] == 20_000 and report["game"] == "hazard"
    assert [b["bet"] for b in report["bets"]] == ["low", "chuck:3"]
    assert report["bets"][1]["amount"] == 200
    assert report["bets"][1]["action"] == 20_000 * 200
    low, high = report["total"]["ci95"]
    assert low <= report["total"]["edge"] <= high
    assert report["rolls_per_second"] > 0


@pytest.mark.parametrize("argv, message", [
    (["--tables", "5000"], "between 1 and 4096"),
    (["--tables", "300", "--rolls", "200"], "at most one table per roll"),
])
def test_simulate_refuses_a_table_count_it_cannot_use(argv, message, capsys):
    assert main(["simulate", "--bet", "pass", "--rolls", "10000", *argv]) == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize("argv, message", [
    (["--seed", "-1"], "must be at least 0"),
    (["--rolls", "1000000001"], "at most 1,000,000,000"),
])
def test_simulate_refuses_a_seed_or_roll_count_it_cannot_use(argv, message, capsys):
    with pytest.raises(SystemExit) as done:
        main(["simulate", "--bet", "pass", *argv])
    assert done.value.code == 2
    assert message in capsys.readouterr().err


def test_simulate_command_text_and_errors(capsys):
    assert main(["simulate", "--bet", "pass", "--bet", "place:6", "--rolls", "5000"]) == 0
    out = capsys.readouterr().out
    assert "place:6" in out and "rolls per second" in out and "95% interval" in out
    assert main(["simulate", "--bet", "place:7", "--rolls", "10"]) == 2
    assert "place needs a number" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["simulate", "--bet", "pass", "--rolls", "0"])


@pytest.mark.parametrize("command", ["simulate", "edges"])
def test_command_help(command, capsys):
    with pytest.raises(SystemExit) as done:
        main([command, "--help"])
    assert done.value.code == 0
    assert "--json" in capsys.readouterr().out


def _no_constants(name: str):
    raise AssertionError(f"{name} is not JSON")


def test_too_few_rolls_to_settle_anything_reports_no_edge_rather_than_nan(capsys):
    assert main(["simulate", "--bet", "pass", "--rolls", "1", "--json"]) == 0
    report = json.loads(capsys.readouterr().out, parse_constant=_no_constants)
    assert report["bets"][0]["action"] in (0, 500)
    assert report["bets"][0]["expected"] == pytest.approx(7 / 495)
