"""The table's game flow: phases, the dealer's rulings, wrong-moment refusals, recovery by replay."""
from __future__ import annotations

import pytest

from controller.journal import EFFECT, INPUT, Journal
from controller.rules import TableConfig
from controller.table import (JournaledTable, JournalMismatch, Phase, display_phase, lights_for, new_table, step,
                              view_for)

CONFIG = TableConfig()


def run(state, *events):
    steps = []
    for event in events:
        result = step(state, event)
        steps.append(result)
        state = result.state
    return state, steps


def bet(seat, name, amount, number=None):
    event = {"event": "bet", "seat": seat, "bet": name, "amount": amount}
    if number is not None:
        event["number"] = number
    return event


def read(status, dice, confidence=0.99, frame="roll.png"):
    return {"event": "read", "status": status, "dice": dice, "confidence": confidence, "frame": frame}


LOCK, CONFIRM, VOID, MANUAL = ({"event": e} for e in ("lock", "confirm", "void", "manual"))
SPIN_DONE = {"event": "spin_done"}


def test_craps_ok_read_settles_at_once_and_lights_follow():
    state, _ = run(new_table("craps", CONFIG), bet("A", "field", 500))
    assert not lights_for(state).no_more_bets
    state, _ = run(state, LOCK)
    assert state.phase is Phase.LOCKED and lights_for(state).no_more_bets
    state, (settled,) = run(state, read("ok", [1, 3]))
    roll, settle = settled.effects
    assert roll == {"event": "roll", "game": "craps", "dice": [1, 3], "source": "read"}
    assert settle["result"] == "win" and settle["paid"] == 1000
    assert state.phase is Phase.BETTING and not lights_for(state).no_more_bets
    assert view_for(state).dice == (1, 3) and display_phase(state) == "settled"


def test_craps_come_out_point_and_seven_out_rotate_the_shooter():
    state, steps = run(
        new_table("craps", CONFIG), bet("A", "pass", 500), LOCK, read("ok", [2, 2]),
    )
    assert view_for(state).point == 4 and view_for(state).shooter == "A"
    state, steps = run(state, LOCK, read("ok", [3, 4]))
    assert steps[-1].effects[1]["result"] == "lose"
    assert view_for(state).point is None and view_for(state).shooter == "B"


def test_uncertain_read_waits_for_the_dealer():
    state, steps = run(new_table("craps", CONFIG), bet("A", "any7", 500), LOCK, read("uncertain", [3, 4], 0.55))
    assert state.phase is Phase.PENDING and steps[-1].effects == ()
    assert display_phase(state) == "confirm" and view_for(state).dice == (3, 4)
    state, (confirmed,) = run(state, CONFIRM)
    assert confirmed.effects[0]["source"] == "confirm" and confirmed.effects[1]["paid"] == 2500


def test_no_read_cannot_be_confirmed_but_can_be_entered_by_hand_with_the_buttons():
    state, steps = run(new_table("craps", CONFIG), bet("A", "any_craps", 500), LOCK, read("no_read", [], 0.0), CONFIRM)
    assert not steps[-1].accepted and state.phase is Phase.PENDING
    state, steps = run(state, MANUAL)
    assert state.phase is Phase.MANUAL and display_phase(state) == "manual" and view_for(state).dice == (1,)
    state, steps = run(state, CONFIRM, CONFIRM)  # die 1: 1, die 2: 1 -> aces
    assert steps[-1].effects[0] == {"event": "roll", "game": "craps", "dice": [1, 1], "source": "manual"}
    assert steps[-1].effects[1]["result"] == "win"


def test_manual_entry_can_be_cancelled_back_to_the_read():
    state, _ = run(new_table("craps", CONFIG), LOCK, read("uncertain", [5, 6], 0.4), MANUAL)
    assert view_for(state).dice == (5,)  # starts at the camera's suggestion
    state, _ = run(state, {"event": "lock"}, VOID)
    assert state.phase is Phase.PENDING and state.pending.dice == (5, 6)


