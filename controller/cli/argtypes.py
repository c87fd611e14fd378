"""Argument types shared by the commands: a bad number is refused by argparse, with the
usage line and exit 2, before a command starts work it could not finish."""
from __future__ import annotations

import argparse
from datetime import datetime
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


def positive_number(text: str) -> float:
    """An argparse ``type`` for a finite number above 0 (a die's size in pixels: 0, a negative
    or ``nan`` would turn every read into a ``no_read`` that looks like the reader's failure)."""
    value = float(text)
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a number above 0, got {text}")
    return value


positive_number.__name__ = "number"


def iso_time(text: str) -> datetime:
    """An argparse ``type`` for a time in ISO 8601 (``2026-12-01T18:00``, ``...Z``, ``...+01:00``);
    without a zone it is UTC, as the journal's times are."""
    from controller.pit import parse_time

    try:
        return parse_time(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an ISO 8601 time such as 2026-12-01T18:00Z: {text!r}") from None


iso_time.__name__ = "time"
