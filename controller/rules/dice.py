"""Dice rolls: validation and the facts every game asks of a roll."""
from __future__ import annotations

from itertools import product

FACES = range(1, 7)


def is_face(value: object) -> bool:
    """Whether ``value`` is what a die can show: a whole number 1 to 6.

    Not a bool: Python counts ``True`` as 1, so ``True in FACES`` holds, and
    a true/false that reached a roll would be settled as an ace."""
    return isinstance(value, int) and not isinstance(value, bool) and value in FACES


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
