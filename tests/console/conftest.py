"""A running table with its console: mock pins, a journal in a temporary folder, the table's loop
in a thread of its own, and the console on a free port of loopback (real sockets, real threads);
and for the browser tests, the demo kept open (`dicetable run --keep-open`) and where their
pictures go."""
from __future__ import annotations

import os
import queue
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self

import httpx
import pytest
from gpiozero.pins.mock import MockFactory

from controller.devices import cage_listener
from controller.main_loop import serve
from controller.table_controller import TableController
from controller.console.start import RunningConsole, start
from controller.journal import Journal
from controller.rules import TableConfig
from controller.sdnotify import Notifier
from controller.table import JournaledTable
from controller.web.serve import Listen
from controller.web.users import StaticUsers
from hardware.gpio import ManualClock, build_devices

LOGINS = {"dana": ("dealer", "dana-pass"), "pete": ("pit", "pete-pass"), "dora": ("dealer", "dora-pass"),
          "pia": ("pit", "pia-pass")}
USERS = StaticUsers.with_passwords(LOGINS)


def wait_for(check, timeout: float = 15.0) -> Any:
    """``check()``'s first true answer, polled until ``timeout`` seconds have passed."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError("the condition never held")


class Client(httpx.Client):
    """An httpx client that may log in before the ``with`` that closes it."""

    def __enter__(self) -> Self:
        return self


@dataclass
class ConsoleTable:
    """A table being dealt, and its console."""

    url: str
    controller: TableController
    inputs: queue.Queue[Any]
    running: RunningConsole
    journal_path: Path
    frames: Path
    health: dict[str, dict[str, Any]] = field(default_factory=dict)

    def client(self, user: str | None = None) -> Client:
        """An HTTP client, logged in as ``user`` (its CSRF token in every request) when given."""
        client = Client(base_url=self.url, timeout=20)
        if user is not None:
            answer = client.post("/api/login", json={"user": user, "password": LOGINS[user][1]})
            assert answer.status_code == 200, answer.text
            client.headers["X-CSRF-Token"] = answer.json()["csrf"]
        return client

    def rows(self) -> list[Any]:
        """The journal's rows, read beside the running table."""
        with Journal(self.journal_path, readonly=True) as journal:
            return list(journal.entries())

    def settle(self, dice: list[int], status: str = "ok", frame: str | None = None, **read: Any) -> None:
        """The camera's read of the dice thrown, on the table's queue as the camera puts it."""
        self.inputs.put({"event": "read", "status": status, "dice": dice, "confidence": 0.97 if status == "ok" else 0.5,
                         "frame": frame, **read})


@pytest.fixture
def console_table(tmp_path):
    """``console_table(game)``: start a table and its console; everything stops after the test.

    The table is made and run in a thread of its own (its journal's SQLite connection belongs to
    the thread that opened it, as in the service); the test reads the journal read-only."""
    started: list[tuple[Any, ...]] = []

    def make(game: str = "craps", config: TableConfig | None = None, verify_every_s: float | None = None,
             large_payout: int = 10_000) -> ConsoleTable:
        running = start(Listen("127.0.0.1", 0), USERS)
        assert running is not None
        made: queue.Queue[Any] = queue.Queue()
        stop = threading.Event()

        def table_thread() -> None:
            factory = MockFactory()
            inputs: queue.Queue[Any] = queue.Queue()
            devices = build_devices(pin_factory=factory, sink=lambda b: inputs.put({"event": b.value}),
                                    clock=ManualClock(), on_motor_stop=cage_listener(inputs.put))
            journal = Journal.open(tmp_path / game)
            try:
                controller = TableController(JournaledTable.open(journal, game, config or TableConfig()), devices, None,
                                             spin_seconds=0.05)
                table = ConsoleTable(running.url.rstrip("/"), controller, inputs, running, journal.path,
                                     tmp_path / game / "frames")
                running.attach(controller, inputs, frames_dir=table.frames, health=lambda: table.health,
                               verify_every_s=verify_every_s, large_payout=large_payout)
                made.put(table)
                serve(controller, inputs, stop=stop, problems=dict, notifier=Notifier(""), tick=0.05)
            finally:
                devices.close()
                journal.close()
                factory.reset()

        loop = threading.Thread(target=table_thread, name=f"table-{game}", daemon=True)
        loop.start()
        started.append((stop, loop, running))
        return made.get(timeout=10)

    yield make
    for stop, loop, running in started:
        stop.set()
        loop.join(5)
        running.stop()


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    named = os.environ.get("DICETABLE_SCREENSHOTS")
    return Path(named) if named else tmp_path_factory.mktemp("screenshots")


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """The craps demo kept open on a free port of loopback; Ctrl-C at the end must end it with 0."""
    # The demo runs as `make run` does, its state in ./var, so the pit's page (and the manual's
    # pictures) show the paths a user sees, not the test's temporary folder.
    folder = tmp_path_factory.mktemp("demo")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    rolls = "6" if os.environ.get("DICETABLE_SCREENSHOTS") else "1"  # the manual's pictures show a longer history
    process = subprocess.Popen([sys.executable, "-m", "controller.cli", "run", "--keep-open", "--rolls", rolls,
                                "--state-dir", "var", "--console", f"127.0.0.1:{port}"],
                               # Ctrl-C as at a terminal: a run started in the background by a shell
                               # (`make test &`) inherits SIGINT ignored, and would pass that on.
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
                               cwd=folder, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "PYTHONUNBUFFERED": "1"})
    said = []
    for line in process.stderr:
        said.append(line)
        if "keeping the craps table open" in line:
            break
    else:
        pytest.fail("the demo never kept its table open: " + "".join(said))
    threading.Thread(target=process.stderr.read, daemon=True).start()  # its stderr must never fill up
    yield f"http://127.0.0.1:{port}", folder / "var" / "craps"
    process.send_signal(signal.SIGINT)
    assert process.wait(30) == 0
