"""How long settle detection waits after the dice stop, and whether it is ever wrong.

Renders the named scenarios of :mod:`vision.benchtool.scenarios` (rolls on the
rail table, dice bumped before and after they are handed out, hands over
dice and over the empty felt, two quick rolls, a die that never stops, the
hazard cage's spins) at 30 frames per second, feeds every frame to
:class:`vision.settle.SettleDetector` and compares what it hands out with the
truth of each frame:

- delay: frames (and milliseconds at the frame rate) from the first frame at
  which every die lies still to the frame handed out;
- errors: rolls missed, rolls handed out twice or with no roll at all, and
  frames handed out while something still moved;
- the detector's own cost per frame, and the scene generator's (CPU time,
  so that other work on a shared machine does not count).

    .venv/bin/python bench/settle_delay.py                # 640x480, 5 seeds, still_s 0.2
    .venv/bin/python bench/settle_delay.py --still 0.07 0.1 0.2 0.3 --seeds 10
"""
from __future__ import annotations

import argparse
import json
import statistics
import time

from vision.benchtool.scenarios import SCENARIOS, build
from vision.settle import SettleConfig, SettleDetector, Settled, Unsettled


def evaluate(name: str, seed: int, size: tuple[int, int], stills: list[float], fps: float) -> dict[float, dict]:
    sc = build(name, seed, size)
    start = time.process_time()
    frames = list(sc.frames(fps))
    render_ms = 1000 * (time.process_time() - start) / len(frames)
    out = {}
    for still in stills:
        cfg = SettleConfig(mode="cage" if name == "cage" else "rail", fps=fps, still_s=still, die_size_px=sc.table.die_size)
        det = SettleDetector(cfg, landing_mask=sc.table.landing, empty=sc.table.background)
        events, spent = [], 0.0
        for frame in frames:
            t = time.process_time()
            event = det.feed(frame)
            spent += time.process_time() - t
            if event is not None:
                events.append(event)
        settled = [e for e in events if isinstance(e, Settled)]
        delays, moving, extra = [], 0, 0
        rests = list(sc.rests)
        for e in settled:
            if frames[e.frame.index].meta["moving"]:
                moving += 1
            # Match the hand-out to the latest roll at rest by then, each roll once.
            due = [r for r in rests if r <= e.frame.index]
            if due:
                rests.remove(due[-1])
                delays.append(e.frame.index - due[-1])
            else:
                extra += 1
        out[still] = {
            "delays": delays,
            "missed": len(rests),
            "extra": extra,
            "moving": moving,
            "timeouts": sum(isinstance(e, Unsettled) for e in events),
            "ms_per_frame": 1000 * spent / len(frames),
            "render_ms_per_frame": render_ms,
            "frames": len(frames),
        }
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--size", default="640x480")
    parser.add_argument("--fps", type=float, default=30.0)
    parser.add_argument("--still", type=float, nargs="+", default=[0.2], help="still_s values to compare")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    args = parser.parse_args(argv)
    w, h = (int(v) for v in args.size.split("x"))
    totals: dict[float, dict] = {s: {"delays": [], "missed": 0, "extra": 0, "moving": 0, "timeouts": 0, "cost": [], "render": [], "by": {}} for s in args.still}
    for name in SCENARIOS:
        for seed in range(args.seeds):
            for still, r in evaluate(name, seed, (w, h), args.still, args.fps).items():
                t = totals[still]
                t["delays"] += r["delays"]
                t["by"].setdefault(name, []).extend(r["delays"])
                for key in ("missed", "extra", "moving", "timeouts"):
                    t[key] += r[key]
                t["cost"].append(r["ms_per_frame"])
                t["render"].append(r["render_ms_per_frame"])
    summary = []
    for still, t in totals.items():
        d = sorted(t["delays"])
        ms = 1000.0 / args.fps
        summary.append({
            "still_s": still,
            "rolls": len(d) + t["missed"],
            "median_delay_frames": statistics.median(d) if d else None,
            "p95_delay_frames": d[min(len(d) - 1, int(0.95 * len(d)))] if d else None,
            "max_delay_frames": d[-1] if d else None,
            "median_delay_ms": round(statistics.median(d) * ms, 1) if d else None,
            "max_delay_ms": round(d[-1] * ms, 1) if d else None,
            "missed": t["missed"],
            "extra": t["extra"],
            "moving_handed_out": t["moving"],
            "timeouts": t["timeouts"],
            "detector_ms_per_frame": round(statistics.mean(t["cost"]), 3),
            "render_ms_per_frame": round(statistics.mean(t["render"]), 2),
            "median_delay_by_scenario": {k: statistics.median(v) for k, v in t["by"].items() if v},
        })
    if args.json:
        print(json.dumps({"size": args.size, "fps": args.fps, "seeds": args.seeds, "results": summary}, indent=2))
        return 0
    print(f"settle delay at {args.fps:g} fps, {args.size}, {args.seeds} seeds x {len(SCENARIOS)} scenarios")
    print("still_s  rolls  delay median/p95/max (frames)  median ms  missed extra moving timeouts  detector ms/frame (CPU)")
    for s in summary:
        print(
            f"{s['still_s']:7.2f}  {s['rolls']:5d}  {s['median_delay_frames']!s:>6}/{s['p95_delay_frames']!s:>3}/{s['max_delay_frames']!s:<3}"
            f"                 {s['median_delay_ms']!s:>7}  {s['missed']:6d} {s['extra']:5d} {s['moving_handed_out']:6d} {s['timeouts']:8d}  {s['detector_ms_per_frame']:17.3f}"
        )
    print(f"scene rendering: {summary[0]['render_ms_per_frame']:.2f} ms of CPU per frame")
    for s in summary:
        print(f"median delay by scenario at still_s {s['still_s']:g} (frames):", s["median_delay_by_scenario"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
