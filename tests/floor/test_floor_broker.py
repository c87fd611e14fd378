"""The floor against a real Mosquitto (its own, on a free port, with logins and the ACL of docs/floor.md).

Each fault ends with the floor's copy equal to the table's journal, or with the alert named.
"""
from __future__ import annotations

import json
import subprocess
import sys

from controller.cli import main
from controller.floor.cursor import read_cursor
from controller.floor.store import FloorStore
from controller.floor.topics import ack_topic, row_topic

from floorkit import (Table, broker_login, cut_rows, floor_alerts, floor_holds, floor_lines, journal_lines,
                      rewrite_row, start_floor, table_login, wait_until)


def test_every_row_reaches_the_floor_which_exports_it_as_the_table_does(tmp_path, broker, capsys):
    db = tmp_path / "floor.sqlite3"
    floor = start_floor(db, broker)
    table = Table(tmp_path / "t1", "craps-1", broker)
    try:
        table.bets(60)
        wait_until(floor_holds(db, table.state_dir, "craps-1"), what="the floor's copy")
        assert table.close()
        journal = json.loads(journal_lines(table.state_dir)[0])["hash"]
        assert read_cursor(table.state_dir).journal == journal and read_cursor(table.state_dir).seq == 61
        wait_until(lambda: FloorStore(db, readonly=True).states()["craps-1"]["online"] is False, what="offline")
    finally:
        floor.stop()
    state = FloorStore(db, readonly=True).states()["craps-1"]
    assert state["status"]["seq"] == 61 and state["status"]["game"] == "craps"
    capsys.readouterr()
    assert main(["floor", "--db", str(db), "export", "--table", "craps-1"]) == 0
    assert capsys.readouterr().out.splitlines() == journal_lines(table.state_dir)
    assert main(["floor", "--db", str(db), "check"]) == 0


def test_a_table_may_publish_only_its_own_topics_and_a_wrong_password_is_refused(tmp_path, broker):
    db = tmp_path / "floor.sqlite3"
    floor = start_floor(db, broker)
    victim = Table(tmp_path / "t2", "craps-2", broker)
    try:
        victim.bets(3)
        wait_until(floor_holds(db, victim.state_dir, "craps-2"), what="craps-2's copy")
        intruder = table_login(broker, "craps-1")
        first = journal_lines(victim.state_dir)[0]
        journal = json.loads(first)["hash"]
        # craps-1 replays craps-2's first row as craps-2, and acknowledges all of craps-2's rows as the floor.
        intruder.publish(row_topic("craps-2", journal), first, qos=1).wait_for_publish(5)
        intruder.publish(ack_topic("craps-2"), json.dumps({"journal": journal, "seq": 999}), qos=1).wait_for_publish(5)
        intruder.publish(row_topic("craps-1", "ab" * 32), first, qos=1).wait_for_publish(5)  # its own topic: taken
        wait_until(lambda: bool(floor_alerts(db)), what="the alert on craps-1's forged row")
        intruder.loop_stop()
        victim.bets(2)
        wait_until(floor_holds(db, victim.state_dir, "craps-2"), what="craps-2's copy after the intrusion")
        wait_until(lambda: victim.publisher.progress().acked == 6,  # the floor's word, not the intruder's 999
                   what="the floor's acknowledgement of craps-2's rows")
        assert [(a.table, a.seq) for a in floor_alerts(db)] == [("craps-1", 1)]
        refused, reason = broker_login(broker, "craps-1", "wrong")
        assert reason.is_failure
        refused.loop_stop()
    finally:
        victim.close()
        floor.stop()


def test_a_broker_killed_and_restarted_mid_session_loses_no_row(tmp_path, broker):
    db = tmp_path / "floor.sqlite3"
    floor = start_floor(db, broker)
    table = Table(tmp_path / "t1", "craps-1", broker)
    try:
        table.bets(40)
        wait_until(lambda: len(floor_lines(db, "craps-1")) > 10, what="the first rows")
        broker.kill()  # retained acknowledgements, queued rows: all gone
        table.bets(40)  # the table goes on while the broker is down
        broker.start()
        table.bets(20)
        wait_until(floor_holds(db, table.state_dir, "craps-1"), timeout=40, what="the floor's copy after the restart")
        assert table.close()
    finally:
        floor.stop()
    assert not floor_alerts(db)


