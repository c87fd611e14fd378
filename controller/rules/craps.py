"""Craps, 9 NYCRR §4620.3: every bet of §4620.3(e) and the shooter's turn of §4620.3(c).

The state is the layout, the point (None on a come-out) and who shoots.
A roll decides some bets, moves come bets to their point boxes, sets or
clears the point and, on a seven-out, passes the dice to the left.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from controller.rules.common import Outcome, add_stake, bet_kind, check_amount, check_dice, settle, take_down
from controller.rules.config import TableConfig
from controller.rules.kinds import POINTS
from controller.rules.dice import is_pair, total
from controller.rules.events import Bet, Event, NextShooter, Remove, Roll
from controller.rules.layout import Layout, Wager, check_stake, find, merged, put
from controller.rules.money import EVEN_MONEY, for_one, to_one
from controller.rules.records import BetRejected, Effect, Returned, Settlement

GAME = "craps"
DICE = 2  # §4620.3(a)(2)
NATURALS = (7, 11)
CRAPS = (2, 3, 12)
LINE = ("pass", "dont_pass")
COME = ("come", "dont_come")
WRONG = ("dont_pass", "dont_come")

# §4620.3(e)(3)(i) and (e)(5)(iii): taking the odds.
TAKE_ODDS = {4: to_one(2), 10: to_one(2), 5: to_one(3, 2), 9: to_one(3, 2), 6: to_one(6, 5), 8: to_one(6, 5)}
# §4620.3(e)(3)(ii) and (e)(5)(iv): laying the odds.
LAY_ODDS = {4: to_one(1, 2), 10: to_one(1, 2), 5: to_one(2, 3), 9: to_one(2, 3), 6: to_one(5, 6), 8: to_one(5, 6)}
# §4620.3(e)(4): place bets.
PLACE = {4: to_one(9, 5), 10: to_one(9, 5), 5: to_one(7, 5), 9: to_one(7, 5), 6: to_one(7, 6), 8: to_one(7, 6)}
# §4620.3(e)(10): hard ways, "for 1".
HARD = {4: for_one(8), 10: for_one(8), 6: for_one(10), 8: for_one(10)}
# §4620.3(e)(11): one-roll bets on an exact combination, "for 1".
PROPS = {"aces": ((1, 1), for_one(30)), "twelve": ((6, 6), for_one(30)),
         "ace_deuce": ((1, 2), for_one(15)), "eleven": ((5, 6), for_one(15))}
FIELD_NUMBERS = (2, 3, 4, 9, 10, 11, 12)

ODDS_RULE = {"pass": "§4620.3(e)(3)(i)", "dont_pass": "§4620.3(e)(3)(ii)",
             "come": "§4620.3(e)(5)(iii)", "dont_come": "§4620.3(e)(5)(iv)"}


@dataclass(frozen=True, slots=True)
class CrapsState:
    """A craps table between two rolls.

    ``point`` is the shooter's point, None on a come-out (§4620.3(c)(2)-(3)).
    ``shooter`` is the seat holding the dice; ``shooter_has_rolled`` tells a
    turn that has begun from one that has not (refusing to shoot, §4620.3(c)(6)).
    """

    config: TableConfig
    shooter: str
    layout: Layout = ()
    point: int | None = None
    shooter_has_rolled: bool = False
    game: str = GAME

    def with_layout(self, layout: Layout) -> "CrapsState":
        return CrapsState(self.config, self.shooter, layout, self.point, self.shooter_has_rolled)


def new(config: TableConfig) -> CrapsState:
    return CrapsState(config=config, shooter=config.seats[0])


# --- bets -------------------------------------------------------------------

def _odds_base(state: CrapsState, seat: str, number: int | None, on: str | None, with_odds: bool) -> Wager:
    """The line or come bet an odds event refers to: the seat's flat bet whose
    point is ``number``, narrowed by ``on`` when the seat has more than one."""
    if on is not None and on not in ODDS_RULE:
        raise BetRejected(f"odds back pass, dont_pass, come or dont_come, not {on!r}", "§4620.3(e)(3)")
    candidates = []
    for w in state.layout:
        if w.seat != seat or (on is not None and w.bet != on) or (with_odds and not w.odds):
            continue
        if (w.bet in LINE and state.point is not None and state.point == number) or \
                (w.bet in COME and w.number is not None and w.number == number):
            candidates.append(w)
    rule = ODDS_RULE.get(on or "", "§4620.3(e)(3)")
    if not candidates:
        what = f"{on} bet" if on else "line or come bet"
        have = "with odds " if with_odds else ""
        raise BetRejected(f"seat {seat} has no {what} {have}on a point of {number}", rule)
    if len(candidates) > 1:
        names = " and ".join(w.bet for w in candidates)
        raise BetRejected(f"seat {seat} has {names} on {number}: say which with \"on\"", rule)
    return candidates[0]


def _bet(state: CrapsState, event: Bet) -> CrapsState:
    """A bet on the layout, when the rules allow it then.

    Line bets on the come-out only (§4620.3(e)(1)-(2)); come and don't come once a
    point is established (§4620.3(e)(5)(i)-(ii)); no place bet on the point
    (§4620.3(e)(4)); odds behind a flat bet standing on its point, up to the
    table of §4620.3(e)(3) / (e)(5)(iii)-(iv) in proportion to the flat bet.
    """
    config = state.config
    kind = bet_kind(GAME, config, event)
    if event.bet in LINE and state.point is not None:
        raise BetRejected(
            f"{event.bet} bets are made on the come-out; the point is {state.point}", kind.rule)
    if event.bet in COME and state.point is None:
        raise BetRejected(f"{event.bet} bets are made only once a point is established", kind.rule)
    if event.bet == "place" and event.number == state.point:
        raise BetRejected(f"no place bet on the established point {state.point}", kind.rule)
    if event.bet == "odds":
        base = _odds_base(state, event.seat, event.number, event.on, with_odds=False)
        lay = base.bet in WRONG
        rule = ODDS_RULE[base.bet]
        check_amount(event.amount, config, "odds", rule)
        assert event.number is not None  # _odds_base found a bet on this point
        limit = config.max_odds(lay, event.number, base.amount)
        check_stake(base.odds + event.amount, 1, limit, f"{'lay' if lay else 'take'} odds on {base.bet} {event.number}", rule)
        return state.with_layout(put(state.layout, replace(base, odds=base.odds + event.amount)))
    return state.with_layout(add_stake(state.layout, config, event, kind))


def _remove(state: CrapsState, event: Remove) -> tuple[CrapsState, tuple[Effect, ...]]:
    """A bet taken down, when the rules allow it.

    Never a come or don't come bet moved to its point (§4620.3(e)(5)(i)-(ii)),
    nor a line bet once the point is up (a contract bet; the don't pass held
    like the don't come); odds and place bets always (§4620.3(e)(5)(iii)-(iv),
    (e)(4)); any other bet before the roll that would decide it.
    """
    config = state.config
    if event.bet in COME and event.number is not None:
        rule = "§4620.3(e)(5)(i)" if event.bet == "come" else "§4620.3(e)(5)(ii)"
        if find(state.layout, event.seat, event.bet, event.number) is not None:
            raise BetRejected(
                f"a {event.bet} bet moved to the {event.number} may not be taken down (its odds may)", rule)
        raise BetRejected(f"seat {event.seat} has no {event.bet} bet on {event.number}", rule)
    kind = bet_kind(GAME, config, event)
    if event.bet in LINE and state.point is not None:
        raise BetRejected(
            f"a {event.bet} bet stays until the point of {state.point} is decided", kind.rule)
    if event.bet == "odds":
        base = _odds_base(state, event.seat, event.number, event.on, with_odds=True)
        layout = put(state.layout, replace(base, odds=0))
        return state.with_layout(layout), (Returned(base.seat, "odds", event.number, base.odds),)
    layout, returned = take_down(state.layout, event, kind)
    return state.with_layout(layout), (returned,)


# --- the roll ---------------------------------------------------------------

def _line(come_out_bet: bool, right: bool, point: int | None, roll_total: int) -> Outcome:
    """A pass/come (``right``) or don't pass/don't come flat bet.

    §4620.3(e)(1), (e)(5)(i): wins on 7 or 11 first, loses on 2, 3, 12; then
    wins on its point before a 7. §4620.3(e)(2), (e)(5)(ii): wins on 2 or 12,
    stands off on ace-deuce (3), loses on 7 or 11; then wins on a 7 first.
    """
    t = roll_total
    if come_out_bet:
        if t in NATURALS:
            return EVEN_MONEY if right else "lose"
        if t in CRAPS:
            if right:
                return "lose"
            return "push" if t == 3 else EVEN_MONEY
        return None
    if t == point:
        return EVEN_MONEY if right else "lose"
    if t == 7:
        return "lose" if right else EVEN_MONEY
    return None


def _odds(right: bool, point: int, roll_total: int, working: bool) -> Outcome:
    """Odds behind a flat bet on ``point`` (§4620.3(e)(3), (e)(5)(iii)-(iv)):
    true odds, decided with the flat bet; returned when they are not working."""
    if roll_total not in (point, 7):
        return None
    if not working:
        return "push"
    if roll_total == point:
        return TAKE_ODDS[point] if right else "lose"
    return "lose" if right else LAY_ODDS[point]


def outcome(bet: str, number: int | None, dice: tuple[int, ...], point: int | None,
            config: TableConfig) -> Outcome:
    """How one roll decides one craps bet other than line and come bets (None: it stays up)."""
    t = total(dice)
    come_out = point is None
    if bet == "place":
        # §4620.3(e)(4): wins when its number rolls before a 7.
        if come_out and not config.place_bets_work_on_come_out:
            # Called off on the come-out by this table; a place bet may not sit on the point it becomes.
            return "push" if t == number else None
        return PLACE[number] if t == number else "lose" if t == 7 else None
    if bet == "field":
        # §4620.3(e)(6): one roll; 2 and 12 at 2-1 if the layout says so.
        if t in (2, 12) and config.field_2_12_pays_2_to_1:
            return to_one(2)
        return EVEN_MONEY if t in FIELD_NUMBERS else "lose"
    if bet in ("big6", "big8"):
        # §4620.3(e)(7): even money if the 6 (8) shows before a 7.
        return EVEN_MONEY if t == int(bet[3]) else "lose" if t == 7 else None
    if bet == "any7":
        return for_one(5) if t == 7 else "lose"  # §4620.3(e)(8)
    if bet == "any_craps":
        return for_one(8) if t in CRAPS else "lose"  # §4620.3(e)(9)
    if bet == "hard":
        # §4620.3(e)(10): the pair wins; the number "any other way" or a 7 loses.
        if come_out and not config.hardways_work_on_come_out:
            return None
        assert number is not None  # the catalogue gives every hard way its number
        if is_pair(dice, number // 2, number // 2):
            return HARD[number]
        return "lose" if t in (7, number) else None
    if bet in PROPS:
        pair, pays = PROPS[bet]  # §4620.3(e)(11)
        return pays if is_pair(dice, *pair) else "lose"
    raise ValueError(f"not a craps bet for outcome(): {bet}")


def _roll(state: CrapsState, event: Roll) -> tuple[CrapsState, tuple[Effect, ...]]:
    check_dice(event.dice, DICE, "§4620.3(a)(2)")
    if event.by == "dealer":
        raise BetRejected("in craps the shooter throws the dice", "§4620.3(b)(2)")
    config, point, unit = state.config, state.point, state.config.payout_unit
    t = total(event.dice)
    effects: list[Settlement] = []
    kept: list[Wager] = []
    moved: list[Wager] = []
    for w in state.layout:
        if w.bet in LINE or w.bet in COME:
            right = w.bet in ("pass", "come")
            if w.bet in LINE:
                bet_point, first = point, point is None
            else:
                bet_point, first = w.number, w.number is None
            flat = _line(first, right, bet_point, t)
            if flat is None:
                if first and w.bet in COME:
                    moved.append(replace(w, number=t))  # §4620.3(e)(5)(i)-(ii): to the point box
                else:
                    kept.append(w)
                continue
            effects.append(settle(w.seat, w.bet, w.number, w.amount, flat, unit))
            if w.odds:
                assert bet_point is not None  # odds stand only behind a bet on its point
                # Come odds work on the come-out unless the table calls them off; the
                # others (and all lay odds) always work.
                working = not (w.bet == "come" and point is None and not config.come_odds_work_on_come_out)
                odds = _odds(right, bet_point, t, working)
                effects.append(settle(w.seat, "odds", bet_point, w.odds, odds, unit))
            continue
        result = outcome(w.bet, w.number, event.dice, point, config)
        if result is None:
            kept.append(w)
        else:
            effects.append(settle(w.seat, w.bet, w.number, w.amount, result, unit))
    layout = merged(tuple(kept), moved) if moved else tuple(kept)
    shooter, has_rolled = state.shooter, True
    if point is None:
        if t in POINTS:
            point = t  # §4620.3(c)(3)
    elif t == point:
        point = None  # a pass, §4620.3(c)(3)(i)
    elif t == 7:
        # A miss-out: the dice pass to the left, §4620.3(c)(3)(ii), (c)(4).
        point, shooter, has_rolled = None, config.left_of(shooter), False
    return CrapsState(config, shooter, layout, point, has_rolled), tuple(effects)


def _next_shooter(state: CrapsState, event: NextShooter) -> CrapsState:
    """Passing the dice after a decision (§4620.3(c)(5)) or refusing to shoot (§4620.3(c)(6))."""
    if state.point is not None:
        raise BetRejected(
            f"the shooter keeps the dice until the point of {state.point} is decided", "§4620.3(c)(5)")
    seat = event.seat if event.seat is not None else state.config.left_of(state.shooter)
    if seat not in state.config.seats:
        raise BetRejected(f"seat {seat!r} is not at this table", "§4620.3(b)(1)")
    return replace(state, shooter=seat, shooter_has_rolled=False)


def apply(state: CrapsState, event: Event) -> tuple[CrapsState, tuple[Effect, ...]]:
    """Craps's transition function (see the module docstring)."""
    if isinstance(event, Bet):
        return _bet(state, event), ()
    if isinstance(event, Remove):
        return _remove(state, event)
    if isinstance(event, Roll):
        return _roll(state, event)
    if isinstance(event, NextShooter):
        return _next_shooter(state, event), ()
    raise BetRejected(f"craps does not take {type(event).__name__} events", "§4620.3")
