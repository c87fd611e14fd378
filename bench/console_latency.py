"""What the console costs the table, and how fast a bet reaches every screen.

Two figures, on the stand-ins (bench/roll_to_display.py's rig: generated scenes at 30 frames per
second, the real settle detector and reader, the journal, the display stand-in on a pty):

1. **Roll-to-display latency** without a console and with the console serving 20 live browsers:
   two table processes, one bare and one with its console and 20 event-stream connections held
   open by one light client process (raw asyncio sockets: no browser), throw their rolls in turn
   (bare, console, console, bare, ...), so the machine's noise falls on both alike. The median with
   the console must not exceed the bare one by more than 10 %.
2. **Bet tap to every screen updated**: the client process posts a bet (or takes it down) as a
   dealer and times until all 20 streams have carried the state that holds it (the journal row of
   the bet), while the table process serves its input queue as the service does. Aim: under 100 ms.

Usage, from the repository's top folder (it is the package ``bench`` that holds the rig)::

    nice -n 19 .venv/bin/python -m bench.console_latency [--pairs 20] [--clients 20] [--taps 60] [--json]

The figures go in docs/console.md ("Cost and speed").
"""
from __future__ import annotations

import argparse
import asyncio
import json
import queue
import re
import statistics
import subprocess
import sys
import threading
import time
from typing import Any

MAX_GROWTH = 0.10
AIM_MS = 100.0


# --- the table processes ------------------------------------------------------------------------

def worker(kind: str, game: str, seed: int) -> int:
    """A table on the stand-ins taking commands on stdin: ``roll`` (one timed roll, a JSON row on
    stdout), ``serve`` (take console inputs until the next line), ``stats``, ``quit``."""
    from bench.roll_to_display import RollRig

    from controller.main_loop import serve
    from controller.sdnotify import Notifier

    rig = RollRig(game, seed)
    inputs: queue.Queue[Any] = queue.Queue()
    running = None
    if kind == "console":
        from controller.console.start import start
        from controller.web.serve import Listen
        from controller.web.users import StaticUsers

        running = start(Listen("127.0.0.1", 0), StaticUsers.with_passwords({"dealer": ("dealer", "dealer")}))
        assert running is not None, "no free port for the console"
        running.attach(rig.controller, inputs, frames_dir=rig.state_dir / "frames", verify_every_s=None)
    print(f"ready {running.server.port if running else 0}", flush=True)
    try:
        for line in sys.stdin:
            command = line.strip()
            if command == "roll":
                print(json.dumps(rig.roll()), flush=True)
            elif command == "serve":
                stop = threading.Event()
                threading.Thread(target=_stop_at_next_line, args=(stop,), daemon=True).start()
                serve(rig.controller, inputs, stop=stop, problems=dict, notifier=Notifier(""), tick=0.05)
                print("served", flush=True)
            elif command == "stats":
                dropped = running.console.updates.dropped if running else 0
                print(json.dumps({"dropped": dropped}), flush=True)
            elif command == "quit":
                break
    finally:
        if running is not None:
            running.stop()
        rig.close()
    return 0


def _stop_at_next_line(stop: threading.Event) -> None:
    sys.stdin.readline()
    stop.set()


# --- the light client process -------------------------------------------------------------------

async def _request(host: str, port: int, method: str, path: str, body: dict | None = None,
                   headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    reader, writer = await asyncio.open_connection(host, port)
    data = json.dumps(body).encode() if body is not None else b""
    lines = [f"{method} {path} HTTP/1.1", f"Host: {host}:{port}", "Connection: close",
             f"Content-Length: {len(data)}", "Content-Type: application/json"]
    lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
    writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + data)
    await writer.drain()
    raw = await reader.read()
    writer.close()
    head, _, payload = raw.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    answer_headers: dict[str, str] = {}
    for header in header_lines:
        key, _, value = header.partition(":")
        answer_headers.setdefault(key.strip().lower(), value.strip())
    return int(status_line.split()[1]), answer_headers, payload


