"""The bets a simulation keeps on the layout, as typed on the command line.

``KIND[:NUMBER][=CENTS]``, with the bet identifiers of the rules engine:
``pass``, ``place:6``, ``hard:8=500``, ``odds:pass``. Without ``=CENTS`` the
amount is left to the caller (the simulator uses the table maximum of that
bet, which is also the amount the regulation's payout tables pay in whole
dollars).
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class BetSpec:
    """One bet to keep in action: engine identifier, optional number (or target), optional amount."""

    bet: str
    number: int | str | None = None
    amount: int | None = None

    @property
    def label(self) -> str:
        """``place:6`` style name, as typed (without the amount)."""
        return self.bet if self.number is None else f"{self.bet}:{self.number}"


def parse_bet_spec(text: str) -> BetSpec:
    """Parse ``KIND[:NUMBER][=CENTS]``; raises ``ValueError`` with the offending text."""
    body, _, amount_text = text.strip().partition("=")
    bet, _, number_text = body.partition(":")
    if not bet or (":" in body and not number_text) or ("=" in text and not amount_text):
        raise ValueError(f"bad bet {text!r}: expected KIND[:NUMBER][=CENTS], e.g. place:6=600")
    number: int | str | None = None
    if number_text:
        number = int(number_text) if number_text.lstrip("-").isdigit() else number_text
    amount = None
    if amount_text:
        if not amount_text.isdigit() or int(amount_text) <= 0:
            raise ValueError(f"bad bet {text!r}: the amount is a positive whole number of cents")
        amount = int(amount_text)
    return BetSpec(bet, number, amount)
