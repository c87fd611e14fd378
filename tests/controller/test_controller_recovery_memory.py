"""Recovery's memory does not grow with the journal: a long journal is recovered within a fixed
margin of a short one (peak resident memory of a fresh process, bench/recovery_memory.py)."""
from __future__ import annotations

import importlib.util
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "recovery_memory.py"
#: What the long journal may cost above the short one at the peak. Holding its rows would take
#: some 40 MiB for the 20,000 inputs here (about 2 KiB an input).
MARGIN_KIB = 8 * 1024


def _bench():
    spec = importlib.util.spec_from_file_location("recovery_memory", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_long_journal_is_recovered_within_a_fixed_margin_of_a_short_one(tmp_path):
    bench = _bench()
    figures = {}
    for name, inputs in (("short", 1_000), ("long", 20_000)):
        bench.build_journal(tmp_path / name, inputs)
        figures[name] = bench.recover(tmp_path / name)
        assert figures[name]["replayed"] == inputs
    assert figures["long"]["peak_kib"] - figures["short"]["peak_kib"] < MARGIN_KIB
