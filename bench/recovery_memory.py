"""Recovery of a long journal: its time and its peak memory, against a short one.

A craps journal of ``--inputs`` inputs (seated players' bets, locks, reads of every status,
confirms, hand entries and voids, with the effects the table computes) is written straight
into SQLite (one transaction per 10,000 rows: the table's own commits would take hours for a
million inputs), then a fresh process recovers a table from it as ``dicetable run`` does
(``JournaledTable.open``: verify the chain and the mark, then replay every input) and reports
the seconds it took and its peak resident memory (``ru_maxrss``). The same is done for a
journal of ``--short`` inputs: the difference is what the journal's length costs.

Usage::

    nice -n 19 .venv/bin/python bench/recovery_memory.py --inputs 1000000 [--short 1000] [--json]
"""
from __future__ import annotations

import argparse
import json
import random
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Iterator

from controller.journal import EFFECT, GENESIS, INPUT, Journal, entry_hash
from controller.journal.chain import canonical_json
from controller.players import Players
from controller.rules import TableConfig
from controller.table import Phase, TableState, new_table, step
from controller.table.journaled import table_header

GAME = "craps"
BATCH_ROWS = 10_000


def session(seed: int) -> Iterator[dict[str, Any]]:
    """Inputs of a craps session, without end: bets by seated players, the dealer's buttons and
    reads of every status, each answered as a dealer would."""
    rng = random.Random(seed)
    config = TableConfig()
    state: TableState = new_table(GAME, config)
    players = Players.seated(GAME, config.seats, seed)
    number = 0
    while True:
        rolled: list[dict[str, Any]] = [*players.bets(state), {"event": "lock"}]
        dice = [rng.randint(1, 6), rng.randint(1, 6)]
        frame = f"roll-{number:07d}.jpg"
        kind = rng.random()
        if kind < 0.6:
            rolled.append({"event": "read", "status": "ok", "dice": dice, "confidence": 0.97, "frame": frame})
        elif kind < 0.8:
            rolled += [{"event": "read", "status": "uncertain", "dice": dice, "confidence": 0.6, "frame": frame},
                       {"event": "confirm"}]
        elif kind < 0.9:
            rolled += [{"event": "read", "status": "no_read", "dice": [], "confidence": 0.0, "frame": frame},
                       {"event": "manual", "dice": dice}]
        else:
            rolled += [{"event": "void"}, {"event": "lock"},
                       {"event": "read", "status": "ok", "dice": dice, "confidence": 0.95, "frame": frame}]
        for event in rolled:
            yield event
            state = step(state, event).state
        if state.phase is not Phase.BETTING:  # a void that unlocked: settle the roll by hand
            yield {"event": "manual", "dice": dice}
            state = step(state, {"event": "manual", "dice": dice}).state
        number += 1


def build_journal(state_dir: Path, inputs: int, seed: int = 7) -> int:
    """A journal of ``inputs`` inputs (and their effects) in ``state_dir``; returns its row count."""
    Journal.open(state_dir).close()  # the schema, as the table makes it
    db = sqlite3.connect(state_dir / "journal.sqlite3", isolation_level=None)
    db.execute("PRAGMA synchronous=OFF")
    state = new_table(GAME, TableConfig())
    prev, seq, ts = GENESIS, 0, "2026-12-01T18:00:00.000+00:00"
    db.execute("BEGIN")

    def append(kind: str, event: dict[str, Any]) -> None:
        nonlocal prev, seq
        seq += 1
        text = canonical_json(event)
        digest = entry_hash(prev, seq, ts, kind, text)
        db.execute("INSERT INTO journal VALUES (?, ?, ?, ?, ?, ?)", (seq, ts, kind, text, prev, digest))
        prev = digest
        if seq % BATCH_ROWS == 0:
            db.execute("COMMIT")
            db.execute("BEGIN")

    append(INPUT, table_header(GAME, TableConfig()))
    for count, event in enumerate(session(seed)):
        if count == inputs:
            break
        result = step(state, event)
        append(INPUT, event)
        for effect in result.effects:
            append(EFFECT, json.loads(json.dumps(effect)))
        state = result.state
    db.execute("COMMIT")
    db.close()
    return seq


RECOVER = """
import json, resource, sys, time
from controller.journal import Journal
from controller.rules import TableConfig
from controller.table import JournaledTable
start = time.perf_counter()
with Journal.open(sys.argv[1]) as journal:
    table = JournaledTable.open(journal, "craps", TableConfig())
print(json.dumps({"seconds": time.perf_counter() - start, "replayed": table.replayed,
                  "peak_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
"""


def recover(state_dir: Path) -> dict[str, Any]:
    """Recover a table from the journal in ``state_dir`` in a fresh process: its seconds, inputs
    replayed and peak resident memory in KiB."""
    done = subprocess.run([sys.executable, "-c", RECOVER, str(state_dir)], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inputs", type=int, default=100_000, help="inputs in the long journal (default 100000)")
    parser.add_argument("--short", type=int, default=1_000, help="inputs in the short journal (default 1000)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="recovery-") as scratch:
        figures = {}
        for name, inputs in (("short", args.short), ("long", args.inputs)):
            state_dir = Path(scratch) / name
            started = time.perf_counter()
            rows = build_journal(state_dir, inputs)
            built = time.perf_counter() - started
            figures[name] = {"inputs": inputs, "rows": rows, "build_seconds": round(built, 1), **recover(state_dir)}
    figures["extra_peak_mib"] = round((figures["long"]["peak_kib"] - figures["short"]["peak_kib"]) / 1024, 1)
    figures["us_per_input"] = round(figures["long"]["seconds"] / args.inputs * 1e6, 1)
    if args.json:
        print(json.dumps(figures))
    else:
        for name in ("short", "long"):
            f = figures[name]
            print(f"{name}: {f['inputs']} inputs, {f['rows']} rows: recovered in {f['seconds']:.1f} s, "
                  f"peak {f['peak_kib'] / 1024:.1f} MiB")
        print(f"the long journal costs {figures['extra_peak_mib']} MiB more at its peak; "
              f"{figures['us_per_input']} µs per input")
    return 0


if __name__ == "__main__":
    sys.exit(main())
