"""Rolls per second: `dicetable simulate` against crapssim, same bets, same number of rolls.

    .venv/bin/pip install crapssim          # or: pip install -e '.[bench]'
    .venv/bin/python bench/simulate_vs_crapssim.py --bet pass --bet place:6 --rolls 200000

Both sides are timed in this process from the start of their work to the last
roll: for dicetable that includes compiling the rules engine into its
transition table, for crapssim building the table and its player. crapssim
plays one table with a strategy that keeps each bet up (re-betting as bets
resolve), the way `dicetable simulate` does. Payouts differ where crapssim
follows Las Vegas rules (don't pass bars the 12, the field pays 2 to 1 on 2
and 12, ace-deuce pays 15 to 1): the comparison is of speed; the net results
printed beside it only show that both sides really played.

Bets understood on both sides: pass, dont_pass, come, dont_come, place:N,
field, big6, big8, any7, any_craps, hard:N, aces, ace_deuce, eleven, twelve.
"""
from __future__ import annotations

import argparse
import json
import sys
import time

from controller.analysis.betspec import BetSpec, parse_bet_spec
from controller.cli.argtypes import at_least


CRAPSSIM_BETS = ("pass", "dont_pass", "come", "dont_come", "place", "field", "big6", "big8", "any7",
                 "any_craps", "hard", "aces", "ace_deuce", "eleven", "twelve")


def crapssim_strategy(spec: BetSpec, dollars: float):
    """The crapssim strategy that keeps ``spec`` on the layout (raises KeyError when it has none)."""
    from crapssim import bet as cb
    from crapssim import strategy as cs

    simple = {
        "field": cb.Field, "big6": cb.Big6, "big8": cb.Big8, "any7": cb.Any7,
        "any_craps": cb.AnyCraps, "aces": cb.Two, "ace_deuce": cb.Three,
        "eleven": cb.Yo, "twelve": cb.Boxcars,
    }
    if spec.bet == "pass":
        return cs.BetPassLine(dollars)
    if spec.bet == "dont_pass":
        return cs.BetDontPass(dollars)
    if spec.bet == "come":
        return cs.AddIfPointOn(cb.Come(dollars))
    if spec.bet == "dont_come":
        return cs.AddIfPointOn(cb.DontCome(dollars))
    if spec.bet in ("place", "hard"):
        assert spec.number is not None  # the catalogue gives both a number
        if spec.bet == "place":
            return cs.BetPlace({int(spec.number): dollars}, skip_point=True)
        return cs.AddIfNotBet(cb.HardWay(int(spec.number), dollars))
    return cs.AddIfNotBet(simple[spec.bet](dollars))


def run_crapssim(specs: list[BetSpec], amounts: dict[str, int], rolls: int, seed: int) -> dict:
    """Play ``rolls`` rolls of crapssim with the same bets; returns rolls/s and the bankroll change."""
    from importlib.metadata import version

    from crapssim import strategy as cs
    from crapssim.table import Table

    started = time.perf_counter()
    table = Table(seed=seed)
    strategies = [crapssim_strategy(s, amounts[s.label] / 100) for s in specs]
    bankroll = 1e12
    table.add_player(bankroll=bankroll, strategy=cs.AggregateStrategy(*strategies))
    table.run(max_rolls=rolls, verbose=False)
    seconds = time.perf_counter() - started
    return {
        "version": version("crapssim"),
        "rolls": table.dice.n_rolls,
        "seconds": seconds,
        "rolls_per_second": table.dice.n_rolls / seconds,
        "net_dollars": table.players[0].total_player_cash - bankroll,
    }


def run_dicetable(specs: list[BetSpec], rolls: int, seed: int) -> dict:
    """`dicetable simulate` on the same bets, through the same function the command calls."""
    from controller.analysis.simulate import simulate

    started = time.perf_counter()
    report = simulate("craps", specs, rolls=rolls, seed=seed)
    seconds = time.perf_counter() - started
    return {
        "rolls": report.rolls,
        "played_out": report.played_out,  # rolls beyond `rolls` that settled the bets still open
        "seconds": seconds,
        "rolls_per_second": (report.rolls + report.played_out) / seconds,
        "compile_seconds": report.compile_seconds,
        "edge": report.total.edge,
        "net_dollars": report.total.net / 100,
        "amounts": {b.label: b.amount for b in report.bets},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bet", action="append", default=[], help="KIND[:NUMBER] (repeatable); default pass and place:6")
    parser.add_argument("--rolls", type=at_least(1), default=200_000, help="rolls on each side (default 200000)")
    parser.add_argument("--seed", type=at_least(0), default=1)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    try:
        specs = [parse_bet_spec(b) for b in (args.bet or ["pass", "place:6"])]
    except ValueError as exc:
        print(exc, file=sys.stderr)
        return 2
    unknown = [s.label for s in specs if s.bet not in CRAPSSIM_BETS]
    if unknown:
        print(f"no crapssim counterpart for: {', '.join(unknown)}", file=sys.stderr)
        return 2
    try:  # before crapssim: it checks each bet (a number, a stake within the limits) and says what is wrong
        ours = run_dicetable(specs, args.rolls, args.seed)
    except ValueError as exc:
        print(exc, file=sys.stderr)
        return 2
    try:
        import crapssim  # noqa: F401
    except ImportError:
        print("crapssim is not installed: .venv/bin/pip install crapssim", file=sys.stderr)
        return 2
    theirs = run_crapssim(specs, ours["amounts"], args.rolls, args.seed)
    ratio = ours["rolls_per_second"] / theirs["rolls_per_second"]
    result = {"bets": [s.label for s in specs], "rolls": args.rolls, "dicetable": ours,
              "crapssim": theirs, "ratio": ratio}
    if args.json:
        print(json.dumps(result))
    else:
        print(f"bets: {' '.join(result['bets'])}   rolls: {args.rolls:,} on each side")
        print(f"dicetable simulate: {ours['rolls_per_second']:>14,.0f} rolls/s  ({ours['seconds']:.2f} s, "
              f"of which compiling the engine {ours['compile_seconds']:.2f} s; player net ${ours['net_dollars']:,.0f})")
        print(f"crapssim {theirs['version']}:     {theirs['rolls_per_second']:>14,.0f} rolls/s  ({theirs['seconds']:.2f} s; "
              f"player net ${theirs['net_dollars']:,.0f})")
        print(f"ratio: {ratio:,.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
