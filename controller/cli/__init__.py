"""The `dicetable` command.

Each subcommand is one module in :mod:`controller.cli.commands` and is found by
discovery, so adding a command never means editing a central list. A command
module defines:

- ``NAME``: the subcommand's name as typed (e.g. ``"display-sim"``),
- ``HELP``: one line for ``dicetable --help``,
- ``configure(parser)``: adds its arguments to an ``argparse`` parser,
- ``run(args) -> int``: does the work and returns the exit status.

Command modules import their heavy dependencies (OpenCV, serial, SQLite
wiring) inside ``run`` so that ``dicetable --help`` stays fast and works
even where an optional part is broken.
"""
from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from types import ModuleType
from typing import Sequence

from controller.cli import commands as _commands_pkg


def _command_modules() -> list[ModuleType]:
    modules = []
    for info in pkgutil.iter_modules(_commands_pkg.__path__):
        if info.name.startswith("_"):
            continue
        modules.append(importlib.import_module(f"{_commands_pkg.__name__}.{info.name}"))
    return sorted(modules, key=lambda m: m.NAME)


def _version() -> str:
    """The installed distribution's version (pyproject.toml), or ``unknown`` run from a tree that
    was never installed."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("dicetable")
    except PackageNotFoundError:
        return "unknown"


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser, with one subparser per discovered command."""
    parser = argparse.ArgumentParser(
        prog="dicetable",
        description="Run and audit a casino dice table (Craps, Hazard, Bang) from a Raspberry Pi.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in _command_modules():
        cmd = sub.add_parser(module.NAME, help=module.HELP, description=module.HELP)
        module.configure(cmd)
        cmd.set_defaults(_run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the process exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "_run", None):
        parser.print_help()
        return 2
    try:
        return int(args._run(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # `dicetable ... | head` must not end with a traceback.
        sys.stderr.close()
        return 0


if __name__ == "__main__":  # pragma: no cover - `python -m controller.cli`
    sys.exit(main())
