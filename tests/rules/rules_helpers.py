"""Helpers shared by the rules tests (imported as `rules_helpers`; conftest.py puts this folder on the path)."""
from __future__ import annotations

from typing import Any

import pytest

from controller.rules import BetRejected, apply, new_game, parse_event


def bet(seat: str, name: str, amount: int, number: int | None = None, on: str | None = None) -> dict[str, Any]:
    event: dict[str, Any] = {"event": "bet", "seat": seat, "bet": name, "amount": amount}
    if number is not None:
        event["number"] = number
    if on is not None:
        event["on"] = on
    return event


def remove(seat: str, name: str, number: int | None = None, on: str | None = None) -> dict[str, Any]:
    event: dict[str, Any] = {"event": "remove", "seat": seat, "bet": name}
    if number is not None:
        event["number"] = number
    if on is not None:
        event["on"] = on
    return event


def roll(*dice: int, by: str | None = None) -> dict[str, Any]:
    event: dict[str, Any] = {"event": "roll", "dice": list(dice)}
    if by is not None:
        event["by"] = by
    return event


def play(game_or_state, events, config=None):
    """Apply events (all must be accepted); return (final state, JSON of every effect of the last event)."""
    state = new_game(game_or_state, config) if isinstance(game_or_state, str) else game_or_state
    effects = []
    for event in events:
        step = apply(state, parse_event(event))
        state, effects = step.state, [e.to_json() for e in step.effects]
    return state, effects


def refused(state, event) -> BetRejected:
    """The rejection of ``event`` (fails the test if it is accepted); checks nothing changed."""
    before = hash(state)
    with pytest.raises(BetRejected) as info:
        apply(state, parse_event(event))
    assert hash(state) == before
    return info.value