@pytest.mark.parametrize("status", ["ok", "uncertain"])
def test_a_read_that_arrives_during_a_hand_entry_waits_for_its_cancel(status):
    # The dealer held CONFIRM before the camera had the still frame. The camera hands out one
    # frame per roll: a read refused here would leave the table locked for good after the cancel.
    entering, _ = run(new_table("craps", CONFIG), bet("A", "any7", 500), LOCK, MANUAL, LOCK)
    state, (arrived,) = run(entering, read(status, [3, 4], 0.6))
    assert arrived.accepted and arrived.effects == ()  # nothing settled under the dealer's fingers
    assert state.phase is Phase.MANUAL and state.entry == entering.entry and state.rolls == 0
    state, _ = run(state, VOID)  # the entry is cancelled: the read comes up for the dealer
    assert state.phase is Phase.PENDING and state.pending.dice == (3, 4) and state.pending.status == status
    state, (confirmed,) = run(state, CONFIRM)
    assert confirmed.effects[0] == {"event": "roll", "game": "craps", "dice": [3, 4], "source": "confirm"}
    assert confirmed.effects[1]["paid"] == 2500 and state.phase is Phase.BETTING


def test_a_hand_entry_finished_over_a_read_settles_the_dealers_dice():
    state, _ = run(new_table("craps", CONFIG), LOCK, MANUAL, read("ok", [6, 6]), LOCK)  # die 1 stepped to 2
    state, steps = run(state, CONFIRM, CONFIRM)
    assert steps[-1].effects[0] == {"event": "roll", "game": "craps", "dice": [2, 1], "source": "manual"}
    assert state.phase is Phase.BETTING and state.pending is None and state.rolls == 1


def test_a_later_read_during_an_entry_replaces_the_one_it_started_from():
    state, _ = run(new_table("hazard", CONFIG), LOCK, SPIN_DONE, read("uncertain", [1, 2, 3], 0.4), MANUAL,
                   read("no_read", [], 0.0, frame="again.png"), VOID)
    assert state.phase is Phase.PENDING and state.pending.frame == "again.png"
    assert not state.pending.confirmable(state.dice_count)


def test_void_discards_the_read_then_unlocks():
    state, _ = run(new_table("craps", CONFIG), LOCK, read("uncertain", [5, 6], 0.4), VOID)
    assert state.phase is Phase.LOCKED and state.pending is None
    state, _ = run(state, VOID)
    assert state.phase is Phase.BETTING and state.rolls == 0


@pytest.mark.parametrize("game, after, voided", [
    ("craps", [], True),
    ("craps", [MANUAL, VOID], True),              # a hand entry begun and cancelled: the same dice
    ("craps", [read("uncertain", [1, 2])], False),  # the rethrow was read
    ("craps", [VOID], False),                      # unlocked
    ("hazard", [LOCK], False),                     # the cage turns again
    ("hazard", [MANUAL, CONFIRM, CONFIRM, CONFIRM], False),  # settled by hand
])
def test_a_voided_read_is_remembered_until_the_dice_are_thrown_again(game, after, voided):
    first = [SPIN_DONE] if game == "hazard" else []
    dice = [4, 4, 4] if game == "hazard" else [4, 4]
    state, steps = run(new_table(game, CONFIG), LOCK, *first, read("uncertain", dice, 0.5), VOID, *after)
    assert all(s.accepted for s in steps) and state.voided is voided


def test_hazard_lock_spins_the_cage_and_reads_only_after_it_stops():
    state, _ = run(new_table("hazard", CONFIG), bet("A", "high", 500), LOCK)
    assert state.phase is Phase.SPINNING and display_phase(state) == "rolling"
    state, steps = run(state, read("ok", [6, 6, 5]))
    assert not steps[-1].accepted and "spinning" in steps[-1].effects[0]["reason"]
    state, steps = run(state, {"event": "spin_done"}, read("ok", [6, 6, 5]))
    assert steps[-1].effects[1]["result"] == "win" and state.phase is Phase.BETTING


def test_hazard_voided_read_is_rethrown_by_spinning_the_cage_again():
    state, _ = run(new_table("hazard", CONFIG), bet("A", "high", 500), LOCK, {"event": "spin_done"},
                   read("uncertain", [6, 6, 5], 0.4), VOID)
    assert state.phase is Phase.LOCKED and lights_for(state).no_more_bets
    state, steps = run(state, LOCK)  # the dice lie unread in the stopped cage: turn it again
    assert steps[-1].accepted and state.phase is Phase.SPINNING and display_phase(state) == "rolling"
    state, steps = run(state, {"event": "spin_done"}, read("ok", [6, 6, 5]))
    assert steps[-1].effects[1]["result"] == "win" and state.rolls == 1
    state, steps = run(new_table("craps", CONFIG), LOCK, LOCK)  # a rail table has no cage to turn
    assert not steps[-1].accepted and state.phase is Phase.LOCKED


