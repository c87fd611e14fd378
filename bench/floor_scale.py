"""How many tables one broker and one floor keep up with on this machine, and where it breaks.

Simulated tables (a real journal and a real :class:`controller.floor.publisher.FloorPublisher`
each, no camera) write rolls into their journals: each roll is one input row and nine effect rows
in two commits, as a craps table writes a read and its settlements. A real craps table writes
about one roll, ten rows, every 30 s; ``--rates 3`` is ten times that (3 rows a second a table).
They run in ``--workers`` processes beside one private Mosquitto (:mod:`controller.floor.mosquitto`,
with a login per table and the ACL of docs/floor.md) and one ``dicetable floor`` process storing
into SQLite. The rate is raised phase by phase; for each phase it prints

- rows a second stored by the floor, and rows a second the tables wrote;
- lag from the journal's commit (the row's time) to the floor's commit: median and p99, and the
  median of the phase's first and last thirds (a lag that grows within a phase: the floor or the
  broker is falling behind);
- CPU (percent of one core) and memory (RSS) of the floor, the broker and the tables' processes.

The tables' journals live on /dev/shm when it exists: on a floor each table has its own Pi and
its own card, and the fsyncs of a hundred journals on one disk would measure this machine's disk,
not the floor. The floor's database is on disk (``--dir``).

    nice -n 19 .venv/bin/python bench/floor_scale.py                          # 100 tables, 3 10 20 30 60 rows/s
    nice -n 19 .venv/bin/python bench/floor_scale.py --tables 100 --rates 3 --phase-s 60
"""
from __future__ import annotations

import argparse
import heapq
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

ROWS_PER_ROLL = 10
TICKS = os.sysconf("SC_CLK_TCK")


def roll_rows(rng: random.Random, number: int) -> tuple[dict, list[dict]]:
    """A read and the nine effects it settles, sized like a real table's rows."""
    dice = [rng.randint(1, 6), rng.randint(1, 6)]
    read: dict[str, Any] = {"event": "read", "status": "ok", "dice": dice, "confidence": 0.97, "ms": 9.1, "size": [640, 480],
            "frame": f"craps-20261201T120000000-{number:07d}.jpg", "boxes": [[120, 200, 70, 70], [300, 210, 70, 70]]}
    effects: list[dict[str, Any]] = [{"event": "roll", "dice": dice, "game": "craps", "source": "read"}]
    for seat in range(8):
        effects.append({"event": "settle", "seat": "ABCDEFGH"[seat], "bet": "place", "number": 6, "amount": 600,
                        "result": "win" if sum(dice) == 6 else "no_action", "paid": 700 if sum(dice) == 6 else 0})
    return read, effects


