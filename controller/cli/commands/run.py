"""``dicetable run``: run a table.

Without ``--config``: the demo on embedded defaults -- a finite session of
every game on the stand-ins (generated scenes as camera, mock pins with a
simulated dealer pressing the real button code, the display stand-in on a
pseudo-terminal, the journal in ``./var/<game>/``), printing every roll, its
read and status, and the settlements; exits 0. This is ``make run``.

With ``--config FILE``: the configured table until it is stopped (the
systemd service), or, with ``--events FILE --exit-at-end``, until a
scripted stream of events is played.
"""
from __future__ import annotations

import argparse
import sys

NAME = "run"
HELP = "run the table (no --config: a demo session of every game on the stand-ins)"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", metavar="FILE", help="the table's TOML configuration (default: embedded demo)")
    parser.add_argument("--events", metavar="FILE",
                        help="table events as JSON lines (bets, buttons, reads; '-' for stdin), see docs/events.md")
    parser.add_argument("--exit-at-end", action="store_true", help="stop once every event of --events is applied")
    parser.add_argument("--resume", action="store_true",
                        help="skip as many --events lines as the journal holds inputs (continue a scripted "
                             "session after a stop; right when the stream is the table's only input)")
    parser.add_argument("--bets", metavar="FILE",
                        help="demo: extra bet events as JSON lines ('-' for stdin), each with an optional \"game\"; "
                             "placed before that game's first roll")
    parser.add_argument("--rolls", type=int, default=None, metavar="N", help="demo: rolls per game")
    parser.add_argument("--seed", type=int, default=7, help="demo: seed of the generated dice and players")
    parser.add_argument("--state-dir", metavar="DIR", help="demo: where the journals go (default ./var)")
    parser.add_argument("-v", "--verbose", action="store_true", help="log what the devices and links do")


def run(args: argparse.Namespace) -> int:
    import logging

    from controller.config import ConfigError, load

    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    try:
        config = load(args.config)
    except ConfigError as exc:
        print(f"dicetable run: configuration error\n{exc}", file=sys.stderr)
        return 2
    events = None
    if args.events:
        from controller.app import open_events

        events = open_events(args.events)
    if args.config is None and not args.events:
        from controller.demo import run_demo

        return run_demo(config, rolls=args.rolls, seed=args.seed, state_dir=args.state_dir, bets_file=args.bets)
    from dataclasses import replace

    from controller.journal import JournalError
    from controller.service import run_table

    if args.config is None:
        # Events without a configuration: the demo's stand-ins, with the reads coming in the stream.
        config = replace(config, camera={**config.camera, "source": "none"})

    from vision.sources import SourceError

    try:
        return run_table(config, events=events, resume=args.resume, exit_at_end=args.exit_at_end)
    except JournalError as exc:
        print(f"dicetable run: {exc}", file=sys.stderr)
        return 3
    except SourceError as exc:  # a recorded folder or video that is not there (live cameras are retried)
        print(f"dicetable run: {config.source}: camera: {exc}", file=sys.stderr)
        return 2