def test_hazard_hand_entry_while_the_cage_should_turn():
    # A cage motor that will not start (display Err): the dealer turns the cage by hand and enters
    # the dice; no spin_done will come. Cancelling goes back to spinning (the cage is turned again).
    spinning, _ = run(new_table("hazard", CONFIG), bet("A", "high", 500), LOCK)
    state, steps = run(spinning, MANUAL)
    assert steps[-1].accepted and state.phase is Phase.MANUAL and state.entry_from is Phase.SPINNING
    state, steps = run(state, read("ok", [6, 6, 5]))  # the dice of a spin the entry cut short
    assert not steps[-1].accepted and "mid-spin" in steps[-1].effects[0]["reason"]
    state, _ = run(state, VOID)
    assert state == spinning
    state, steps = run(spinning, MANUAL, *[LOCK] * 5, CONFIRM, *[LOCK] * 5, CONFIRM, *[LOCK] * 4, CONFIRM)
    assert steps[-1].effects[0] == {"event": "roll", "game": "hazard", "dice": [6, 6, 5], "source": "manual"}
    assert steps[-1].effects[1]["result"] == "win" and state.phase is Phase.BETTING


@pytest.mark.parametrize(
    "game, events, at_start",
    [
        ("craps", [], False),
        ("craps", [LOCK], True),
        ("craps", [LOCK, MANUAL, LOCK], True),  # the camera of the last run was waiting: a cancel needs it
        ("craps", [LOCK, read("uncertain", [3, 4]), MANUAL], False),  # the read is there: VOID arms it
        ("hazard", [LOCK, MANUAL], False),  # cancelling turns the cage again
        ("hazard", [LOCK, SPIN_DONE], True),
    ],
)
def test_a_table_found_waiting_for_dice_at_a_start_expects_a_roll(game, events, at_start):
    from controller.table import expects_roll

    state, _ = run(new_table(game, CONFIG), *events)
    assert expects_roll(None, state) is at_start


@pytest.mark.parametrize(
    "game, events, last, thrown",
    [
        ("craps", [], LOCK, True),  # the shooter throws
        ("craps", [LOCK, read("uncertain", [3, 4])], VOID, True),  # and throws again after a void
        ("hazard", [LOCK], SPIN_DONE, True),  # the spin threw the dice
        ("hazard", [LOCK, SPIN_DONE, read("uncertain", [3, 4, 5])], VOID, False),  # they lie there until LOCK
    ],
)
def test_which_awaited_rolls_are_thrown_anew(game, events, last, thrown):
    """The dice a roll waits for are thrown anew, except after a voided read in the hazard cage."""
    from controller.table import dice_thrown, expects_roll

    before, _ = run(new_table(game, CONFIG), *events)
    after, _ = run(before, last)
    assert expects_roll(before, after) and dice_thrown(before, after) is thrown
    assert dice_thrown(None, after) is (game != "hazard")  # found so at a start: only a spin throws in the cage


def test_bang_dealer_roll_then_shooter_roll_then_next_shooter():
    state, steps = run(new_table("bang", CONFIG), bet("A", "beat_dealer", 500), bet("B", "field", 500), LOCK, read("ok", [2, 3]))
    assert steps[-1].effects[0]["by"] == "dealer"
    assert [e["bet"] for e in steps[-1].effects[1:]] == ["field"]  # inside bets only
    lamps = lights_for(state)
    assert not lamps.bang_inside and lamps.bang_outside  # outside bets closed until the next game
    state, steps = run(state, bet("A", "beat_dealer", 500))
    assert not steps[-1].accepted and steps[-1].effects[0]["rule"].startswith("§4620.15")
    state, steps = run(state, LOCK, read("ok", [6, 5]))
    assert steps[-1].effects[0]["by"] == "shooter"
    assert steps[-1].effects[1] == {"event": "settle", "seat": "A", "bet": "beat_dealer", "number": None,
                                    "amount": 500, "result": "win", "paid": 1000}
    assert view_for(state).shooter == "B" and not lights_for(state).bang_outside


