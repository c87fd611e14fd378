"""MQTT client ids: a broker holds one session per id and gives it to the newest connection, so two
clients with one id throw each other off for ever. Each floor and each table has its own, and a
session taken over is said plainly in the log."""
from __future__ import annotations

import logging
import time

from controller.floor.broker import SESSION_TAKEN_OVER, SessionWatch, parse_broker, table_client_id
from controller.floor.service import FloorService, floor_client_id

from floorkit import Table, floor_holds, start_floor, wait_until


def test_a_floors_id_is_its_machines_and_databases_and_the_same_at_each_start(tmp_path):
    one, two = tmp_path / "one.sqlite3", tmp_path / "two.sqlite3"
    assert floor_client_id(one, "pit-1") == floor_client_id(one, "pit-1")  # its session is resumed
    assert floor_client_id(one, "pit-1").startswith("dicetable-floor-pit-1-")
    assert len({floor_client_id(one, "pit-1"), floor_client_id(two, "pit-1"), floor_client_id(one, "pit-2")}) == 3
    url = "postgresql://floor:{}@db.casino.lan:5432/floor"
    assert floor_client_id(url.format("a"), "pit-1") == floor_client_id(url.format("b"), "pit-1")  # no password in it
    assert floor_client_id(one, "odd host/name#1").startswith("dicetable-floor-odd-host-name-1-")


def test_no_table_id_gives_a_floors_id_or_another_tables():
    ids = [table_client_id(t) for t in ("floor", "floor-pit-1-0a1b2c3d", "craps-1", "craps-2")]
    assert len(set(ids)) == len(ids)
    assert not any(i.startswith("dicetable-floor") for i in ids)


class Reason:
    def __init__(self, value: int):
        self.value = value


def test_a_session_the_broker_says_was_taken_over_is_said_once_a_minute_with_the_count():
    now = [0.0]
    watch = SessionWatch(lambda: now[0])
    said = []
    for _ in range(30):
        watch.connected()
        now[0] += 1.0
        said.append(watch.lost(Reason(SESSION_TAKEN_OVER)))
    assert said[0] == (SessionWatch.TAKEN, 1) and sum(times for _, times in said) == 1
    now[0] = 61.0
    assert watch.lost(Reason(SESSION_TAKEN_OVER)) == (SessionWatch.TAKEN, 30)  # the 29 unsaid and this one


def test_a_connection_closed_again_and_again_right_after_it_was_accepted_is_taken_for_a_takeover():
    """Mosquitto before 2.0.15 says nothing when it gives a session to another connection: it only
    closes the older one, seconds after accepting it each time."""
    now = [0.0]
    watch = SessionWatch(lambda: now[0])
    kinds = []
    for _ in range(3):
        watch.connected()
        now[0] += 1.5
        kinds.append(watch.lost(Reason(128)))
        now[0] += 1.0
    assert kinds == [(SessionWatch.LOST, 1), (SessionWatch.LOST, 1), (SessionWatch.FLAPPING, 3)]
    watch.connected()
    now[0] += 1.5
    assert watch.lost(Reason(128)) == (SessionWatch.FLAPPING, 0)  # said already this minute


def test_a_broker_restarted_or_a_network_lost_is_a_plain_loss():
    now = [0.0]
    watch = SessionWatch(lambda: now[0])
    for _ in range(5):
        watch.connected()
        now[0] += 120.0  # connected a while, then lost
        assert watch.lost(Reason(128)) == (SessionWatch.LOST, 1)
        for _ in range(3):  # reconnecting fails while the broker is away: no connection is accepted
            now[0] += 1.0
            assert watch.lost(Reason(128)) == (SessionWatch.LOST, 1)


def test_two_floors_on_one_broker_each_keep_their_connection_and_every_row(tmp_path, broker, caplog):
    caplog.set_level(logging.WARNING)
    first = start_floor(tmp_path / "first.sqlite3", broker)
    second = start_floor(tmp_path / "second.sqlite3", broker)
    table = Table(tmp_path / "t1", "craps-1", broker)
    try:
        assert first.client_id != second.client_id
        table.bets(20)
        wait_until(floor_holds(tmp_path / "first.sqlite3", table.state_dir, "craps-1"), what="the first floor's copy")
        wait_until(floor_holds(tmp_path / "second.sqlite3", table.state_dir, "craps-1"), what="the second floor's copy")
        time.sleep(2.0)  # two floors with one id would have thrown each other off by now
        assert first.wait_connected(0) and second.wait_connected(0)
        assert "lost the broker" not in caplog.text and "session" not in caplog.text
    finally:
        table.close()
        first.stop()
        second.stop()


def test_a_floor_whose_session_another_takes_says_so(tmp_path, broker, caplog):
    caplog.set_level(logging.WARNING)
    settings = parse_broker(broker.url("floor"))
    first = FloorService(tmp_path / "first.sqlite3", settings, client_id="floor-a").start()
    assert first.wait_connected(10)
    second = FloorService(tmp_path / "second.sqlite3", settings, client_id="floor-a").start()
    try:
        wait_until(lambda: "another client connects with the same client id floor-a" in caplog.text
                   or "gave the session of client id floor-a to another client" in caplog.text, what="the takeover said")
        assert "Each floor needs its own id" in caplog.text
    finally:
        first.stop()
        second.stop()


def test_a_table_whose_session_another_table_takes_says_so(tmp_path, broker, caplog):
    caplog.set_level(logging.WARNING)
    first = Table(tmp_path / "t1", "craps-1", broker)
    wait_until(lambda: first.publisher.progress().connected, what="the first table connected")
    second = Table(tmp_path / "t2", "craps-1", broker)
    try:
        wait_until(lambda: "is another table configured with table_id craps-1?" in caplog.text,
                   what="the takeover said")
        assert "client id dicetable-table-craps-1" in caplog.text
    finally:
        first.close(drain_s=0)
        second.close(drain_s=0)
