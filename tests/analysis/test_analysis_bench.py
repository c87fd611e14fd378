"""The crapssim comparison runs end to end on a tiny count (skipped when crapssim is absent).

Only that it works is checked here; the speed figures belong to the benchmark
itself and to docs/analysis.md, never to a test.
"""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "simulate_vs_crapssim.py"


def load_bench():
    spec = importlib.util.spec_from_file_location("simulate_vs_crapssim", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_bench_compares_the_same_rolls_on_both_sides(capsys):
    pytest.importorskip("crapssim", reason="crapssim is not installed (pip install -e '.[bench]')")
    bench = load_bench()
    assert bench.main(["--bet", "pass", "--bet", "place:6", "--rolls", "3000", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["dicetable"]["rolls"] == result["crapssim"]["rolls"] == 3000


def test_bench_refuses_bets_crapssim_does_not_have(capsys):
    bench = load_bench()
    assert bench.main(["--bet", "odds:pass", "--rolls", "10"]) == 2
    assert "no crapssim counterpart" in capsys.readouterr().err


@pytest.mark.parametrize("argv, message", [
    (["--bet", "pass=abc"], "the amount is a positive whole number of cents"),
    (["--bet", "place"], "place needs a number"),
    (["--bet", "pass=100000"], "over the maximum"),
])
def test_bench_names_a_bad_bet_in_one_line(argv, message, capsys):
    # Checked by dicetable's own engine before crapssim is needed, so this runs without it too.
    assert load_bench().main([*argv, "--rolls", "10"]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


@pytest.mark.parametrize("argv", [["--rolls", "0"], ["--seed", "-1"]])
def test_bench_refuses_a_roll_count_or_seed_it_cannot_use(argv, capsys):
    with pytest.raises(SystemExit) as done:
        load_bench().main(argv)
    assert done.value.code == 2
