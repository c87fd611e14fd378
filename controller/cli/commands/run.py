"""``dicetable run``: run a table.

Without ``--config``: the demo on embedded defaults -- a finite session of
every game on the stand-ins (generated scenes as camera, mock pins with a
simulated dealer pressing the real button code, the display stand-in on a
pseudo-terminal, the journal in ``./var/<game>/``), printing every roll, its
read and status, and the settlements; exits 0. This is ``make run``. The
demo serves the console on http://127.0.0.1:8080/ while it plays (logins
``dealer``/``dealer`` and ``pit``/``pit``, said on standard error);
``--keep-open`` keeps one game's table and console open afterwards.

With ``--config FILE``: the configured table until it is stopped (the
systemd service), or, with ``--events FILE --exit-at-end``, until a
scripted stream of events is played; its console listens where
``[console] listen`` says, or ``--console HOST:PORT``.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from controller.cli.argtypes import at_least
from controller.rules import GAMES

if TYPE_CHECKING:
    from controller.config import Config

NAME = "run"
HELP = "run the table (no --config: a demo session of every game on the stand-ins)"


def console_address(text: str) -> Any:
    """``--console``: ``off``, or HOST:PORT as a :class:`~controller.web.serve.Listen`."""
    from controller.web.serve import parse_listen

    if text == "off":
        return OFF
    try:
        return parse_listen(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{exc}, or off") from None


#: ``--console off``.
OFF = "off"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", metavar="FILE", help="the table's TOML configuration (default: embedded demo)")
    parser.add_argument("--events", metavar="FILE",
                        help="table events as JSON lines (bets, buttons, reads; '-' for stdin), see docs/events.md")
    parser.add_argument("--exit-at-end", action="store_true", help="stop once every event of --events is applied")
    parser.add_argument("--resume", action="store_true",
                        help="skip as many --events lines as the journal holds inputs from a stream (continue "
                             "a scripted session after a stop, whatever the buttons, camera and cage added)")
    parser.add_argument("--bets", metavar="FILE",
                        help="demo: extra bet events as JSON lines ('-' for stdin), each with an optional \"game\"; "
                             "placed before that game's first roll")
    parser.add_argument("--rolls", type=at_least(1), default=None, metavar="N", help="demo: rolls per game")
    parser.add_argument("--seed", type=int, default=None, help="demo: seed of the generated dice and players (default 7)")
    parser.add_argument("--state-dir", metavar="DIR",
                        help="without --config: where the journals go (default ./var); with --config the "
                             "file's table.state_dir says it")
    parser.add_argument("--check", action="store_true",
                        help="with --config: check the file, its calibration and the journal it would replay "
                             "(game, rules, hash chain), and log in to the floor's broker, then exit without "
                             "opening a device (2: refused; 1: the floor's broker cannot be reached)")
    parser.add_argument("--console", type=console_address, metavar="HOST:PORT|off",
                        help="where the web console listens (the demo: 127.0.0.1:8080; a configured table: its "
                             "[console] listen, or nowhere), or off")
    parser.add_argument("--keep-open", action="store_true",
                        help="demo: play one game's demo, then keep its table and console open until interrupted "
                             "(a LOCK throws generated dice)")
    parser.add_argument("--game", choices=tuple(GAMES),
                        help="demo: play only this game (with --keep-open: the game kept open, default craps)")
    parser.add_argument("--floor", metavar="URL",
                        help="demo: publish each game's journal to this MQTT broker (mqtt://HOST:PORT or mqtts://, "
                             "with USER:PASSWORD@ if it asks) as tables demo-craps, demo-hazard and demo-bang "
                             "(docs/floor.md); a configured table names its broker in [floor]")
    parser.add_argument("-v", "--verbose", action="store_true", help="log what the devices and links do")


def _misused_option(args: argparse.Namespace) -> str | None:
    """What is wrong with options that would do nothing here, or None.

    An option that is silently ignored makes the operator believe it took
    effect (a journal written where it was not expected, say), so it is refused.
    ``--state-dir`` with ``--config`` would contradict the file's state_dir,
    the same rule as ``dicetable journal``."""
    if args.config and args.state_dir:
        return "--state-dir and --config: the configuration's table.state_dir says where the journal goes"
    if args.check:
        used = [name for name, value in (("--events", args.events), ("--exit-at-end", args.exit_at_end),
                                         ("--resume", args.resume), ("--console", args.console)) if value]
        if not args.config or used:
            return "--check: only with --config FILE, and alone (it runs nothing)"
    if args.resume and not args.events:
        return ("--resume: only with --events (a table always recovers from its journal; --resume skips "
                "the lines of --events the journal already holds)")
    if args.config or args.events:
        used = [name for name, value in (("--rolls", args.rolls), ("--seed", args.seed), ("--bets", args.bets),
                                         ("--game", args.game), ("--keep-open", args.keep_open or None),
                                         ("--floor", args.floor)) if value is not None]
        if used:
            return f"{', '.join(used)}: only for the demo (no --config, no --events)"
    return None


def _missing_file(args: argparse.Namespace) -> str | None:
    """The input file given that is not there or is a directory, named, or None (instead of a
    traceback later). A named pipe, a device or a shell's ``<(...)`` is a stream to read, not refused."""
    for option, path in (("--events", args.events), ("--bets", args.bets)):
        if not path or path == "-":
            continue
        if not Path(path).exists():
            return f"{option} {path}: no such file"
        if Path(path).is_dir():
            return f"{option} {path}: is a directory"
    return None


