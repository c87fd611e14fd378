"""`dicetable replay`: run game events (JSON lines) through the rules engine.

One event per input line in, one JSON line per effect out (``settle``,
``returned``) and a ``rejected`` line for every event the rules refuse or
cannot read; a bad line never stops the replay; blank lines and lines that
begin with ``#`` are skipped. Format: docs/events.md. ``--config`` reads only
the file's ``[rules]``.
"""
from __future__ import annotations

import argparse
import sys
from typing import IO, TYPE_CHECKING, Iterator

from controller.rules import GAMES

if TYPE_CHECKING:
    from controller.rules import TableConfig

NAME = "replay"
HELP = "replay game events (JSON lines) through the rules engine and print the settlements"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", required=True, choices=tuple(GAMES))
    parser.add_argument("file", metavar="FILE", help="JSON-lines events, or - for standard input")
    parser.add_argument("--config", metavar="TOML",
                        help="the table's configuration file: replay with its [rules] limits and options "
                             "(default: the regulation's values)")


def replay_lines(game: str, lines: IO[str], config: "TableConfig | None" = None) -> Iterator[dict]:
    """Apply each line's event in turn from a fresh table; yield the output objects in order.

    The lines are read as every JSON-lines input is (:func:`controller.jsonlines.read_lines`): a line
    that is not an event the journal could keep (not JSON, not an object, too deep, too long, a
    number that is not finite, half of a UTF-16 pair, bytes that are not UTF-8) gives a ``rejected``
    line with the reason, and the replay goes on."""
    from controller.jsonlines import read_lines
    from controller.rules import BetRejected, MalformedEvent, apply, new_game, parse_event

    state = new_game(game, config)
    for line in read_lines(lines):
        if line.refusal is not None:
            yield MalformedEvent(line.refusal.reason).to_json(line.refusal.fields())
            continue
        data = line.event
        try:
            event = parse_event(data)
            step = apply(state, event)
        except BetRejected as rejection:
            yield rejection.to_json(data)
            continue
        state = step.state
        for effect in step.effects:
            yield effect.to_json()


def run(args: argparse.Namespace) -> int:
    from controller.jsonlines import json_line, open_lines

    rules = None
    if args.config:
        from controller.config import ConfigError, load_rules

        try:
            rules = load_rules(args.config, args.game)
        except ConfigError as exc:
            print(f"dicetable replay: {exc}", file=sys.stderr)
            return 2
    try:
        source = open_lines(args.file)
    except OSError as exc:
        print(f"dicetable replay: cannot read {args.file}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    with source:
        for out in replay_lines(args.game, source, rules):
            sys.stdout.write(json_line(out) + "\n")
    return 0