@pytest.mark.parametrize(
    "prefix, event",
    [
        ([LOCK], bet("A", "pass", 500)),                          # a bet while bets are locked
        ([LOCK], {"event": "remove", "seat": "A", "bet": "pass"}),
        ([], CONFIRM),                                            # nothing to confirm
        ([LOCK], CONFIRM),
        ([], VOID),                                               # nothing to void
        ([], read("ok", [3, 4])),                                 # dice read while betting is open
        ([LOCK], LOCK),                                           # locked twice
        ([], MANUAL),
        ([], {"event": "spin_done"}),
        ([LOCK], read("ok", [3, 4, 5])),                          # wrong number of dice
        ([LOCK], read("sure", [3, 4])),
        ([LOCK], {"event": "manual", "dice": [0, 7]}),
        ([LOCK], {"event": "read", "status": "no_read", "dice": 3}),
        ([LOCK], {"event": "read", "status": "no_read", "dice": "34"}),
        ([], {"event": "shuffle"}),
        ([], bet("Z", "pass", 500)),                              # the rules engine refuses
        ([], bet("A", "pass", 50_000)),
        ([], ["not", "an", "object"]),
        ([], {"event": "unclear"}),                               # CONFIRM let go between push and hold
        ([LOCK, read("uncertain", [3, 4])], {"event": "unclear"}),  # ... even with a read to confirm
        ([LOCK, MANUAL], {"event": "unclear"}),                   # ... or during a hand entry
    ],
)
def test_wrong_moment_inputs_are_refused_and_change_nothing(prefix, event):
    state, _ = run(new_table("craps", CONFIG), bet("A", "pass", 500), *prefix)
    result = step(state, event)
    assert not result.accepted and result.state == state
    (rejected,) = result.effects
    assert rejected["event"] == "rejected" and rejected["reason"]
    assert "internal error" not in rejected["reason"]  # refused by a rule, not by a fault the catch-all hid


def test_an_unclear_press_is_refused_with_what_to_do_instead():
    state, _ = run(new_table("craps", CONFIG), LOCK, read("uncertain", [3, 4]))
    result = step(state, {"event": "unclear"})
    assert not result.accepted and result.state == state
    assert "held longer than a push" in result.effects[0]["reason"] and "HAnd" in result.effects[0]["reason"]


def _session():
    return [
        bet("A", "pass", 500), bet("B", "field", 300), LOCK, read("uncertain", [4, 4], 0.6), CONFIRM,
        bet("A", "odds", 500, number=8), CONFIRM, LOCK, read("ok", [5, 3]), bet("B", "field", 300), LOCK, MANUAL, LOCK, CONFIRM, CONFIRM,
    ]


def test_journaled_table_recovers_to_the_same_state(tmp_path):
    with Journal.open(tmp_path) as journal:
        table = JournaledTable.open(journal, "craps", CONFIG)
        for event in _session():
            table.submit(event)
        final = table.state
        rows = len(journal)
    with Journal.open(tmp_path) as journal:
        again = JournaledTable.open(journal, "craps", CONFIG)
        assert again.state == final and again.replayed == len(_session()) and len(journal) == rows


def test_recovery_completes_effects_cut_off_after_their_input(tmp_path):
    with Journal.open(tmp_path) as journal:
        table = JournaledTable.open(journal, "craps", CONFIG)
        for event in _session()[:-1]:
            table.submit(event)
        # The stop came after the last input was committed and before its effects were.
        journal.append(_session()[-1], INPUT)
    with Journal.open(tmp_path) as journal:
        table = JournaledTable.open(journal, "craps", CONFIG)
        assert table.completed == 2  # the roll and its settlement
        kinds = [(e.kind, e.event["event"]) for e in journal.entries()][-3:]
        assert kinds == [(INPUT, "confirm"), (EFFECT, "roll"), (EFFECT, "settle")]
    with Journal.open(tmp_path) as journal:
        assert JournaledTable.open(journal, "craps", CONFIG).completed == 0  # never settled twice


def test_journal_of_another_game_or_rules_is_refused(tmp_path):
    with Journal.open(tmp_path) as journal:
        JournaledTable.open(journal, "craps", CONFIG)
        with pytest.raises(JournalMismatch, match="holds a craps table"):
            JournaledTable.open(journal, "hazard", CONFIG)
        with pytest.raises(JournalMismatch, match="other rules"):
            JournaledTable.open(journal, "craps", TableConfig(max_bet=1000))


