"""Checks and bookkeeping every game shares: validating a bet event against
the catalogue and the limits, taking a bet down, and turning a decided bet
into a :class:`Settlement`."""
from __future__ import annotations

from typing import Literal

from controller.rules.config import TableConfig
from controller.rules.dice import is_face, is_whole
from controller.rules.events import Bet, Remove
from controller.rules.kinds import BetKind, kind_of
from controller.rules.layout import Layout, Wager, check_stake, find, put, without
from controller.rules.money import Payout
from messages.money import dollars
from controller.rules.records import BetRejected, Returned, Settlement

SECTION = {"craps": "§4620.3", "hazard": "§4620.12", "bang": "§4620.15"}
# "Any number can play, provided there is room at the table."
SEATS_RULE = {"craps": "§4620.3(b)(1)", "hazard": "§4620.12(b)", "bang": "§4620.15(b)"}

# A decided bet: a Payout when it wins, or "lose" / "push". None: not decided.
Outcome = Payout | Literal["lose", "push"] | None


def bet_kind(game: str, config: TableConfig, event: Bet | Remove) -> BetKind:
    """The catalogue entry of a bet or remove event's space, refusing unknown bets, numbers and seats.

    ``on`` (which flat bet an odds bet backs) is refused on every other bet, so
    a mistyped event is named rather than silently taken for another one.
    """
    seat, bet, number = event.seat, event.bet, event.number
    kind = kind_of(game, bet)
    if kind is None:
        raise BetRejected(f"{game} has no bet {bet!r}", SECTION[game])
    if kind.numbers == (None,):
        if number is not None:
            raise BetRejected(f"{bet} takes no number (got {number})", kind.rule)
    elif not is_whole(number) or number not in kind.numbers:
        raise BetRejected(
            f"{bet} needs a number among {', '.join(map(str, kind.numbers))} (got {number})", kind.rule)
    if seat not in config.seats:
        raise BetRejected(f"seat {seat!r} is not at this table ({', '.join(config.seats)})", SEATS_RULE[game])
    if event.on is not None and bet != "odds":
        raise BetRejected("\"on\" only says which bet odds back", kind.rule)
    return kind


def check_amount(amount: int, config: TableConfig, what: str, rule: str) -> None:
    """Refuse a stake that is not a positive whole number of the table's ``payout_unit``.

    Wins are rounded down to that unit, so a stake off the unit would be paid
    short even at even money ($5.10 in quarters wins $5.00); chips come in the
    unit anyway, so such a stake is a mistyped bet, not one to settle.
    """
    if not is_whole(amount) or amount <= 0:
        raise BetRejected(f"{what}: the amount must be a positive whole number of cents, got {amount!r}", rule)
    if amount % config.payout_unit:
        raise BetRejected(f"{what}: {dollars(amount)} is not a multiple of this table's payout unit of "
                          f"{dollars(config.payout_unit)}", rule)


def add_stake(layout: Layout, config: TableConfig, event: Bet, kind: BetKind) -> Layout:
    """Put the event's stake on its space (adding to a stake already there), within the limits."""
    check_amount(event.amount, config, event.bet, kind.rule)
    there = find(layout, event.seat, event.bet, event.number)
    total = event.amount + (there.amount if there else 0)
    check_stake(total, config.min_bet, config.maximum(event.bet, event.number), _what(event.bet, event.number), kind.max_rule)
    return put(layout, Wager(event.seat, event.bet, event.number, total, there.odds if there else 0))


def take_down(layout: Layout, event: Remove, kind: BetKind) -> tuple[Layout, Returned]:
    """Remove a seat's whole bet from its space and hand the stake back."""
    there = find(layout, event.seat, event.bet, event.number)
    if there is None:
        raise BetRejected(f"seat {event.seat} has no {_what(event.bet, event.number)} to take down", kind.rule)
    return without(layout, there), Returned(there.seat, there.bet, there.number, there.amount)


def check_dice(dice: tuple[int, ...], count: int, rule: str) -> None:
    """Refuse a roll with the wrong number of dice or a face that is not 1 to 6."""
    if len(dice) != count:
        raise BetRejected(f"this game throws {count} dice, the roll has {len(dice)}", rule)
    if not all(is_face(d) for d in dice):
        raise BetRejected(f"a die shows 1 to 6, the roll has {list(dice)}", rule)


def settle(seat: str, bet: str, number: int | None, amount: int, outcome: Outcome, unit: int) -> Settlement:
    """The settlement record of a decided bet (``outcome`` must not be None)."""
    if outcome == "lose":
        return Settlement(seat, bet, number, amount, "lose", 0)
    if outcome == "push":
        return Settlement(seat, bet, number, amount, "push", amount)
    assert isinstance(outcome, Payout)
    return Settlement(seat, bet, number, amount, "win", outcome.paid(amount, unit))


def _what(bet: str, number: int | None) -> str:
    return bet if number is None else f"{bet} {number}"