def _floor_process(db, broker) -> subprocess.Popen:
    """`dicetable floor` in a process of its own, once it has said it runs."""
    process = subprocess.Popen([sys.executable, "-m", "controller.cli", "floor", "--broker", broker.url("floor"),
                                "--db", str(db), "--listen", "none"], stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None and json.loads(process.stdout.readline())["floor"] == str(db)
    return process


def test_a_floor_killed_with_sigkill_and_restarted_mid_session_catches_up(tmp_path, broker):
    db = tmp_path / "floor.sqlite3"
    floor = _floor_process(db, broker)
    table = Table(tmp_path / "t1", "craps-1", broker)
    try:
        table.bets(30)
        wait_until(lambda: len(floor_lines(db, "craps-1")) > 5, what="the first rows")
        floor.kill()
        floor.wait(timeout=10)
        table.bets(30)
        floor = _floor_process(db, broker)
        table.bets(10)
        wait_until(floor_holds(db, table.state_dir, "craps-1"), timeout=40, what="the copy after the floor's restart")
        assert table.close()
    finally:
        floor.kill()
        floor.wait(timeout=10)
    assert not floor_alerts(db)


def test_a_floor_that_lost_its_database_gets_every_row_again(tmp_path, broker):
    table = Table(tmp_path / "t1", "craps-1", broker)
    first = start_floor(tmp_path / "first.sqlite3", broker)
    try:
        table.bets(20)
        wait_until(floor_holds(tmp_path / "first.sqlite3", table.state_dir, "craps-1"), what="the first copy")
    finally:
        first.stop()
    second = start_floor(tmp_path / "second.sqlite3", broker)  # the same client id, a new database
    try:
        table.bets(5)
        wait_until(floor_holds(tmp_path / "second.sqlite3", table.state_dir, "craps-1"), timeout=40,
                   what="the new floor's copy")
    finally:
        table.close()
        second.stop()


def test_a_journal_rewritten_after_the_floor_saw_it_is_named_by_table_and_row(tmp_path, broker, capsys):
    db = tmp_path / "floor.sqlite3"
    floor = start_floor(db, broker)
    table = Table(tmp_path / "t1", "craps-1", broker)
    try:
        table.bets(20)
        wait_until(floor_holds(db, table.state_dir, "craps-1"), what="the copy")
        table.close()
        rewrite_row(table.state_dir, 6, 50_000)  # row 6's bet made $500, the chain hashed again
        capsys.readouterr()
        assert main(["journal", "--state-dir", str(table.state_dir), "verify"]) == 0  # the table's own check is fooled
        table = Table(tmp_path / "t1", "craps-1", broker)  # the table starts again on it
        wait_until(lambda: any(a.seq == 6 for a in floor_alerts(db)), what="the alert naming row 6")
    finally:
        table.close(drain_s=0)
        floor.stop()
    capsys.readouterr()
    assert main(["floor", "--db", str(db), "check"]) == 1
    err = capsys.readouterr().err
    assert "table craps-1, row 6" in err and "rewritten" in err
    assert '"amount":50000' not in "".join(floor_lines(db, "craps-1"))  # the copy keeps what was received


def test_rows_cut_off_a_journal_are_named_when_the_table_comes_back(tmp_path, broker, capsys):
    db = tmp_path / "floor.sqlite3"
    floor = start_floor(db, broker)
    table = Table(tmp_path / "t1", "craps-1", broker)
    try:
        table.bets(20)
        wait_until(floor_holds(db, table.state_dir, "craps-1"), what="the copy")
        table.close()
        cut_rows(table.state_dir, 15)
        table = Table(tmp_path / "t1", "craps-1", broker)
        wait_until(lambda: any(a.kind == "cut" for a in floor_alerts(db)), what="the cut alert")
    finally:
        table.close(drain_s=0)
        floor.stop()
    capsys.readouterr()
    assert main(["floor", "--db", str(db), "check"]) == 1
    assert "table craps-1, row 15" in capsys.readouterr().err
    assert len(floor_lines(db, "craps-1")) == 21


def test_an_archived_journal_stays_a_chain_of_its_own_and_export_prints_the_new_one(tmp_path, broker, capsys):
    db = tmp_path / "floor.sqlite3"
    floor = start_floor(db, broker)
    table = Table(tmp_path / "t1", "craps-1", broker)
    try:
        table.bets(5)
        wait_until(floor_holds(db, table.state_dir, "craps-1"), what="the first journal's copy")
        assert table.close()
        old = journal_lines(table.state_dir)
        assert main(["journal", "--state-dir", str(table.state_dir), "archive", "--to", str(tmp_path / "archive"),
                     "--force"]) == 0
        table = Table(tmp_path / "t1", "craps-1", broker)  # a new journal, at seq 1
        table.bets(2)
        wait_until(floor_holds(db, table.state_dir, "craps-1"), what="the new journal's copy")
    finally:
        table.close()
        floor.stop()
    with FloorStore(db, readonly=True) as store:
        assert [rows for _, _, rows in store.journals("craps-1")] == [6, 3] and not store.alerts()
        assert list(store.lines("craps-1", json.loads(old[0])["hash"])) == old
    capsys.readouterr()
    assert main(["floor", "--db", str(db), "export", "--table", "craps-1"]) == 0
    assert capsys.readouterr().out.splitlines() == journal_lines(table.state_dir)
    assert main(["floor", "--db", str(db), "check"]) == 0
