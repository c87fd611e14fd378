"""`dicetable run` and its console: on by default in the demo only, `--console HOST:PORT|off`,
`[console] listen` for a table, a port in use is a warning, and `--keep-open`."""
from __future__ import annotations

import io
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from controller.cli import main
from controller.config import load
from controller.demo import run_demo
from controller.service import run_table
from controller.web.serve import Listen
from controller.web.users import add_user

REPO = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_the_demo_serves_its_console_while_it_plays_and_says_where_with_its_logins(tmp_path, capsys):
    out = io.StringIO()
    assert run_demo(load(None), rolls=1, state_dir=str(tmp_path), out=out, console=Listen("127.0.0.1", 0),
                    games=("craps",)) == 0
    err = capsys.readouterr().err
    assert re.search(r"console: http://127\.0\.0\.1:\d+/ \(demo logins: dealer/dealer, pit/pit, pit2/pit2; the board: "
                     r"http://127\.0\.0\.1:\d+/board\)", err)
    assert "== craps" in out.getvalue() and "== hazard" not in out.getvalue()


def test_console_off_and_a_port_in_use_leave_the_demo_playing(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["run", "--rolls", "1", "--game", "bang", "--console", "off"]) == 0
    captured = capsys.readouterr()
    assert "console:" not in captured.err and "== bang" in captured.out
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    try:
        assert main(["run", "--rolls", "1", "--game", "bang", "--console", f"127.0.0.1:{taken.getsockname()[1]}"]) == 0
    finally:
        taken.close()
    captured = capsys.readouterr()
    assert "is not free (or not this machine's); the demo plays without its console" in captured.err
    assert "bang done" in captured.out


def test_off_loopback_the_demo_logins_are_refused(tmp_path, capsys):
    """The demo's logins are for this machine only: on another address the board alone is served."""
    from controller.console.start import start_demo

    running = start_demo(Listen("0.0.0.0", 0))
    assert running is not None
    try:
        assert "nobody can log in" in capsys.readouterr().err
        url = f"http://127.0.0.1:{running.server.port}"
        assert httpx.post(url + "/api/login", json={"user": "dealer", "password": "dealer"}).status_code == 401
        assert httpx.get(url + "/healthz").json()["demo"] is False
    finally:
        running.stop()


def test_a_console_address_that_is_not_one_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as done:
        main(["run", "--console", "8080"])
    assert done.value.code == 2 and "is not HOST:PORT (such as 127.0.0.1:8080), or off" in capsys.readouterr().err


@pytest.mark.parametrize("argv, message", [
    (["--config", "t.toml", "--keep-open"], "--keep-open: only for the demo"),
    (["--events", "e.jsonl", "--game", "hazard"], "--game: only for the demo"),
    (["--config", "t.toml", "--console", "0.0.0.0:8443"], "on a network the console serves TLS"),
    (["--config", "t.toml", "--check", "--console", "127.0.0.1:9"], "--check: only with --config FILE, and alone"),
])
def test_console_options_that_cannot_work_are_refused(argv, message, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "e.jsonl").write_text("")
    (tmp_path / "t.toml").write_text('[camera]\nsource = "none"\n[display]\nport = "none"\n')
    assert main(["run", *argv]) == 2
    assert message in capsys.readouterr().err


def test_a_configured_table_serves_its_console_to_the_users_of_its_file(tmp_path, capsys):
    port = free_port()
    config_file = tmp_path / "table.toml"
    config_file.write_text(f'[table]\nstate_dir = "state"\n[camera]\nsource = "none"\n[display]\nport = "none"\n'
                           f'[console]\nlisten = "127.0.0.1:{port}"\n')
    add_user(tmp_path / "users", "dana", "dealer", "dana-password")
    stop = threading.Event()
    runner = threading.Thread(target=run_table, args=(load(config_file),), kwargs={"stop": stop, "out": io.StringIO()})
    runner.start()
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 20
        while True:
            try:
                httpx.get(url + "/healthz")
                break
            except httpx.ConnectError:
                assert time.monotonic() < deadline, "the console never came up"
                time.sleep(0.1)
        with httpx.Client(base_url=url) as client:
            assert client.post("/api/login", json={"user": "dealer", "password": "dealer"}).status_code == 401
            token = client.post("/api/login", json={"user": "dana", "password": "dana-password"}).json()["csrf"]
            answer = client.post("/api/bets", json={"seat": "A", "bet": "pass", "amount": 500},
                                 headers={"X-CSRF-Token": token})
            assert answer.status_code == 200 and answer.json()["user"] == "dana"
            assert client.get("/api/state").json()["bets"][0]["seat"] == "A"
    finally:
        stop.set()
        runner.join(10)
    assert f"console: http://127.0.0.1:{port}/ (users: {tmp_path / 'users'})" in capsys.readouterr().err


def test_keep_open_keeps_one_games_table_and_a_lock_from_the_console_throws_the_dice(tmp_path):
    """Hazard: the LOCK spins the cage, the generated dice land, the read settles the bet."""
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "controller.cli", "run", "--keep-open", "--game", "hazard",
                                "--rolls", "1", "--state-dir", str(tmp_path), "--console", f"127.0.0.1:{port}"],
                               # Ctrl-C as at a terminal: a run started in the background by a shell
                               # (`make test &`) inherits SIGINT ignored, and would pass that on.
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
                               cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        said = []
        for line in process.stderr:
            said.append(line)
            if "keeping the hazard table open" in line:
                break
        assert any(f"http://127.0.0.1:{port}/" in line for line in said), said
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=20) as client:
            token = client.post("/api/login", json={"user": "dealer", "password": "dealer"}).json()["csrf"]
            client.headers["X-CSRF-Token"] = token
            rolls = client.get("/api/state").json()["rolls"]
            assert client.post("/api/bets", json={"seat": "B", "bet": "low", "amount": 100}).status_code == 200
            assert client.post("/api/actions", json={"event": "lock"}).status_code == 200
            deadline = time.monotonic() + 30
            while (state := client.get("/api/state").json())["rolls"] == rolls:
                if state["phase"] == "pending":  # an unsure read of the generated dice: the dealer rules
                    client.post("/api/actions", json={"event": "manual", "dice": state["pending"]["dice"] or [1, 2, 3]})
                assert time.monotonic() < deadline, state
                time.sleep(0.2)
        assert len(state["last_rolls"][0]["dice"]) == 3 and state["last_rolls"][0]["pay"][0]["seat"] == "B"
    finally:
        process.send_signal(signal.SIGINT)
        assert process.wait(20) == 0
    assert "hazard table closed" in process.stderr.read()
