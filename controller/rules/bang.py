"""Bang, 9 NYCRR §4620.15: the dealer rolls a point, then one player rolls
for the inside bets and against the dealer's point.

A game has two rolls, and the state tells them apart (``dealer_point`` is
None until the dealer has rolled):

1. betting open to all bets; the dealer's roll sets the dealer's point and
   settles the inside bets (§4620.15(c)(3)-(4));
2. inside bets only; the shooter's roll settles the inside bets and every
   Beat the Dealer Hi Dice bet (§4620.15(c)(5)-(6)); the dice then pass to the
   left of that shooter for the next game (§4620.15(c)(8)).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from controller.rules.common import Outcome, add_stake, bet_kind, check_dice, settle, take_down
from controller.rules.config import TableConfig
from controller.rules.dice import total
from controller.rules.events import Bet, Event, NextShooter, Remove, Roll
from controller.rules.layout import Layout
from controller.rules.money import EVEN_MONEY, to_one
from controller.rules.records import BetRejected, Effect

GAME = "bang"
DICE = 2  # §4620.15(a)(2)
OUTSIDE = ("beat_dealer",)
FIELD_NUMBERS = (2, 3, 4, 9, 10, 11, 12)


@dataclass(frozen=True, slots=True)
class BangState:
    """A Bang table between rolls: ``dealer_point`` None means the dealer rolls next."""

    config: TableConfig
    shooter: str
    layout: Layout = ()
    dealer_point: int | None = None
    game: str = GAME

    def with_layout(self, layout: Layout) -> "BangState":
        return BangState(self.config, self.shooter, layout, self.dealer_point)

    @property
    def roller(self) -> str:
        """Whose roll comes next: ``"dealer"`` or ``"shooter"``."""
        return "dealer" if self.dealer_point is None else "shooter"


def new(config: TableConfig) -> BangState:
    # §4620.15(c)(5): the first bettor on the dealer's left shoots first.
    return BangState(config=config, shooter=config.seats[0])


def outcome(bet: str, roll_total: int, dealer_point: int | None) -> Outcome:
    """How one roll decides one Bang bet (None: it stays up).

    ``dealer_point`` is the dealer's point when this is the shooter's roll,
    None when it is the dealer's roll (which never decides beat_dealer).
    """
    t = roll_total
    if bet == "field":
        return EVEN_MONEY if t in FIELD_NUMBERS else "lose"  # §4620.15(d)(2)
    if bet == "under7":
        return EVEN_MONEY if t <= 6 else "lose"  # §4620.15(d)(3)
    if bet == "any7":
        return to_one(4) if t == 7 else "lose"  # §4620.15(d)(4)
    if bet == "over7":
        return EVEN_MONEY if t >= 8 else "lose"  # §4620.15(d)(5)
    if bet in ("big6", "big8"):
        # §4620.15(d)(6)-(7), (c)(4): active on every roll, decided only by its number or a 7.
        return EVEN_MONEY if t == int(bet[3]) else "lose" if t == 7 else None
    if bet == "beat_dealer":
        # §4620.15(d)(8): even money when the shooter beats the dealer's point; ties to the house.
        if dealer_point is None:
            return None
        return EVEN_MONEY if t > dealer_point else "lose"
    raise ValueError(f"not a bang bet: {bet}")


def apply(state: BangState, event: Event) -> tuple[BangState, tuple[Effect, ...]]:
    """Bang's transition function (see the module docstring)."""
    config = state.config
    if isinstance(event, Bet):
        kind = bet_kind(GAME, config, event)
        if event.bet in OUTSIDE and state.dealer_point is not None:
            raise BetRejected("after the dealer's roll: inside bets only", "§4620.15(c)(4)")
        return state.with_layout(add_stake(state.layout, config, event, kind)), ()
    if isinstance(event, Remove):
        kind = bet_kind(GAME, config, event)
        if event.bet in OUTSIDE and state.dealer_point is not None:
            raise BetRejected(
                "a Beat the Dealer bet stays for the shooter's roll once the dealer has rolled",
                "§4620.15(c)(4)")
        layout, returned = take_down(state.layout, event, kind)
        return state.with_layout(layout), (returned,)
    if isinstance(event, Roll):
        check_dice(event.dice, DICE, "§4620.15(a)(2)")
        if event.by is not None and event.by != state.roller:
            raise BetRejected(f"the {state.roller} rolls next, not the {event.by}",
                              "§4620.15(c)(3)" if state.roller == "dealer" else "§4620.15(c)(5)")
        t = total(event.dice)
        effects, kept = [], []
        for w in state.layout:
            result = outcome(w.bet, t, state.dealer_point)
            if result is None:
                kept.append(w)
            else:
                effects.append(settle(w.seat, w.bet, w.number, w.amount, result, config.payout_unit))
        if state.dealer_point is None:
            new_state = BangState(config, state.shooter, tuple(kept), t)  # §4620.15(c)(3)
        else:
            # §4620.15(c)(6), (8): the game is over; the dice pass to the left.
            new_state = BangState(config, config.left_of(state.shooter), tuple(kept), None)
        return new_state, tuple(effects)
    if isinstance(event, NextShooter):
        # Nobody has to shoot: before the dealer's roll the dice may go to the next player.
        if state.dealer_point is not None:
            raise BetRejected("the shooter rolls against the dealer's point before the dice pass",
                              "§4620.15(c)(5)")
        seat = event.seat if event.seat is not None else config.left_of(state.shooter)
        if seat not in config.seats:
            raise BetRejected(f"seat {seat!r} is not at this table", "§4620.15(b)")
        return replace(state, shooter=seat), ()
    raise BetRejected(f"bang does not take {type(event).__name__} events", "§4620.15")
