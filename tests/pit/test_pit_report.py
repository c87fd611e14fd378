"""The pit's report of a journal, checked against a computation of its own from `journal export`:
a scripted shift with every kind of pit entry, refusals, overrides of each kind, and a variance."""
from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest

from controller.cli import main
from controller.journal import Journal, export_lines
from controller.pit import report, rows_of_entries, rows_of_lines
from controller.rules import TableConfig
from controller.table import JournaledTable

START = datetime(2026, 12, 1, 18, 0, tzinfo=timezone.utc)

SHIFT = [
    {"event": "shift_open", "bank": {"2500": 40, "500": 100}, "user": "pat", "via": "console"},
    {"event": "buy_in", "seat": "A", "amount": 10000, "user": "pat"},
    {"event": "buy_in", "seat": "B", "amount": 5000, "user": "pat"},
    {"event": "buy_in", "seat": "Z", "amount": 5000, "user": "pat"},  # refused: no such seat
    {"event": "bet", "seat": "A", "bet": "pass", "amount": 500},
    {"event": "bet", "seat": "B", "bet": "field", "amount": 300},
    {"event": "bet", "seat": "B", "bet": "field", "amount": 100000},  # refused: over the limit
    {"event": "lock"},
    {"event": "read", "status": "ok", "dice": [3, 4], "confidence": 0.97, "frame": "r1.png"},
    {"event": "bet", "seat": "B", "bet": "field", "amount": 300},
    {"event": "lock"},
    {"event": "read", "status": "uncertain", "dice": [2, 2], "confidence": 0.5, "frame": "r2.png"},
    {"event": "manual", "dice": [2, 3], "user": "ana", "via": "console"},  # a correction of the camera
    {"event": "bet", "seat": "B", "bet": "field", "amount": 300},
    {"event": "lock"},
    {"event": "void", "user": "ana", "via": "console"},  # the lock voided
    {"event": "lock"},
    {"event": "read", "status": "no_read", "dice": [], "confidence": 0.0, "frame": "r3.png"},
    {"event": "manual", "dice": [6, 6]},  # a hand entry, from the panel
    {"event": "fill", "slip": "F-1", "amount": 50000, "user": "pat"},
    {"event": "countersign", "slip": "F-1", "user": "pat"},  # refused: the same user
    {"event": "shift_close", "bank": {"2500": 40}, "user": "pat"},  # refused: F-1 is not signed yet
    {"event": "countersign", "slip": "F-1", "user": "sam"},
    {"event": "credit", "slip": "C-1", "amount": 20000, "user": "sam"},
    {"event": "countersign", "slip": "C-1", "user": "pat"},
    {"event": "dice_set", "set": "red 4411-4415", "user": "pat"},
    {"event": "bet", "seat": "C", "bet": "any7", "amount": 100},
    {"event": "lock"},
    {"event": "read", "status": "ok", "dice": [1, 6], "confidence": 0.9, "frame": "r4.png"},
    {"event": "shift_close", "bank": {"2500": 40, "500": 100, "100": 123}, "user": "pat"},
    {"event": "bet", "seat": "A", "bet": "field", "amount": 200},  # after the shift: the range's only
    {"event": "lock"},
    {"event": "read", "status": "ok", "dice": [5, 5], "confidence": 0.9, "frame": "r5.png"},
]


@pytest.fixture
def journal_dir(tmp_path):
    """SHIFT journaled by the table, one second a row from START."""
    ticks = iter(range(10_000))
    clock = lambda: (START + timedelta(seconds=next(ticks))).isoformat(timespec="milliseconds")  # noqa: E731
    with Journal(tmp_path / "journal.sqlite3", clock=clock) as journal:
        table = JournaledTable.open(journal, "craps", TableConfig(), table_id="craps-3")
        for event in SHIFT:
            table.submit(event)
    return tmp_path


def exported(journal_dir) -> list[dict]:
    with Journal.open(journal_dir, readonly=True) as journal:
        return [json.loads(line) for line in export_lines(journal)]


