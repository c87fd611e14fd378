"""A table's messages larger than the floor takes (docs/floor.md, "Topics"): refused unread, a row
with an alert, a status or online word said once in the log; what fits is taken as before."""
from __future__ import annotations

import json
import logging


from controller.cli import main
from controller.floor.store import FloorStore
from controller.floor.topics import MAX_BYTES, online_topic, row_topic, size_limit, status_topic

from floorkit import Table, floor_alerts, floor_holds, journal_lines, start_floor, table_login, wait_until


def _state(db, table: str) -> dict:
    with FloorStore(db, readonly=True) as store:
        return store.states().get(table, {})


def test_each_kind_of_topic_has_its_limit():
    assert size_limit(row_topic("craps-1", "ab" * 32)) == MAX_BYTES["row"] == 256 * 1024
    assert size_limit(status_topic("craps-1")) == MAX_BYTES["status"] == 16 * 1024
    assert size_limit(online_topic("craps-1")) == MAX_BYTES["online"]
    assert size_limit("dicetable/somewhere/else") == max(MAX_BYTES.values())


def test_a_status_or_online_word_too_large_is_refused_and_said_once(tmp_path, broker, caplog):
    caplog.set_level(logging.ERROR)
    db = tmp_path / "floor.sqlite3"
    floor = start_floor(db, broker)
    rogue = table_login(broker, "craps-1")
    try:
        small = json.dumps({"game": "craps", "phase": "betting"})
        rogue.publish(status_topic("craps-1"), small, qos=1).wait_for_publish(5)
        wait_until(lambda: _state(db, "craps-1").get("status") == json.loads(small), what="the status that fits")
        large = json.dumps({"game": "craps", "phase": "x" * (MAX_BYTES["status"] + 1)})
        for _ in range(3):
            rogue.publish(status_topic("craps-1"), large, qos=1).wait_for_publish(5)
        rogue.publish(online_topic("craps-1"), "online" * 20, qos=1).wait_for_publish(5)
        wait_until(lambda: "refused an online message of 120 bytes" in caplog.text, what="the online word refused")
        assert _state(db, "craps-1")["status"] == json.loads(small)  # the last status that fitted
        assert caplog.text.count(f"refused a status message of {len(large)} bytes") == 1  # once, not thrice
        assert [a.kind for a in floor_alerts(db)] == ["unsigned"]  # no signature: shown, never judged
        rogue.publish(status_topic("craps-1"), small, qos=1).wait_for_publish(5)  # one that fits again ...
        rogue.publish(status_topic("craps-1"), large, qos=1).wait_for_publish(5)  # ... so the next is said again
        wait_until(lambda: caplog.text.count("refused a status message") == 2, what="the status refused again")
    finally:
        rogue.loop_stop()
        floor.stop()


def test_a_row_too_large_raises_an_alert_and_check_names_it(tmp_path, broker, capsys):
    db = tmp_path / "floor.sqlite3"
    floor = start_floor(db, broker)
    table = Table(tmp_path / "t1", "craps-1", broker)
    try:
        table.bets(3)
        wait_until(floor_holds(db, table.state_dir, "craps-1"), what="the floor's copy")
        journal = json.loads(journal_lines(table.state_dir)[0])["hash"]
        rogue = table_login(broker, "craps-2")
        rogue.publish(row_topic("craps-2", journal), "x" * (MAX_BYTES["row"] + 1), qos=1).wait_for_publish(5)
        wait_until(lambda: bool(floor_alerts(db)), what="the alert")
        rogue.loop_stop()
        [alert] = floor_alerts(db)
        assert (alert.table, alert.kind) == ("craps-2", "oversized")
        assert f"a row message of {MAX_BYTES['row'] + 1} bytes, over the {MAX_BYTES['row']}" in alert.message
        table.bets(2)  # the honest table is not touched
        wait_until(floor_holds(db, table.state_dir, "craps-1"), what="craps-1's copy after")
    finally:
        table.close()
        floor.stop()
    capsys.readouterr()
    assert main(["floor", "--db", str(db), "check"]) == 1
    said = capsys.readouterr()
    assert "table craps-2" in said.err and "oversized" in said.err, said.err


def test_a_table_that_journaled_a_row_too_large_says_so_and_the_floor_names_it(tmp_path, broker, caplog):
    caplog.set_level(logging.ERROR)
    db = tmp_path / "floor.sqlite3"
    floor = start_floor(db, broker)
    table = Table(tmp_path / "t1", "craps-1", broker)
    try:
        table.bets(2)
        wait_until(floor_holds(db, table.state_dir, "craps-1"), what="the floor's copy")
        table.journal.append({"event": "bet", "seat": "A", "bet": "pass", "amount": 100,
                              "note": "x" * MAX_BYTES["row"]})
        table.publisher.wake()
        wait_until(lambda: bool(floor_alerts(db)), what="the floor's alert")
        [alert] = floor_alerts(db)
        assert (alert.table, alert.kind) == ("craps-1", "oversized")
        assert "floor: table craps-1: row 4 is" in caplog.text and "the floor will refuse it" in caplog.text
    finally:
        table.close(drain_s=0)
        floor.stop()