def worker(args: argparse.Namespace) -> int:
    """One process of tables: writes the schedule's rolls and publishes them, then drains."""
    from controller.floor.broker import parse_broker
    from controller.floor.publisher import FloorPublisher
    from controller.journal import INPUT, Journal
    from controller.journal.identity import identity_fields

    rng = random.Random(args.first)
    tables = []
    for index in range(args.first, args.first + args.count):
        name = f"table-{index:03d}"
        state = Path(args.state) / name
        journal = Journal.open(state)
        if not len(journal):
            journal.append({"event": "table", "game": "craps", "rules": {}, **identity_fields(name, None)}, INPUT)
        url = f"mqtt://{name}:pw-{name}@127.0.0.1:{args.port}"
        publisher = FloorPublisher(state, name, parse_broker(url), status=lambda: {"game": "craps"}).start()
        tables.append((journal, publisher))
    start = args.start
    while time.time() < start:
        time.sleep(0.01)
    written = 0
    phase_start = start
    for rate in args.rates:
        interval = ROWS_PER_ROLL / rate
        due = [(phase_start + rng.uniform(0, interval), i) for i in range(len(tables))]
        heapq.heapify(due)
        end = phase_start + args.phase_s
        while due:
            at, i = heapq.heappop(due)
            if at >= end:
                continue
            pause = at - time.time()
            if pause > 0:
                time.sleep(pause)
            journal, publisher = tables[i]
            read, effects = roll_rows(rng, written)
            journal.append(read, INPUT)
            journal.append_many(effects)
            publisher.wake()
            written += ROWS_PER_ROLL
            heapq.heappush(due, (at + interval, i))
        phase_start = end
        print(json.dumps({"rate": rate, "written": written}), flush=True)
    while time.time() < phase_start + args.drain_s and not all(
            p.progress().acked >= p.progress().head for _, p in tables):
        time.sleep(0.2)
    for journal, publisher in tables:
        publisher.close(drain_s=0)
        journal.close()
    return 0


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def seconds(ts: str) -> float:
    return datetime.fromisoformat(ts).timestamp()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--rates", type=float, nargs="+", default=[3, 10, 20, 30, 60], help="rows a second a table")
    parser.add_argument("--phase-s", type=float, default=30.0)
    parser.add_argument("--drain-s", type=float, default=60.0)
    parser.add_argument("--dir", help="where the broker and the floor's database go (default: a temporary folder)")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--first", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--count", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--state", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--start", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return worker(args)

    from controller.floor.mosquitto import PrivateBroker
    from controller.floor.store import FloorStore

    load_before = os.getloadavg()[0]  # other work on the machine competes with the floor: say how much
    folder = Path(args.dir or tempfile.mkdtemp(prefix="floor-bench-"))
    folder.mkdir(parents=True, exist_ok=True)
    shm = Path("/dev/shm")
    state = Path(tempfile.mkdtemp(prefix="floor-bench-tables-", dir=shm if shm.is_dir() else folder))
    users = {"floor": "pw-floor", **{f"table-{i:03d}": f"pw-table-{i:03d}" for i in range(args.tables)}}
    broker = PrivateBroker(folder / "broker", users).start()
    db = folder / "floor.sqlite3"
    # The floor refuses a password file others may read: made private, whatever the umask.
    password = folder / "floor.pw"
    password.unlink(missing_ok=True)
    with os.fdopen(os.open(password, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w") as out:
        out.write("pw-floor\n")
    floor = subprocess.Popen([sys.executable, "-m", "controller.cli", "floor", "--broker",
                              f"mqtt://127.0.0.1:{broker.port}", "--username", "floor", "--password-file",
                              str(folder / "floor.pw"), "--db", str(db), "--listen", "none"],
                             stdout=subprocess.DEVNULL)
    time.sleep(2)
    start = time.time() + 5 + args.tables * 0.02
    per = -(-args.tables // args.workers)
    workers = [subprocess.Popen([sys.executable, __file__, "--worker", "--first", str(first),
                                 "--count", str(min(per, args.tables - first)), "--state", str(state),
                                 "--port", str(broker.port), "--start", str(start), "--phase-s", str(args.phase_s),
                                 "--drain-s", str(args.drain_s), "--rates", *map(str, args.rates)],
                                stdout=subprocess.PIPE, text=True)
               for first in range(0, args.tables, per)]
    while time.time() < start:
        time.sleep(0.05)
    assert broker.process is not None
    processes = {"floor": [floor.pid], "broker": [broker.process.pid], "tables": [w.pid for w in workers]}
    usage = []
    for k in range(len(args.rates)):
        before = {name: sum(cpu_seconds(p) for p in pids) for name, pids in processes.items()}
        time.sleep(max(0.0, start + (k + 1) * args.phase_s - time.time()))
        after = {name: sum(cpu_seconds(p) for p in pids) for name, pids in processes.items()}
        rss = {name: sum(rss_mb(p) for p in pids) for name, pids in processes.items()}
        usage.append({name: (100 * (after[name] - before[name]) / args.phase_s, rss[name]) for name in processes})
    written = [[json.loads(line) for line in w.communicate(timeout=args.drain_s + 60)[0].splitlines()] for w in workers]
    floor.send_signal(signal.SIGTERM)
    floor.wait(timeout=60)
    broker.stop()

    with FloorStore(db, readonly=True) as store:
        lags = [(seconds(ts), seconds(stored)) for ts, stored in store.lags()]
        db_mb = db.stat().st_size / 2**20
        rows_held = len(lags)
    print(f"{args.tables} tables in {len(workers)} processes, phases of {args.phase_s:g} s; floor database {db}: "
          f"{rows_held} rows, {db_mb:.1f} MB ({1e6 * db_mb / max(1, rows_held):.0f} bytes a row); "
          f"load average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after, on {os.cpu_count()} cores")
    print("rate/table  written/s  stored/s   lag p50   lag p99   first/last third p50   CPU% floor broker tables   "
          "RSS MB floor broker tables")
    previous = 0
    for k, rate in enumerate(args.rates):
        lo, hi = start + k * args.phase_s, start + (k + 1) * args.phase_s
        phase = [(t, s - t) for t, s in lags if lo <= t < hi]
        stored = sum(1 for _, s in lags if lo <= s < hi)
        total = sum(w[k]["written"] for w in written)
        wrote, previous = total - previous, total
        values = [lag for _, lag in phase]
        third = args.phase_s / 3
        first = [lag for t, lag in phase if t < lo + third]
        last = [lag for t, lag in phase if t >= hi - third]
        u = usage[k]
        print(f"{rate:10g}  {wrote / args.phase_s:9.0f}  {stored / args.phase_s:8.0f}  "
              f"{1000 * statistics.median(values) if values else float('nan'):6.0f} ms {1000 * percentile(values, .99):6.0f} ms"
              f"   {1000 * statistics.median(first) if first else float('nan'):6.0f} / "
              f"{1000 * statistics.median(last) if last else float('nan'):6.0f} ms"
              f"   {u['floor'][0]:9.0f} {u['broker'][0]:6.0f} {u['tables'][0]:6.0f}"
              f"   {u['floor'][1]:12.0f} {u['broker'][1]:6.0f} {u['tables'][1]:6.0f}")
    missing = sum(w[-1]["written"] for w in written) + args.tables - rows_held
    print(f"rows written but not held by the floor after the drain: {missing}")
    shutil.rmtree(state, ignore_errors=True)
    if not args.dir:
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