def accepted_inputs(rows: list[dict], name: str) -> list[dict]:
    """The inputs named ``name`` the table took: those not followed by their refusal."""
    return [row for row, after in zip(rows, rows[1:] + [None]) if row["kind"] == "input"
            and row["event"]["event"] == name
            and not (after and after["kind"] == "effect" and after["event"]["event"] == "rejected")]


def test_the_report_is_what_the_exported_rows_say(journal_dir, capsys):
    assert main(["journal", "--state-dir", str(journal_dir), "report", "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    rows = exported(journal_dir)
    settles = [r["event"] for r in rows if r["event"]["event"] == "settle"]
    rolls = [r["event"]["dice"] for r in rows if r["event"]["event"] == "roll"]
    bets = [r["event"] for r in accepted_inputs(rows, "bet")]

    assert found["table"] == "craps-3" and found["game"] == "craps"
    assert found["rows"] == len(rows) and (found["first_seq"], found["last_seq"]) == (1, len(rows))
    assert found["win_cents"] == sum(s["amount"] - s["paid"] for s in settles)
    assert found["decisions"] == len(settles)
    assert found["rolls"] == len(rolls) == 5
    assert found["faces"] == [[sum(1 for dice in rolls if dice[place] == face) for face in range(1, 7)]
                              for place in range(2)]
    assert found["handle_cents"] == sum(b["amount"] for b in bets) == 500 + 300 + 300 + 300 + 100 + 200
    assert found["drop_cents"] == 15000
    assert found["hold"] == round(found["win_cents"] / found["handle_cents"], 6)
    for seat in ("A", "B", "C"):
        assert found["per_seat"][seat]["win_cents"] == sum(s["amount"] - s["paid"] for s in settles if s["seat"] == seat)
        assert found["per_seat"][seat]["handle_cents"] == sum(b["amount"] for b in bets if b["seat"] == seat)
    roll_seqs = [r["seq"] for r in rows if r["event"]["event"] == "roll"]
    void_seq = accepted_inputs(rows, "void")[0]["seq"]
    assert [(o["kind"], o["user"], o["seq"], o["frame"]) for o in found["overrides"]] == [
        ("correction", "ana", roll_seqs[1], "r2.png"), ("void", "ana", void_seq, None),
        ("hand_entry", None, roll_seqs[2], "r3.png")]
    assert found["camera"]["reads"] == {"ok": 3, "uncertain": 1, "no_read": 1}
    assert found["camera"]["settled_by"] == {"read": 3, "confirm": 0, "manual": 2}
    biggest = max(settles, key=lambda s: s["paid"] - s["amount"])
    assert found["largest_payouts"][0]["payout_cents"] == biggest["paid"] - biggest["amount"]
    frames = {p["seq"]: p["frame"] for p in found["largest_payouts"]}
    assert frames[roll_seqs[0] + 1] == "r1.png" and frames[roll_seqs[2] + 1] == "r3.png"  # the 12 entered by hand
    assert found["dice_p_value"] == found["dice"]["range"]["p_value"] and 0 < found["dice_p_value"] <= 1

    [shift] = found["shifts"]
    in_shift = [r for r in rows if shift["opened"]["seq"] < r["seq"] <= shift["closed"]["seq"]]
    win = sum(r["event"]["amount"] - r["event"]["paid"] for r in in_shift if r["event"]["event"] == "settle")
    expected = 150000 + 50000 - 20000 + win - 15000
    assert (shift["opening_cents"], shift["fills_cents"], shift["credits_cents"]) == (150000, 50000, 20000)
    assert shift["win_cents"] == win and shift["rolls"] == 4 and shift["drop_cents"] == 15000
    assert shift["expected_cents"] == expected and shift["closing_cents"] == 162300
    assert shift["variance_cents"] == 162300 - expected != 0
    assert shift["opened"]["by"] == "pat" and shift["closed"]["by"] == "pat"
    assert [(s["slip"], s["user"], s["countersigned_by"]) for s in shift["slips"]] == [("F-1", "pat", "sam"),
                                                                                       ("C-1", "sam", "pat")]
    assert found["dice"]["set"]["set"] == "red 4411-4415" and found["dice"]["set"]["rolls"] == 2
    assert found["dice"]["shift"]["rolls"] == 4


def test_the_floors_lines_give_the_same_report_and_json_never_says_nan(journal_dir):
    with Journal.open(journal_dir, readonly=True) as journal:
        from_rows = report(rows_of_entries(journal.entries()))
        from_lines = report(rows_of_lines(export_lines(journal)))
    assert from_rows == from_lines
    assert "NaN" not in json.dumps(from_rows, allow_nan=False)


def test_since_and_until_take_the_rows_between_them(journal_dir, capsys):
    rows = exported(journal_dir)
    since, until = rows[10]["ts"], rows[30]["ts"]
    assert main(["journal", "--state-dir", str(journal_dir), "report", "--json", "--since", since[:19] + "Z",
                 "--until", until]) == 0
    found = json.loads(capsys.readouterr().out)
    chosen = rows[10:31]
    assert (found["first_seq"], found["last_seq"], found["rows"]) == (chosen[0]["seq"], chosen[-1]["seq"], 21)
    assert found["since"] == "2026-12-01T18:00:10+00:00" and found["until"] == "2026-12-01T18:00:30+00:00"
    assert found["table"] == "craps-3"  # named by the journal's first row, outside the range
    assert found["rolls"] == sum(1 for r in chosen if r["event"]["event"] == "roll")
    assert found["win_cents"] == sum(r["event"]["amount"] - r["event"]["paid"] for r in chosen
                                     if r["event"]["event"] == "settle")


def test_a_range_without_a_bet_has_no_hold_rather_than_nan(journal_dir, capsys):
    assert main(["journal", "--state-dir", str(journal_dir), "report", "--json", "--until", "2026-12-01T18:00:01"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert found["rows"] == 2 and found["handle_cents"] == 0 and found["hold"] is None
    assert found["dice_p_value"] is None and found["faces"] == [] and found["dice"]["range"]["chi_square"] is None


def test_the_report_reads_for_a_person_and_the_dice_check_stands_alone(journal_dir, capsys):
    assert main(["journal", "--state-dir", str(journal_dir), "report"]) == 0
    text = capsys.readouterr().out
    assert "table craps-3 (craps)" in text and "overrides: 3 (hand entry 1, correction 1, void 1)" in text
    assert "counted $1,623.00, variance" in text and "dice over the dice set 'red 4411-4415': 2 rolls" in text
    assert main(["journal", "--state-dir", str(journal_dir), "dice", "--json"]) == 0
    dice = json.loads(capsys.readouterr().out)
    assert set(dice) == {"table", "game", "range", "shift", "set"} and dice["set"]["alarm"] is None


def test_a_time_that_is_no_iso_time_is_refused_with_the_usage(journal_dir, capsys):
    with pytest.raises(SystemExit) as exited:
        main(["journal", "--state-dir", str(journal_dir), "report", "--since", "yesterday"])
    assert exited.value.code == 2
    assert "not an ISO 8601 time such as 2026-12-01T18:00Z: 'yesterday'" in capsys.readouterr().err


def test_the_dice_check_exits_1_while_the_sequential_test_flags_the_set(tmp_path, capsys):
    with Journal(tmp_path / "journal.sqlite3") as journal:
        table = JournaledTable.open(journal, "craps", TableConfig())
        table.submit({"event": "dice_set", "set": "loaded", "user": "pat"})
        for _ in range(80):
            table.submit({"event": "lock"})
            table.submit({"event": "read", "status": "ok", "dice": [6, 6], "confidence": 0.9, "frame": None})
    assert main(["journal", "--state-dir", str(tmp_path), "dice"]) == 1
    assert "ALARM at row" in capsys.readouterr().out