ROWS = re.compile(rb'"journal":\{"rows":(\d+)')


class Screens:
    """``count`` event streams of one logged-in dealer, each noting when it saw which journal row."""

    def __init__(self, host: str, port: int, count: int):
        self.host, self.port, self.count = host, port, count
        self.seen: list[list[tuple[float, int]]] = [[] for _ in range(count)]
        self.changed = asyncio.Event()
        self.connected = 0

    async def login(self) -> None:
        status, headers, body = await _request(self.host, self.port, "POST", "/api/login",
                                               {"user": "dealer", "password": "dealer"})
        assert status == 200, body
        self.cookie = headers["set-cookie"].split(";")[0]
        self.csrf = json.loads(body)["csrf"]

    async def stream(self, index: int) -> None:
        reader, writer = await asyncio.open_connection(self.host, self.port, limit=2**22)
        writer.write((f"GET /api/events HTTP/1.1\r\nHost: {self.host}:{self.port}\r\nCookie: {self.cookie}\r\n"
                      "Accept: text/event-stream\r\n\r\n").encode())
        await writer.drain()
        first = True
        while line := await reader.readline():
            if line.startswith(b"data: "):
                found = ROWS.search(line)
                if found:
                    self.seen[index].append((time.monotonic(), int(found.group(1))))
                    if first:
                        self.connected += 1
                        first = False
                    self.changed.set()

    def all_saw(self, row: int) -> float | None:
        """When the last stream first carried a state holding journal row ``row`` (None: not all yet)."""
        times = []
        for seen in self.seen:
            when = next((t for t, rows in seen if rows >= row), None)
            if when is None:
                return None
            times.append(when)
        return max(times)

    async def tap(self, body: dict) -> tuple[float, float]:
        start = time.monotonic()
        status, headers, payload = await _request(self.host, self.port, "POST",
                                                  "/api/bets" if body["event"] == "bet" else "/api/remove", body,
                                                  {"Cookie": self.cookie, "X-CSRF-Token": self.csrf})
        answered = time.monotonic()
        assert status == 200, payload
        row = int(headers["x-journal-seq"])
        while (last := self.all_saw(row)) is None:
            self.changed.clear()
            await asyncio.wait_for(self.changed.wait(), 10)
        return (answered - start) * 1000, (last - start) * 1000


async def _clients(url: str, count: int) -> None:
    found = re.match(r"http://([^:/]+):(\d+)", url)
    assert found is not None, url
    host, port = found.groups()
    screens = Screens(host, int(port), count)
    await screens.login()
    tasks = [asyncio.ensure_future(screens.stream(i)) for i in range(count)]
    while screens.connected < count:
        await asyncio.sleep(0.05)
    print("connected", flush=True)
    loop = asyncio.get_running_loop()
    while line := (await loop.run_in_executor(None, sys.stdin.readline)).strip():
        if line.startswith("taps"):
            answers, updates = [], []
            for n in range(int(line.split()[1])):
                body = ({"event": "bet", "seat": "A", "bet": "field", "amount": 100} if n % 2 == 0 else
                        {"event": "remove", "seat": "A", "bet": "field"})
                answer_ms, update_ms = await screens.tap(body)
                answers.append(answer_ms)
                updates.append(update_ms)
                await asyncio.sleep(0.05)
            print(json.dumps({"answer_ms": answers, "update_ms": updates}), flush=True)
        elif line == "quit":
            break
    for task in tasks:
        task.cancel()


# --- the orchestration ------------------------------------------------------------------------------

def _spawn(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "bench.console_latency", *args], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)


def _ask(process: subprocess.Popen[str], line: str) -> str:
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(line + "\n")
    process.stdin.flush()
    return process.stdout.readline().strip()


def _figures(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {"median": statistics.median(ordered), "p95": ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))],
            "max": ordered[-1], "n": len(ordered)}


