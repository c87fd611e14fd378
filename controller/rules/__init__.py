"""The pure rules engine of Craps (§4620.3), Hazard (§4620.12) and Bang (§4620.15).

No I/O, no clock, no randomness; money is integer cents. A game state is an
immutable, hashable value; an event either gives a new state and the
settlements it caused, or raises :class:`BetRejected` and changes nothing.

The whole public interface::

    state = new_game("craps")                       # or "hazard", "bang"; optional TableConfig
    step = apply(state, parse_event({"event": "bet", "seat": "A", "bet": "pass", "amount": 500}))
    step = apply(step.state, Roll((3, 4)))          # Step(state, effects)
    [e.to_json() for e in step.effects]             # {"event": "settle", "seat", "bet", "number",
                                                    #  "amount", "result", "paid"} (or "returned")
    try:
        apply(state, event)
    except BetRejected as no:                       # no.reason, no.rule ("§4620.3(e)(4)")
        no.to_json(event)                           # {"event": "rejected", ..., "reason", "rule"}

- :func:`new_game` (game, config) -> state; :func:`apply` (state, event) -> :class:`Step`.
- :func:`parse_event` (decoded JSON) -> event (:class:`Bet`, :class:`Remove`, :class:`Roll`,
  :class:`NextShooter`); ``event.to_json()`` back. Malformed input raises
  :class:`MalformedEvent` (a :class:`BetRejected` with ``rule`` None).
- :func:`open_bets` (state) -> what is on the layout, one :class:`OpenBet` per stake;
  :func:`staked` (state) -> total cents on the layout.
- :data:`BET_KINDS` game -> every :class:`BetKind` (name, numbers, rule, one_roll);
  :data:`DICE` game -> how many dice it throws.
- :class:`TableConfig` limits and layout options (``from_dict`` / ``to_dict``).

A settled bet leaves the layout; bets that a roll does not decide stay up.
The event format is docs/events.md; every reading of the regulation is in docs/rules.md.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from controller.rules import bang, craps, hazard
from controller.rules.config import TableConfig
from controller.rules.events import Bet, Event, NextShooter, Remove, Roll, parse_event
from controller.rules.kinds import BET_KINDS, BetKind
from controller.rules.layout import OpenBet, open_bets as _open_bets
from controller.rules.records import BetRejected, Effect, MalformedEvent, Returned, Settlement

GameState = Union[craps.CrapsState, hazard.HazardState, bang.BangState]
GAMES = {"craps": craps, "hazard": hazard, "bang": bang}
DICE = {name: game.DICE for name, game in GAMES.items()}
"""How many dice each game throws: the one table of it, from each game's module (which cites its paragraph)."""

__all__ = [
    "GAMES", "DICE", "BET_KINDS", "BetKind", "GameState", "Step", "new_game", "apply", "open_bets",
    "staked", "parse_event", "Event", "Bet", "Remove", "Roll", "NextShooter", "Settlement", "Returned",
    "Effect", "BetRejected", "MalformedEvent", "OpenBet", "TableConfig",
]


@dataclass(frozen=True, slots=True)
class Step:
    """The result of an accepted event: the new state and what it paid out, in order."""

    state: GameState
    effects: tuple[Effect, ...] = ()


def new_game(game: str, config: TableConfig | None = None) -> GameState:
    """A fresh table of ``game`` ("craps", "hazard" or "bang"), empty layout, first seat to shoot."""
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r} (expected {', '.join(GAMES)})")
    return GAMES[game].new(config or TableConfig())


def apply(state: GameState, event: Event) -> Step:
    """Apply one event; raises :class:`BetRejected` (the state is untouched) if the rules refuse it."""
    new_state, effects = GAMES[state.game].apply(state, event)
    return Step(new_state, effects)


def open_bets(state: GameState) -> tuple[OpenBet, ...]:
    """Every stake on the layout, seat by seat; odds come right after the bet they back."""
    return _open_bets(state.layout, getattr(state, "point", None))


def staked(state: GameState) -> int:
    """Total cents on the layout (flat bets and odds)."""
    return sum(w.amount + w.odds for w in state.layout)
