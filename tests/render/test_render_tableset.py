"""Table set folders: the throws a bench folder (images, labels, manifest, meta with the table's
seed and the throw), the empty table's frames apart in ``empty/``, ``table.json``, the exposure
metered once, a stopped set going on, and the seeds' rules. Blender is stood in for by a scene
that paints flat pictures, so this runs without it (``test_render_blender.py`` renders for real)."""
from __future__ import annotations

import csv
import json
import sys
import types

import numpy as np
import pytest

from training.render import cli
from training.render.physics import DiePose
from training.render.records import TableFolder
from training.render.rules import DieFacts
from training.render.table import throw_seed
from training.render.tableset import TableMismatch, render_tableset
from vision.benchtool.labels import load_labelled

SIZE = (160, 120)


class FakeScene:
    """Paints a flat picture per frame and says where two dice lie; remembers what it was asked."""

    calls: list[tuple] = []
    metered = 1.75

    def __init__(self, table, samples, threads) -> None:
        self.table = table
        FakeScene.calls.append(("build", table.seed, samples))

    def empty(self, index, ev=None):
        FakeScene.calls.append(("empty", index, ev))
        return np.full((SIZE[1], SIZE[0], 3), 60, np.uint8), self.metered if ev is None else ev

    def throw(self, index, ev):
        FakeScene.calls.append(("throw", index, ev))
        seed = throw_seed(self.table.seed, index)
        dice = [DieFacts(value=1 + (index + k) % 6, box=(20.0 + 60 * k, 40.0, 30.0, 30.0), tilt_deg=0.5,
                         on_rail=False, on_die=False, touching=False, visible=1.0, lamp_on_top=False, top_px=22.0,
                         in_frame=True) for k in range(self.table.dice)]
        bgr = np.full((SIZE[1], SIZE[0], 3), 60, np.uint8)
        bgr[40:70, 20:50] = 200
        poses = [DiePose((0.01 * k, -0.1, 0.0095), np.eye(3), False, False, False) for k in range(self.table.dice)]
        return types.SimpleNamespace(bgr=bgr, dice=dice, poses=poses, scenario="thrown", seed=seed)


@pytest.fixture
def fake_blender(monkeypatch):
    module = types.ModuleType("training.render.tablescene")
    module.TableScene = FakeScene
    monkeypatch.setitem(sys.modules, "training.render.tablescene", module)
    FakeScene.calls = []
    return FakeScene


def _run(out, count, empty=2, seed=1001, samples=1):
    return [name for _, _, name, _ in render_tableset(out, seed, "rail", SIZE, count, empty, samples, 1)]


