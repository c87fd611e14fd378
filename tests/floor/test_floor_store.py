"""The floor's database: rows taken as links of each journal's chain, alerts, export and check."""
from __future__ import annotations

import json
import sqlite3

import pytest

from controller.cli import main
from controller.floor.check import chain_problems
from controller.floor.judge import Verdict
from controller.floor.store import FloorStore
from controller.journal import Journal, entry_hash, export_line
from controller.journal.chain import canonical_json
from controller.floor.signing import table_key

from floorkit import signed

TABLE = "craps-1"


def journal_rows(tmp_path, count: int, name: str = "t", **identity) -> list[str]:
    """``count`` rows of a real journal, as ``journal export`` prints them (``identity``: keys of its header)."""
    with Journal.open(tmp_path / name) as journal:
        journal.append({"event": "table", "game": "craps", "rules": {}, **identity})
        for n in range(1, count):
            journal.append({"event": "bet", "seat": "A", "bet": "pass", "amount": 100 * n})
        return [export_line(e) for e in journal.entries()]


def take(store: FloorStore, journal: str, lines: list[str], table: str = TABLE) -> list[Verdict]:
    store.begin()
    verdicts = [store.receive(table, journal, line).verdict for line in lines]
    store.commit()
    return verdicts


def first_hash(line: str) -> str:
    return json.loads(line)["hash"]


def test_rows_in_order_are_kept_and_exported_exactly_as_received(tmp_path, capsys):
    lines = journal_rows(tmp_path, 5)
    with FloorStore(tmp_path / "floor.sqlite3") as store:
        assert take(store, first_hash(lines[0]), lines) == [Verdict.STORE] * 5
        assert take(store, first_hash(lines[0]), lines[2:4]) == [Verdict.DUPLICATE] * 2
    assert main(["floor", "--db", str(tmp_path / "floor.sqlite3"), "export", "--table", TABLE]) == 0
    assert capsys.readouterr().out.splitlines() == lines
    assert main(["floor", "--db", str(tmp_path / "floor.sqlite3"), "check"]) == 0


def test_check_and_tables_print_compact_json_lines_as_every_command_does(tmp_path, capsys):
    from controller.jsonlines import json_line

    lines = journal_rows(tmp_path, 3)
    with FloorStore(tmp_path / "floor.sqlite3") as store:
        take(store, first_hash(lines[0]), lines)
        store.raise_alert(TABLE, first_hash(lines[0]), 2, "cut", "rows were cut off its end")
    for action, status in (("tables", 0), ("check", 1)):
        capsys.readouterr()
        assert main(["floor", "--db", str(tmp_path / "floor.sqlite3"), action]) == status
        printed = capsys.readouterr().out.splitlines()
        assert printed and all(line == json_line(json.loads(line)) for line in printed), printed


def test_a_row_past_a_gap_is_not_kept_until_the_rows_between_come(tmp_path):
    lines = journal_rows(tmp_path, 5)
    journal = first_hash(lines[0])
    with FloorStore(tmp_path / "floor.sqlite3") as store:
        assert take(store, journal, [lines[0], lines[1], lines[3]]) == [Verdict.STORE, Verdict.STORE, Verdict.GAP]
        assert store.tail(TABLE, journal)[0] == 2
        assert take(store, journal, lines[2:]) == [Verdict.STORE, Verdict.STORE, Verdict.STORE]


def test_a_rewritten_row_raises_one_alert_that_check_names_by_table_and_row(tmp_path, capsys):
    honest = journal_rows(tmp_path, 4, "honest")
    # Row 3 written again with another amount and hashed right: rows 1 and 2 are the same.
    prev = json.loads(honest[1])["hash"]
    row = json.loads(honest[2])
    row["event"]["amount"] = 900
    row["hash"] = entry_hash(prev, 3, row["ts"], row["kind"], canonical_json(row["event"]))
    forged = json.dumps(row, sort_keys=True, separators=(",", ":"))
    db = tmp_path / "floor.sqlite3"
    journal = first_hash(honest[0])
    with FloorStore(db) as store:
        take(store, journal, honest)
        assert take(store, journal, [forged, forged]) == [Verdict.BREAK, Verdict.BREAK]
        alerts = store.alerts()
        assert len(alerts) == 1 and alerts[0].seq == 3 and alerts[0].kind == "rewritten"
    capsys.readouterr()
    assert main(["floor", "--db", str(db), "check"]) == 1
    err = capsys.readouterr().err
    assert "table craps-1, row 3" in err and "rewritten" in err


def test_the_log_of_an_alert_that_names_no_row_says_the_journal_alone(tmp_path, caplog):
    with FloorStore(tmp_path / "floor.sqlite3") as store:
        store.begin()
        store.receive(TABLE, "a" * 64, "[[[")
        store.commit()
    (said,) = [r.getMessage() for r in caplog.records if "ALERT" in r.getMessage()]
    assert "row None" not in said and f"table {TABLE}, journal aaaaaaaaaaaa: " in said


