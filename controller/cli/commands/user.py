"""``dicetable user add|remove|list``: who may log in to the console (and the floor page).

The users file is found from ``--config FILE`` (its ``[console] users``, by default ``users``
beside it) or named with ``--users FILE``; either may come before or after the action. The
password of ``add`` is asked twice on a terminal, or read as the first line of standard input
(``printf '%s\\n' "$PASSWORD" | dicetable user --users FILE add NAME --role pit``), never taken
on the command line, where ``ps`` and the shell's history would show it. Run it as root: a new
file is made mode 0640, owned by root and the service's group (``--group``, default ``dicetable``
when that group exists). The running table sees the change at the next request.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

NAME = "user"
HELP = "manage the console's users: add NAME --role dealer|pit, remove NAME, list"

_WHERE = argparse.ArgumentParser(add_help=False)
_WHERE.add_argument("--config", metavar="FILE", default=argparse.SUPPRESS,
                    help="the table's configuration: the users file is its [console] users (default: users beside it)")
_WHERE.add_argument("--users", metavar="FILE", default=argparse.SUPPRESS, help="the users file itself")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", metavar="FILE", help=argparse.SUPPRESS)
    parser.add_argument("--users", metavar="FILE", help=argparse.SUPPRESS)
    parser.epilog = "The location (--config FILE or --users FILE) may be given before or after the action."
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    add = actions.add_parser("add", parents=[_WHERE], help="add a user, or give one a new role and password "
                                                          "(the password is asked, or read from standard input)")
    add.add_argument("name", metavar="NAME")
    add.add_argument("--role", required=True, choices=("dealer", "pit"),
                     help="dealer: bets and presses at the table's console; pit: looks only")
    add.add_argument("--group", metavar="GROUP", default=None,
                     help="a new file's group, when root makes it (default: dicetable, where that group exists)")
    remove = actions.add_parser("remove", parents=[_WHERE], help="remove a user (their sessions end at once)")
    remove.add_argument("name", metavar="NAME")
    actions.add_parser("list", parents=[_WHERE], help="the users and their roles, one a line")


def _location(args: argparse.Namespace) -> Path:
    from controller.config import load_users_path

    if args.config and args.users:
        raise ValueError("give --config FILE or --users FILE, not both")
    if args.users:
        return Path(args.users)
    if args.config:
        return load_users_path(args.config)
    raise ValueError("where is the users file? give --config FILE (the users file beside it) or --users FILE")


def _read_password() -> str:
    """Asked twice on a terminal; otherwise the first line of standard input."""
    if sys.stdin.isatty():
        import getpass

        first = getpass.getpass("password: ")
        if getpass.getpass("again: ") != first:
            raise ValueError("the two passwords differ; nothing was changed")
        return first
    return sys.stdin.readline().rstrip("\r\n")


def _default_group() -> str | None:
    if os.geteuid() != 0:
        return None
    import grp

    try:
        grp.getgrnam("dicetable")
    except KeyError:
        return None
    return "dicetable"


def run(args: argparse.Namespace) -> int:
    from controller.config import ConfigError
    from controller.web.users import UsersError, add_user, read_users, remove_user

    try:
        path = _location(args)
        if args.action == "list":
            users = read_users(path)
            for user in sorted(users.values(), key=lambda u: u.name):
                print(f"{user.name} {user.role}")
            if not users:  # a mistyped path looks the same: say which file holds nobody
                print(f"dicetable user: no users in {path}: nobody can log in until one is added", file=sys.stderr)
            return 0
        if args.action == "remove":
            if not remove_user(path, args.name):
                print(f"dicetable user: no user {args.name} in {path}", file=sys.stderr)
                return 1
            print(f"removed {args.name} from {path}")
            return 0
        new = add_user(path, args.name, args.role, _read_password(), group=args.group or _default_group())
        print(f"{'added' if new else 'updated'} {args.name} ({args.role}) {'to' if new else 'in'} {path}")
        return 0
    except (ConfigError, UsersError, ValueError) as exc:
        print(f"dicetable user: {exc}", file=sys.stderr)
        return 2