def test_a_table_set_folder_is_a_bench_folder_with_its_empty_table_apart(tmp_path, fake_blender):
    done = _run(tmp_path, 3)
    assert done == ["empty/empty-0.jpg", "empty/empty-1.jpg"] + [f"rail-160x120-t0001001-{i:03d}.jpg" for i in range(3)]
    assert sorted(p.name for p in (tmp_path / "empty").iterdir()) == ["empty-0.jpg", "empty-1.jpg"]
    assert sorted(p.name for p in (tmp_path / "images").iterdir()) == [f"rail-160x120-t0001001-{i:03d}.jpg"
                                                                       for i in range(3)]
    with open(tmp_path / "manifest.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["image"] for r in rows] == [f"images/rail-160x120-t0001001-{i:03d}.jpg" for i in range(3)]
    found = load_labelled(tmp_path)
    assert len(found.images) == 3 and all(li.positional for li in found.images)
    assert sorted(p.name for p in found.unlabelled) == ["empty-0.jpg", "empty-1.jpg"]  # never scored as rolls
    records = [json.loads(line) for line in (tmp_path / "meta.jsonl").read_text().splitlines()]
    assert [(r["table_seed"], r["throw"], r["seed"]) for r in records] == [(1001, i, throw_seed(1001, i))
                                                                          for i in range(3)]
    frames_keys = {"image", "kind", "size", "seed", "settleable", "dice", "code", "scenario", "material", "cloth",
                   "camera_tilt_deg", "lamps_k", "samples", "exposure_ev", "exposure_offset_ev", "view",
                   "jpeg_quality"}
    assert all(set(r) == frames_keys | {"table_seed", "throw"} for r in records)
    assert records[0]["dice"][1]["pose"] == {"centre": [0.01, -0.1, 0.0095],
                                             "rotation": [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]}
    assert len({json.dumps({k: v for k, v in r.items() if k in ("material", "cloth", "camera_tilt_deg", "lamps_k",
                                                                 "view", "jpeg_quality", "exposure_ev")})
                for r in records}) == 1  # one table for every throw
    table = json.loads((tmp_path / "table.json").read_text())
    assert table["table_seed"] == 1001 and table["kind"] == "rail" and table["size"] == list(SIZE)
    assert table["exposure_ev"] == FakeScene.metered and table["samples"] == 1
    for key in ("die_edge_m", "die_edge_radius_m", "camera", "plane", "landing_area", "lamps", "cloth", "material", "jpeg_quality",
                "code", "flat_die"):
        assert key in table


def test_the_exposure_is_metered_once_on_the_empty_table_and_given_to_every_frame(tmp_path, fake_blender):
    _run(tmp_path, 2)
    assert fake_blender.calls == [("build", 1001, 1), ("empty", 0, None), ("empty", 1, FakeScene.metered),
                                  ("throw", 0, FakeScene.metered), ("throw", 1, FakeScene.metered)]


def test_a_stopped_set_goes_on_with_the_same_command_and_the_same_exposure(tmp_path, fake_blender):
    assert len(_run(tmp_path, 2)) == 4
    (tmp_path / "empty" / "empty-1.jpg").unlink()
    FakeScene.calls = []
    assert _run(tmp_path, 4) == ["empty/empty-1.jpg", "rail-160x120-t0001001-002.jpg", "rail-160x120-t0001001-003.jpg"]
    assert ("empty", 0, None) not in FakeScene.calls  # not metered again: table.json keeps it
    assert all(call[2] == FakeScene.metered for call in FakeScene.calls[1:])
    FakeScene.calls = []
    assert _run(tmp_path, 4) == [] and FakeScene.calls == []  # all done: Blender is not even started
    lines = (tmp_path / "meta.jsonl").read_text().splitlines()
    assert [json.loads(line)["throw"] for line in lines] == [0, 1, 2, 3]


def test_no_empty_frames_still_meters_the_empty_table(tmp_path, fake_blender):
    assert _run(tmp_path, 1, empty=0) == ["rail-160x120-t0001001-000.jpg"]
    assert fake_blender.calls[1] == ("empty", 0, None)
    assert not any((tmp_path / "empty").iterdir())
    assert json.loads((tmp_path / "table.json").read_text())["exposure_ev"] == FakeScene.metered


def test_a_folder_of_another_table_is_refused(tmp_path, fake_blender):
    _run(tmp_path, 1)
    with pytest.raises(TableMismatch, match="table_seed"):
        _run(tmp_path, 1, seed=1002)
    with pytest.raises(TableMismatch, match="samples"):
        _run(tmp_path, 1, samples=4)
    table = json.loads((tmp_path / "table.json").read_text())
    TableFolder(tmp_path).write_table({**table, "code": "0123456789ab"})
    with pytest.raises(TableMismatch, match="code"):
        _run(tmp_path, 2)


def test_table_seeds_follow_the_held_out_rule(capsys):
    def run(*args):
        return cli.main(["tableset", "--kind", "rail", "--count", "40", "--describe", *args])

    assert run("--seed", "899999") == 0  # one seed a table, whatever the count
    assert "rail seed 899999" in capsys.readouterr().out
    assert run("--seed", "900101") == 2
    assert "held-out" in capsys.readouterr().err
    assert run("--seed", "900101", "--held-out") == 0
    assert run("--seed", "1001", "--held-out") == 2
    args = cli.parser().parse_args(["tableset", "--kind", "cage", "--seed", "3", "--count", "5"])
    assert args.size is None and args.empty == 2 and args.samples == 12 and args.threads == 1
    assert cli.main(["tableset", "--kind", "rail", "--seed", "3", "--count", "5", "--empty", "-1"]) == 2


def test_describe_prints_the_tables_facts_at_its_default_size(capsys):
    assert cli.main(["tableset", "--kind", "cage", "--seed", "2001", "--count", "1", "--describe"]) == 0
    line, facts = capsys.readouterr().out.splitlines()
    assert line.startswith("cage seed 2001: tilt")
    facts = json.loads(facts)
    assert facts["size"] == [640, 480] and facts["plane"]["surface"] == "dish floor" and facts["dice_per_throw"] == 3
