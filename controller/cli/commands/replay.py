"""`dicetable replay`: run game events (JSON lines) through the rules engine.

One event per input line in, one JSON line per effect out (``settle``,
``returned``) and a ``rejected`` line for every event the rules refuse or
cannot read; a bad line never stops the replay; blank lines and lines that
begin with ``#`` are skipped. Format: docs/events.md. ``--config`` reads only
the file's ``[rules]``.
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import IO, TYPE_CHECKING, Iterator

if TYPE_CHECKING:
    from controller.rules import TableConfig

NAME = "replay"
HELP = "replay game events (JSON lines) through the rules engine and print the settlements"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", required=True, choices=("craps", "hazard", "bang"))
    parser.add_argument("file", metavar="FILE", help="JSON-lines events, or - for standard input")
    parser.add_argument("--config", metavar="TOML",
                        help="the table's configuration file: replay with its [rules] limits and options "
                             "(default: the regulation's values)")


def replay_lines(game: str, lines: IO[str], config: "TableConfig | None" = None) -> Iterator[dict]:
    """Apply each line's event in turn from a fresh table; yield the output objects in order."""
    from controller.rules import BetRejected, MalformedEvent, apply, new_game, parse_event

    state = new_game(game, config)
    for raw in lines:
        line = raw.strip()
        if not line or line.startswith("#"):  # a comment, as `run --events` takes it
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            yield MalformedEvent(f"not JSON: {exc}").to_json(line)
            continue
        try:
            event = parse_event(data)
            step = apply(state, event)
        except BetRejected as rejection:
            yield rejection.to_json(data if isinstance(data, dict) else line)
            continue
        state = step.state
        for effect in step.effects:
            yield effect.to_json()


def run(args: argparse.Namespace) -> int:
    rules = None
    if args.config:
        from controller.config import ConfigError, load_rules

        try:
            rules = load_rules(args.config, args.game)
        except ConfigError as exc:
            print(f"dicetable replay: {exc}", file=sys.stderr)
            return 2
    if args.file == "-":
        source = sys.stdin
    else:
        try:
            source = open(args.file, encoding="utf-8")
        except OSError as exc:
            print(f"dicetable replay: cannot read {args.file}: {exc.strerror}", file=sys.stderr)
            return 2
    with source:
        for out in replay_lines(args.game, source, rules):
            sys.stdout.write(json.dumps(out, ensure_ascii=False) + "\n")
    return 0
