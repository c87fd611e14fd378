"""Rendered die crops in the classifier's training (``training/train_reader.py``): only flat dice in
view are kept, and a crop teaches only its die's value (its neighbours are not labelled)."""
from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the learn extra (torch) is not installed")

from training.train_reader import cls_sample, load_crops  # noqa: E402


def crops_folder(tmp_path: Path, records: list[dict]) -> Path:
    (tmp_path / "crops").mkdir()
    lines = []
    for i, rec in enumerate(records):
        name = f"crops/crop-{i:07d}.png"
        img = np.full((96, 96, 3), 90, np.uint8)
        cv2.rectangle(img, (30, 30), (66, 66), (240, 240, 240), -1)
        cv2.imwrite(str(tmp_path / name), img)
        base = {"image": name, "box": [30.0, 30.0, 36.0, 36.0], "value": 3, "tilt_deg": 0.0, "visible": 1.0,
                "in_frame": True, "on_rail": False, "on_die": False}
        lines.append(json.dumps({**base, **rec}))
    (tmp_path / "crops_meta.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return tmp_path


def test_only_flat_dice_in_view_are_kept(tmp_path):
    folder = crops_folder(tmp_path, [{}, {"tilt_deg": 20.0}, {"visible": 0.5}, {"on_rail": True},
                                     {"on_die": True}, {"in_frame": False}, {"value": 6}])
    got = load_crops([folder])
    assert [dice for _, dice in got] == [[(48.0, 48.0, 36.0, 3)], [(48.0, 48.0, 36.0, 6)]]


def test_a_crop_alone_teaches_its_die_s_value_never_not_a_die(tmp_path):
    (img, dice), = load_crops([crops_folder(tmp_path, [{"value": 5}])])
    rng = np.random.default_rng(0)
    labels = {cls_sample(rng, img, dice, alone=True)[1] for _ in range(200)}
    assert labels == {5}
    assert 0 in {cls_sample(rng, img, dice)[1] for _ in range(200)}  # a scene's sample may be no die