def test_effects_that_disagree_with_the_code_are_refused(tmp_path):
    with Journal.open(tmp_path) as journal:
        table = JournaledTable.open(journal, "craps", CONFIG)
        table.submit(bet("A", "field", 500))
        table.submit(LOCK)
        journal.append(read("ok", [1, 3]), INPUT)
        journal.append_many([{"event": "roll", "game": "craps", "dice": [1, 3], "source": "read"},
                             {"event": "settle", "seat": "A", "bet": "field", "number": None, "amount": 500,
                              "result": "win", "paid": 99999}], EFFECT)
        with pytest.raises(JournalMismatch, match="differ"):
            JournaledTable.open(journal, "craps", CONFIG)


def test_an_altered_journal_is_not_replayed(tmp_path):
    import json
    import sqlite3

    with Journal.open(tmp_path) as journal:
        table = JournaledTable.open(journal, "craps", CONFIG)
        table.submit(bet("A", "pass", 500))
        path = journal.path
    db = sqlite3.connect(path)
    db.executescript("DROP TRIGGER journal_no_update;")
    db.execute("UPDATE journal SET event = ? WHERE seq = 2", (json.dumps(bet("A", "pass", 5)),))
    db.commit()
    db.close()
    with Journal.open(tmp_path) as journal:
        with pytest.raises(JournalMismatch, match="fails its check at row 2"):
            JournaledTable.open(journal, "craps", CONFIG)


def test_display_picture_follows_the_phase():
    from controller.table import display_state

    state = new_table("craps", CONFIG)
    assert display_state(state).phase == "open" and display_state(state).dice == ()
    state, _ = run(state, LOCK, read("ok", [2, 2]))
    picture = display_state(state)
    assert (picture.phase, picture.dice, picture.point, picture.recent) == ("settled", (2, 2), 4, ())
    state, _ = run(state, LOCK)
    picture = display_state(state)
    assert (picture.phase, picture.dice, picture.recent) == ("locked", (), ((2, 2),))
    state, _ = run(state, read("uncertain", [6, 1], 0.5))
    assert (display_state(state).phase, display_state(state).dice) == ("confirm", (6, 1))
    state, _ = run(state, CONFIRM)
    picture = display_state(state)
    assert (picture.phase, picture.dice, picture.point, picture.recent) == ("settled", (6, 1), None, ((2, 2),))
    assert picture.roll_id == 2


def test_no_read_with_a_wrong_count_keeps_no_dice():
    from controller.table import display_state

    state, steps = run(new_table("craps", CONFIG), LOCK, read("no_read", [3, 1, 3, 3, 3], 0.07))
    assert state.phase is Phase.PENDING and state.pending.dice == ()
    assert display_state(state).dice == ()  # the display shows at most three dice: nothing here
    state, _ = run(new_table("craps", CONFIG), LOCK, read("no_read", [3, 4], 0.2))
    assert state.pending.dice == (3, 4)  # a whole roll seen (dice touching): the hand entry starts there




@pytest.mark.parametrize(
    "game, events, phase, dice",
    [
        ("craps", [LOCK, read("uncertain", [3, 4], 0.5)], "confirm", (3, 4)),    # CONFIRM settles it
        ("craps", [LOCK, read("no_read", [], 0.0)], "enter", ()),               # CONFIRM is refused
        ("craps", [LOCK, read("no_read", [3, 4], 0.2)], "enter", ()),  # a whole roll seen: no CONFIRM, no dice shown
        ("craps", [LOCK, read("no_read", [3, 4], 0.2), MANUAL], "manual", (3,)),  # the guess starts the entry
        ("craps", [LOCK, read("no_read", [3, 1, 3, 3, 3], 0.1)], "enter", ()),
        ("hazard", [LOCK, SPIN_DONE, read("uncertain", [1, 2, 3], 0.5)], "confirm", (1, 2, 3)),
        ("hazard", [LOCK, SPIN_DONE, read("no_read", [1, 2], 0.1)], "enter", ()),
        ("bang", [LOCK, read("no_read", [], 0.0)], "enter", ()),
        ("craps", [LOCK, read("uncertain", [3, 4], 0.5), MANUAL], "manual", (3,)),  # LOCK steps the die
        ("craps", [LOCK, read("no_read", [], 0.0), MANUAL], "manual", (1,)),
        ("craps", [LOCK, MANUAL, LOCK, CONFIRM], "manual", (2, 1)),
        ("craps", [LOCK, read("uncertain", [3, 4], 0.5), MANUAL, VOID], "confirm", (3, 4)),  # entry cancelled
        ("craps", [LOCK, read("no_read", [], 0.0), MANUAL, VOID], "enter", ()),
        ("craps", [LOCK, MANUAL, read("ok", [2, 5]), VOID], "confirm", (2, 5)),  # read during the entry
        ("craps", [LOCK, MANUAL, read("no_read", [2], 0.1), VOID], "enter", ()),
        ("craps", [LOCK, MANUAL, VOID], "locked", ()),                           # no read yet: the camera waits
        ("craps", [LOCK, read("uncertain", [3, 4], 0.5), VOID], "void", ()),  # voided: locked for the rethrow
        ("hazard", [LOCK, SPIN_DONE, read("uncertain", [1, 2, 3], 0.5), VOID], "void", ()),  # until LOCK
    ],
)
def test_display_says_confirm_only_when_confirm_settles_the_read(game, events, phase, dice):
    from controller.table import display_state

    state, steps = run(new_table(game, CONFIG), *events)
    assert all(s.accepted for s in steps)
    picture = display_state(state)
    assert (picture.phase, picture.dice) == (phase, dice)
    confirmed = step(state, CONFIRM)
    settled_by_confirm = confirmed.accepted and any(e.get("source") == "confirm" for e in confirmed.effects)
    assert settled_by_confirm == (picture.phase == "confirm")


