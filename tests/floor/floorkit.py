"""What the floor's broker tests share: a table in this process, a floor, waiting, rewriting a journal."""
from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path
from typing import Callable

from controller.floor.broker import parse_broker
from controller.floor.publisher import FloorPublisher
from controller.floor.service import FloorService
from controller.floor.signing import TableKey, status_material
from controller.floor.store import FloorStore
from controller.journal import Journal, entry_hash, export_lines
from controller.journal.chain import canonical_json
from controller.journal.handover import clear_handover, read_handover
from controller.journal.identity import identity_fields
from controller.journal.mark import Mark, MarkWriter
from controller.journal.store import utc_now


def wait_until(condition: Callable[[], bool], timeout: float = 20.0, what: str = "the condition") -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.05)
    raise AssertionError(f"{what} did not come within {timeout} s")


def start_floor(db: Path | str, broker, cafile: Path | None = None) -> FloorService:
    service = FloorService(db, parse_broker(broker.url("floor"), cafile=cafile)).start()
    assert service.wait_listening(10)  # a test's message not retained would pass a floor not yet subscribed
    return service


class Table:
    """A table's journal in ``state_dir`` written here, with its publisher (as ``dicetable run`` wires it)."""

    def __init__(self, state_dir: Path, table_id: str, broker, *, user: str | None = None, cafile: Path | None = None):
        self.state_dir = Path(state_dir)
        self.table_id = table_id
        self.journal = Journal.open(self.state_dir)
        if not len(self.journal):  # a header as the table writes one, naming the journal archived before it
            handover = read_handover(self.journal.path)
            self.journal.append({"event": "table", "game": "craps", "rules": {}, **identity_fields(
                table_id, handover.after if handover else None, handover.reason if handover else None)})
            clear_handover(self.journal.path)
        self.publisher = FloorPublisher(self.state_dir, table_id, parse_broker(broker.url(user or table_id), cafile=cafile),
                                        status=lambda: {"game": "craps", "phase": "betting"}).start()

    def bets(self, count: int) -> None:
        for n in range(count):
            self.journal.append({"event": "bet", "seat": "A", "bet": "pass", "amount": 100 + n})
            self.publisher.wake()

    def close(self, drain_s: float = 10.0) -> bool:
        done = self.publisher.close(drain_s)
        self.journal.close()
        return done


def signed(key: TableKey, table: str, status: dict) -> dict:
    """``status`` as table ``table`` publishes it: timed now, and signed with ``key``."""
    status = {"at": utc_now(), **status}
    status["key"], status["sig"] = key.sign(status_material(table, status))
    return status


def broker_login(broker, user: str, password: str | None = None):
    """A client that tried to log in to the tests' broker as ``user`` (with that user's password
    unless ``password`` is given), and the broker's answer (paho's reason code)."""
    import threading

    import paho.mqtt.client as mqtt

    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"login-{user}")
    client.username_pw_set(user, password if password is not None else broker.users[user])
    answered = threading.Event()
    answer = {}

    def connected(c, userdata, flags, reason, properties=None):
        answer["reason"] = reason
        answered.set()

    client.on_connect = connected
    client.connect("127.0.0.1", broker.port)
    client.loop_start()
    assert answered.wait(5), f"the broker never answered {user}'s login"
    return client, answer["reason"]


def table_login(broker, user: str):
    """A client logged in as table ``user`` (the ACL lets it write that table's topics): the table's
    broker login, as whoever took its password has it."""
    client, reason = broker_login(broker, user)
    assert not reason.is_failure, f"{user}'s own login was refused: {reason}"
    return client


def journal_lines(state_dir: Path) -> list[str]:
    with Journal.open(state_dir, readonly=True) as journal:
        return list(export_lines(journal))


def floor_lines(db: Path | str, table: str) -> list[str]:
    with FloorStore(db, readonly=True) as store:
        return list(store.lines(table))


def floor_alerts(db: Path | str) -> list:
    with FloorStore(db, readonly=True) as store:
        return store.alerts()


def floor_holds(db: Path | str, state_dir: Path, table: str) -> Callable[[], bool]:
    """Whether the floor's copy of ``table`` equals the journal in ``state_dir`` now."""
    def holds() -> bool:
        return (isinstance(db, str) or db.exists()) and floor_lines(db, table) == journal_lines(state_dir)
    return holds


