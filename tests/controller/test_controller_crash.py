"""Crash test: a scripted session killed with SIGKILL at random points, restarted each time.

The same session run without interruption is the reference: after all the
kills and restarts the journal must hold exactly the same events (inputs and
effects, in order), so the same settlements -- none twice, none lost -- and
the recovered table must be the same state.

Kills from outside land wherever the process happens to be, so whether one
falls in the narrowest window (an input committed, its effects not yet) is
luck. A second test makes the process kill itself in exactly that window,
inside the effects' own transaction, every time.
"""
from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from controller.journal import EFFECT, Journal, verify
from controller.players import Players
from controller.rules import TableConfig
from controller.table import JournaledTable, Phase, new_table, step

SEED = 20261129
CONFIG = """
[table]
game = "{game}"
state_dir = "state"
[camera]
source = "none"
[display]
port = "none"
[hazard]
# The script says when the cage stops (spin_done); the motor's own timer must not say it too.
spin_seconds = 60
[gpio]
cage_max_run_s = 120
"""


def scripted_session(game: str, rolls: int, seed: int) -> list[dict]:
    """The inputs of a session: players' bets, the dealer's buttons and reads of every status."""
    rng = random.Random(seed)
    state = new_table(game, TableConfig())
    players = Players.seated(game, TableConfig().seats, seed)
    events: list[dict] = []
    count = state.dice_count

    def feed(event: dict) -> None:
        nonlocal state
        events.append(event)
        state = step(state, event).state

    for number in range(rolls):
        for bet in players.bets(state):
            feed(bet)
        if rng.random() < 0.1:
            feed({"event": "confirm"})  # a press at the wrong moment: refused
        feed({"event": "lock"})
        if state.phase is Phase.SPINNING:
            feed({"event": "spin_done"})
        dice = [rng.randint(1, 6) for _ in range(count)]
        frame = f"roll-{number:05d}.png"
        kind = rng.random()
        if kind < 0.55:
            feed({"event": "read", "status": "ok", "dice": dice, "confidence": 0.97, "frame": frame})
        elif kind < 0.75:
            feed({"event": "read", "status": "uncertain", "dice": dice, "confidence": 0.6, "frame": frame})
            feed({"event": "confirm"})
        elif kind < 0.9:
            feed({"event": "read", "status": "no_read", "dice": [], "confidence": 0.0, "frame": frame})
            feed({"event": "manual", "dice": dice})
        else:
            wrong = [d % 6 + 1 for d in dice]
            feed({"event": "read", "status": "uncertain", "dice": wrong, "confidence": 0.4, "frame": frame})
            feed({"event": "void"})
            feed({"event": "read", "status": "ok", "dice": dice, "confidence": 0.95, "frame": frame})
        if game == "craps" and state.rules.point is None and rng.random() < 0.2:
            feed({"event": "next_shooter"})
    return events


def _setup(folder: Path, game: str, events: list[dict]) -> tuple[Path, Path]:
    folder.mkdir()
    config = folder / "table.toml"
    config.write_text(CONFIG.format(game=game))
    script = folder / "session.jsonl"
    script.write_text("".join(json.dumps(e) + "\n" for e in events))
    return config, script


def _command(config: Path, script: Path) -> list[str]:
    return [sys.executable, "-m", "controller.cli", "run", "--config", str(config), "--events", str(script),
            "--exit-at-end", "--resume"]


# Runs the table like `python -m controller.cli`, but SIGKILLs itself in the
# DICETABLE_TEST_KILL_AT-th batch of effect rows it writes: while the batch's last
# row is being inserted, after its input was committed and before the batch's
# transaction commits.
KILLED_IN_EFFECTS = """
import os, signal, sys
from controller.journal import store
from controller.cli import main

at, batches, append_many = int(os.environ["DICETABLE_TEST_KILL_AT"]), [0], store.Journal.append_many

def dying(self, events, kind=store.EFFECT):
    events = list(events)
    if kind == store.EFFECT:
        batches[0] += 1
        if batches[0] == at:
            rows, clock = [0], self._clock
            def clock_then_die():
                rows[0] += 1
                if rows[0] == len(events):
                    os.kill(os.getpid(), signal.SIGKILL)
                return clock()
            self._clock = clock_then_die
    return append_many(self, events, kind)

store.Journal.append_many = dying
sys.exit(main(sys.argv[1:]))
"""


def _rows(state_dir: Path) -> list[tuple[str, dict]]:
    """Every row's kind and event; the header without its own id, which is random in each journal."""
    with Journal.open(state_dir, readonly=True) as journal:
        assert verify(journal).ok
        return [(e.kind, {k: v for k, v in e.event.items() if not (e.seq == 1 and k == "id")})
                for e in journal.entries()]


