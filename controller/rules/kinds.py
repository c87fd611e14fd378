"""Every bet of every game, with its valid numbers and its paragraph.

This is the catalogue the analysis iterates ("every bet") and the engine
checks bet identifiers against. The identifiers are a contract (issue 3).
"""
from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping



@dataclass(frozen=True, slots=True)
class BetKind:
    """One betting space: its identifier, the numbers it takes (``(None,)`` when
    it takes none), the paragraph that defines it, whether one roll always
    decides it, and the paragraph that sets its maximum (when not its own)."""

    name: str
    numbers: tuple[int | None, ...]
    rule: str
    one_roll: bool
    limit_rule: str = ""

    @property
    def max_rule(self) -> str:
        return self.limit_rule or self.rule


# The box numbers of craps: a point, a place bet, a come point (§4620.3(c)(3), (e)(4)).
POINTS = (4, 5, 6, 8, 9, 10)
_NONE = (None,)

CRAPS: tuple[BetKind, ...] = (
    BetKind("pass", _NONE, "§4620.3(e)(1)", False),
    BetKind("dont_pass", _NONE, "§4620.3(e)(2)", False),
    BetKind("odds", POINTS, "§4620.3(e)(3)", False),
    BetKind("come", _NONE, "§4620.3(e)(5)(i)", False),
    BetKind("dont_come", _NONE, "§4620.3(e)(5)(ii)", False),
    BetKind("place", POINTS, "§4620.3(e)(4)", False),
    BetKind("field", _NONE, "§4620.3(e)(6)", True),
    BetKind("big6", _NONE, "§4620.3(e)(7)", False),
    BetKind("big8", _NONE, "§4620.3(e)(7)", False),
    BetKind("any7", _NONE, "§4620.3(e)(8)", True),
    BetKind("any_craps", _NONE, "§4620.3(e)(9)", True),
    BetKind("hard", (4, 6, 8, 10), "§4620.3(e)(10)", False),
    BetKind("aces", _NONE, "§4620.3(e)(11)", True),
    BetKind("ace_deuce", _NONE, "§4620.3(e)(11)", True),
    BetKind("eleven", _NONE, "§4620.3(e)(11)", True),
    BetKind("twelve", _NONE, "§4620.3(e)(11)", True),
)

HAZARD: tuple[BetKind, ...] = (
    BetKind("raffle", (1, 2, 3, 4, 5, 6), "§4620.12(c)(1)", True),
    BetKind("any_raffle", _NONE, "§4620.12(c)(2)", True, "§4620.12(c)(7)(ii)"),
    BetKind("low", _NONE, "§4620.12(c)(3)", True, "§4620.12(c)(7)(ii)"),
    BetKind("high", _NONE, "§4620.12(c)(4)", True, "§4620.12(c)(7)(ii)"),
    BetKind("odd", _NONE, "§4620.12(c)(5)", True, "§4620.12(c)(7)(ii)"),
    BetKind("even", _NONE, "§4620.12(c)(5)", True, "§4620.12(c)(7)(ii)"),
    BetKind("number", tuple(range(4, 18)), "§4620.12(c)(6)", True, "§4620.12(c)(7)(ii)"),
    BetKind("chuck", (1, 2, 3, 4, 5, 6), "§4620.12(c)(7)(i)", True, "§4620.12(c)(7)(ii)"),
)

BANG: tuple[BetKind, ...] = (
    BetKind("field", _NONE, "§4620.15(d)(2)", True, "§4620.15(e)"),
    BetKind("under7", _NONE, "§4620.15(d)(3)", True, "§4620.15(e)"),
    BetKind("any7", _NONE, "§4620.15(d)(4)", True, "§4620.15(e)"),
    BetKind("over7", _NONE, "§4620.15(d)(5)", True, "§4620.15(e)"),
    BetKind("big6", _NONE, "§4620.15(d)(6)", False, "§4620.15(e)"),
    BetKind("big8", _NONE, "§4620.15(d)(7)", False, "§4620.15(e)"),
    BetKind("beat_dealer", _NONE, "§4620.15(d)(8)", False, "§4620.15(e)"),
)

BET_KINDS: Mapping[str, tuple[BetKind, ...]] = MappingProxyType({"craps": CRAPS, "hazard": HAZARD, "bang": BANG})
BET_NAMES = frozenset(kind.name for kinds in BET_KINDS.values() for kind in kinds)


_BY_NAME = {game: {kind.name: kind for kind in kinds} for game, kinds in BET_KINDS.items()}


def kind_of(game: str, bet: str) -> BetKind | None:
    """The catalogue entry of ``bet`` in ``game``, None if the game has no such bet."""
    return _BY_NAME[game].get(bet)