def rewrite_row(state_dir: Path, seq: int, amount: int) -> None:
    """What whoever can write the file can do: change row ``seq``'s bet, hash it and every row after
    it again, put the triggers back, and write the mark of the new last row, so that the journal
    verifies."""
    db = sqlite3.connect(state_dir / "journal.sqlite3")
    sql = db.execute("SELECT sql FROM sqlite_master WHERE name = 'journal_no_update'").fetchone()[0]
    db.execute("DROP TRIGGER journal_no_update")
    rows = db.execute("SELECT seq, ts, kind, event, prev_hash FROM journal WHERE seq >= ? ORDER BY seq",
                      (seq - 1,)).fetchall()
    prev = db.execute("SELECT hash FROM journal WHERE seq = ?", (seq - 1,)).fetchone()[0]
    for number, ts, kind, text, _ in rows[1:]:
        if number == seq:
            event = json.loads(text)
            event["amount"] = amount
            text = canonical_json(event)
        digest = entry_hash(prev, number, ts, kind, text)
        db.execute("UPDATE journal SET event = ?, prev_hash = ?, hash = ? WHERE seq = ?", (text, prev, digest, number))
        prev = digest
    db.execute(sql)
    db.commit()
    db.close()
    marker = MarkWriter(state_dir / "journal.sqlite3")
    marker.write(Mark(rows[-1][0], prev))
    marker.close()


def cut_rows(state_dir: Path, keep: int) -> None:
    """Rows after ``keep`` removed from the journal, and the triggers put back."""
    db = sqlite3.connect(state_dir / "journal.sqlite3")
    sql = db.execute("SELECT sql FROM sqlite_master WHERE name = 'journal_no_delete'").fetchone()[0]
    db.execute("DROP TRIGGER journal_no_delete")
    db.execute("DELETE FROM journal WHERE seq > ?", (keep,))
    db.execute(sql)
    db.commit()
    db.close()


class PrivatePostgres:
    """A PostgreSQL server of its own in a new folder, on a free port of 127.0.0.1, as a user that is not
    root (PostgreSQL refuses to run as root: as root it runs as the package's ``postgres`` user)."""

    def __init__(self) -> None:
        import getpass
        import os
        import shutil
        import subprocess
        import tempfile

        from controller.floor.mosquitto import free_port

        found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"))
        initdb = shutil.which("initdb") or (str(found[-1]) if found else None)
        if initdb is None:
            raise FileNotFoundError("PostgreSQL is not installed (sudo apt-get install -y postgresql)")
        self.bin = Path(initdb).parent
        self.folder = Path(tempfile.mkdtemp(prefix="floor-pg-"))
        self.as_user: list[str] = []
        if os.geteuid() == 0:
            shutil.chown(self.folder, "postgres", "postgres")
            self.as_user = ["runuser", "-u", "postgres", "--"]
        self.port = free_port()
        self.user = "postgres" if os.geteuid() == 0 else getpass.getuser()
        subprocess.run([*self.as_user, initdb, "-D", str(self.folder / "data"), "-A", "trust", "-U", "floor",
                        "--no-sync", "-E", "UTF8"], check=True, capture_output=True)
        self.process = subprocess.Popen(
            [*self.as_user, str(self.bin / "postgres"), "-D", str(self.folder / "data"), "-p", str(self.port),
             "-k", str(self.folder), "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.url = f"postgresql://floor@127.0.0.1:{self.port}/postgres"
        import psycopg

        deadline = time.monotonic() + 30
        while True:
            try:
                psycopg.connect(self.url).close()
                return
            except psycopg.OperationalError:
                if time.monotonic() > deadline or self.process.poll() is not None:
                    self.stop()
                    raise
                time.sleep(0.1)

    def database(self, name: str) -> str:
        """A new, empty database's URL."""
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as db:
            db.execute(f'CREATE DATABASE "{name}"')
        return f"postgresql://floor@127.0.0.1:{self.port}/{name}"

    def stop(self) -> None:
        import shutil

        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=30)
        shutil.rmtree(self.folder, ignore_errors=True)
