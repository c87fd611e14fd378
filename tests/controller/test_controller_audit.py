"""`dicetable journal audit`: the rules engine alone, under the journal's own rules, gives back
every settlement of the journal, and names the first row where it does not."""
from __future__ import annotations

import json
import random

import pytest

from controller.audit import audit
from controller.cli import main
from controller.journal import EFFECT, INPUT, Journal
from controller.players import Players
from controller.rules import TableConfig
from controller.table import JournaledTable
from controller.table.journaled import table_header

OFF_ON_COME_OUT = TableConfig(place_bets_work_on_come_out=False)


def _play(folder, game: str, config: TableConfig, rolls: int, seed: int) -> Journal:
    """A table played by the simulated players, with a refused bet each roll and, at craps, a
    place bet made and taken down now and then."""
    rng = random.Random(seed)
    dice = 3 if game == "hazard" else 2
    journal = Journal.open(folder)
    table = JournaledTable.open(journal, game, config)
    players = Players.seated(game, config.seats, seed)
    for n in range(rolls):
        for bet in players.bets(table.state):
            table.submit(bet)
        if game == "craps" and n % 4 == 0:
            table.submit({"event": "bet", "seat": "H", "bet": "place", "number": 6, "amount": 600})
            table.submit({"event": "remove", "seat": "H", "bet": "place", "number": 6})
        table.submit({"event": "lock"})
        if game == "hazard":
            table.submit({"event": "spin_done"})
        table.submit({"event": "bet", "seat": "A", "bet": "field", "amount": 100})  # refused: locked
        table.submit({"event": "manual", "dice": [rng.randint(1, 6) for _ in range(dice)]})
    return journal


@pytest.mark.parametrize("game", ["craps", "hazard", "bang"])
def test_every_settlement_of_a_played_table_comes_back(game, tmp_path):
    with _play(tmp_path, game, OFF_ON_COME_OUT, 40, seed=3) as journal:
        effects = [e.event["event"] for e in journal.entries() if e.kind == EFFECT]
        report = audit(journal)
    assert report.ok, report
    assert report.to_json() == {"ok": True, "game": game, "rolls": 40,
                                "settlements": effects.count("settle"), "returned": effects.count("returned")}
    assert report.settlements > 40
    assert (report.returned > 0) == (game == "craps")


def test_a_last_bet_whose_refusal_is_not_journaled_yet_is_pending_not_a_difference(tmp_path):
    """A live table writes an input, then its effects: an audit between the two commits (or of a
    journal a power cut stopped there) saw the table accepting a bet the rules refuse."""
    with _play(tmp_path, "craps", OFF_ON_COME_OUT, 3, seed=3) as journal:
        journal.append({"event": "bet", "seat": "A", "bet": "field", "amount": 10**9})  # over every limit
        report = audit(journal)
        assert report.ok and report.to_json()["pending"] == len(journal) and report.rolls == 3
        journal.append({"event": "rejected", "reason": "over the limit"}, EFFECT)
        journal.append({"event": "bet", "seat": "A", "bet": "field", "amount": 500})
        assert audit(journal).to_json().get("pending") is None  # the engine accepts it: nothing pending
        journal.append({"event": "remove", "seat": "A", "bet": "field"})  # its `returned` not written yet
        assert audit(journal).to_json()["pending"] == len(journal)


def _come_out_seven_with_a_place_bet(folder, config: TableConfig) -> None:
    with Journal.open(folder) as journal:
        table = JournaledTable.open(journal, "craps", config)
        table.submit({"event": "bet", "seat": "A", "bet": "place", "number": 6, "amount": 600})
        table.submit({"event": "lock"})
        table.submit({"event": "manual", "dice": [3, 4]})


def test_the_audit_replays_under_the_rules_the_journal_was_started_with(tmp_path, capsys):
    """The place bet was off on the come-out at this table, so the 7 left it up; today's
    regulation defaults would have lost it. The audit must follow the journal, not the defaults."""
    _come_out_seven_with_a_place_bet(tmp_path, OFF_ON_COME_OUT)
    assert main(["journal", "--state-dir", str(tmp_path), "audit"]) == 0
    assert json.loads(capsys.readouterr().out) == {"ok": True, "game": "craps", "rolls": 1,
                                                   "settlements": 0, "returned": 0}

    assert main(["journal", "--state-dir", str(tmp_path), "export", "--game-events"]) == 0
    (tmp_path / "events.jsonl").write_text(capsys.readouterr().out)
    assert main(["replay", "--game", "craps", str(tmp_path / "events.jsonl")]) == 0
    assert '"result":"lose"' in capsys.readouterr().out  # what the audit avoids: other rules, other money


def _journal_with(folder, config: TableConfig, rows: list[tuple[str, dict]]) -> Journal:
    """A journal written row by row, as a faulty program (or a forger who rehashed it) might."""
    journal = Journal.open(folder)
    journal.append(table_header("craps", config), INPUT)
    for kind, event in rows:
        journal.append(event, kind)
    return journal


PASS_BET = (INPUT, {"event": "bet", "seat": "A", "bet": "pass", "amount": 500})
SEVEN = [(INPUT, {"event": "lock"}), (INPUT, {"event": "manual", "dice": [3, 4]}),
         (EFFECT, {"event": "roll", "game": "craps", "dice": [3, 4], "source": "manual"})]
PASS_WINS = {"event": "settle", "seat": "A", "bet": "pass", "number": None, "amount": 500, "result": "win", "paid": 1000}


def test_a_journal_that_agrees_passes(tmp_path):
    with _journal_with(tmp_path, TableConfig(), [PASS_BET, *SEVEN, (EFFECT, PASS_WINS)]) as journal:
        assert audit(journal).ok


@pytest.mark.parametrize("rows, row, journal_side, recomputed, says", [
    pytest.param([PASS_BET, *SEVEN, (EFFECT, {**PASS_WINS, "paid": 1500})], 6,
                 {**PASS_WINS, "paid": 1500}, PASS_WINS, "differs", id="paid-too-much"),
    pytest.param([PASS_BET, *SEVEN], 5, None, PASS_WINS, "never settled", id="a-win-not-paid"),
    pytest.param([PASS_BET, *SEVEN, (EFFECT, PASS_WINS), (EFFECT, PASS_WINS)], 7,
                 PASS_WINS, None, "does not", id="paid-twice"),
    pytest.param([(INPUT, {**PASS_BET[1], "amount": 900000}), *SEVEN], 2,
                 None, None, "refuses row 2", id="a-bet-over-the-limit-accepted"),
])
def test_the_first_row_that_differs_is_named(tmp_path, capsys, rows, row, journal_side, recomputed, says):
    _journal_with(tmp_path, TableConfig(), rows).close()
    assert main(["journal", "--state-dir", str(tmp_path), "audit"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is False and report["row"] == row and says in report["reason"]
    assert report["journal"] == journal_side and report["recomputed"] == recomputed


@pytest.mark.parametrize("first, says", [
    ({"event": "lock"}, "not a table header"),
    ({"event": "table", "game": "poker", "rules": {}}, "unknown game"),
    ({"event": "table", "game": ["craps"], "rules": {}}, "unknown game"),
    ({"event": "table", "game": "craps", "rules": {"min_bet": "ten"}}, "min_bet"),
])
def test_a_journal_without_a_usable_header_is_refused_not_guessed(tmp_path, first, says):
    with Journal.open(tmp_path) as journal:
        journal.append(first, INPUT)
        report = audit(journal)
    assert not report.ok and report.row == 1 and says in report.reason
