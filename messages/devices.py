"""The messages between the table and its devices: the dealer's ``ButtonEvent`` in, ``LightsState`` out.

They say what the game flow needs and decides, and they sit below both: the table
(``controller.table``) makes and reads them, the devices in ``hardware.gpio`` consume them (the
buttons turn presses into ``ButtonEvent``, the lamps show a ``LightsState``). So nothing here knows
a pin, importing the table loads no GPIO library, and the devices import nothing of the controller.

Values are lower-case strings so they can be journaled and logged as they are.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class ButtonEvent(StrEnum):
    """What the dealer asked for; the table decides whether it is allowed at that moment."""

    LOCK = "lock"  # lock bets / roll (in manual entry: next value of the current die)
    CONFIRM = "confirm"  # accept the read (in manual entry: accept the current die)
    VOID = "void"  # void the roll (in manual entry: cancel the entry)
    NEXT_SHOOTER = "next_shooter"  # the dice pass to the next shooter
    MANUAL = "manual"  # CONFIRM held: enter the dice by hand
    UNCLEAR = "unclear"  # CONFIRM held too long for a push, let go before a hold: refused by the table


@dataclass(frozen=True)
class LightsState:
    """Which bet-lock lamps should be lit (all off by default).

    ``no_more_bets`` is "NO MORE BETS" for the whole table: Craps and Hazard use it alone, and at
    Bang it is lit when both sections are locked. ``bang_inside`` / ``bang_outside`` are Bang's two
    betting sections, which lock separately (§4620.15: outside bets only before the dealer's roll,
    inside bets again after it). The ``craps``/``hazard``/``bang`` constructors say which lamp
    belongs to which game.
    """

    no_more_bets: bool = False
    bang_inside: bool = False
    bang_outside: bool = False

    @classmethod
    def craps(cls, bets_locked: bool) -> LightsState:
        return cls(no_more_bets=bets_locked)

    @classmethod
    def hazard(cls, bets_locked: bool) -> LightsState:
        return cls(no_more_bets=bets_locked)

    @classmethod
    def bang(cls, inside_locked: bool, outside_locked: bool) -> LightsState:
        return cls(
            no_more_bets=inside_locked and outside_locked,
            bang_inside=inside_locked,
            bang_outside=outside_locked,
        )
