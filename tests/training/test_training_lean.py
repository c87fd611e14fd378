"""Rendered frames in the leaning check's training (``training/train_lean.py``): a die the reader
must refuse as cocked leans, a flat one does not, one in between or mostly hidden is left out;
and the check goes on from its exported file as OpenCV runs it."""
from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the learn extra (torch) is not installed")

from training.train_lean import LeanNet, rendered, sample  # noqa: E402
from training.train_reader import from_onnx  # noqa: E402

BUNDLED = Path(__file__).resolve().parents[2] / "vision" / "models"


def frames_folder(tmp_path: Path, dice: list[dict]) -> Path:
    (tmp_path / "images").mkdir()
    cv2.imwrite(str(tmp_path / "images" / "f.jpg"), np.full((120, 260, 3), 90, np.uint8))
    base = {"box": [0.0, 10.0, 30.0, 30.0], "tilt_deg": 0.0, "visible": 1.0, "in_frame": True,
            "on_rail": False, "on_die": False, "value": 3}
    placed = [{**base, **d, "box": [10.0 + 40 * i, 10.0, 30.0, 30.0]} for i, d in enumerate(dice)]
    (tmp_path / "meta.jsonl").write_text(json.dumps({"image": "f.jpg", "dice": placed}) + "\n", encoding="utf-8")
    return tmp_path


def test_cocked_dice_lean_flat_ones_do_not_and_the_rest_is_left_out(tmp_path):
    folder = frames_folder(tmp_path, [{}, {"tilt_deg": 12.0}, {"on_rail": True, "tilt_deg": 3.0}, {"on_die": True},
                                      {"tilt_deg": 5.0}, {"visible": 0.3, "tilt_deg": 30.0}])
    lean, flat = rendered([folder])
    assert [die[0] for _, die in lean] == [65.0, 105.0, 145.0]
    assert [die[0] for _, die in flat] == [25.0]


def test_rendered_dice_join_both_sides_of_a_batch(tmp_path, monkeypatch):
    import training.train_lean as train_lean

    monkeypatch.setattr(train_lean, "colour_aug", lambda rng, img: img)  # keep each crop's own grey
    lean, flat = rendered([frames_folder(tmp_path, [{}, {"tilt_deg": 20.0}])])
    drawn = [(np.zeros((100, 100, 3), np.uint8), (50.0, 50.0, 30.0))]
    rng = np.random.default_rng(0)
    x, y = sample(rng, drawn, drawn, drawn, 64, lean, flat)
    assert x.shape == (64, 3, 40, 40) and float(y.sum()) == 32.0
    # the rendered frame is mid-grey, the drawn crops black: both kinds appear on each side
    grey = x.mean(dim=(1, 2, 3)) > 0.2
    assert 0 < int(grey[0::2].sum()) < 32 and 0 < int(grey[1::2].sum()) < 32


def test_the_check_goes_on_from_its_exported_file():
    net = from_onnx(LeanNet, BUNDLED / "dice_leaning.onnx")
    assert isinstance(net, LeanNet)