def test_a_hand_entry_no_longer_looks_like_the_read_it_corrects():
    from controller.table import display_state
    from firmware import layout

    waiting, _ = run(new_table("craps", CONFIG), LOCK, read("uncertain", [3, 4], 0.5))
    entering, _ = run(waiting, MANUAL, CONFIRM)  # die 1 accepted at 3, die 2 offered at 4
    assert display_state(entering).dice == display_state(waiting).dice == (3, 4)
    assert layout.rows(display_state(waiting))[1] == "ConF OFF"
    assert layout.rows(display_state(entering))[1] == "HAnd OFF"


def test_a_fault_in_the_code_refuses_the_input_instead_of_wedging_the_table(monkeypatch):
    from controller.table import rules_port

    def broken(state, event):
        raise KeyError("boom")

    state = new_table("craps", CONFIG)
    monkeypatch.setattr(rules_port, "apply", broken)
    result = step(state, bet("A", "pass", 500))
    assert not result.accepted and result.state == state
    assert "internal error (KeyError" in result.effects[0]["reason"]


def test_recovery_tolerates_a_reworded_refusal(tmp_path):
    with Journal.open(tmp_path) as journal:
        table = JournaledTable.open(journal, "craps", CONFIG)
        table.submit(CONFIRM)  # refused: nothing to confirm
        journal.append(CONFIRM, INPUT)
        journal.append_many([{"event": "rejected", "refused": "confirm", "reason": "older wording", "rule": None}], EFFECT)
        assert JournaledTable.open(journal, "craps", CONFIG).replayed == 2


def test_long_replays_report_progress(tmp_path, monkeypatch):
    from controller.table import journaled

    monkeypatch.setattr(journaled, "PROGRESS_EVERY", 4)
    with Journal.open(tmp_path) as journal:
        table = JournaledTable.open(journal, "craps", CONFIG)
        for event in _session():
            table.submit(event)
        seen = []
        JournaledTable.open(journal, "craps", CONFIG, progress=lambda done, total: seen.append((done, total)))
        rows = len(journal)
    assert seen and all(total == rows for _, total in seen) and seen == sorted(seen)


@pytest.mark.parametrize("game, events", [
    ("craps", [read("ok", [6, 1]), LOCK, VOID]),
    ("hazard", [SPIN_DONE, read("ok", [2, 2, 3]), LOCK, VOID]),  # VOID while the cage turns
])
def test_betting_reopened_by_void_does_not_show_the_last_roll_as_just_paid(game, events):
    """After LOCK and VOID the display went back to the last roll and PAId: the voided throw
    looked like a 7, settled."""
    from controller.table import display_state

    state, steps = run(new_table(game, CONFIG), LOCK, *events)
    assert all(s.accepted for s in steps) and state.phase is Phase.BETTING
    picture = display_state(state)
    assert (picture.phase, picture.dice) == ("void", ())
    assert picture.recent == state.history  # the last roll is history, not the result shown
    state, _ = run(state, bet("A", "field", 500))
    assert display_state(state).phase == "void"  # until the next lock
    state, _ = run(state, LOCK)
    assert display_state(state).phase in ("locked", "rolling")
