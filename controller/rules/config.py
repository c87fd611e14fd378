"""Table configuration: limits and layout options, defaulting to the regulation.

A :class:`TableConfig` is a frozen, hashable value (it travels inside every
game state). Every default is the reading of 9 NYCRR Part 4620 documented in
docs/rules.md; an operator changes them in the table's TOML through
:meth:`TableConfig.from_dict`, whose errors name the offending key.
"""
from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, fields
from typing import Any, Iterator, Mapping

from controller.rules.dice import is_whole
from controller.rules.kinds import BET_KINDS, BET_NAMES, POINTS
from messages import ConfigError

DEFAULT_SEATS = ("A", "B", "C", "D", "E", "F", "G", "H")


class _Problems:
    """Collects the errors of independent settings, so that one bad key does not hide the next."""

    def __init__(self) -> None:
        self.found: list[tuple[str, str]] = []

    @contextmanager
    def each(self) -> Iterator[None]:
        """Run one setting's check; its error is kept and the next setting is checked all the same."""
        try:
            yield
        except ConfigError as error:
            self.found.extend(error.problems)

    def raise_any(self) -> None:
        if self.found:
            raise ConfigError.of(self.found)


# Maximum bets other than the general $5 (§4620.3(e), §4620.12(c)(7)(ii), §4620.15(e)):
# place 6 and 8 take $6 (§4620.3(e)(4) table), a specific raffle at most $1.50
# (§4620.12(c)(1)). Keyed (bet, number); number None covers every number.
REGULATION_LIMITS: tuple[tuple[str, int | None, int], ...] = (
    ("place", 6, 600),
    ("place", 8, 600),
    ("raffle", None, 150),
)
# The odds tables of §4620.3(e)(3)(i)/(ii) and (e)(5)(iii)/(iv): the maximum
# odds behind a line or come bet of ODDS_REFERENCE_BET cents.
TAKE_ODDS_TABLE = ((4, 500), (5, 600), (6, 500), (8, 500), (9, 600), (10, 500))
LAY_ODDS_TABLE = ((4, 600), (5, 600), (6, 600), (8, 600), (9, 600), (10, 600))

_FLAGS = (
    "field_2_12_pays_2_to_1",
    "come_odds_work_on_come_out",
    "place_bets_work_on_come_out",
    "hardways_work_on_come_out",
)


