"""`dicetable simulate`: seeded random rolls with a set of bets, measured edge with its 95% interval.

    dicetable simulate --game craps --bet pass --bet place:6 --rolls 1000000 --seed 1
    dicetable simulate --game hazard --bet low --bet chuck:3=200 --json

Each ``--bet`` is ``KIND[:NUMBER][=CENTS]`` with the engine's bet identifiers
(``odds:pass``, ``odds:come``, ... for odds); without ``=CENTS`` the bet is
made at its table maximum. Bets are made again as they resolve. The rolls run
through a transition table compiled from the rules engine (docs/analysis.md).
"""
from __future__ import annotations

import argparse
import math
import sys

from controller.cli.argtypes import at_least
from controller.rules import GAMES

NAME = "simulate"
HELP = "play seeded random rolls with chosen bets: measured edge, confidence interval, rolls per second"

_GAMES = tuple(GAMES)
MAX_ROLLS = 1_000_000_000  # about ten minutes at the measured 1.7 million rolls per second


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", choices=_GAMES, default="craps", help="default: craps")
    parser.add_argument("--bet", action="append", required=True, metavar="KIND[:NUMBER][=CENTS]",
                        help="a bet to keep in action (repeatable), e.g. pass, place:6, hard:8=300, odds:pass")
    parser.add_argument("--rolls", type=_rolls, default=1_000_000,
                        help=f"number of rolls, at most {MAX_ROLLS:,} (default 1000000)")
    parser.add_argument("--seed", type=at_least(0), default=1, help="random seed, 0 or more (default 1)")
    parser.add_argument("--tables", type=at_least(1),
                        help="independent tables sharing the rolls, at most 4096 and at most --rolls "
                             "(default: about sqrt(rolls)/4, between 32 and 4096)")
    parser.add_argument("--config", metavar="TOML", help="table configuration file; its [rules] apply")
    parser.add_argument("--json", action="store_true", help="one JSON object instead of the table")


def _rolls(text: str) -> int:
    """A roll count from 1 to ``MAX_ROLLS``: a mistyped extra digit should fail now, not after an hour."""
    value = at_least(1)(text)
    if value > MAX_ROLLS:
        raise argparse.ArgumentTypeError(f"at most {MAX_ROLLS:,} (about ten minutes of rolling), got {value:,}")
    return value


def run(args: argparse.Namespace) -> int:
    from controller.analysis.betspec import parse_bet_spec
    from controller.analysis.simulate import simulate
    from controller.jsonlines import json_line

    try:
        specs = [parse_bet_spec(text) for text in args.bet]
        config = None
        if args.config:
            from controller.config import load

            config = load(args.config).rules
        report = simulate(args.game, specs, rolls=args.rolls, seed=args.seed, config=config, tables=args.tables)
    except (ValueError, OSError) as exc:
        print(f"dicetable simulate: {exc}", file=sys.stderr)
        return 2  # the bets, the numbers or the configuration given: a usage error
    if args.json:
        print(json_line(report.to_json()))
    else:
        print(_text(report))
    return 0


def _pct(value: float | None) -> str:
    """A percentage, or "-" when there is none (no bet settled yet: nothing to measure)."""
    return "-" if value is None or not math.isfinite(value) else f"{value:.3%}"


def _text(report) -> str:
    from messages.money import dollars

    played_out = f" (+{report.played_out:,} played on to settle the bets still open)" if report.played_out else ""
    lines = [
        f"{report.game}: {report.rolls:,} rolls{played_out}, seed {report.seed}, {report.tables} tables; "
        f"engine compiled to {report.states} states in {report.compile_seconds:.2f} s",
    ]
    rows = [("bet", "amount", "action", "net", "edge", "95% interval", "expected")]
    for bet in report.bets:
        m = bet.measured
        amount = "max odds" if bet.amount is None else dollars(bet.amount)
        rows.append((bet.label, amount, dollars(m.action), dollars(m.net), _pct(m.edge),
                     f"[{_pct(m.low)}, {_pct(m.high)}]", _pct(bet.expected)))
    t = report.total
    rows.append(("all bets", "", dollars(t.action), dollars(t.net), _pct(t.edge),
                 f"[{_pct(t.low)}, {_pct(t.high)}]", _pct(report.expected_total)))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for k, row in enumerate(rows):
        lines.append("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))))
        if k == 0:
            lines.append("  ".join("-" * w for w in widths))
    lines.append(f"rolls per second: {report.rolls_per_second:,.0f} "
                 f"(compiling {report.compile_seconds:.2f} s + rolling {report.roll_seconds:.2f} s)")
    lines.append("edge: the house's share of the stakes of the bets settled (pushes count as bets made); "
                 "expected: the long-run edge of the same re-betting, exact from the engine's chain")
    return "\n".join(lines)
