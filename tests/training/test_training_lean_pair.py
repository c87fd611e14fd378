"""The leaning check's training data (``training/train_lean_pair.py``): groups of dice of one picture,
a die the reader must refuse as cocked leans, a flat one does not, one in between or mostly hidden
is left out; pairs are a cocked die against a flat one, or a flat die against any other."""
from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the learn extra (torch) is not installed")

from tests.training.test_training_lean import frames_folder  # noqa: E402
from training.train_lean_pair import PairLeanNet, leaning_rates, pick_pair, rendered, sample  # noqa: E402


def crops_folder(tmp_path: Path, crops: list[tuple[int, dict]]) -> Path:
    """Rendered die crops: (render seed, facts) each."""
    (tmp_path / "crops").mkdir()
    lines = []
    for k, (seed, facts) in enumerate(crops):
        cv2.imwrite(str(tmp_path / "crops" / f"c{k}.png"), np.full((96, 96, 3), 60 + 10 * k, np.uint8))
        lines.append(json.dumps({"image": f"crops/c{k}.png", "seed": seed, "box": [24.0, 24.0, 48.0, 48.0],
                                 "tilt_deg": 0.0, "visible": 1.0, "in_frame": True, "on_rail": False,
                                 "on_die": False, **facts}))
    (tmp_path / "crops_meta.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return tmp_path


def test_a_frame_is_a_group_cocked_dice_lean_flat_ones_do_not_and_the_rest_is_left_out(tmp_path):
    folder = frames_folder(tmp_path, [{}, {"tilt_deg": 12.0}, {"on_rail": True, "tilt_deg": 3.0}, {"on_die": True},
                                      {"tilt_deg": 5.0}, {"visible": 0.3, "tilt_deg": 30.0}])
    (group,) = rendered([folder])
    assert [(die[0], lie) for _, die, lie in group] == [(25.0, 0), (65.0, 1), (105.0, 1), (145.0, 1)]


def test_the_crops_of_one_render_are_one_group(tmp_path):
    folder = crops_folder(tmp_path, [(7, {}), (7, {"tilt_deg": 20.0, "on_die": True}), (8, {}), (8, {"tilt_deg": 5.0})])
    groups = rendered([], [folder])
    assert sorted([lie for _, _, lie in g] for g in groups) == [[0], [0, 1]]


def test_a_leaning_pair_is_a_cocked_die_against_a_flat_one_and_a_flat_pair_any_other():
    image = np.zeros((10, 10, 3), np.uint8)
    group = [(image, (0.0, 0.0, 1.0), 1), (image, (1.0, 0.0, 1.0), 1), (image, (2.0, 0.0, 1.0), 0)]
    rng = np.random.default_rng(0)
    leaning = {pick_pair(rng, [group], True)[:2] for _ in range(300)}
    flat = {pick_pair(rng, [group], False)[:2] for _ in range(300)}
    assert leaning == {(0, 2), (1, 2), (0, 0), (1, 1)}  # never a cocked die against a cocked one
    assert flat == {(2, 0), (2, 1), (2, 2)}
    assert pick_pair(rng, [[group[2]]], True) is None


def test_a_batch_is_half_leaning_pairs_of_six_channels_from_every_source(tmp_path, monkeypatch):
    import training.train_lean_pair as train_lean

    monkeypatch.setattr(train_lean, "colour_aug", lambda rng, img: img)  # keep each crop's own grey
    rendered_groups = rendered([frames_folder(tmp_path, [{}, {"tilt_deg": 20.0}])])
    black = np.zeros((100, 100, 3), np.uint8)
    drawn = [[(black, (30.0, 50.0, 30.0), 1), (black, (70.0, 50.0, 30.0), 0)]]
    x, y = sample(np.random.default_rng(0), {"drawn": drawn, "photos": [[(black, (50.0, 50.0, 30.0), 0)]],
                                             "rendered": rendered_groups}, 64)
    assert x.shape == (64, 6, 40, 40) and float(y.sum()) == 32.0
    # the rendered frame is mid-grey, the drawn dice black: both kinds appear on each side,
    # and a pair's two crops come from one picture
    grey = x[:, :3].mean(dim=(1, 2, 3)) > 0.2
    assert 0 < int(grey[0::2].sum()) < 32 and 0 < int(grey[1::2].sum()) < 32
    assert bool(((x[:, 3:].mean(dim=(1, 2, 3)) > 0.2) == grey).all())


def test_the_rates_are_asked_as_the_reader_asks():
    net = PairLeanNet(4).eval()
    image = np.full((60, 100, 3), 120, np.uint8)
    hit, alarm = leaning_rates(net, [[(image, (30.0, 30.0, 20.0), 1), (image, (70.0, 30.0, 20.0), 0)]])
    assert hit in (0.0, 1.0) and alarm in (0.0, 1.0)
