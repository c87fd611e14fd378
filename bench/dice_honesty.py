"""How well the dice's sequential test (controller/pit/honesty.py) tells biased dice from fair ones.

Simulated rolls go through the table's own :class:`controller.pit.honesty.DiceWatch`, as the
report feeds it, one roll at a time. Each die's place in a roll is drawn at random, as a camera
finds the dice wherever they land. It prints, for each case, the share of runs the test flags
within the rolls given, with a 95 % interval (Wilson's), and the rolls it took:

- ``loaded``: craps, one die showing 6 one time in four (its other faces 3 in 20 each), within
  1,000 rolls: the issue's target is at least 95 %;
- ``fair``: craps, fair dice over a 500-roll shift: the target is at most 1 %;
- ``misread``: craps, fair dice and a camera that reads a 5 as a 6 one time in three;
- ``hazard-loaded`` and ``hazard-fair``: the same at Hazard's three dice;
- ``fair-long``: fair craps dice never changed, rolled until the first false alarm (capped): how
  long a set lasts before the test cries wolf, which is why the watch starts again each shift.

    nice -n 19 .venv/bin/python bench/dice_honesty.py                 # 5,000 runs a case
    nice -n 19 .venv/bin/python bench/dice_honesty.py --runs 500 --json
"""
from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

from controller.pit.honesty import ALTERNATIVE, THRESHOLD, DiceWatch

Die = Callable[[random.Random], int]
FACES = (1, 2, 3, 4, 5, 6)
LOADED_WEIGHTS = (3, 3, 3, 3, 3, 5)  # a 6 one time in four, each other face 3 in 20


def fair(rng: random.Random) -> int:
    return rng.randint(1, 6)


def loaded(rng: random.Random) -> int:
    return rng.choices(FACES, LOADED_WEIGHTS)[0]


def misread(rng: random.Random) -> int:
    """A fair die, but a 5 read as a 6 one time in three."""
    face = rng.randint(1, 6)
    return 6 if face == 5 and rng.random() < 1 / 3 else face


@dataclass(frozen=True)
class Case:
    name: str
    dice: tuple[Die, ...]
    rolls: int
    target: str


CASES = (
    Case("loaded", (loaded, fair), 1000, "flagged in >= 95 % of runs"),
    Case("fair", (fair, fair), 500, "flagged in <= 1 % of shifts"),
    Case("misread", (misread, misread), 1000, "(no target)"),
    Case("hazard-loaded", (loaded, fair, fair), 1000, "(no target)"),
    Case("hazard-fair", (fair, fair, fair), 500, "(no target)"),
)


def run(dice: tuple[Die, ...], rolls: int, rng: random.Random) -> int | None:
    """The roll at which the test first flags ``dice`` within ``rolls``, or None."""
    watch = DiceWatch()
    for number in range(1, rolls + 1):
        thrown = [die(rng) for die in dice]
        rng.shuffle(thrown)
        watch.add(thrown, number)
        if watch.alarm is not None:
            return number
    return None


def wilson(hits: int, runs: int, z: float = 1.959964) -> tuple[float, float]:
    """The 95 % interval of a share ``hits / runs`` (Wilson's score interval)."""
    share = hits / runs
    centre = (share + z * z / (2 * runs)) / (1 + z * z / runs)
    half = z * math.sqrt(share * (1 - share) / runs + z * z / (4 * runs * runs)) / (1 + z * z / runs)
    return max(0.0, centre - half), min(1.0, centre + half)


def measure(case: Case, runs: int, seed: int) -> dict:
    rng = random.Random(f"{seed}-{case.name}")
    started = time.perf_counter()
    found = [run(case.dice, case.rolls, rng) for _ in range(runs)]
    flagged = [n for n in found if n is not None]
    low, high = wilson(len(flagged), runs)
    return {"case": case.name, "rolls": case.rolls, "runs": runs, "flagged": len(flagged),
            "share": round(len(flagged) / runs, 4), "low": round(low, 4), "high": round(high, 4),
            "median_rolls": statistics.median(flagged) if flagged else None, "target": case.target,
            "seconds": round(time.perf_counter() - started, 1)}


def long_run(runs: int, cap: int, seed: int) -> dict:
    rng = random.Random(f"{seed}-fair-long")
    found = [run((fair, fair), cap, rng) for _ in range(runs)]
    flagged = sorted(n for n in found if n is not None)
    return {"case": "fair-long", "rolls": cap, "runs": runs, "flagged": len(flagged),
            "median_rolls": statistics.median(flagged) if len(flagged) > runs / 2 else f"over {cap}",
            "quartile_rolls": flagged[runs // 4] if len(flagged) > runs / 4 else f"over {cap}"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5000, help="simulated runs a case (default 5000)")
    parser.add_argument("--long-runs", type=int, default=300, help="runs of fair dice never changed (default 300)")
    parser.add_argument("--cap", type=int, default=50000, help="their rolls at most (default 50000)")
    parser.add_argument("--seed", type=int, default=47)
    parser.add_argument("--json", action="store_true", help="one JSON line a case")
    args = parser.parse_args(argv)
    if not args.json:
        print(f"sequential test: a CUSUM per face, alternative {ALTERNATIVE} against 1/6, threshold {THRESHOLD}")
    results = [measure(case, args.runs, args.seed) for case in CASES]
    results.append(long_run(args.long_runs, args.cap, args.seed))
    for result in results:
        if args.json:
            print(json.dumps(result))
        elif result["case"] == "fair-long":
            print(f"{result['case']:>14}: {result['flagged']} of {result['runs']} sets of fair dice flagged within "
                  f"{result['rolls']:,} rolls; first false alarm after a median of {result['median_rolls']} rolls "
                  f"(a quarter by {result['quartile_rolls']})")
        else:
            print(f"{result['case']:>14}: flagged {result['flagged']} of {result['runs']} runs within "
                  f"{result['rolls']:,} rolls = {result['share'] * 100:.1f} % (95 % interval "
                  f"{result['low'] * 100:.1f} to {result['high'] * 100:.1f} %), median {result['median_rolls']} "
                  f"rolls; target: {result['target']} [{result['seconds']} s]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
