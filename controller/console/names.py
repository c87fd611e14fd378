"""Bets as a dealer calls them: ``come 6`` and ``come 6 odds``, ``ace-deuce``, ``pass line odds
on 4``; never the journal's identifiers (docs/events.md), which the pages do not show.

One place for the names, so the layout's spaces, the bets on it and the pay list say a bet alike.
"""
from __future__ import annotations

#: Each bet as said at the table; a bet not named here is said as its identifier with spaces.
SPOKEN = {
    "pass": "pass line", "dont_pass": "don't pass", "come": "come", "dont_come": "don't come",
    "big6": "big 6", "big8": "big 8", "any7": "any seven", "any_craps": "any craps", "ace_deuce": "ace-deuce",
    "any_raffle": "any raffle", "under7": "under 7", "over7": "over 7", "beat_dealer": "beat the dealer",
}
#: The flat bets odds may back, and of them those whose odds are laid.
BACKED = ("pass", "dont_pass", "come", "dont_come")
LAID = ("dont_pass", "dont_come")


def bet_name(bet: str, number: int | None = None, on: str | None = None) -> str:
    """A bet as a dealer calls it: ``place 6``, ``come 6`` (a come bet moved to the 6) and
    ``come 6 odds`` (its odds), ``pass line odds on 4``, ``don't pass lay odds on 4``, ``ace-deuce``,
    ``raffle of 3s``. Odds whose flat bet is unknown are ``odds on 6``."""
    if bet == "odds":
        odds = "lay odds" if on in LAID else "odds"
        if on in ("come", "dont_come"):
            return " ".join(str(part) for part in (SPOKEN[on], number, odds) if part is not None)
        base = f"{SPOKEN[on]} {odds}" if on in BACKED else odds
        return f"{base} on {number}" if number is not None else base
    name = SPOKEN.get(bet, bet.replace("_", " "))
    if number is None:
        return name
    return f"raffle of {number}s" if bet == "raffle" else f"{name} {number}"
