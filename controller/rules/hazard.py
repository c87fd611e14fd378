"""Hazard, 9 NYCRR §4620.12: three dice tumbled in a cage; every bet is
decided by the one roll that follows it (§4620.12(b))."""
from __future__ import annotations

from dataclasses import dataclass

from controller.rules.common import add_stake, bet_kind, check_dice, settle, take_down, Outcome
from controller.rules.config import TableConfig
from controller.rules.dice import is_triple, total
from controller.rules.events import Bet, Event, NextShooter, Remove, Roll
from controller.rules.layout import Layout
from controller.rules.money import EVEN_MONEY, for_one, to_one
from controller.rules.records import BetRejected, Effect

GAME = "hazard"
DICE = 3  # §4620.12(a)(2)

# §4620.12(c)(6): the numbers bet, "X-for-1".
NUMBER_PAYS_FOR_ONE = {4: 60, 5: 30, 6: 18, 7: 12, 8: 8, 9: 6, 10: 6, 11: 6,
                       12: 6, 13: 8, 14: 12, 15: 18, 16: 30, 17: 60}


@dataclass(frozen=True, slots=True)
class HazardState:
    """The bets on the hazard layout. There is no shooter: the dealer tumbles the cage."""

    config: TableConfig
    layout: Layout = ()
    game: str = GAME

    def with_layout(self, layout: Layout) -> "HazardState":
        return HazardState(self.config, layout)


def new(config: TableConfig) -> HazardState:
    return HazardState(config=config)


def outcome(bet: str, number: int | None, dice: tuple[int, ...]) -> Outcome:
    """How one roll of three dice decides one hazard bet (always decided)."""
    triple, count = is_triple(dice), total(dice)
    if bet == "raffle":
        # §4620.12(c)(1): a specific three of a kind, 180-to-1.
        return to_one(180) if triple and dice[0] == number else "lose"
    if bet == "any_raffle":
        # §4620.12(c)(2): any three of a kind, 30-to-1.
        return to_one(30) if triple else "lose"
    if triple:
        if bet in ("low", "high", "odd", "even"):
            return "lose"  # §4620.12(c)(3)-(5): "loses if three of a kind appear"
    if bet == "low":
        return EVEN_MONEY if count <= 10 else "lose"  # §4620.12(c)(3)
    if bet == "high":
        return EVEN_MONEY if count >= 11 else "lose"  # §4620.12(c)(4)
    if bet == "odd":
        return EVEN_MONEY if count % 2 == 1 else "lose"  # §4620.12(c)(5)
    if bet == "even":
        return EVEN_MONEY if count % 2 == 0 else "lose"  # §4620.12(c)(5)
    if bet == "number":
        # §4620.12(c)(6): the exact total, 4 to 17, "for 1".
        return for_one(NUMBER_PAYS_FOR_ONE[number]) if count == number else "lose"
    if bet == "chuck":
        # §4620.12(c)(7)(i): 1-to-1, 2-to-1 or 3-to-1 as the number shows on one, two or three dice.
        shows = dice.count(number)
        return to_one(shows) if shows else "lose"
    raise ValueError(f"not a hazard bet: {bet}")


def apply(state: HazardState, event: Event) -> tuple[HazardState, tuple[Effect, ...]]:
    """Hazard's transition: bets and removals any time before the tumble, a roll settles all."""
    config = state.config
    if isinstance(event, Bet):
        kind = bet_kind(GAME, config, event)
        return state.with_layout(add_stake(state.layout, config, event, kind)), ()
    if isinstance(event, Remove):
        kind = bet_kind(GAME, config, event)
        layout, returned = take_down(state.layout, event, kind)
        return state.with_layout(layout), (returned,)
    if isinstance(event, Roll):
        check_dice(event.dice, DICE, "§4620.12(a)(2)")
        if event.by is not None:
            raise BetRejected("hazard has no dealer's or shooter's roll: the dealer tumbles the cage", "§4620.12(b)")
        effects = tuple(
            settle(w.seat, w.bet, w.number, w.amount, outcome(w.bet, w.number, event.dice), config.payout_unit)
            for w in state.layout
        )
        return state.with_layout(()), effects
    if isinstance(event, NextShooter):
        raise BetRejected("hazard has no shooter: the dealer tumbles the cage", "§4620.12(b)")
    raise BetRejected(f"hazard does not take {type(event).__name__} events", "§4620.12")
