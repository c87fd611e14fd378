"""The floor you can trust (issue 44): journals that name their table and the journal before them,
heads signed with each table's key, and a floor that notices silence; each against a real Mosquitto."""
from __future__ import annotations

import json
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from controller.cli import main
from controller.floor.signing import table_key
from controller.floor.store import FloorStore
from controller.floor.topics import status_topic
from controller.journal import Journal

from floorkit import (Table, floor_alerts, floor_holds, floor_lines, journal_lines, signed, start_floor, table_login,
                      wait_until)


def _run(*args: str, cwd: Path | None = None, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "controller.cli", *args], capture_output=True, text=True,
                          timeout=timeout, cwd=cwd)


def _check(db: Path | str, *extra: str) -> subprocess.CompletedProcess[str]:
    return _run("floor", "--db", str(db), *extra, "check")


def _export(db: Path | str, table: str) -> list[str]:
    done = _run("floor", "--db", str(db), "export", "--table", table)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def _kinds(db: Path | str, table: str | None = None) -> list[str]:
    return [a.kind for a in floor_alerts(db) if table is None or a.table == table]


def test_the_demo_started_over_on_deleted_journal_files_is_named_replaced(tmp_path, broker):
    """The issue's target as written: the demo publishes to `dicetable floor` through Mosquitto, check
    exits 0; the craps table's journal files deleted and the demo run again: check exits 1 with a
    `replaced` line, and export prints what it printed."""
    db, var = tmp_path / "floor.sqlite3", tmp_path / "var"
    floor = subprocess.Popen([sys.executable, "-m", "controller.cli", "floor", "--broker", broker.url("floor"),
                              "--db", str(db), "--listen", "none"], stdout=subprocess.PIPE, text=True)
    try:
        assert floor.stdout is not None and json.loads(floor.stdout.readline())["floor"] == str(db)
        demo = ("run", "--game", "craps", "--rolls", "1", "--console", "off", "--state-dir", str(var), "--floor",
                broker.url("demo"))
        done = _run(*demo, cwd=tmp_path)
        assert done.returncode == 0 and "every row acknowledged as demo-craps" in done.stdout, done.stderr
        assert (var / "craps" / "table.key").stat().st_mode & 0o777 == 0o600  # the demo's table has its own key
        wait_until(floor_holds(db, var / "craps", "demo-craps"), what="demo-craps's copy")
        assert _check(db).returncode == 0
        before = _export(db, "demo-craps")
        for name in ("journal.sqlite3", "journal.committed", "journal.next"):
            (var / "craps" / name).unlink(missing_ok=True)
        done = _run(*demo, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        wait_until(lambda: "replaced" in _kinds(db), what="the replaced alert")
    finally:
        floor.send_signal(signal.SIGTERM)
        assert floor.wait(timeout=30) == 0
    checked = _check(db)
    assert checked.returncode == 1 and "replaced" in checked.stderr and "table demo-craps" in checked.stderr
    assert _export(db, "demo-craps") == before


def test_an_archived_journal_continues_the_line_and_accept_links_a_rebuilt_table(tmp_path, broker):
    db = tmp_path / "floor.sqlite3"
    floor = start_floor(db, broker)
    table = Table(tmp_path / "t1", "craps-1", broker)
    try:
        table.bets(3)
        wait_until(floor_holds(db, table.state_dir, "craps-1"), what="the first journal's copy")
        assert table.close()
        assert main(["journal", "--state-dir", str(table.state_dir), "archive", "--to", str(tmp_path / "a"),
                     "--force"]) == 0  # its bets stay in the archive
        table = Table(tmp_path / "t1", "craps-1", broker)  # the next journal names the archived one, signed
        table.bets(2)
        wait_until(floor_holds(db, table.state_dir, "craps-1"), what="the next journal's copy")
        assert table.close() and not floor_alerts(db)

        # A lost card: a new key and a journal that names nothing before it.
        shutil.rmtree(table.state_dir)
        table = Table(tmp_path / "t1", "craps-1", broker)
        table.bets(2)
        wait_until(lambda: {"replaced", "unsigned"} <= set(_kinds(db)), what="replaced and unsigned")
        before = _export(db, "craps-1")
        assert before != journal_lines(table.state_dir)  # the line still ends at the journal before
        rebuilt = json.loads(journal_lines(table.state_dir)[0])["hash"]
        assert _check(db).returncode == 1
        assert main(["floor", "--db", str(db), "accept", "--table", "craps-1", "--journal", rebuilt, "--reason",
                     "card failed, ticket 12"]) == 0
        table.bets(1)
        wait_until(floor_holds(db, table.state_dir, "craps-1"), what="the accepted journal's copy")
        assert table.close()
    finally:
        table.close(drain_s=0)
        floor.stop()
    checked = _check(db)
    assert checked.returncode == 0, checked.stderr
    with FloorStore(db, readonly=True) as store:
        assert store.line("craps-1")[-1] == (rebuilt, "accepted", "card failed, ticket 12")
        assert store.pinned_key("craps-1") == table_key(table.state_dir).public


def _put_in_place(source: Path, target: Path) -> None:
    """What whoever can write the table's files does: another journal put where the table's was."""
    (target / "floor.cursor").unlink(missing_ok=True)
    for name in ("journal.sqlite3", "journal.committed", "journal.next"):
        (target / name).unlink(missing_ok=True)
        if (source / name).exists():
            shutil.copy2(source / name, target / name)


def test_a_newer_a_foreign_and_a_future_dated_journal_put_in_place_each_raise_their_alert(tmp_path, broker):
    db = tmp_path / "floor.sqlite3"
    floor = start_floor(db, broker)
    tables = {name: Table(tmp_path / name, name, broker) for name in ("craps-1", "craps-2")}
    try:
        for table in tables.values():
            table.bets(3)
            wait_until(floor_holds(db, table.state_dir, table.table_id), what=f"{table.table_id}'s copy")
            assert table.close()
        before = _export(db, "craps-1")

        # Another table's journal (craps-2's, with its mark) put in craps-1's place: foreign.
        _put_in_place(tables["craps-2"].state_dir, tables["craps-1"].state_dir)
        table = Table(tables["craps-1"].state_dir, "craps-1", broker)
        wait_until(lambda: "foreign" in _kinds(db, "craps-1"), what="the foreign alert")
        table.close(drain_s=2)

        # A newer journal of the table, made elsewhere later: it names nothing before it.
        newer = tmp_path / "newer"
        Table(newer, "craps-1", broker).close(drain_s=0)
        _put_in_place(newer, tables["craps-1"].state_dir)
        table = Table(tables["craps-1"].state_dir, "craps-1", broker)
        wait_until(lambda: "replaced" in _kinds(db, "craps-1"), what="the replaced alert")
        table.close(drain_s=2)

        # A journal dated 2099: never the current one by its dates.
        future = tmp_path / "future"
        with Journal(future / "journal.sqlite3", clock=lambda: "2099-01-01T00:00:00.000+00:00") as journal:
            journal.append({"event": "table", "game": "craps", "rules": {}, "table": "craps-1"})
            journal.append({"event": "bet", "seat": "A", "bet": "pass", "amount": 100})
        _put_in_place(future, tables["craps-1"].state_dir)
        table = Table(tables["craps-1"].state_dir, "craps-1", broker)
        wait_until(lambda: len([k for k in _kinds(db, "craps-1") if k == "replaced"]) >= 1
                   and any("2099" in line for j, _, _ in FloorStore(db, readonly=True).journals("craps-1")
                           for line in FloorStore(db, readonly=True).lines("craps-1", j)),
                   what="the future-dated journal's rows")
        table.close(drain_s=2)
    finally:
        floor.stop()
    assert _export(db, "craps-1") == before
    checked = _check(db)
    assert checked.returncode == 1 and "foreign" in checked.stderr and "replaced" in checked.stderr


def test_a_stolen_broker_login_raises_unsigned_once_a_minute_and_changes_nothing(tmp_path, broker):
    db = tmp_path / "floor.sqlite3"
    floor = start_floor(db, broker)
    table = Table(tmp_path / "t1", "craps-1", broker)
    try:
        table.bets(5)
        wait_until(floor_holds(db, table.state_dir, "craps-1"), what="the copy")
        before = _export(db, "craps-1")
        journal = json.loads(before[0])["hash"]
        thief = table_login(broker, "craps-1")
        cut = {"game": "craps", "journal": journal, "seq": 2, "head": json.loads(before[1])["hash"]}
        thief.publish(status_topic("craps-1"), json.dumps(cut), qos=1).wait_for_publish(5)  # unsigned
        wrong = signed(table_key(tmp_path / "thief"), "craps-1", cut)  # signed, with another key
        thief.publish(status_topic("craps-1"), json.dumps(wrong), qos=1).wait_for_publish(5)
        bad = dict(signed(table_key(table.state_dir), "craps-1", cut), seq=3)  # the table's key, the sum changed
        for _ in range(200):
            thief.publish(status_topic("craps-1"), json.dumps(bad), qos=1)
        thief.publish(status_topic("craps-1"), json.dumps(bad), qos=1).wait_for_publish(5)
        wait_until(lambda: "unsigned" in _kinds(db), what="the unsigned alert")
        thief.loop_stop()
        table.bets(2)
        wait_until(floor_holds(db, table.state_dir, "craps-1"), what="the copy after")
    finally:
        table.close()
        floor.stop()
    assert _kinds(db) == ["unsigned"]  # one alert, the rest counted; no false cut
    assert _export(db, "craps-1")[:6] == before


def test_rows_not_yet_under_a_signed_head_are_pending_and_a_table_not_heard_is_silent(tmp_path, broker):
    db = tmp_path / "floor.sqlite3"
    floor = start_floor(db, broker)
    table = Table(tmp_path / "t1", "craps-1", broker)
    try:
        table.bets(3)
        wait_until(floor_holds(db, table.state_dir, "craps-1"), what="the copy")
        wait_until(lambda: not FloorStore(db, readonly=True).pending(), what="every row under a signed head")
        table.publisher._client.loop_stop()  # the table is cut off: no word of its own, no clean stop
        table.journal.append({"event": "bet", "seat": "A", "bet": "pass", "amount": 100})
        time.sleep(1.2)
        checked = _check(db, "--silent-after", "1")
        assert checked.returncode == 1 and "silent: not heard since" in checked.stderr
        assert _check(db).returncode == 0  # within the default two minutes
    finally:
        floor.stop()
        table.close(drain_s=0)

    quiet = Table(tmp_path / "t2", "craps-2", broker)
    second = start_floor(db, broker)
    try:
        quiet.bets(2)
        wait_until(lambda: any(t == "craps-2" for t, _, _, _ in FloorStore(db, readonly=True).pending()) or
                   floor_holds(db, quiet.state_dir, "craps-2")(), what="craps-2's rows")
        assert quiet.close()  # a clean stop: its last word signed, with "end"
    finally:
        second.stop()
    time.sleep(1.2)
    checked = _check(db, "--silent-after", "1")
    assert "table craps-2" not in checked.stderr


def test_enroll_pins_a_key_ahead_and_another_key_is_unsigned(tmp_path, broker, capsys):
    db = tmp_path / "floor.sqlite3"
    table_key(tmp_path / "genuine")
    assert main(["floor", "--db", str(db), "enroll", "craps-1", str(tmp_path / "genuine" / "table.pub")]) == 0
    assert json.loads(capsys.readouterr().out)["pinned"] == "now"
    assert main(["floor", "--db", str(db), "enroll", "craps-1", str(tmp_path / "genuine" / "table.pub")]) == 0
    assert main(["floor", "--db", str(db), "enroll", "craps-1", str(tmp_path / "nothing")]) == 2
    floor = start_floor(db, broker)
    impostor = Table(tmp_path / "t1", "craps-1", broker)  # a key of its own, not the one enrolled
    try:
        impostor.bets(1)
        wait_until(lambda: "unsigned" in _kinds(db), what="the unsigned alert")
    finally:
        impostor.close(drain_s=2)
        floor.stop()
    table_key(tmp_path / "rebuilt")
    assert main(["floor", "--db", str(db), "enroll", "craps-1", str(tmp_path / "rebuilt" / "table.pub")]) == 2
    assert "--reason" in capsys.readouterr().err


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _config(folder: Path, broker_line: str) -> Path:
    folder.mkdir(exist_ok=True)
    config = folder / "table.toml"
    config.write_text(f'[table]\nstate_dir = "state"\n[camera]\nsource = "none"\n[display]\nkind = "none"\n'
                      f'[floor]\n{broker_line}\n')
    return config


def test_run_check_logs_in_to_the_broker_and_says_in_one_sentence_when_it_cannot(tmp_path, broker):
    done = _run("run", "--config", str(_config(tmp_path / "none", 'broker = ""\ntable_id = ""')), "--check")
    assert done.returncode == 0, done.stderr
    nowhere = _config(tmp_path / "nowhere", f'broker = "mqtt://127.0.0.1:{_free_port()}"\ntable_id = "craps-1"')
    done = _run("run", "--config", str(nowhere), "--check")
    assert done.returncode == 1 and "connection refused" in done.stderr, done.stderr
    assert len([line for line in done.stderr.splitlines() if line]) == 1
    (tmp_path / "ok").mkdir()
    (tmp_path / "ok" / "secret").write_text(broker.users["craps-1"] + "\n")
    (tmp_path / "ok" / "secret").chmod(0o600)
    good = _config(tmp_path / "ok", f'broker = "mqtt://127.0.0.1:{broker.port}"\ntable_id = "craps-1"\n'
                                    'username = "craps-1"\npassword_file = "secret"')
    done = _run("run", "--config", str(good), "--check")
    assert done.returncode == 0 and "takes table craps-1's login" in done.stdout, done.stderr
    (tmp_path / "ok" / "secret").write_text("wrong\n")
    done = _run("run", "--config", str(good), "--check")
    assert done.returncode == 1 and "refused the login" in done.stderr, done.stderr


def test_a_table_says_once_that_it_cannot_reach_its_broker_and_the_pit_sees_since_when(tmp_path, caplog):
    from controller.floor.broker import parse_broker
    from controller.floor.publisher import FloorPublisher

    with Journal.open(tmp_path) as journal:
        journal.append({"event": "table", "game": "craps", "rules": {}})
    publisher = FloorPublisher(tmp_path, "craps-1", parse_broker(f"mqtt://127.0.0.1:{_free_port()}")).start()
    try:
        wait_until(lambda: "cannot reach the broker" in caplog.text, timeout=10, what="the log line")
        wait_until(lambda: publisher.progress().journal is not None, what="the journal opened")
        time.sleep(2)  # paho tries again after 1 s, then 2 s: the same kind is not said again
        assert caplog.text.count("cannot reach the broker") == 1 and "connection refused" in caplog.text
        assert publisher.unreached_since() is not None
    finally:
        publisher.close(drain_s=0)
    assert (tmp_path / "floor.cursor").exists()  # written at the start: archive knows a floor is due


def test_journal_archive_refuses_unacknowledged_rows_whenever_a_broker_is_set(tmp_path, capsys):
    config = _config(tmp_path, f'broker = "mqtt://127.0.0.1:{_free_port()}"\ntable_id = "craps-1"')
    with Journal.open(tmp_path / "state") as journal:
        journal.append({"event": "table", "game": "craps", "rules": {}, "table": "craps-1"})
    archive = ["journal", "--config", str(config), "archive", "--to", str(tmp_path / "a")]
    assert main(archive) == 2 and "acknowledged 0 of the journal's 1 rows" in capsys.readouterr().err
    assert main([*archive, "--force"]) == 2 and "--force --reason" in capsys.readouterr().err
    assert main([*archive, "--reason", "why"]) == 2 and "only with --force" in capsys.readouterr().err
    assert main([*archive, "--force", "--reason", "floor gone for good"]) == 0
    handover = json.loads((tmp_path / "state" / "journal.next").read_text())
    assert handover["reason"] == "floor gone for good" and handover["after"]["seq"] == 1


def test_the_floor_on_a_full_disk_says_so_in_one_sentence_and_exits_3(tmp_path, broker):
    """SQLite's own SQLITE_FULL, in a `dicetable floor` of its own: its database may not grow past the
    pages it has when it starts (``max_page_count``), as on a disk that is full."""
    no_room = (
        "import sys\n"
        "import controller.floor.backends as backends\n"
        "real = backends.SqliteBackend.__init__\n"
        "def full(self, path, readonly):\n"
        "    real(self, path, readonly)\n"
        "    if not readonly:\n"
        "        self._db.execute(f'PRAGMA max_page_count = {self._db.execute(\"PRAGMA page_count\").fetchone()[0]}')\n"
        "backends.SqliteBackend.__init__ = full\n"
        "from controller.cli import main\n"
        "sys.exit(main(sys.argv[1:]))\n")
    floor = subprocess.Popen([sys.executable, "-c", no_room, "floor", "--broker", broker.url("floor"), "--db",
                              str(tmp_path / "floor.sqlite3"), "--listen", "none"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    table = Table(tmp_path / "t1", "craps-1", broker)
    try:
        table.bets(50)
        _, err = floor.communicate(timeout=60)
    finally:
        table.close(drain_s=0)
        if floor.poll() is None:
            floor.kill()
    assert floor.returncode == 3, err
    assert "database or disk is full" in err and "Traceback" not in err
    assert [line for line in err.splitlines() if line.startswith("dicetable floor:")] == err.strip().splitlines()[-1:]


def test_recall_escapes_control_and_bidirectional_characters(tmp_path, capsys):
    from controller.rules import TableConfig
    from controller.table import JournaledTable

    with Journal.open(tmp_path) as journal:
        table = JournaledTable.open(journal, "craps", TableConfig())
        table.submit({"event": "bet", "seat": "A", "bet": "pass", "amount": 500, "user": "pat\u202e\x1b[2J",
                      "via": "console"})
        table.submit({"event": "lock"})
        table.submit({"event": "read", "status": "ok", "dice": [3, 4], "confidence": 0.9, "frame": "f\u2066.png"})
    assert main(["journal", "--state-dir", str(tmp_path), "recall", "1"]) == 0
    out = capsys.readouterr().out
    assert "\u202e" not in out and "\x1b" not in out and "\u2066" not in out
    assert "pat\\u202e\\x1b[2J" in out and "f\\u2066.png" in out


def test_a_journal_line_in_postgresql(tmp_path, postgres, broker):
    url = postgres.database("trust")
    floor = start_floor(url, broker)
    table = Table(tmp_path / "t1", "craps-1", broker)
    try:
        table.bets(2)
        wait_until(floor_holds(url, table.state_dir, "craps-1"), what="the copy in PostgreSQL")
        assert table.close()
        for name in ("journal.sqlite3", "journal.committed"):
            (table.state_dir / name).unlink()
        table = Table(tmp_path / "t1", "craps-1", broker)
        wait_until(lambda: "replaced" in _kinds(url), what="the replaced alert")
    finally:
        table.close(drain_s=2)
        floor.stop()
    assert len(floor_lines(url, "craps-1")) == 3 and _check(url).returncode == 1
