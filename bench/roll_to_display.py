"""Roll-to-display latency: from the frame in which the dice come to rest to the display's acknowledgement.

On the stand-ins, at 30 frames per second: generated scenes (pre-rendered,
then delivered at the camera's pace, each frame stamped when it is
"captured"), the real settle detector, the real dice reader, the frame saved
to disk, the journal (SQLite, a rollback journal, synchronous=FULL, in a temporary state
directory), the table step, and the display stand-in acknowledging over the
real serial link on a pseudo-terminal.

The rest frame is the ground truth: the first frame of the throw after which
the generated dice no longer move. The breakdown per roll:

- settle: rest frame -> the still frame the detector hands out (the detector's
  ``still_s`` of frames without motion, by design);
- read: the reader's time on that frame (``DiceRead.ms``);
- save: writing the still frame (JPEG) that the journal names;
- journal + step: the input row, the table's step, the effect rows, the redraw;
- display: ``DisplayLink.show`` to the stand-in's acknowledgement.

Usage::

    .venv/bin/python bench/roll_to_display.py [--rolls 20] [--game craps] [--json] [--wal]

Rendering happens before the timed part (a camera renders nothing), so the
figures do not depend on how fast scenes are generated.
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from controller.table_controller import TableController
from controller.camera import ReadPipeline, generated_options
from controller.journal import Journal
from controller.rules import TableConfig
from controller.table import JournaledTable, Phase
from hardware.display import SimDisplay
from hardware.gpio import ManualClock, build_devices
from vision.sources import GeneratedSource

FPS = 30.0


def _rest_index(frames) -> int:
    """Index (in ``frames``) of the first frame of the final rest before the dice are taken away."""
    moving = [bool(f.meta["moving"]) for f in frames]
    first_still = None
    for i, m in enumerate(moving):
        if not m and first_still is None and any(moving[:i]):
            first_still = i
        elif m and first_still is not None:
            break
    if first_still is None:
        raise RuntimeError("the generated throw never came to rest")
    return first_still


class RollRig:
    """One table on the stand-ins (mock pins, the display stand-in on a pty, a journal in a temporary
    folder, the generated camera), ready to time one roll after another with :meth:`roll`."""

    def __init__(self, game: str, seed: int, wal: bool = False):
        from gpiozero.pins.mock import MockFactory

        self.game = game
        self.state_dir = Path(tempfile.mkdtemp(prefix="dicetable-bench-"))
        self.factory = MockFactory()
        self.devices = build_devices(pin_factory=self.factory, clock=ManualClock())
        self.display = SimDisplay.open()
        self.journal = Journal.open(self.state_dir)
        if wal:  # to weigh the table's rollback journal against WAL (docs/operation.md, "The journal's files")
            self.journal._db.execute("PRAGMA journal_mode=WAL")
        self.controller = TableController(JournaledTable.open(self.journal, game, TableConfig()), self.devices,
                                          self.display, spin_seconds=0.05)
        self.controller.redraw()
        self.camera = GeneratedSource(seed=seed, **generated_options(game), fps=FPS, rest_s=0.6)
        self.pipeline = ReadPipeline(game, self.state_dir / "frames", fps=FPS)
        self.rng = random.Random(seed)
        # Let the link come up and the detector learn the empty table.
        self.display.wait_shown(self.controller.display_view(), timeout=5)
        for _ in range(15):
            self.pipeline.feed(self.camera.read())

    def roll(self) -> dict[str, float | str]:
        """Lock, throw, feed the frames at the camera's pace; the row of timings of this roll."""
        controller, pipeline, camera = self.controller, self.pipeline, self.camera
        controller.submit({"event": "lock"})
        if controller.state.phase is Phase.SPINNING:
            controller.submit({"event": "spin_done"})
        pipeline.arm()
        values = [self.rng.randint(1, 6) for _ in range(controller.state.dice_count)]
        camera.throw(values)
        frames = []
        while camera.pending:
            frames.append(camera.read())
        rest = _rest_index(frames)
        start = time.monotonic()
        stamps: list[float] = []
        row = None
        for k, frame in enumerate(frames):
            due = start + k / FPS
            delay = due - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            stamps.append(time.monotonic())  # the frame is "captured" now
            t_feed = time.monotonic()
            event = pipeline.feed(frame)
            if event is None or row is not None:
                continue
            t_read_done = time.monotonic()
            controller.submit(event)
            t_submitted = time.monotonic()
            acked = self.display.wait_shown(controller.display_view(), timeout=5)
            if acked is None:
                raise RuntimeError("the display never acknowledged the result")
            read_ms = float(event.get("ms") or 0.0)
            row = {
                "status": event["status"],
                "total_ms": (acked - stamps[rest]) * 1000,
                "settle_ms": (t_feed - stamps[rest]) * 1000,
                "read_ms": read_ms,
                "save_ms": max(0.0, (t_read_done - t_feed) * 1000 - read_ms),
                "journal_step_ms": (t_submitted - t_read_done) * 1000,
                "display_ms": (acked - t_submitted) * 1000,
            }
        if row is None:
            raise RuntimeError("no still frame for a throw")
        # Clear the table for the next roll whatever the read was.
        while controller.state.phase is not Phase.BETTING:
            if controller.state.phase is Phase.PENDING:
                controller.submit({"event": "manual", "dice": values})
            else:
                controller.submit({"event": "void"})
        return row

    def close(self) -> None:
        self.display.close()
        self.devices.close()
        self.journal.close()
        self.camera.close()


def measure(game: str, rolls: int, seed: int, wal: bool = False) -> list[dict[str, float | str]]:
    rig = RollRig(game, seed, wal)
    try:
        return [rig.roll() for _ in range(rolls)]
    finally:
        rig.close()


def summarise(rows: list[dict]) -> dict[str, dict[str, float]]:
    keys = ["total_ms", "settle_ms", "read_ms", "save_ms", "journal_step_ms", "display_ms"]
    out = {}
    for key in keys:
        values = sorted(r[key] for r in rows)
        p95 = values[min(len(values) - 1, int(round(0.95 * (len(values) - 1))))]
        out[key] = {"median": statistics.median(values), "p95": p95, "max": values[-1]}
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--game", default="craps", choices=("craps", "hazard", "bang"))
    parser.add_argument("--rolls", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--wal", action="store_true",
                        help="keep the journal in WAL mode instead of the table's rollback journal, to compare")
    args = parser.parse_args(argv)
    rows = measure(args.game, args.rolls, args.seed, args.wal)
    summary = summarise(rows)
    statuses = {s: sum(1 for r in rows if r["status"] == s) for s in ("ok", "uncertain", "no_read")}
    if args.json:
        print(json.dumps({"game": args.game, "rolls": len(rows), "fps": FPS, "statuses": statuses, "summary": summary}))
        return 0
    print(f"roll-to-display on the stand-ins, {args.game}, {len(rows)} rolls at {FPS:g} fps; reads: {statuses}")
    print(f"{'part':<16}{'median ms':>12}{'p95 ms':>10}{'max ms':>10}")
    for key, figures in summary.items():
        print(f"{key[:-3]:<16}{figures['median']:>12.1f}{figures['p95']:>10.1f}{figures['max']:>10.1f}")
    target = summary["total_ms"]["median"] <= 300
    print(f"target 300 ms: {'met' if target else 'NOT met'} (median)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
