"""The leaning-die check on drawn casino scenes: a die tipped against the rail
or another die shows a side face and has no face up, so its roll is never
settled; the same scenes with every die flat, one of them against the rail,
are not taken for leaning.

The scenes come from ``vision.scenes.render`` with seeds the check was not
trained on (training/train_lean.py draws from its own generator).
"""
from __future__ import annotations

import pytest

from vision.model import ReadStatus
from vision.reader import read_dice
from vision.scenes.render import render_scene

SEEDS = range(9000, 9012)


def _read(seed: int, leaning: int | None, at_rail: int | None = None):
    setting = "cage" if seed % 3 == 0 else "rail"
    image, label = render_scene(seed, setting=setting, leaning=leaning, at_rail=at_rail)
    return read_dice(image, expect=len(label.dice))


@pytest.fixture(scope="module")
def reads():
    """Per seed: the scene with its first die leaning, and with every die flat
    (the first against the rail, where leaning dice are, in every other scene)."""
    return {seed: (_read(seed, 0), _read(seed, None, 0 if seed % 2 else None)) for seed in SEEDS}


def test_a_roll_with_a_leaning_die_is_never_ok(reads):
    for seed, (leaning, _) in reads.items():
        assert leaning.status != ReadStatus.OK, (seed, leaning)
    refused = [r for r, _ in reads.values() if r.reason and "leaning" in r.reason]
    assert len(refused) >= len(SEEDS) * 3 // 4  # and mostly because the check saw it lean


def test_flat_dice_are_not_taken_for_leaning(reads):
    # the check errs towards asking: `python bench/leaning.py --scenes 100` measures how often a
    # flat roll is asked about or refused as leaning (docs/vision.md); here at most two in twelve
    flagged = [seed for seed, (_, flat) in reads.items() if flat.reason and "leaning" in flat.reason]
    assert len(flagged) <= len(SEEDS) // 6, flagged


def test_the_leaning_benchmark_counts_every_scene_once():
    import json
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, str(root / "bench" / "leaning.py"), "--scenes", "3", "--json"],
                         capture_output=True, text=True, check=True, cwd=root,
                         env={"PYTHONPATH": str(root), "PATH": ""})
    result = json.loads(out.stdout)
    assert result["scenes"] == 3
    assert sum(result["leaning_outcomes"].values()) == 3 and sum(result["flat_outcomes"].values()) == 3
    outcomes = {"ok", "seen leaning", "may be leaning", "no_read for another reason", "uncertain for another reason"}
    assert set(result["leaning_outcomes"]) <= outcomes and set(result["flat_outcomes"]) <= outcomes
    leaning = result["leaning_outcomes"]
    assert result["leaning_ok_rate"] == leaning.get("ok", 0) / 3
    assert result["leaning_caught_rate"] == (leaning.get("seen leaning", 0) + leaning.get("may be leaning", 0)) / 3


def test_the_leaning_benchmark_sorts_rendered_dice_by_how_they_lie(tmp_path, draw_table):
    """``--frames``: each die at least half in view counts under each kind it is (cocked on the rail or
    on a die, eligible under a steep or a tilted camera); a kind with no die has no share."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    import cv2

    root = Path(__file__).resolve().parents[2]
    (tmp_path / "images").mkdir()
    base = {"tilt_deg": 0.0, "on_rail": False, "on_die": False, "visible": 1.0, "in_frame": True, "eligible": True}
    records = []
    for name, tilt, dice in [("steep.png", 5.0, [{}, {"tilt_deg": 20.0, "on_rail": True, "eligible": False}]),
                             ("tilted.png", 30.0, [{}, {"visible": 0.3, "eligible": False}])]:
        cv2.imwrite(str(tmp_path / "images" / name), draw_table([(200, 240, 3), (430, 250, 5)], seed=3))
        placed = [{**base, **d, "box": [180.0 + 230 * i, 220.0, 40.0, 40.0]} for i, d in enumerate(dice)]
        records.append({"image": name, "camera_tilt_deg": tilt, "dice": placed})
    (tmp_path / "meta.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    out = subprocess.run([sys.executable, str(root / "bench" / "leaning.py"), "--frames", str(tmp_path), "--json"],
                         capture_output=True, text=True, check=True, cwd=root,
                         env={"PYTHONPATH": str(root), "PATH": ""})
    kinds = json.loads(out.stdout)[str(tmp_path)]
    assert {kind: k["dice"] for kind, k in kinds.items()} == {
        "cocked on the rail": 1, "cocked on a die": 0, "cocked, tilted": 0, "eligible": 2,
        "eligible, camera within 15 deg of vertical": 1, "eligible, camera further off": 1}
    assert kinds["cocked on a die"]["doubted"] is None
    for k in kinds.values():
        if k["dice"]:
            assert 0.0 <= k["refused"] <= k["doubted"] <= 1.0
