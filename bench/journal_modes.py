"""What a journaled input costs in SQLite's rollback-journal modes and in WAL, on this disk.

The table commits each input before it takes effect, then its effects in a second transaction
(``JournaledTable.submit``), both with ``synchronous=FULL``. This appends the rows of a real craps
session (bench/recovery_memory.py's) the same way, with the journal's schema and triggers, in
each mode (side by side, input by input), and reports the time per input (both commits): median, 95th percentile and worst.
Measure on the disk that holds the state directory (``--dir``; a Pi's SD card is much slower
to flush than a laptop's SSD).

Usage::

    nice -n 19 .venv/bin/python bench/journal_modes.py [--inputs 400] [--dir var/bench-journal] [--json]
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import shutil
import sqlite3
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from controller.journal import EFFECT, GENESIS, INPUT, entry_hash
from controller.journal.chain import canonical_json
from controller.journal.store import SCHEMA
from controller.rules import TableConfig
from controller.table import new_table, step

#: (name, journal_mode, synchronous): the table's mode first, then the others it was weighed against.
MODES = (("truncate", "TRUNCATE", "FULL"), ("wal", "WAL", "FULL"), ("delete", "DELETE", "FULL"),
         ("delete-extra", "DELETE", "EXTRA"), ("persist", "PERSIST", "FULL"))


def _session():
    spec = importlib.util.spec_from_file_location("recovery_memory", Path(__file__).with_name("recovery_memory.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.session


class Journal:
    """One journal in ``folder`` in one mode, appended to as the table does."""

    def __init__(self, folder: Path, journal_mode: str, synchronous: str):
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        self.folder = folder
        self.db = sqlite3.connect(folder / "journal.sqlite3", isolation_level=None)
        self.db.execute(f"PRAGMA journal_mode={journal_mode}")
        self.db.execute(f"PRAGMA synchronous={synchronous}")
        self.db.executescript(f"BEGIN IMMEDIATE; {SCHEMA} COMMIT;")
        self.prev, self.seq = GENESIS, 0
        self.times: list[float] = []

    def _commit(self, kind: str, events: list[dict[str, Any]]) -> None:
        self.db.execute("BEGIN IMMEDIATE")
        for event in events:
            self.seq += 1
            ts = "2026-12-01T18:00:00.000+00:00"
            text = canonical_json(event)
            digest = entry_hash(self.prev, self.seq, ts, kind, text)
            self.db.execute("INSERT INTO journal VALUES (?, ?, ?, ?, ?, ?)", (self.seq, ts, kind, text, self.prev, digest))
            self.prev = digest
        self.db.execute("COMMIT")

    def submit(self, event: dict[str, Any], effects: list[dict[str, Any]]) -> None:
        """The input committed, then its effects: the time both took, in milliseconds, is kept."""
        started = time.perf_counter()
        self._commit(INPUT, [event])
        if effects:
            self._commit(EFFECT, effects)
        self.times.append((time.perf_counter() - started) * 1000)

    def close(self) -> None:
        self.db.close()
        shutil.rmtree(self.folder, ignore_errors=True)


def measure(folder: Path, inputs: int) -> dict[str, list[float]]:
    """Milliseconds per input in every mode of :data:`MODES`. The journals are written side by side,
    input by input, so that what else the disk is doing weighs on every mode alike."""
    journals = {name: Journal(folder / name, mode, sync) for name, mode, sync in MODES}
    state = new_table("craps", TableConfig())
    try:
        for count, event in enumerate(_session()(7)):
            if count == inputs:
                break
            result = step(state, event)
            effects = [json.loads(json.dumps(e)) for e in result.effects]
            for journal in journals.values():
                journal.submit(event, effects)
            state = result.state
    finally:
        for journal in journals.values():
            journal.close()
    return {name: journal.times for name, journal in journals.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inputs", type=int, default=400, help="inputs per mode (default 400)")
    parser.add_argument("--dir", default="var/bench-journal", help="scratch folder on the disk to measure")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    figures = {}
    for name, times in measure(Path(args.dir), args.inputs).items():
        times.sort()
        figures[name] = {"median_ms": round(statistics.median(times), 2),
                         "p95_ms": round(times[int(len(times) * 0.95)], 2), "max_ms": round(times[-1], 2)}
    if args.json:
        print(json.dumps(figures))
    else:
        print(f"per input (its input and its effects committed), {args.inputs} inputs, in {args.dir}:")
        for name, f in figures.items():
            print(f"  {name:13} median {f['median_ms']:6.2f} ms   p95 {f['p95_ms']:6.2f} ms   worst {f['max_ms']:6.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
