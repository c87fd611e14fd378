"""End to end in Blender: a tiny frame and a crop rendered twice from one seed are the same, and
the folder is one the bench reads. Runs only where the renderer's environment is (bpy and
pybullet, see training/render/README.md); elsewhere it is skipped with the reason."""
from __future__ import annotations

import json

import pytest

bpy = pytest.importorskip("bpy", reason="Blender's bpy is only in the renderer's own venv (training/render/README.md)")
pytest.importorskip("pybullet", reason="pybullet is only in the renderer's own venv (training/render/README.md)")

from training.render.crops import render_crops  # noqa: E402
from training.render.frames import render_frames  # noqa: E402
from vision.benchtool.labels import load_labelled  # noqa: E402


def test_the_same_seed_renders_the_same_frame_and_the_bench_reads_it(tmp_path):
    for out in (tmp_path / "a", tmp_path / "b"):
        done = list(render_frames(out, 1, 123, "rail", (160, 120), 1, 1))
        assert len(done) == 1
    name = done[0][2]
    assert (tmp_path / "a" / "images" / name).read_bytes() == (tmp_path / "b" / "images" / name).read_bytes()
    record = json.loads((tmp_path / "a" / "meta.jsonl").read_text())
    assert record["kind"] == "rail" and len(record["dice"]) == 2
    assert list(render_frames(tmp_path / "a", 1, 123, "rail", (160, 120), 1, 1)) == []  # done already
    assert len(load_labelled(tmp_path / "a").images) == 1


def test_a_crop_is_rendered_with_its_row(tmp_path):
    assert len(list(render_crops(tmp_path, 1, 77, 1, 1))) == 1
    rows = (tmp_path / "crops.csv").read_text().splitlines()
    assert rows[0] == "image,value,top_px,tilt_deg,visible,material,seed"
    assert rows[1].startswith("crops/crop-0000077.png,")
