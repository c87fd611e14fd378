"""The floor with real table processes: `dicetable run` with [floor], killed with SIGKILL, with the
broker down; the demo's three tables; TLS to the broker."""
from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from floorkit import Table, floor_alerts, floor_holds, floor_lines, journal_lines, start_floor, wait_until

CONFIG = """
[table]
game = "craps"
state_dir = "state"
[camera]
source = "none"
[display]
port = "none"
[floor]
broker = "mqtt://127.0.0.1:{port}"
table_id = "craps-1"
username = "craps-1"
password_file = "secret"
"""


def session(rolls: int, seed: int = 35) -> list[str]:
    """A craps session as event lines: a line bet, the lock, the camera's read, roll after roll."""
    rng = random.Random(seed)
    lines = []
    for number in range(rolls):
        dice = [rng.randint(1, 6), rng.randint(1, 6)]
        lines += [json.dumps({"event": "bet", "seat": "A", "bet": "pass", "amount": 500}),
                  json.dumps({"event": "lock"}),
                  json.dumps({"event": "read", "status": "ok", "dice": dice, "confidence": 0.97,
                              "frame": f"roll-{number}.png"})]
    return lines


def _table(folder: Path, broker) -> tuple[Path, Path]:
    folder.mkdir()
    (folder / "secret").write_text(broker.users["craps-1"] + "\n")
    (folder / "secret").chmod(0o600)
    config = folder / "table.toml"
    config.write_text(CONFIG.format(port=broker.port))
    return config, folder / "state"


def _run(config: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "controller.cli", "run", "--config", str(config), *args]