def _unusable_state_dir(args: argparse.Namespace) -> str | None:
    """``--state-dir`` named as the system will not take it (a part over 255 bytes, a file on the
    way), or None: said now, not as a traceback at the first journal write."""
    from controller.config import unusable_path

    problem = unusable_path(Path(args.state_dir)) if args.state_dir else None
    return f"--state-dir {args.state_dir} {problem}" if problem else None


def _refused_at_start(config: Config) -> bool:
    """Print what keeps the table from starting that no restart mends
    (:func:`controller.config.startup_problems`); ``run`` and ``--check`` both ask, so they agree."""
    from controller.config import startup_problems

    problems = startup_problems(config)
    if problems:
        print("dicetable run: " + "\n".join(f"{config.source}: {p}" for p in problems), file=sys.stderr)
    return bool(problems)


def _check(config: Config) -> int:
    """``--check``: what ``dicetable run --config FILE`` would refuse before it opens a device (2),
    then whether the floor's broker takes the table's login (1 when not: :func:`_check_floor`).

    The file and its calibration are already loaded. The journal is opened read-only and asked
    what recovery asks (an intact chain, this game, these rules), so an operator can edit the
    file beside the running table and learn whether the restart will come up. The devices are
    not opened: the running table holds them (``wiring_check`` tries the GPIO lines)."""
    from controller.config import device_warnings, rules_warnings
    from controller.journal import Journal, JournalError
    from controller.journal.paths import JOURNAL_FILE, unwritable
    from controller.table.journaled import fitting_rows

    if _refused_at_start(config):
        return 2

    path = config.state_dir / JOURNAL_FILE
    try:
        wal = path.with_name(path.name + "-wal")
        if path.exists() and path.stat().st_size == 0 and not wal.exists():
            journal_line = f"an empty journal file: the table starts one at {path}"
        elif path.exists() or (wal.exists() and wal.stat().st_size):  # rows in a -wal alone: the start refuses
            with Journal.open(config.state_dir, readonly=True) as journal:
                rows = fitting_rows(journal, config.game, config.rules)
            journal_line = f"journal {path}: {rows} row{'s' if rows != 1 else ''}, chain intact, a {config.game} table under these rules"
        else:
            journal_line = f"no journal yet: the table starts one at {path}"
        blocked = unwritable(path)
        if blocked:
            raise JournalError(f"{blocked} is not writable by this user: the table could not write its journal there")
    except JournalError as exc:
        print(f"dicetable run: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # a state folder this user may not enter (run it as the service's user)
        print(f"dicetable run: cannot read the journal {path}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    from controller.camera import uncalibrated_warning
    from controller.config import console_warnings

    warnings = [w for w in (uncalibrated_warning(config), *rules_warnings(config), *device_warnings(config),
                            *console_warnings(config)) if w]
    print(f"{config.source}: configuration ok, {config.game} table\n{journal_line}\n"
          + "".join(f"warning: {w}\n" for w in warnings) + "devices not opened (a running table holds them)")
    return _check_floor(config)


def _check_floor(config: Config) -> int:
    """With ``[floor] broker``: connect and log in to the broker within 10 s, as another client than
    the running table (whose session it would take over). 0 when it answers yes; 1 with one sentence
    when it cannot be reached: the table would run all the same, its rows waiting in the journal."""
    if config.floor is None:
        return 0
    from controller.floor.broker import probe

    link = config.floor
    problem = probe(link.broker, f"dicetable-check-{link.table_id}")
    if problem:
        print(f"dicetable run: the floor's broker {link.broker.url} cannot be reached: {problem}", file=sys.stderr)
        return 1
    print(f"floor: the broker {link.broker.url} takes table {link.table_id}'s login")
    return 0


def run(args: argparse.Namespace) -> int:
    import logging

    from controller.config import ConfigError, load

    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    problem = _misused_option(args) or _missing_file(args) or _unusable_state_dir(args)
    if problem:
        print(f"dicetable run: {problem}", file=sys.stderr)
        return 2
    try:
        config = load(args.config)
    except ConfigError as exc:
        print(f"dicetable run: configuration error\n{exc}", file=sys.stderr)
        return 2
    if args.check:
        return _check(config)
    events = None
    if args.events:
        from controller.jsonlines import open_lines

        events = open_lines(args.events)
    if args.config is None and not args.events:
        from controller.console.start import DEMO_LISTEN
        from controller.demo import run_demo
        from controller.floor.broker import BrokerError, parse_broker

        try:
            floor = parse_broker(args.floor) if args.floor else None
        except BrokerError as exc:
            print(f"dicetable run: --floor: {exc}", file=sys.stderr)
            return 2
        games = (args.game,) if args.game else ("craps",) if args.keep_open else tuple(GAMES)
        listen = None if args.console == OFF else args.console or DEMO_LISTEN
        return run_demo(config, rolls=args.rolls, seed=7 if args.seed is None else args.seed,
                        state_dir=args.state_dir, bets_file=args.bets, floor=floor, console=listen, games=games,
                        keep_open=args.keep_open)
    from dataclasses import replace

    from controller.journal import JournalError
    from controller.service import run_table
    from controller.table import JournalMismatch

    if args.config is None:
        # Events without a configuration: the demo's stand-ins, with the reads coming in the stream.
        config = replace(config, camera=replace(config.camera, source="none"))
        if args.state_dir:
            config = replace(config, state_dir=Path(args.state_dir))

    from controller.devices import GpioUnavailable
    from vision.sources import SourceError

    if _refused_at_start(config):  # not restarted (exit 2): installing or a new state_dir is needed first
        return 2
    if args.console is not None:
        try:
            config = replace(config, console=config.console.listening_on(None if args.console == OFF else args.console))
        except ValueError as exc:  # off loopback without TLS
            print(f"dicetable run: --console {args.console}: {exc}", file=sys.stderr)
            return 2

    try:
        return run_table(config, events=events, resume=args.resume, exit_at_end=args.exit_at_end)
    except GpioUnavailable as exc:  # not restarted (exit 2): installing or wiring is needed first
        print(f"dicetable run: {config.source}: {exc}", file=sys.stderr)
        return 2
    except JournalMismatch as exc:  # not restarted (exit 2): the journal wants archiving, or the file mending
        print(f"dicetable run: {exc}", file=sys.stderr)
        return 2
    except JournalError as exc:
        print(f"dicetable run: {exc}", file=sys.stderr)
        return 3
    except SourceError as exc:  # a recorded folder or video that is not there (live cameras are retried)
        print(f"dicetable run: {config.source}: camera: {exc}", file=sys.stderr)
        return 2