@dataclass(frozen=True)
class TableConfig:
    """Limits (integer cents) and layout options of one table.

    - ``seats``: the seats in shooting order (the dice pass to the left, §4620.3(c)(4)).
    - ``min_bet``: smallest stake accepted for any bet but odds (the regulation sets none);
      odds go behind a flat bet that met it, in any amount up to their maximum.
    - ``max_bet``: the general maximum, $5 (§4620.3(e), §4620.12(c)(7)(ii), §4620.15(e)).
    - ``limits``: exceptions to ``max_bet`` as (bet, number or None, cents).
    - ``take_odds`` / ``lay_odds``: (point, cents) maximum odds behind a line or come
      bet of ``odds_reference_bet`` cents; behind a smaller or larger bet the maximum
      scales in proportion (rounded down to the cent).
    - ``field_2_12_pays_2_to_1``: "if the layout so indicates" (§4620.3(e)(6)); off.
    - ``come_odds_work_on_come_out``, ``place_bets_work_on_come_out``,
      ``hardways_work_on_come_out``: these bets act on the shooter's come-out roll, as the
      texts have it (§4620.3(e)(5)(iii), (e)(4), (e)(10) make no exception for it). A house
      that calls them "off" on the come-out sets them false: come odds are then returned
      when that roll decides the come bet, and a place bet whose number it makes the point.
    - ``payout_unit``: wins are rounded down to a multiple of this many cents.
    """

    seats: tuple[str, ...] = DEFAULT_SEATS
    min_bet: int = 1
    max_bet: int = 500
    limits: tuple[tuple[str, int | None, int], ...] = REGULATION_LIMITS
    take_odds: tuple[tuple[int, int], ...] = TAKE_ODDS_TABLE
    lay_odds: tuple[tuple[int, int], ...] = LAY_ODDS_TABLE
    odds_reference_bet: int = 500
    field_2_12_pays_2_to_1: bool = False
    come_odds_work_on_come_out: bool = True
    place_bets_work_on_come_out: bool = True
    hardways_work_on_come_out: bool = True
    payout_unit: int = 1

    def __post_init__(self) -> None:
        # from_dict checks the details; these would break the engine itself.
        if not self.seats or len(set(self.seats)) != len(self.seats):
            raise ConfigError("seats", "expected a non-empty list of unique seat names")
        for key in ("min_bet", "max_bet", "odds_reference_bet", "payout_unit"):
            _cents(getattr(self, key), key)

    def maximum(self, bet: str, number: int | None) -> int:
        """The largest stake allowed on one bet of one seat."""
        for name, num, cents in self.limits:
            if name == bet and num == number:
                return cents
        for name, num, cents in self.limits:
            if name == bet and num is None:
                return cents
        return self.max_bet

    def max_odds(self, lay: bool, point: int, flat: int) -> int:
        """The most odds allowed behind a flat bet of ``flat`` cents on ``point``."""
        table = dict(self.lay_odds if lay else self.take_odds)
        return flat * table[point] // self.odds_reference_bet

    def left_of(self, seat: str) -> str:
        """The next seat in shooting order: the dice pass to the left (§4620.3(c)(4), §4620.15(c)(8))."""
        return self.seats[(self.seats.index(seat) + 1) % len(self.seats)]

    # --- TOML / dict form -------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The plain-data form (TOML-ready: string keys, no None)."""
        limits: dict[str, Any] = {"default": self.max_bet}
        for bet in dict.fromkeys(b for b, _, _ in self.limits):
            entries = {n: c for b, n, c in self.limits if b == bet}
            if list(entries) == [None]:
                limits[bet] = entries[None]
            else:
                # TOML holds one form per bet: a whole-bet maximum beside numbers of its own (a
                # raffle given one number) is written out number by number.
                numbers = _numbers_of(bet) if None in entries else sorted(n for n in entries if n is not None)
                limits[bet] = {str(n): self.maximum(bet, n) for n in numbers}
        out: dict[str, Any] = {
            "seats": list(self.seats),
            "min_bet": self.min_bet,
            "payout_unit": self.payout_unit,
            "limits": limits,
            "odds": {
                "reference_bet": self.odds_reference_bet,
                "take": {str(n): c for n, c in self.take_odds},
                "lay": {str(n): c for n, c in self.lay_odds},
            },
        }
        for flag in _FLAGS:
            out[flag] = getattr(self, flag)
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "TableConfig":
        """Build from the dict form; missing keys keep their defaults.

        ``limits`` and the odds tables are merged key by key onto the
        regulation's values. Raises one :class:`ConfigError` naming every wrong key.
        """
        if not isinstance(data, Mapping):
            raise ConfigError("rules", "expected a table of settings")
        known = {"seats", "min_bet", "payout_unit", "limits", "odds", *_FLAGS}
        problems = _Problems()
        problems.found += [(str(key), f"unknown setting (known: {', '.join(sorted(known))})")
                           for key in data if key not in known]
        base = cls()
        kwargs: dict[str, Any] = {}
        if "seats" in data:
            with problems.each():
                kwargs["seats"] = _seats(data["seats"])
        for key in ("min_bet", "payout_unit"):
            if key in data:
                with problems.each():
                    kwargs[key] = _cents(data[key], key)
        for flag in _FLAGS:
            if flag in data:
                if isinstance(data[flag], bool):
                    kwargs[flag] = data[flag]
                else:
                    problems.found.append((flag, f"expected true or false, got {data[flag]!r}"))
        if "limits" in data:
            with problems.each():
                kwargs["max_bet"], kwargs["limits"] = _limits(data["limits"], base)
        if "odds" in data:
            with problems.each():
                kwargs.update(_odds(data["odds"], base))
        problems.raise_any()
        return cls(**{**{f.name: getattr(base, f.name) for f in fields(cls)}, **kwargs})

    def above_regulation(self) -> list[tuple[str, str]]:
        """The (key, message) of every maximum set above the regulation's: allowed, as the limits
        are the house's to configure, but the operator should see it before a bet is taken."""
        regulation = TableConfig()
        found = []
        if self.max_bet > regulation.max_bet:
            found.append(("limits.default", f"{self.max_bet} cents, above the regulation's general maximum of "
                                            f"{regulation.max_bet} (§4620.3(e), §4620.12(c)(7)(ii), §4620.15(e))"))
        for bet, number, cents in self.limits:
            allowed = regulation.maximum(bet, number)
            if cents > allowed:
                key = f"limits.{bet}" + (f".{number}" if number is not None else "")
                found.append((key, f"{cents} cents, above the regulation's {allowed}"))
        for side, mine, theirs in (("take", self.take_odds, regulation.take_odds),
                                   ("lay", self.lay_odds, regulation.lay_odds)):
            for (point, cents), (_, allowed) in zip(mine, theirs):
                if cents * regulation.odds_reference_bet > allowed * self.odds_reference_bet:
                    found.append((f"odds.{side}.{point}", f"{cents} cents behind {self.odds_reference_bet}, above the "
                                                          f"regulation's {allowed} behind {regulation.odds_reference_bet} "
                                                          "(§4620.3(e)(3), (e)(5))"))
        return found