def test_a_table_with_its_broker_down_runs_on_and_a_table_killed_with_sigkill_loses_no_row(tmp_path, broker):
    config, state = _table(tmp_path / "table", broker)
    script = tmp_path / "session.jsonl"
    lines = session(40)
    script.write_text("\n".join(lines) + "\n")
    db = tmp_path / "floor.sqlite3"

    # The broker is down: the table plays its first rolls all the same, and says what waits.
    broker.stop()
    first = tmp_path / "first.jsonl"
    first.write_text("\n".join(lines[:30]) + "\n")
    done = subprocess.run(_run(config, "--events", str(first), "--exit-at-end"), capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert "not yet acknowledged by the floor" in done.stderr
    assert len(journal_lines(state)) > 30

    broker.start()
    floor = start_floor(db, broker)
    try:
        # The table starts again and takes more events from a pipe; it is killed with SIGKILL mid-session.
        process = subprocess.Popen(_run(config, "--events", "-"), stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL, text=True)
        process.stdin.write("\n".join(lines[30:60]) + "\n")
        process.stdin.flush()
        wait_until(lambda: len(floor_lines(db, "craps-1")) > 60, what="rows of the killed table's session")
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
        # Started once more, it plays the rest of the session (--resume skips the lines it has).
        done = subprocess.run(_run(config, "--events", str(script), "--exit-at-end", "--resume"), capture_output=True,
                              text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        wait_until(floor_holds(db, state, "craps-1"), what="the floor's copy of the whole session")
    finally:
        floor.stop()
    assert not floor_alerts(db)
    rolls = [json.loads(line)["event"] for line in floor_lines(db, "craps-1")]
    assert sum(1 for e in rolls if e["event"] == "roll") == 40


def test_the_demo_publishes_its_three_tables_to_dicetable_floor(tmp_path, broker):
    """Both as the contract spells them: `dicetable run --floor URL` and `dicetable floor --broker URL --db FILE`."""
    db = tmp_path / "floor.sqlite3"
    floor = subprocess.Popen([sys.executable, "-m", "controller.cli", "floor", "--broker", broker.url("floor"),
                              "--db", str(db)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert json.loads(floor.stdout.readline())["floor"] == str(db)
        done = subprocess.run([sys.executable, "-m", "controller.cli", "run", "--rolls", "1", "--state-dir",
                               str(tmp_path / "var"), "--floor", broker.url("demo")], capture_output=True, text=True,
                              timeout=120, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        for game in ("craps", "hazard", "bang"):
            assert f"floor: every row acknowledged as demo-{game}" in done.stdout
            wait_until(floor_holds(db, tmp_path / "var" / game, f"demo-{game}"), what=f"demo-{game}'s copy")
    finally:
        floor.send_signal(signal.SIGTERM)
        assert floor.wait(timeout=30) == 0


def test_run_floor_is_refused_where_it_would_do_nothing_and_a_bad_url_is_named(tmp_path, capsys):
    from controller.cli import main

    assert main(["run", "--config", "x.toml", "--floor", "mqtt://h:1"]) == 2
    assert "--floor: only for the demo" in capsys.readouterr().err
    assert main(["run", "--floor", "http://h"]) == 2
    assert "--floor: must start with mqtt:// or mqtts://" in capsys.readouterr().err


def _certificates(folder: Path) -> tuple[Path, Path, Path]:
    """A CA, and a certificate it signed for 127.0.0.1 with its key."""
    folder.mkdir()
    ca_key, ca, key, request, cert = (folder / n for n in ("ca.key", "ca.pem", "broker.key", "broker.csr", "broker.pem"))
    ext = folder / "ext.cnf"
    ext.write_text("subjectAltName = IP:127.0.0.1\n")

    def openssl(*args: str) -> None:
        subprocess.run(["openssl", *args], check=True, capture_output=True)

    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(ca_key), "-out", str(ca), "-days", "2",
            "-subj", "/CN=dicetable test CA")
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(request), "-subj", "/CN=127.0.0.1")
    openssl("x509", "-req", "-in", str(request), "-CA", str(ca), "-CAkey", str(ca_key), "-CAcreateserial", "-out",
            str(cert), "-days", "2", "-extfile", str(ext))
    return ca, cert, key


def test_tls_to_the_broker_with_its_ca(tmp_path):
    from controller.floor.mosquitto import PrivateBroker, mosquitto_binary

    if mosquitto_binary() is None or not any(Path(p, "openssl").exists() for p in os.get_exec_path()):
        pytest.skip("mosquitto or openssl is not installed")
    ca, cert, key = _certificates(tmp_path / "tls")
    with PrivateBroker(tmp_path / "broker", {"floor": "f", "craps-1": "c"}, tls=(ca, cert, key)) as broker:
        assert broker.url().startswith("mqtts://")
        db = tmp_path / "floor.sqlite3"
        floor = start_floor(db, broker, cafile=ca)
        table = Table(tmp_path / "t1", "craps-1", broker, cafile=ca)
        try:
            table.bets(10)
            wait_until(floor_holds(db, table.state_dir, "craps-1"), what="the copy over TLS")
        finally:
            table.close()
            floor.stop()


def test_dicetable_floor_runs_the_service_and_its_page_until_sigterm(tmp_path, broker):
    import httpx

    from controller.web.users import add_user

    add_user(tmp_path / "users", "pat", "pit", "watch-the-floor")
    (tmp_path / "floor-password").write_text(broker.users["floor"] + "\n")
    (tmp_path / "floor-password").chmod(0o600)
    db = tmp_path / "floor.sqlite3"
    floor = subprocess.Popen([sys.executable, "-m", "controller.cli", "floor", "--broker", broker.url(), "--username",
                              "floor", "--password-file", str(tmp_path / "floor-password"), "--db", str(db),
                              "--listen", "127.0.0.1:0", "--users", str(tmp_path / "users")],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        started = floor.stdout.readline()
        assert started, floor.stderr.read()
        url = json.loads(started)["page"].rstrip("/")
        assert url.startswith("http://127.0.0.1:")
        table = Table(tmp_path / "t1", "craps-1", broker)
        table.bets(3)
        wait_until(floor_holds(db, table.state_dir, "craps-1"), what="the copy")
        table.close()
        with httpx.Client(base_url=url, timeout=10) as client:
            assert client.post("/api/login", json={"user": "pat", "password": "watch-the-floor"}).status_code == 200
            tables = client.get("/api/floor").json()["tables"]
            assert [(t["table"], t["rows"], t["status"]["game"]) for t in tables] == [("craps-1", 4, "craps")]
    finally:
        floor.send_signal(signal.SIGTERM)
        assert floor.wait(timeout=30) == 0
