"""How long the floor page takes to build its list of tables, each with its shift's numbers.

Simulated tables (a real journal each, written by the table's own :class:`JournaledTable`, on
/dev/shm when it exists) each run a shift: the pit opens it and sells chips, seated players bet
by the demo's strategies, and every roll is read by the camera (one in ten unsure and confirmed,
one in twenty entered by hand). Their rows go into a floor database (``--dir``) as the floor
stores them. Then it times :func:`controller.floor.page.floor_view` made into the JSON the page
sends, with the page's book of shifts (:mod:`controller.floor.shifts`):

- ``cold``: a book that has read nothing (a floor page just started): the looks, a second apart on
  the page, until every table's journal is read (each look reads at most
  :data:`controller.floor.shifts.LIST_ROWS` rows of them all);
- ``warm``: the book again with no new row (the page's poll, every second, on a quiet floor);
- ``live``: the book again after ``--busy`` tables each stored one more roll (a busy floor).

    nice -n 19 .venv/bin/python bench/floor_list.py                    # 100 tables, 300 rolls each
    nice -n 19 .venv/bin/python bench/floor_list.py --tables 100 --rolls 800 --json
"""
from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from controller.floor.page import floor_view
from controller.floor.shifts import ShiftBook
from controller.floor.store import FloorStore
from controller.journal import Journal, export_line
from controller.players import Players
from controller.rules import TableConfig
from controller.table import JournaledTable, Phase


class SimulatedTable:
    """One table's journal, played a roll at a time."""

    def __init__(self, folder: Path, table: str, seed: int):
        self.rng = random.Random(seed)
        self.journal = Journal.open(folder / table)
        self.table = JournaledTable.open(self.journal, "craps", TableConfig(), table_id=table)
        self.players = Players.seated("craps", TableConfig().seats, seed)
        self.name = table
        self.sent = 0
        self.table.submit({"event": "shift_open", "bank": {"2500": 40, "500": 100}, "user": "pat"})
        for seat in self.players.seats:
            self.table.submit({"event": "buy_in", "seat": seat, "amount": 10000, "user": "pat"})

    def roll(self, number: int) -> None:
        for bet in self.players.bets(self.table.state):
            self.table.submit(bet)
        self.table.submit({"event": "lock"})
        dice = [self.rng.randint(1, 6), self.rng.randint(1, 6)]
        kind = self.rng.random()
        status = "uncertain" if kind < 0.15 else "ok"
        self.table.submit({"event": "read", "status": status, "dice": dice, "confidence": 0.9,
                           "frame": f"{self.name}-{number:06d}.jpg"})
        if self.table.state.phase is Phase.PENDING:
            self.table.submit({"event": "manual", "dice": dice, "user": "ana"} if kind < 0.05 else {"event": "confirm"})

    def store(self, store: FloorStore) -> int:
        """The rows not yet stored, into ``store``; how many."""
        entries = list(self.journal.entries(self.sent))
        first = self.journal.first_entry()
        assert first is not None
        store.begin()
        for entry in entries:
            store.receive(self.name, first.hash, export_line(entry))
        store.commit()
        self.sent += len(entries)
        return len(entries)


def timed(store: FloorStore, book: ShiftBook) -> tuple[float, int, bool]:
    """Milliseconds to build the floor list's JSON, its size in bytes, and whether it has read
    every table's journal to its end."""
    started = time.perf_counter()
    view = floor_view(store, book=book)
    text = json.dumps(view)
    took = (time.perf_counter() - started) * 1000
    return took, len(text), not any((t["shift"] or {}).get("reading") for t in view["tables"])


def summary(times: list[float]) -> dict[str, Any]:
    ordered = sorted(times)
    return {"median_ms": round(statistics.median(ordered), 1),
            "p95_ms": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 1),
            "max_ms": round(ordered[-1], 1)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--rolls", type=int, default=300, help="rolls in each table's shift (default 300)")
    parser.add_argument("--repeats", type=int, default=30, help="warm and live views timed (default 30)")
    parser.add_argument("--busy", type=int, default=10, help="tables with a new roll before each live view")
    parser.add_argument("--dir", help="where the floor's database goes (default: a temporary folder)")
    parser.add_argument("--json", action="store_true", help="one JSON object")
    args = parser.parse_args(argv)
    shm = Path("/dev/shm")
    journals = Path(tempfile.mkdtemp(prefix="floor-list-", dir=shm if shm.is_dir() else None))
    where = Path(args.dir) if args.dir else Path(tempfile.mkdtemp(prefix="floor-list-db-"))
    where.mkdir(parents=True, exist_ok=True)
    tables: list[SimulatedTable] = []
    try:
        started = time.perf_counter()
        with FloorStore(where / "floor.sqlite3") as store:
            rows = 0
            for index in range(args.tables):
                table = SimulatedTable(journals, f"craps-{index:03d}", seed=index)
                for number in range(args.rolls):
                    table.roll(number)
                rows += table.store(store)
                tables.append(table)
            made_s = time.perf_counter() - started
            book = ShiftBook()
            cold = []
            read = False
            while not read:
                took, size, read = timed(store, book)
                cold.append(took)
            warm = [timed(store, book)[0] for _ in range(args.repeats)]
            live = []
            for repeat in range(args.repeats):
                for table in tables[repeat % len(tables):][:args.busy]:
                    table.roll(args.rolls + repeat)
                    rows += table.store(store)
                live.append(timed(store, book)[0])
        found = {"tables": args.tables, "rolls": args.rolls, "rows": rows, "json_bytes": size,
                 "made_s": round(made_s, 1), "cold": {"looks": len(cold), **summary(cold)}, "warm": summary(warm),
                 "live": {**summary(live), "busy_tables": args.busy}}
    finally:
        for table in tables:
            table.journal.close()
        shutil.rmtree(journals, ignore_errors=True)
        if not args.dir:
            shutil.rmtree(where, ignore_errors=True)
    if args.json:
        print(json.dumps(found))
    else:
        print(f"{found['tables']} tables, {found['rolls']} rolls each, {found['rows']:,} rows held "
              f"(made in {found['made_s']} s); the list's JSON is {found['json_bytes']:,} bytes")
        print(f"  cold (a page just started): {found['cold']['looks']} looks until every journal is read, median "
              f"{found['cold']['median_ms']} ms, most {found['cold']['max_ms']} ms")
        print(f"  warm (no new row): median {found['warm']['median_ms']} ms, p95 {found['warm']['p95_ms']} ms, "
              f"most {found['warm']['max_ms']} ms")
        print(f"  live ({args.busy} tables with a new roll each time): median {found['live']['median_ms']} ms, "
              f"p95 {found['live']['p95_ms']} ms, most {found['live']['max_ms']} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
