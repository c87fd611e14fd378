"""The floor's store in PostgreSQL (a server of its own for these tests): the same rows, alerts,
export and check as with SQLite, and rows that cannot be changed in place."""
from __future__ import annotations

import json

import pytest

from controller.cli import main
from controller.floor.judge import Verdict
from controller.floor.store import FloorStore, FloorStoreError
from controller.journal import Journal, entry_hash, export_line
from controller.journal.chain import canonical_json

from floorkit import Table, floor_alerts, floor_holds, start_floor, wait_until


def _rows(tmp_path, count: int) -> list[str]:
    with Journal.open(tmp_path / "t") as journal:
        journal.append({"event": "table", "game": "craps", "rules": {}})
        for n in range(1, count):
            journal.append({"event": "bet", "seat": "A", "bet": "pass", "amount": 100 * n})
        return [export_line(e) for e in journal.entries()]


def test_rows_alerts_export_and_check_in_postgresql(tmp_path, postgres, capsys):
    url = postgres.database("store")
    lines = _rows(tmp_path, 5)
    journal = json.loads(lines[0])["hash"]
    forged = json.loads(lines[3])
    forged["event"]["amount"] = 90_000
    forged["hash"] = entry_hash(forged["prev_hash"], 4, forged["ts"], forged["kind"], canonical_json(forged["event"]))
    with FloorStore(url) as store:
        store.begin()
        assert [store.receive("craps-1", journal, line).verdict for line in lines] == [Verdict.STORE] * 5
        assert store.receive("craps-1", journal, lines[2]).verdict is Verdict.DUPLICATE
        store.commit()
    capsys.readouterr()
    assert main(["floor", "--db", url, "export", "--table", "craps-1"]) == 0
    assert capsys.readouterr().out.splitlines() == lines
    assert main(["floor", "--db", url, "check"]) == 0
    with FloorStore(url) as store:  # a new start: the copy's last rows are read back
        assert store.tail("craps-1", journal)[0] == 5
        store.begin()
        outcome = store.receive("craps-1", journal, json.dumps(forged, sort_keys=True, separators=(",", ":")))
        store.commit()
        assert outcome.verdict is Verdict.BREAK and outcome.alert.seq == 4 and outcome.alert.kind == "rewritten"
    capsys.readouterr()
    assert main(["floor", "--db", url, "check"]) == 1
    assert "table craps-1, row 4" in capsys.readouterr().err


def test_rows_and_alerts_cannot_be_changed_in_postgresql(tmp_path, postgres):
    import psycopg

    url = postgres.database("guards")
    lines = _rows(tmp_path, 2)
    with FloorStore(url) as store:
        store.begin()
        for line in lines:
            store.receive("craps-1", json.loads(lines[0])["hash"], line)
        store.commit()
    with psycopg.connect(url, autocommit=True) as db:
        for sql in ("UPDATE journal_rows SET line = ''", "DELETE FROM journal_rows", "TRUNCATE journal_rows",
                    "DELETE FROM journals"):
            with pytest.raises(psycopg.Error, match="as received"):
                db.execute(sql)


def test_a_database_with_no_floor_in_it_is_a_reason(postgres, capsys):
    url = postgres.database("empty")
    with pytest.raises(FloorStoreError, match="no floor database"):
        FloorStore(url, readonly=True)
    assert main(["floor", "--db", url, "check"]) == 2
    assert "no floor database" in capsys.readouterr().err


def test_the_floor_service_on_postgresql(tmp_path, postgres, broker):
    url = postgres.database("service")
    floor = start_floor(url, broker)
    table = Table(tmp_path / "t1", "craps-1", broker)
    try:
        table.bets(30)
        wait_until(floor_holds(url, table.state_dir, "craps-1"), what="the copy in PostgreSQL")
        assert table.close()
    finally:
        floor.stop()
    assert not floor_alerts(url)
