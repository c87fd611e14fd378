"""Money as a person reads it: :func:`dollars`.

Every message, command and report writes an amount the same way, whatever layer made it: the
rules engine's refusals, the console, the journal's recall and the pit's reports (which may not
import the rules engine). JSON keeps integer cents.
"""
from __future__ import annotations


def dollars(cents: int) -> str:
    """Cents as a dollar amount: ``$1.50``, ``$1,000.00``, ``-$3.00``."""
    sign = "-" if cents < 0 else ""
    return f"{sign}${abs(cents) // 100:,}.{abs(cents) % 100:02d}"
