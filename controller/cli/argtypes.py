"""Argument types shared by the commands: a bad number is refused by argparse, with the
usage line and exit 2, before a command starts work it could not finish."""
from __future__ import annotations

import argparse
from typing import Callable


def at_least(minimum: int) -> Callable[[str], int]:
    """An argparse ``type`` for a whole number of at least ``minimum`` (a count of rolls, tables
    or rows under 1 would do nothing and look like success; a seed under 0 is refused by numpy)."""

    def whole_number(text: str) -> int:
        value = int(text)
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {value}")
        return value

    whole_number.__name__ = "int"  # argparse names the type in its message: "invalid int value"
    return whole_number