def _start_of(log: str) -> str:
    """The start line ("... replayed N inputs") among what a run wrote to standard error."""
    return next(line for line in log.splitlines() if " replayed " in line)


def _start_line(process: subprocess.Popen) -> str:
    """Wait for the start line on the process's standard error, then drain the rest of it in the
    background (a full pipe would stop the process)."""
    import threading

    assert process.stderr is not None
    stderr = process.stderr
    while True:
        line = stderr.readline().decode()
        if not line or " replayed " in line:
            break
    threading.Thread(target=stderr.read, daemon=True).start()
    return line


def _effects_done(state_dir: Path) -> int:
    if not (state_dir / "journal.sqlite3").exists():
        return 0
    with Journal.open(state_dir, readonly=True) as journal:
        return sum(1 for e in journal.entries() if e.kind == EFFECT)


def _final_state(state_dir: Path, game: str):
    with Journal.open(state_dir) as journal:
        return JournaledTable.open(journal, game, TableConfig()).state


@pytest.mark.parametrize("game, rolls, kills", [("craps", 80, 14), ("hazard", 30, 6)])
def test_sigkill_at_random_points_loses_nothing_and_settles_nothing_twice(tmp_path, game, rolls, kills):
    events = scripted_session(game, rolls=rolls, seed=SEED)
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}

    ref_config, ref_script = _setup(tmp_path / "reference", game, events)
    done = subprocess.run(_command(ref_config, ref_script), capture_output=True, env=env, timeout=120, check=True)
    effect_lines = len(done.stdout.splitlines())  # the run prints every effect as it is journaled

    config, script = _setup(tmp_path / "crashed", game, events)
    rng = random.Random(SEED)
    killed, printed, starts = 0, 0, []
    # Kill points spread over the whole session, in effects journaled so far.
    points = sorted(rng.randint(0, effect_lines) for _ in range(kills))
    for _ in range(kills + 5):
        process = subprocess.Popen(_command(config, script), stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        starts.append(_start_line(process))  # "... replayed N inputs": the journal is open
        if killed < kills:
            # Read this run's effect lines up to the next kill point (none: kill during the recovery).
            for _ in range(max(0, points[killed] - printed)):
                if not process.stdout.readline():
                    break
            # Then a moment more: about one disk flush, so some kills fall between an input's commit and
            # its effects' commit (recovery must complete those effects).
            time.sleep(rng.uniform(0.0, 0.012))
            if process.poll() is None:
                process.send_signal(signal.SIGKILL)
                killed += 1
        process.stdout.read()  # to its end: the process has finished
        process.wait(timeout=120)
        printed = _effects_done(config.parent / "state")
        if process.returncode == 0:
            break
    assert killed == kills, "the session always ended before the kill: make it longer"
    assert process.returncode == 0, "".join(starts)
    assert len(set(starts)) > kills // 2, "most kills did not land inside the session:\n" + "".join(starts)

    reference, crashed = _rows(ref_config.parent / "state"), _rows(config.parent / "state")
    assert crashed == reference
    settlements = [event for kind, event in crashed if kind == EFFECT and event["event"] == "settle"]
    assert settlements and len([e for k, e in crashed if k == EFFECT and e["event"] == "roll"]) == rolls
    assert _final_state(config.parent / "state", game) == _final_state(ref_config.parent / "state", game)


def test_sigkill_between_an_input_and_its_effects_is_completed_once(tmp_path):
    game, kills = "craps", 8
    events = scripted_session(game, rolls=25, seed=SEED + 1)
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    ref_config, ref_script = _setup(tmp_path / "reference", game, events)
    subprocess.run(_command(ref_config, ref_script), capture_output=True, env=env, timeout=120, check=True)

    config, script = _setup(tmp_path / "crashed", game, events)
    command = _command(config, script)
    rng = random.Random(SEED)
    starts = []
    for _ in range(kills):
        # Batch 1 of a restart is the recovery completing the last kill's effects: die in a later one.
        at = str(rng.randint(2, 6))
        died = subprocess.run([sys.executable, "-c", KILLED_IN_EFFECTS, *command[3:]], capture_output=True,
                              env={**env, "DICETABLE_TEST_KILL_AT": at}, timeout=120)
        assert died.returncode == -signal.SIGKILL, died.stderr.decode()
        starts.append(_start_of(died.stderr.decode()))
    finished = subprocess.run(command, capture_output=True, env=env, timeout=120, check=True)
    starts.append(_start_of(finished.stderr.decode()))

    # Every start after a kill found an input without its effects, and wrote them.
    assert all(", completed " in line for line in starts[1:]), starts
    reference, crashed = _rows(ref_config.parent / "state"), _rows(config.parent / "state")
    assert crashed == reference
    assert _final_state(config.parent / "state", game) == _final_state(ref_config.parent / "state", game)