def test_a_live_status_ending_before_the_copy_is_a_cut_but_a_retained_one_is_not_judged(tmp_path):
    lines = journal_rows(tmp_path, 6)
    journal = first_hash(lines[0])
    key = table_key(tmp_path / "key")
    with FloorStore(tmp_path / "floor.sqlite3") as store:
        take(store, journal, lines)
        old = {"journal": journal, "seq": 4, "head": first_hash(lines[3])}
        store.begin()
        assert store.set_status(TABLE, signed(key, TABLE, {"at": "2026-12-01T10:00:00.000+00:00", **old}),
                                live=False) is None
        alert = store.set_status(TABLE, signed(key, TABLE, {"at": "2026-12-01T10:00:01.000+00:00", **old}), live=True)
        store.commit()
        assert alert is not None and alert.kind == "cut" and alert.seq == 4 and "cut off its end" in alert.message


def test_each_journal_of_a_table_is_its_own_chain_and_export_prints_the_current_one(tmp_path, capsys):
    first = journal_rows(tmp_path, 3, "first")
    after = {"journal": first_hash(first[0]), "seq": 3, "head": first_hash(first[2])}
    second = journal_rows(tmp_path, 2, "second", table=TABLE, after=after)
    db = tmp_path / "floor.sqlite3"
    with FloorStore(db) as store:
        take(store, first_hash(first[0]), first)
        take(store, first_hash(second[0]), second)
        assert [n for _, _, n in store.journals(TABLE)] == [3, 2] and not store.alerts()
    assert main(["floor", "--db", str(db), "export", "--table", TABLE]) == 0
    assert capsys.readouterr().out.splitlines() == second
    assert main(["floor", "--db", str(db), "export", "--table", TABLE, "--journal", first_hash(first[0])]) == 0
    assert capsys.readouterr().out.splitlines() == first
    assert main(["floor", "--db", str(db), "export", "--table", "nobody"]) == 2
    assert "no journal of table 'nobody'" in capsys.readouterr().err


def test_check_finds_a_copy_changed_in_the_floors_own_file(tmp_path, capsys):
    lines = journal_rows(tmp_path, 4)
    db = tmp_path / "floor.sqlite3"
    with FloorStore(db) as store:
        take(store, first_hash(lines[0]), lines)
    raw = sqlite3.connect(db)
    raw.execute("DROP TRIGGER journal_rows_no_update")
    raw.execute("UPDATE journal_rows SET line = replace(line, '\"amount\":200', '\"amount\":2000') WHERE seq = 3")
    raw.commit()
    raw.close()
    assert main(["floor", "--db", str(db), "check"]) == 1
    assert "table craps-1, row 3" in capsys.readouterr().err


def test_chain_problems_names_a_missing_row():
    rows = [("t", "j", 1, "h1", "0" * 64, "{}"), ("t", "j", 3, "h3", "h2", "{}")]
    problems = chain_problems(rows[1:])
    assert problems[0].seq == 3 and "lacks row 1" in problems[0].reason


def test_rows_and_alerts_cannot_be_changed_in_place(tmp_path):
    lines = journal_rows(tmp_path, 2)
    db = tmp_path / "floor.sqlite3"
    with FloorStore(db) as store:
        take(store, first_hash(lines[0]), lines)
        store.begin()
        store.raise_alert(TABLE, first_hash(lines[0]), 2, "cut", "rows were cut off its end")
        store.commit()
    raw = sqlite3.connect(db)
    with pytest.raises(sqlite3.DatabaseError, match="keeps journal_rows as received"):
        raw.execute("DELETE FROM journal_rows")
    with pytest.raises(sqlite3.DatabaseError, match="keeps alerts as received"):
        raw.execute("UPDATE alerts SET message = ''")
    raw.close()


def test_a_missing_database_is_a_reason_not_a_traceback(tmp_path, capsys):
    assert main(["floor", "--db", str(tmp_path / "none.sqlite3"), "check"]) == 2
    assert "no floor database" in capsys.readouterr().err


@pytest.mark.parametrize("db", ["postgresql://floor@127.0.0.1:1/floor", "{tmp}/file/floor.sqlite3"])
def test_the_floor_on_a_database_it_cannot_open_says_so_and_exits_2(tmp_path, capsys, db):
    (tmp_path / "file").write_text("a file where the database's folder should be")
    answer = main(["floor", "--db", db.format(tmp=tmp_path), "--broker", "mqtt://127.0.0.1:1",
                   "--listen", "127.0.0.1:0", "--users", str(tmp_path / "users")])
    err = capsys.readouterr().err
    assert answer == 2 and "dicetable floor: cannot open the floor database" in err and "Traceback" not in err


def test_journal_archive_refuses_rows_the_floor_has_not_acknowledged(tmp_path, capsys):
    from controller.floor.cursor import Cursor, write_cursor

    lines = journal_rows(tmp_path, 1)  # the table's header alone: nothing on the layout
    write_cursor(tmp_path / "t", Cursor(first_hash(lines[0]), 0))
    assert main(["journal", "--state-dir", str(tmp_path / "t"), "archive", "--to", str(tmp_path / "a")]) == 2
    assert "the floor has acknowledged 0 of the journal's 1 rows" in capsys.readouterr().err
    write_cursor(tmp_path / "t", Cursor(first_hash(lines[0]), 1))
    assert main(["journal", "--state-dir", str(tmp_path / "t"), "archive", "--to", str(tmp_path / "a")]) == 0
