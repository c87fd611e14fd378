"""Each game's betting layout as the console draws it: every space to scale, in centimetres of felt.

Why here and not in the page: a space is a bet of the rules engine (its identifier, number and,
for odds, the flat bet it backs), its limits come from the table's configuration, and its paragraph
from the catalogue; the page only draws rectangles and sends back what a tapped space stands for.
One source, so the layout cannot offer a bet the engine does not know (a test walks every space
through the engine's catalogue).

The proportions follow a casino layout: a craps half layout of a 12-foot table (200 x 110 cm, the
number boxes 24 cm wide, their come and don't come strips 8 cm deep, the pass line 16 cm deep), a
hazard layout of 150 x 100 cm, a Bang layout of 150 x 90 cm with its outside section ("Beat the
Dealer Hi Dice", §4620.15(c)(1)) apart. Odds are
bet on the strips that name what they back: behind the pass and don't pass lines (on the shooter's
point), and in each number box on the come or don't come bet that moved there.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from controller.console.names import bet_name
from controller.rules import TableConfig
from controller.rules.kinds import POINTS, kind_of
from messages.money import dollars

#: The odds strips' ``number`` when it is the shooter's point (filled in by the page when tapped).
POINT = "point"


@dataclass(frozen=True)
class Space:
    """One betting space: what a tap on it bets, and where it is (cm from the layout's top left)."""

    id: str
    bet: str
    number: int | str | None
    label: str
    x: float
    y: float
    w: float
    h: float
    on: str | None = None


@dataclass(frozen=True)
class Layout:
    game: str
    width: float
    height: float
    spaces: tuple[Space, ...]
    sections: tuple[tuple[str, float, float, float, float], ...] = ()
    """Named areas drawn around groups of spaces: (label, x, y, w, h)."""


def _craps() -> Layout:
    spaces: list[Space] = [Space("dont_come", "dont_come", None, "DON'T COME BAR", 0, 0, 22, 28)]
    for i, n in enumerate(POINTS):
        x = 22 + 24 * i
        spaces += [
            Space(f"dont_come-{n}", "odds", n, f"DON'T COME {n}: LAY", x, 0, 24, 8, on="dont_come"),
            Space(f"come-{n}", "odds", n, f"COME {n}: ODDS", x, 8, 24, 8, on="come"),
            Space(f"place-{n}", "place", n, f"PLACE {n}", x, 16, 24, 12),
        ]
    spaces += [
        Space("come", "come", None, "COME", 22, 28, 144, 22),
        Space("field", "field", None, "FIELD 2 3 4 9 10 11 12", 22, 50, 144, 18),
        Space("big6", "big6", None, "BIG 6", 0, 28, 22, 20),
        Space("big8", "big8", None, "BIG 8", 0, 48, 22, 20),
        Space("dont_pass", "dont_pass", None, "DON'T PASS BAR", 0, 68, 166, 12),
        Space("pass", "pass", None, "PASS LINE", 0, 80, 166, 16),
        Space("odds-pass", "odds", POINT, "PASS ODDS (on the point)", 0, 96, 83, 14, on="pass"),
        Space("odds-dont_pass", "odds", POINT, "DON'T PASS LAY ODDS (on the point)", 83, 96, 83, 14, on="dont_pass"),
        Space("any7", "any7", None, "ANY SEVEN", 168, 0, 32, 10),
        Space("hard-6", "hard", 6, "HARD 6", 168, 10, 16, 14),
        Space("hard-10", "hard", 10, "HARD 10", 184, 10, 16, 14),
        Space("hard-8", "hard", 8, "HARD 8", 168, 24, 16, 14),
        Space("hard-4", "hard", 4, "HARD 4", 184, 24, 16, 14),
        Space("aces", "aces", None, "ACES", 168, 38, 16, 12),
        Space("twelve", "twelve", None, "TWELVE", 184, 38, 16, 12),
        Space("ace_deuce", "ace_deuce", None, "ACE-DEUCE", 168, 50, 16, 12),
        Space("eleven", "eleven", None, "ELEVEN", 184, 50, 16, 12),
        Space("any_craps", "any_craps", None, "ANY CRAPS", 168, 62, 32, 12),
    ]
    return Layout("craps", 200, 110, tuple(spaces), (("PROPOSITIONS", 166, 0, 34, 110),))


def _hazard() -> Layout:
    spaces = [Space(f"raffle-{f}", "raffle", f, f"RAFFLE {f}{f}{f}", 20 * (f - 1), 0, 20, 20) for f in range(1, 7)]
    spaces.append(Space("any_raffle", "any_raffle", None, "ANY RAFFLE", 120, 0, 30, 20))
    for i, (bet, label) in enumerate((("low", "LOW 4-10"), ("odd", "ODD"), ("even", "EVEN"), ("high", "HIGH 11-17"))):
        spaces.append(Space(bet, bet, None, label, 37.5 * i, 20, 37.5, 20))
    for i, total in enumerate(range(4, 18)):
        spaces.append(Space(f"number-{total}", "number", total, str(total), 150 / 7 * (i % 7), 40 + 15 * (i // 7),
                            150 / 7, 15))
    spaces += [Space(f"chuck-{f}", "chuck", f, f"CHUCK {f}", 25 * (f - 1), 70, 25, 30) for f in range(1, 7)]
    return Layout("hazard", 150, 100, tuple(spaces))


def _bang() -> Layout:
    spaces = (
        Space("field", "field", None, "FIELD 2 3 4 9 10 11 12", 0, 0, 150, 20),
        Space("under7", "under7", None, "UNDER 7", 0, 20, 50, 20),
        Space("any7", "any7", None, "ANY 7", 50, 20, 50, 20),
        Space("over7", "over7", None, "OVER 7", 100, 20, 50, 20),
        Space("big6", "big6", None, "BIG 6", 0, 40, 75, 20),
        Space("big8", "big8", None, "BIG 8", 75, 40, 75, 20),
        Space("beat_dealer", "beat_dealer", None, "BEAT THE DEALER HI DICE", 0, 62, 150, 28),
    )
    return Layout("bang", 150, 90, spaces, (("INSIDE", 0, 0, 150, 60), ("OUTSIDE", 0, 62, 150, 28)))


LAYOUTS = {"craps": _craps(), "hazard": _hazard(), "bang": _bang()}


def limits(game: str, space: Space, config: TableConfig) -> dict[str, Any]:
    """The space's limits: ``min``/``max`` in cents (``max`` None for odds, which scale with the bet
    they back: ``odds`` then gives the maximum behind the reference bet), ``text`` for the page,
    ``rule`` the paragraph of the bet and ``limit_rule`` the one that sets its maximum."""
    kind = kind_of(game, space.bet)
    assert kind is not None, f"{space.bet} is no {game} bet"
    if space.bet != "odds":
        number = space.number if isinstance(space.number, int) else None
        top = config.maximum(space.bet, number)
        return {"min": config.min_bet, "max": top, "rule": kind.rule, "limit_rule": kind.max_rule,
                "text": f"{dollars(config.min_bet)} to {dollars(top)}"}
    lay = space.on in ("dont_pass", "dont_come")
    table = dict(config.lay_odds if lay else config.take_odds)
    points = [space.number] if isinstance(space.number, int) else list(POINTS)
    behind = ", ".join(f"{n}: {dollars(table[n])}" for n in points)
    rule = "§4620.3(e)(5)(iii)-(iv)" if space.on in ("come", "dont_come") else "§4620.3(e)(3)"
    return {"min": 1, "max": None, "rule": rule, "limit_rule": rule, "odds": {str(n): table[n] for n in points},
            "text": f"{'lay' if lay else 'take'} up to {behind} behind {dollars(config.odds_reference_bet)}"}


def largest(game: str, config: TableConfig) -> int:
    """The most one bet on ``game``'s layout may ever hold under ``config``: the highest maximum of
    its spaces, or the most odds behind the largest flat bet they may back. The page refuses a
    typed amount above it before anything is sent (it is no bet at this table)."""
    spaces = LAYOUTS[game].spaces
    most = max(config.maximum(s.bet, s.number if isinstance(s.number, int) else None) for s in spaces if s.bet != "odds")
    for space in spaces:
        if space.bet == "odds" and space.on is not None:
            flat = config.maximum(space.on, None)
            points = [space.number] if isinstance(space.number, int) else list(POINTS)
            lay = space.on in ("dont_pass", "dont_come")
            most = max(most, *(config.max_odds(lay, n, flat) for n in points))
    return most


def layout_json(game: str, config: TableConfig) -> dict[str, Any]:
    """The layout of ``game`` for the page: size in cm, each space with its bet, its name as the
    dealer says it and its limits; ``largest``, the most any one bet may hold (:func:`largest`)."""
    layout = LAYOUTS[game]
    return {
        "game": game,
        "unit": "cm",
        "width": layout.width,
        "height": layout.height,
        "largest": largest(game, config),
        "sections": [{"label": label, "x": x, "y": y, "w": w, "h": h} for label, x, y, w, h in layout.sections],
        "spaces": [{"id": s.id, "bet": s.bet, "number": s.number, "on": s.on, "label": s.label,
                    "name": bet_name(s.bet, s.number if isinstance(s.number, int) else None, s.on),
                    "x": round(s.x, 2), "y": round(s.y, 2), "w": round(s.w, 2), "h": round(s.h, 2),
                    **limits(game, s, config)} for s in layout.spaces],
    }


def space_of(game: str, bet: str, number: int | None, on: str | None) -> str | None:
    """The id of the space where a bet on the layout is drawn (None if the layout has no place for it)."""
    if bet == "odds":
        if on in ("pass", "dont_pass"):
            return f"odds-{on}"
        return f"{on}-{number}" if on in ("come", "dont_come") and number is not None else None
    if bet in ("come", "dont_come") and number is not None:
        return f"dont_come-{number}" if bet == "dont_come" else f"come-{number}"
    wanted = f"{bet}-{number}" if number is not None else bet
    return wanted if any(s.id == wanted for s in LAYOUTS[game].spaces) else None