def unbettable(config: TableConfig, game: str) -> list[tuple[str, str]]:
    """The (key, message) that make ``config`` a ``game`` table refusing every bet: a minimum above
    the maximum of every bet of that game (each bet's own, or the general one), or a payout unit no
    stake from the minimum up to any of them is a multiple of. A configuration file's check, not the
    engine's: a journal started under such rules still replays (``journal audit``)."""
    highest = max(config.maximum(kind.name, number) for kind in BET_KINDS[game] for number in kind.numbers)
    smallest = -(-config.min_bet // config.payout_unit) * config.payout_unit  # the least stake in whole units
    if config.min_bet > highest:
        return [("min_bet", f"{config.min_bet} cents is above every {game} bet's maximum (the highest is "
                            f"{highest}): every bet would be refused")]
    if smallest > highest:
        return [("payout_unit", f"no stake from min_bet ({config.min_bet}) up to the highest {game} maximum "
                                f"({highest}) is a whole number of {config.payout_unit} cents: every bet would be refused")]
    return []


def _seats(seats: Any) -> tuple[str, ...]:
    if not isinstance(seats, list | tuple) or not seats or not all(isinstance(s, str) and s for s in seats):
        raise ConfigError("seats", "expected a non-empty list of seat names")
    if len(set(seats)) != len(seats):
        raise ConfigError("seats", "seat names must be unique")
    return tuple(seats)


def _odds(odds: Any, base: TableConfig) -> dict[str, Any]:
    """The ``[rules.odds]`` table as TableConfig fields, each side merged onto the regulation's table."""
    if not isinstance(odds, Mapping):
        raise ConfigError("odds", "expected a table")
    problems = _Problems()
    problems.found += [(f"odds.{key}", "unknown setting (known: lay, reference_bet, take)")
                       for key in odds if key not in ("reference_bet", "take", "lay")]
    kwargs: dict[str, Any] = {}
    if "reference_bet" in odds:
        with problems.each():
            kwargs["odds_reference_bet"] = _cents(odds["reference_bet"], "odds.reference_bet")
    for side, attr in (("take", "take_odds"), ("lay", "lay_odds")):
        if side in odds:
            with problems.each():
                merged = dict(getattr(base, attr))
                merged.update(_numbered(odds[side], f"odds.{side}", POINTS))
                kwargs[attr] = tuple(sorted(merged.items()))
    problems.raise_any()
    return kwargs


def _cents(value: Any, key: str) -> int:
    if not is_whole(value) or value <= 0:
        raise ConfigError(key, f"expected a positive whole number of cents, got {value!r}")
    return value


def _numbered(value: Any, key: str, allowed: tuple[int, ...]) -> dict[int, int]:
    if not isinstance(value, Mapping):
        raise ConfigError(key, "expected a table of number = cents")
    out = {}
    problems = _Problems()
    for raw, cents in value.items():
        with problems.each():
            number = _number(raw, f"{key}.{raw}", allowed)  # the key's complaint first, as the file reads
            out[number] = _cents(cents, f"{key}.{raw}")
    problems.raise_any()
    return out


def _number(raw: Any, key: str, allowed: tuple[int, ...]) -> int:
    try:
        number = int(raw)
    except (TypeError, ValueError):
        raise ConfigError(key, "expected a number as the key") from None
    if number not in allowed:
        raise ConfigError(key, f"not one of {', '.join(map(str, allowed))}")
    return number


def _limits(value: Any, base: TableConfig) -> tuple[int, tuple[tuple[str, int | None, int], ...]]:
    if not isinstance(value, Mapping):
        raise ConfigError("limits", "expected a table of bet = cents")
    max_bet = base.max_bet
    merged: dict[tuple[str, int | None], int] = {(b, n): c for b, n, c in base.limits}
    problems = _Problems()
    for bet, cents in value.items():
        with problems.each():
            if bet == "default":
                max_bet = _cents(cents, "limits.default")
                continue
            given = _limit(str(bet), cents)
            if (str(bet), None) in given:  # one amount for the bet: it is the maximum on every number
                merged = {key: c for key, c in merged.items() if key[0] != bet}
            merged.update(given)
    problems.raise_any()
    ordered = sorted(merged.items(), key=lambda kv: (kv[0][0], kv[0][1] or 0))
    return max_bet, tuple((b, n, c) for (b, n), c in ordered)


def _limit(bet: str, cents: Any) -> dict[tuple[str, int | None], int]:
    """One entry of ``[rules.limits]``: a bet's maximum, or its maximum on each number."""
    if bet == "odds":
        raise ConfigError("limits.odds", "odds maxima are set in the odds tables (odds.take, odds.lay)")
    if bet not in BET_NAMES:
        raise ConfigError(f"limits.{bet}", f"no such bet (bets: {', '.join(sorted(BET_NAMES))})")
    if not isinstance(cents, Mapping):
        return {(bet, None): _cents(cents, f"limits.{bet}")}
    numbers = _numbers_of(bet)
    if not numbers:
        raise ConfigError(f"limits.{bet}", "this bet takes no number: give one amount")
    return {(bet, number): c for number, c in _numbered(cents, f"limits.{bet}", numbers).items()}


def _numbers_of(bet: str) -> tuple[int, ...]:
    """The numbers a bet is made on, in any game (none for a bet without a number)."""
    return tuple(sorted({n for kinds in BET_KINDS.values() for k in kinds if k.name == bet
                         for n in k.numbers if n is not None}))
