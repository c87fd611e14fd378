"""The table's one door into the rules engine (``controller.rules``).

Why a door: the table flow needs four things -- a fresh game, one event
applied (new state and effects as journal rows, or a rejection), how many
dice the game throws, and a few facts for the display (the point, the
shooter, whose roll is next in Bang). Keeping them here keeps everything else
about the rules in ``controller.rules``.
"""
from __future__ import annotations

from typing import Any, Mapping

from controller import rules
from controller.rules import BetRejected, TableConfig

DICE_PER_GAME = rules.DICE


def new_game(game: str, config: TableConfig) -> Any:
    """The rules state of a game with nothing on the layout."""
    return rules.new_game(game, config)


def apply(state: Any, event: rules.Event) -> tuple[Any, list[dict[str, Any]]]:
    """Apply one game event.

    Returns the new state and the effects as journal-ready dicts; raises
    :class:`BetRejected` (the state is then unchanged) when the rules refuse.
    """
    step = rules.apply(state, event)
    return step.state, [e.to_json() for e in step.effects]


def rejection(exc: BetRejected, event: Any) -> dict[str, Any]:
    """The ``rejected`` effect for a refused event."""
    return exc.to_json(dict(event) if isinstance(event, Mapping) else event)


def point(state: Any) -> int | None:
    """The craps point (None on the come-out), or Bang's dealer's point once rolled."""
    for name in ("point", "dealer_point"):
        value = getattr(state, name, None)
        if value is not None:
            return int(value)
    return None


def bang_next_roller(state: Any) -> str:
    """Whose roll comes next in Bang: ``dealer`` or ``shooter`` (§4620.15(c))."""
    return str(state.roller)


def shooter(state: Any) -> str | None:
    """The seat that holds the dice (Craps, Bang); Hazard has none."""
    value = getattr(state, "shooter", None)
    return str(value) if value is not None else None