def run(pairs: int, clients: int, taps: int, game: str, seed: int) -> dict[str, Any]:
    bare, console = _spawn("--worker", "plain", "--game", game, "--seed", str(seed)), \
        _spawn("--worker", "console", "--game", game, "--seed", str(seed))
    screens: subprocess.Popen[str] | None = None
    try:
        assert bare.stdout and console.stdout
        bare.stdout.readline()
        port = int(console.stdout.readline().split()[1])
        screens = _spawn("--clients-process", f"http://127.0.0.1:{port}", "--clients", str(clients))
        assert screens.stdout and screens.stdout.readline().strip() == "connected"
        rows: dict[str, list[dict[str, Any]]] = {"bare": [], "console": []}
        for n in range(pairs):
            order = (("bare", bare), ("console", console)) if n % 2 == 0 else (("console", console), ("bare", bare))
            for name, process in order:
                rows[name].append(json.loads(_ask(process, "roll")))
        assert console.stdin
        console.stdin.write("serve\n")
        console.stdin.flush()
        tapped = json.loads(_ask(screens, f"taps {taps}"))
        assert _ask(console, "") == "served"
        dropped = json.loads(_ask(console, "stats"))["dropped"]
    finally:
        for child in (screens, bare, console):
            if child is not None and child.poll() is None:
                try:
                    _ask(child, "quit")
                except (BrokenPipeError, AssertionError):
                    pass
                child.wait(20)
    result: dict[str, Any] = {"game": game, "pairs": pairs, "clients": clients, "dropped": dropped}
    for name in ("bare", "console"):
        result[name] = {part: _figures([float(r[part]) for r in rows[name]])
                        for part in ("total_ms", "journal_step_ms", "display_ms")}
    growth = result["console"]["total_ms"]["median"] / result["bare"]["total_ms"]["median"] - 1
    result["growth"] = growth
    result["growth_ok"] = growth <= MAX_GROWTH
    result["tap"] = {"answer_ms": _figures(tapped["answer_ms"]), "every_screen_ms": _figures(tapped["update_ms"])}
    result["tap_ok"] = result["tap"]["every_screen_ms"]["median"] < AIM_MS
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", type=int, default=20, help="rolls of each table, thrown in turn")
    parser.add_argument("--clients", type=int, default=20, help="live event streams on the console")
    parser.add_argument("--taps", type=int, default=60, help="bets posted (half of them taken down again)")
    parser.add_argument("--game", default="craps", choices=("craps", "hazard", "bang"))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--worker", choices=("plain", "console"), help=argparse.SUPPRESS)
    parser.add_argument("--clients-process", metavar="URL", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        return worker(args.worker, args.game, args.seed)
    if args.clients_process:
        asyncio.run(_clients(args.clients_process, args.clients))
        return 0
    result = run(args.pairs, args.clients, args.taps, args.game, args.seed)
    if args.json:
        print(json.dumps(result))
        return 0 if result["growth_ok"] else 1
    print(f"roll to display, {args.game}, {args.pairs} rolls each, thrown in turn; the console with "
          f"{args.clients} live event streams ({result['dropped']} dropped)")
    print(f"{'':<28}{'median ms':>10}{'p95 ms':>9}{'max ms':>9}")
    for name in ("bare", "console"):
        for part in ("total_ms", "journal_step_ms", "display_ms"):
            f = result[name][part]
            print(f"{name + ' ' + part[:-3]:<28}{f['median']:>10.1f}{f['p95']:>9.1f}{f['max']:>9.1f}")
    print(f"median growth with the console: {result['growth'] * 100:+.1f} % "
          f"(limit +{MAX_GROWTH * 100:.0f} %): {'met' if result['growth_ok'] else 'NOT met'}")
    for name, label in (("answer_ms", "bet answered"), ("every_screen_ms", f"bet on all {args.clients} screens")):
        f = result["tap"][name]
        print(f"{label:<28}{f['median']:>10.1f}{f['p95']:>9.1f}{f['max']:>9.1f}")
    print(f"aim {AIM_MS:.0f} ms to every screen: {'met' if result['tap_ok'] else 'NOT met'} (median)")
    return 0 if result["growth_ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
