"""`dicetable edges`: the exact house edge of every bet, computed from the rules engine.

    dicetable edges --json                 # every game
    dicetable edges --game craps           # a readable table
    dicetable edges --config table.toml    # with the table's limits and layout options ([rules])

The numbers come from enumerating the dice through the engine (a Markov chain
for bets that last several rolls), not from a simulation; see docs/analysis.md.
"""
from __future__ import annotations

import argparse
import json
import sys

from controller.rules import GAMES

NAME = "edges"
HELP = "exact house edge of every bet, from the rules engine (Markov chain over the dice)"

_GAMES = tuple(GAMES)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", choices=_GAMES, help="one game only (default: all three)")
    parser.add_argument("--json", action="store_true",
                        help='JSON list of {"game", "bet", "number", "edge", "on", "push"}, exact fractions')
    parser.add_argument("--config", metavar="TOML",
                        help="table configuration file; its [rules] limits and layout options apply")


def run(args: argparse.Namespace) -> int:
    from controller.analysis.edges import EdgeError, house_edges

    try:
        config = _table_config(args.config)
    except (ValueError, OSError) as exc:  # the file given: a usage error, as in the other commands
        print(f"dicetable edges: {exc}", file=sys.stderr)
        return 2
    try:
        rows = house_edges([args.game] if args.game else _GAMES, config)
    except EdgeError as exc:  # a bet the analysis could not make or follow under these rules
        print(f"dicetable edges: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps([row.to_json() for row in rows], indent=1))
    else:
        print(_table(rows))
    return 0


def _table_config(path: str | None):
    if path is None:
        return None
    from controller.config import load

    return load(path).rules


def _table(rows) -> str:
    header = ("game", "bet", "number", "edge (exact)", "per bet made", "push", "per bet decided")
    lines = [header]
    for row in rows:
        number = "" if row.number is None else str(row.number)
        if row.on:
            number += f" on {row.on}"
        decided = row.edge / (1 - row.push) if row.push != 1 else row.edge
        lines.append((row.game, row.bet, number, str(row.edge), f"{float(row.edge):.4%}",
                      f"{float(row.push):.2%}" if row.push else "-", f"{float(decided):.4%}"))
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    right = {3, 4, 5, 6}
    out = []
    for k, line in enumerate(lines):
        cells = [cell.rjust(w) if i in right else cell.ljust(w) for i, (cell, w) in enumerate(zip(line, widths))]
        out.append("  ".join(cells).rstrip())
        if k == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)
