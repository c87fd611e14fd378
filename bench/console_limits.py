"""The console under a siege: what a flood of clients without a login gets, and what the table and
its dealer get meanwhile (docs/console.md, "Limits").

The table is the demo kept open, as an operator would start it, under the file limit a service
usually has::

    dicetable run --console 127.0.0.1:PORT --keep-open --state-dir DIR     (file limit 1024, as prlimit --nofile=1024)

Once the demo's scripted rolls are played:

1. the dealer logs in from 127.0.0.1 (``POST /api/login`` in JSON; the ``csrf`` of its answer in
   ``X-CSRF-Token`` on every post) and posts the same field bet twice with one ``Idempotency-Key``;
2. at once, from another loopback address (127.0.0.2): anonymous board event streams (1,100), idle
   sockets that never send a byte (100), and parallel logins for ``dealer`` with wrong passwords (120);
3. meanwhile the dealer locks the bets (``POST /api/actions {"event": "lock"}``) and the roll is
   settled: the generated dice are read, and a read that waits for the dealer is confirmed (or its
   dice entered by hand);
4. two seconds after the flood the dealer's browser logs in again (with its device cookie); a
   browser without one tries too.

Figures: how each kind of client was answered (statuses, ``Retry-After``, seconds to the answer),
the dealer's answers and their times, the table process's most descriptors open (sampled), how much
its standard error grew, whether it stayed up, exited 0 at Ctrl-C, and whether its journal verifies.
``tests/console/test_console_siege.py`` runs this and checks each against the contract.

Usage, from the repository's top folder (this process raises its own file limit to hold the flood)::

    nice -n 19 .venv/bin/python -m bench.console_limits [--streams 1100] [--idle 100] [--logins 120] [--json]
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

#: The table's file limit (what a systemd service has unless its unit raises it).
TABLE_NOFILE = 1024
#: Where the dealer's browser is, and where the flood comes from.
DEALER, FLOOD = "127.0.0.1", "127.0.0.2"
#: Seconds anything may take before the siege gives up on it.
PATIENCE_S = 60.0


@dataclass
class Answered:
    """How one client of the flood was answered."""

    status: int | None = None
    retry_after: str | None = None
    seconds: float | None = None
    error: str | None = None


@dataclass
class Flood:
    streams: list[Answered] = field(default_factory=list)
    idle: list[Answered] = field(default_factory=list)
    logins: list[Answered] = field(default_factory=list)


async def _answer(reader: asyncio.StreamReader, started: float) -> Answered:
    """The status line and ``Retry-After`` of the answer on ``reader``."""
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), PATIENCE_S)
    lines = head.decode("latin-1").split("\r\n")
    retry = next((line.split(":", 1)[1].strip() for line in lines if line.lower().startswith("retry-after:")), None)
    return Answered(int(lines[0].split()[1]), retry, time.monotonic() - started)


async def _client(port: int, request: bytes | None, release: asyncio.Event, out: list[Answered]) -> None:
    """One client of the flood from :data:`FLOOD`: ``request`` sent (none: an idle socket), its answer
    noted; an event stream answered 200 is held until ``release``."""
    started = time.monotonic()
    writer = None
    try:
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection(DEALER, port, local_addr=(FLOOD, 0)), PATIENCE_S)
        if request is not None:
            writer.write(request)
            await writer.drain()
        answered = await _answer(reader, started)
        out.append(answered)
        if answered.status == 200 and request is not None and request.startswith(b"GET"):
            await release.wait()  # an event stream, held open
    except (OSError, asyncio.IncompleteReadError, TimeoutError) as exc:
        out.append(Answered(error=type(exc).__name__, seconds=time.monotonic() - started))
    finally:
        if writer is not None:
            writer.close()


def _stream_request(port: int) -> bytes:
    return f"GET /api/board/events HTTP/1.1\r\nHost: {DEALER}:{port}\r\nAccept: text/event-stream\r\n\r\n".encode()


def _login_request(port: int) -> bytes:
    """A login for ``dealer`` with a wrong password (another at each call)."""
    body = json.dumps({"user": "dealer", "password": f"guess-{secrets.token_hex(4)}"}).encode()
    return (f"POST /api/login HTTP/1.1\r\nHost: {DEALER}:{port}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode() + body


async def _settle(dealer: httpx.AsyncClient, rolls: int) -> float:
    """Wait for the roll under way to be settled, confirming (or entering by hand) a read that
    waits for the dealer; the seconds it took."""
    started = time.monotonic()
    while time.monotonic() - started < PATIENCE_S:
        state = (await dealer.get("/api/state")).json()
        if state["rolls"] != rolls:
            return time.monotonic() - started
        pending = state.get("pending")
        if state["phase"] == "pending" and pending:
            if pending.get("confirmable"):
                await dealer.post("/api/actions", json={"event": "confirm"})
            else:
                dice = pending.get("dice") if len(pending.get("dice") or []) == state["dice_count"] else [1, 2]
                await dealer.post("/api/actions", json={"event": "manual", "dice": dice})
        await asyncio.sleep(0.2)
    raise TimeoutError("the roll was never settled")


async def siege(port: int, *, streams: int, idle: int, logins: int, on_flood: Any = None) -> dict[str, Any]:
    """The siege against the console on 127.0.0.1:``port`` (a demo table kept open, logins
    ``dealer``/``dealer``); ``on_flood(started)`` is told when the flood begins and ends."""
    url = f"http://{DEALER}:{port}"
    result: dict[str, Any] = {}
    async with httpx.AsyncClient(base_url=url, timeout=PATIENCE_S) as dealer:
        answer = await dealer.post("/api/login", json={"user": "dealer", "password": "dealer"})
        result["login"] = answer.status_code
        dealer.headers["X-CSRF-Token"] = answer.json()["csrf"]
        key = secrets.token_hex(16)
        bet = {"seat": "C", "bet": "field", "amount": 100}
        twice = [await dealer.post("/api/bets", json=bet, headers={"Idempotency-Key": key}) for _ in range(2)]
        result["bets"] = {"statuses": [a.status_code for a in twice], "seqs": [a.headers.get("x-journal-seq") for a in twice],
                          "same": twice[0].content == twice[1].content
                          and twice[0].headers.get("x-journal-seq") == twice[1].headers.get("x-journal-seq")}
        rolls = (await dealer.get("/api/state")).json()["rolls"]

        flood = Flood()
        release = asyncio.Event()
        if on_flood:
            on_flood(True)
        started = time.monotonic()
        clients = ([_client(port, _stream_request(port), release, flood.streams) for _ in range(streams)]
                   + [_client(port, None, release, flood.idle) for _ in range(idle)]
                   + [_client(port, _login_request(port), release, flood.logins) for _ in range(logins)])
        tasks = [asyncio.ensure_future(c) for c in clients]
        await asyncio.sleep(0.2)  # the flood is under way
        locked_at = time.monotonic()
        lock = await dealer.post("/api/actions", json={"event": "lock"})
        result["lock"] = {"status": lock.status_code, "ms": round((time.monotonic() - locked_at) * 1000, 1)}
        result["settled_s"] = round(await _settle(dealer, rolls), 2)
        while sum(len(kind) for kind in (flood.streams, flood.idle, flood.logins)) < len(tasks):
            if time.monotonic() - started > PATIENCE_S:
                break
            await asyncio.sleep(0.05)
        result["flood_answered_s"] = round(time.monotonic() - started, 2)
        release.set()
        await asyncio.gather(*tasks, return_exceptions=True)
        if on_flood:
            on_flood(False)
        result["flood"] = {name: _figures(answers) for name, answers in
                           (("streams", flood.streams), ("idle", flood.idle), ("logins", flood.logins))}

        await asyncio.sleep(2)
        again = await dealer.post("/api/login", json={"user": "dealer", "password": "dealer"})
        result["login_again"] = again.status_code
    async with httpx.AsyncClient(base_url=url, timeout=PATIENCE_S) as stranger:
        other = await stranger.post("/api/login", json={"user": "dealer", "password": "dealer"})
        result["login_without_device_cookie"] = {"status": other.status_code,
                                                 "retry_after": other.headers.get("retry-after")}
    return result


def _figures(answers: list[Answered]) -> dict[str, Any]:
    seconds = sorted(a.seconds for a in answers if a.status is not None and a.seconds is not None)
    return {
        "count": len(answers),
        "statuses": dict(sorted(Counter(str(a.status) for a in answers if a.status is not None).items())),
        "errors": dict(Counter(a.error for a in answers if a.error)),
        "503_without_retry_after": sum(1 for a in answers if a.status == 503 and not a.retry_after),
        "median_s": round(statistics.median(seconds), 3) if seconds else None,
        "max_s": round(seconds[-1], 3) if seconds else None,
    }


class Sampler:
    """The most descriptors process ``pid`` held, sampled every 20 ms while ``on``."""

    def __init__(self, pid: int):
        self.pid, self.peak, self.on = pid, 0, False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(0.02):
            if self.on:
                try:
                    self.peak = max(self.peak, len(os.listdir(f"/proc/{self.pid}/fd")))
                except OSError:
                    return

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(2)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind((DEALER, 0))
        return int(probe.getsockname()[1])


def _table_limit() -> None:
    """In the table's process before it runs: the file limit of a service, and Ctrl-C as at a terminal."""
    resource.setrlimit(resource.RLIMIT_NOFILE, (TABLE_NOFILE, TABLE_NOFILE))
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def run(state_dir: Path, *, streams: int, idle: int, logins: int) -> dict[str, Any]:
    """Start the demo table under :data:`TABLE_NOFILE`, lay the siege, stop it, check its journal."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = streams + idle + logins + 256
    if soft < wanted:
        if hard != resource.RLIM_INFINITY and hard < wanted:
            raise SystemExit(f"this process may open {hard} files, and the flood needs {wanted}")
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    port = _free_port()
    errors = state_dir / "stderr.txt"
    with errors.open("w") as err:
        table = subprocess.Popen([sys.executable, "-m", "controller.cli", "run", "--console", f"{DEALER}:{port}",
                                  "--keep-open", "--state-dir", str(state_dir / "var")],
                                 stdout=subprocess.DEVNULL, stderr=err, preexec_fn=_table_limit,
                                 env={**os.environ, "PYTHONUNBUFFERED": "1"})
    sampler = Sampler(table.pid)
    result: dict[str, Any] = {"file_limit": TABLE_NOFILE, "streams": streams, "idle": idle, "logins": logins}
    try:
        deadline = time.monotonic() + 4 * PATIENCE_S
        while "keeping the craps table open" not in errors.read_text():
            if table.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("the demo never kept its table open:\n" + errors.read_text())
            time.sleep(0.2)
        before = errors.stat().st_size

        def flooding(on: bool) -> None:
            sampler.on = on

        result.update(asyncio.run(siege(port, streams=streams, idle=idle, logins=logins, on_flood=flooding)))
        result["stderr_growth_bytes"] = errors.stat().st_size - before
        result["up"] = table.poll() is None
    finally:
        sampler.stop()
        result["descriptors_peak"] = sampler.peak
        if table.poll() is None:
            table.send_signal(signal.SIGINT)
        try:
            result["exit"] = table.wait(30)
        except subprocess.TimeoutExpired:
            table.kill()
            result["exit"] = table.wait()
    journal = state_dir / "var" / "craps" / "journal.sqlite3"
    verify = subprocess.run([sys.executable, "-m", "controller.cli", "journal", "--file", str(journal), "verify"],
                            capture_output=True, text=True)
    result["journal_verify"] = {"exit": verify.returncode, "report": verify.stdout.strip().splitlines()[-1:]}
    result["bets_journaled"] = _console_bets(journal)
    result["stderr_tail"] = errors.read_text()[-2000:]
    return result


def _console_bets(journal: Path) -> int:
    """How many field bets of seat C the console journaled (the siege's one bet, sent twice)."""
    from controller.journal import INPUT, Journal

    with Journal.open(journal.parent, readonly=True) as opened:
        return sum(1 for row in opened.entries() if row.kind == INPUT and row.event.get("via") == "console"
                   and row.event.get("event") == "bet" and row.event.get("seat") == "C" and row.event.get("bet") == "field")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--streams", type=int, default=1100, help="anonymous board event streams")
    parser.add_argument("--idle", type=int, default=100, help="sockets that never send a byte")
    parser.add_argument("--logins", type=int, default=120, help="parallel wrong logins for dealer")
    parser.add_argument("--state-dir", metavar="DIR", help="where the table's journal and standard error go "
                                                          "(default: a temporary folder)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="console-limits-") as scratch:
        folder = Path(args.state_dir) if args.state_dir else Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        result = run(folder, streams=args.streams, idle=args.idle, logins=args.logins)
    if args.json:
        print(json.dumps(result))
        return 0
    flood = result["flood"]
    print(f"the demo table under a file limit of {result['file_limit']}; from {FLOOD} at once: {args.streams} board "
          f"streams, {args.idle} idle sockets, {args.logins} wrong logins for dealer")
    for name in ("streams", "idle", "logins"):
        f = flood[name]
        print(f"  {name:<8} answered {f['statuses']}{' errors ' + str(f['errors']) if f['errors'] else ''}; "
              f"median {f['median_s']} s, at most {f['max_s']} s")
    print(f"  the dealer: bet twice with one key {result['bets']['statuses']} (same answer: {result['bets']['same']}, "
          f"{result['bets_journaled']} bet journaled); LOCK {result['lock']['status']} in {result['lock']['ms']} ms; "
          f"roll settled in {result['settled_s']} s; logged in again {result['login_again']} "
          f"(without the device cookie: {result['login_without_device_cookie']['status']})")
    print(f"  the table: at most {result['descriptors_peak']} descriptors open; standard error grew "
          f"{result['stderr_growth_bytes']} bytes; up through it: {result['up']}; exit {result['exit']}; journal verify "
          f"exit {result['journal_verify']['exit']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
