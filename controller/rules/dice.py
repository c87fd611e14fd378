"""Dice rolls: validation and the facts every game asks of a roll."""
from __future__ import annotations

from itertools import product

FACES = range(1, 7)


def is_whole(value: object) -> bool:
    """An int that is not a bool, as every face, bet number and amount must be.

    Python counts ``True`` as 1, and ``True in FACES`` and ``6.0 in (4, 5, 6)``
    both hold: a plain membership test would settle a true/false as an ace, or
    put a float on the layout."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_face(value: object) -> bool:
    """Whether ``value`` is what a die can show: a whole number 1 to 6."""
    return is_whole(value) and value in FACES


def all_rolls(count: int) -> list[tuple[int, ...]]:
    """Every ordered outcome of ``count`` fair dice (36 for two, 216 for three), equally likely."""
    return list(product(FACES, repeat=count))


def total(dice: tuple[int, ...]) -> int:
    """The deciding number of a roll: the sum of the faces (§4620.3(c)(1))."""
    return sum(dice)


def is_pair(dice: tuple[int, ...], a: int, b: int) -> bool:
    """Two dice showing exactly the faces ``a`` and ``b`` in either order."""
    return sorted(dice) == sorted((a, b))


def is_triple(dice: tuple[int, ...]) -> bool:
    """Three of a kind (hazard's "raffle", §4620.12(c)(1))."""
    return len(dice) == 3 and dice[0] == dice[1] == dice[2]
