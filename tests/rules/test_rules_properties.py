"""Properties over random sessions (hypothesis): money is conserved, every stake
is settled at most once, a rejected event changes nothing, and the same events
always give the same result."""
from __future__ import annotations

import copy
from collections import Counter

from hypothesis import HealthCheck, event, given, settings, strategies as st

from controller.rules import (BET_KINDS, DICE, BetRejected, Returned, Settlement, TableConfig, apply,
                              new_game, open_bets, parse_event, staked)

CONFIG = TableConfig(seats=("A", "B", "C"))
SEATS = st.sampled_from(["A", "B", "C", "Z"])
AMOUNTS = st.sampled_from([-100, 0, 1, 99, 100, 150, 301, 500, 600, 700])
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def events(game: str):
    kinds = BET_KINDS[game]
    names = st.sampled_from([k.name for k in kinds] + ["nonsense"])
    number = st.one_of(st.none(), st.integers(1, 18))
    on = st.sampled_from([None, None, "pass", "dont_pass", "come", "dont_come", "field"])
    bets = st.builds(lambda s, b, n, a, o: {"event": "bet", "seat": s, "bet": b, "number": n, "amount": a, "on": o},
                     SEATS, names, number, AMOUNTS, on)
    removes = st.builds(lambda s, b, n, o: {"event": "remove", "seat": s, "bet": b, "number": n, "on": o},
                        SEATS, names, number, on)
    die = st.integers(1, 6)
    rolls = st.builds(lambda d: {"event": "roll", "dice": d}, st.lists(die, min_size=DICE[game], max_size=DICE[game]))
    claimed_rolls = st.builds(lambda d, by: {"event": "roll", "dice": d, "by": by},
                              st.lists(die, min_size=DICE[game], max_size=DICE[game]),
                              st.sampled_from(["dealer", "shooter"]))
    odd_rolls = st.builds(lambda d: {"event": "roll", "dice": d}, st.lists(st.integers(0, 7), max_size=4))
    # Sensible bets (a kind with one of its own numbers) keep the layout busy.
    sensible = st.sampled_from(kinds).flatmap(lambda k: st.builds(
        lambda s, n, a: {"event": "bet", "seat": s, "bet": k.name, "number": n, "amount": a},
        st.sampled_from(["A", "B", "C"]), st.sampled_from(k.numbers), st.sampled_from([100, 150, 300, 500]),
    ))
    shooter = st.just({"event": "next_shooter"})
    # Craps: line bets and odds behind them often enough to meet points.
    if game == "craps":
        line = st.builds(lambda s, b: {"event": "bet", "seat": s, "bet": b, "amount": 500},
                         st.sampled_from(["A", "B", "C"]), st.sampled_from(["pass", "dont_pass", "come", "dont_come"]))
        odds = st.builds(lambda s, n, a: {"event": "bet", "seat": s, "bet": "odds", "number": n, "amount": a},
                         st.sampled_from(["A", "B", "C"]), st.sampled_from([4, 5, 6, 8, 9, 10]),
                         st.sampled_from([300, 500, 600]))
        sensible = st.one_of(sensible, line, odds)
    # Seats A-C only, so that removals often find their bet.
    sensible_removes = st.builds(lambda s, k: {"event": "remove", "seat": s, "bet": k.name, "number": k.numbers[0]},
                                 st.sampled_from(["A", "B", "C"]), st.sampled_from(kinds))
    anything = st.one_of(bets, removes, claimed_rolls, odd_rolls, shooter)
    # A session is rounds of a few bets (or other events) and then a roll.
    rounds = st.tuples(st.lists(st.one_of(sensible, sensible, sensible, sensible_removes, anything), max_size=5),
                       rolls)
    return st.lists(rounds, min_size=3, max_size=25).map(lambda rs: [e for r in rs for e in (*r[0], r[1])])


def stakes(state) -> Counter:
    """Each stake on the layout as (seat, bet, amount): its identity across a roll
    (a come bet keeps seat, bet and amount when it moves to its box)."""
    return Counter((b.seat, "odds" if b.on else b.bet, b.amount) for b in open_bets(state))


def run(game: str, session: list[dict]):
    """Play a session through the engine, checking the per-event invariants; return the outputs."""
    state = new_game(game, CONFIG)
    out = []
    for data in session:
        data = {k: v for k, v in data.items() if v is not None}
        before = copy.deepcopy(state)
        try:
            step = apply(state, parse_event(data))
        except BetRejected as rejection:
            assert state == before and hash(state) == hash(before)  # a refusal changes nothing
            out.append(rejection.to_json(data))
            continue
        after = step.state
        settled = [e for e in step.effects if isinstance(e, Settlement)]
        returned = [e for e in step.effects if isinstance(e, Returned)]
        if data["event"] == "bet":
            assert staked(after) == staked(state) + data["amount"] and not step.effects
        elif data["event"] == "remove":
            assert len(returned) == 1 and not settled
            assert staked(after) == staked(state) - returned[0].amount
        elif data["event"] == "roll":
            assert not returned
            # Every stake that left the layout is settled exactly once, and nothing else is.
            left = stakes(state) - stakes(after)
            assert left == Counter((s.seat, s.bet, s.amount) for s in settled)
            assert stakes(after) - stakes(state) == Counter()
            assert staked(state) == staked(after) + sum(s.amount for s in settled)
        else:
            assert after.layout == state.layout and not step.effects
        for s in settled:
            assert {"lose": s.paid == 0, "push": s.paid == s.amount, "win": s.paid > s.amount}[s.result]
            assert s.paid <= 181 * s.amount  # nothing pays more than the raffle
        for s in settled:
            event(f"settled {s.bet}")
        state = after
        out.extend(e.to_json() for e in step.effects)
    return state, out


@SETTINGS
@given(events("craps"))
def test_craps_sessions(session):
    state, out = run("craps", session)
    assert run("craps", session) == (state, out)  # replaying gives the same result


@SETTINGS
@given(events("hazard"))
def test_hazard_sessions(session):
    state, out = run("hazard", session)
    assert run("hazard", session) == (state, out)


@SETTINGS
@given(events("bang"))
def test_bang_sessions(session):
    state, out = run("bang", session)
    assert run("bang", session) == (state, out)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 6), st.integers(1, 6)), max_size=40))
def test_the_point_and_the_shooter_follow_the_rolls(rolls):
    """An independent model of §4620.3(c): the point, and the dice passing on a miss-out."""
    state, point, shooter = new_game("craps", CONFIG), None, 0
    for dice in rolls:
        state = apply(state, parse_event({"event": "roll", "dice": list(dice)})).state
        t = sum(dice)
        if point is None:
            point = t if t in (4, 5, 6, 8, 9, 10) else None
        elif t == point:
            point = None
        elif t == 7:
            point, shooter = None, (shooter + 1) % 3
        assert state.point == point and state.shooter == "ABC"[shooter]
