"""The dice's rest poses of table sets: the pose in a die's record, the box its corners and rounded
edges give through ``table.json``'s OpenCV camera, and ``tableset-poses``, which adds poses to a
folder without rendering: what it writes, its refusal where the physics run again disagrees with
the folder, its rewrite whole or not at all and under the folder's lock. The physics is stood in
for (``test_render_blender.py`` runs it for real), so this runs without pybullet."""
from __future__ import annotations

import fcntl
import json
import math
import sys
import threading
import types

import cv2
import numpy as np
import pytest

from training.render import cli, records, tableposes
from training.render.diemesh import die_mesh
from training.render.geometry import FACE_NORMALS, axis_angle, rotation_with_face_up, tilt_deg, top_face
from training.render.physics import DiePose
from training.render.records import image_record, pose_record
from training.render.rules import DieFacts
from training.render.table import draw_table, table_facts, throw_name, throw_scenario, throw_seed
from training.render.tableposes import PoseMismatch, add_poses, mesh_box, pose_box

RAIL = (1001, "rail", (960, 720))  # well rounded dice (0.29 of the half edge)
CAGE = (2002, "cage", (640, 480))  # nearly sharp ones (0.03)


def _plain(value):
    return json.loads(json.dumps(value))


def _poses(kind: str, half: float, index: int, count: int) -> list[DiePose]:
    """Dice where a throw might leave them: flat and turned, or one leant at 25 degrees."""
    out = []
    for k in range(count):
        face = 1 + (index + 2 * k) % 6
        rotation = rotation_with_face_up(face, 0.4 + 0.7 * k + 0.3 * index)
        centre = [-0.05 + 0.05 * k, (-0.12 if kind == "rail" else 0.0) + 0.01 * index, half]
        if (index + k) % 3 == 2:
            rotation = axis_angle(np.array([1.0, 0.3, 0.0]), math.radians(25)) @ rotation
            centre[2] = half * (math.cos(math.radians(25)) + math.sin(math.radians(25)))
        out.append(DiePose((centre[0], centre[1], centre[2]), rotation, False, False, False))
    return out


def _facts(table, mesh, pose: DiePose) -> DieFacts:
    x, y, w, h = mesh_box(table, mesh, pose)
    return DieFacts(value=top_face(pose.rotation), box=(x, y, w, h), tilt_deg=tilt_deg(pose.rotation), on_rail=False,
                    on_die=False, touching=False, visible=1.0, lamp_on_top=False, top_px=20.0, in_frame=True)


class FakePhysics:
    """Settles throw ``i`` of a table where ``_poses`` says; remembers the throws asked for."""

    def __init__(self) -> None:
        self.asked: list[int] = []

    def __call__(self, table, index):
        self.asked.append(index)
        return (throw_seed(table.seed, index), throw_scenario(table.seed, index),
                _poses(table.kind, table.die.size_m / 2, index, table.dice))


def _table_set(root, seed=1001, kind="rail", size=(960, 720), throws=3, poses=False):
    """A table set folder as the renderer of code b7a3ec797c7c left it (no poses, no edge radius),
    or with ``poses`` as this code's renderer writes it."""
    table = draw_table(seed, kind, size)
    mesh = die_mesh(table.die.size_m / 2, table.die.rounded).vertices
    facts = {**table_facts(table), "code": "b7a3ec797c7c", "samples": 12, "exposure_ev": -1.5}
    if not poses:
        del facts["die_edge_radius_m"]
    (root / "images").mkdir(parents=True)
    (root / "table.json").write_text(json.dumps(facts, indent=1, sort_keys=True) + "\n")
    lines = []
    for i in range(throws):
        name = throw_name(kind, size, seed, i)
        settled = _poses(kind, table.die.size_m / 2, i, table.dice)
        record = image_record(name, kind, size, throw_seed(seed, i), [_facts(table, mesh, p) for p in settled],
                              poses=settled if poses else None, code="b7a3ec797c7c",
                              scenario=throw_scenario(seed, i), table_seed=seed, throw=i)
        lines.append(json.dumps(record, sort_keys=True) + "\n")
        (root / "images" / name).write_bytes(b"\xff\xd8 picture %d" % i)
    (root / "meta.jsonl").write_text("".join(lines))
    (root / "manifest.csv").write_text("image,values,touching,leaning\n")
    return table


def _files(root) -> dict:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


# --- the pose in the record ----------------------------------------------------------------------

def test_a_die_record_carries_its_rest_pose_and_none_without_one():
    die = DieFacts(value=1, box=(10.0, 10.0, 30.0, 30.0), tilt_deg=0.0, on_rail=False, on_die=False,
                   touching=False, visible=1.0, lamp_on_top=False, top_px=22.0, in_frame=True)
    rotation = rotation_with_face_up(3, 0.3)
    pose = DiePose((0.0123456789, -0.1, 0.0095), rotation, False, False, False)
    record = image_record("a.jpg", "rail", (640, 480), 1, [die, die], poses=[pose, pose])
    assert record["dice"][0]["pose"] == {"centre": [0.0123457, -0.1, 0.0095],
                                         "rotation": np.round(rotation, 9).tolist()}
    assert json.loads(json.dumps(record)) == record
    got = np.array(record["dice"][0]["pose"]["rotation"])
    assert np.allclose(got @ got.T, np.eye(3), atol=1e-8) and np.linalg.det(got) == pytest.approx(1.0)
    # the face a die axis carries: FACE_NORMALS, whose value is the one the record calls up
    assert (got @ FACE_NORMALS[3])[2] == pytest.approx(1.0) and top_face(got) == 3
    assert "pose" not in image_record("a.jpg", "rail", (640, 480), 1, [die])["dice"][0]
    assert pose_record([0.0, -0.0, 1e-9], -np.eye(3) * 0.0 + np.eye(3))["centre"] == [0.0, 0.0, 0.0]  # no -0.0
    with pytest.raises(ValueError, match="1 poses for 2 dice"):
        image_record("a.jpg", "rail", (640, 480), 1, [die, die], poses=[pose])


@pytest.mark.parametrize("seed, kind, size", [RAIL, CAGE])
def test_the_pose_through_the_opencv_camera_gives_the_recorded_box(seed, kind, size):
    """From the record and ``table.json`` alone: the rounded die's box is the label's within a fraction
    of a pixel; its 8 corners' box (``cv2.projectPoints``) holds it, within a pixel for sharp dice."""
    table = draw_table(seed, kind, size)
    facts = _plain(table_facts(table))
    cv = facts["camera"]["opencv"]
    rvec = cv2.Rodrigues(np.array(cv["R"]))[0]
    half = facts["die_edge_m"] / 2
    mesh = die_mesh(table.die.size_m / 2, table.die.rounded).vertices
    worst_rounded, worst_corners = 0.0, 0.0
    for index in range(6):
        for pose in _poses(kind, table.die.size_m / 2, index, table.dice):
            box = [round(v, 2) for v in mesh_box(table, mesh, pose)]  # as meta.jsonl keeps it
            record = pose_record(pose.centre, pose.rotation)
            assert box[2] > 20 and box[3] > 20  # a die in view
            worst_rounded = max(worst_rounded, float(np.abs(np.subtract(pose_box(record, facts), box)).max()))
            signs = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], dtype=float)
            corners = np.array(record["centre"]) + (signs * half) @ np.array(record["rotation"]).T
            px, _ = cv2.projectPoints(corners, rvec, np.array(cv["t"]), np.array(cv["K"]), np.array(cv["dist"]))
            px = px.reshape(-1, 2) + 0.5  # OpenCV's pixel centres are whole, the labels' half a pixel on
            x0, y0 = px.min(axis=0)
            x1, y1 = px.max(axis=0)
            sharp = [x0, y0, x1 - x0, y1 - y0]
            assert sharp == pytest.approx(pose_box(record, facts, rounded=False), abs=1e-6)
            assert x0 <= box[0] + 0.01 and y0 <= box[1] + 0.01  # the corners hold the rounded die
            assert x1 >= box[0] + box[2] - 0.01 and y1 >= box[1] + box[3] - 0.01
            worst_corners = max(worst_corners, float(np.abs(np.subtract(sharp, box)).max()))
    assert worst_rounded < 0.3
    if kind == "cage":
        assert facts["die_edge_radius_m"] < 0.0003 and worst_corners < 1.0
    else:
        assert facts["die_edge_radius_m"] > 0.0015 and worst_corners > 1.0  # the rounding shows


# --- tableset-poses --------------------------------------------------------------------------------

def test_poses_are_added_to_every_line_and_nothing_else_changes(tmp_path):
    table = _table_set(tmp_path)
    before = _files(tmp_path)
    physics = FakePhysics()
    assert add_poses(tmp_path, physics) == {"throws": 3, "added": 3, "had": 0}
    assert physics.asked == [0, 1, 2]
    after = _files(tmp_path)
    assert {k: v for k, v in after.items() if k not in ("meta.jsonl", "table.json", ".lock")} == \
        {k: v for k, v in before.items() if k not in ("meta.jsonl", "table.json")}  # pictures, manifest
    old = [json.loads(line) for line in before["meta.jsonl"].decode().splitlines()]
    new = [json.loads(line) for line in after["meta.jsonl"].decode().splitlines()]
    for i, (o, n) in enumerate(zip(old, new)):
        assert n["poses_code"] == tableposes.CODE_VERSION and {k: v for k, v in n.items() if k not in ("dice", "poses_code")} \
            == {k: v for k, v in o.items() if k != "dice"}
        settled = _poses("rail", table.die.size_m / 2, i, 2)
        assert [d.pop("pose") for d in n["dice"]] == [pose_record(p.centre, p.rotation) for p in settled]
        assert n["dice"] == o["dice"]
    facts = json.loads(after["table.json"])
    assert facts.pop("die_edge_radius_m") == pytest.approx(table.die.size_m / 2 * table.die.rounded, abs=1e-7)
    assert facts == json.loads(before["table.json"])
    assert add_poses(tmp_path, physics) == {"throws": 3, "added": 0, "had": 3}  # again: nothing to add
    assert _files(tmp_path) == after


def test_lines_appended_after_the_poses_get_theirs_on_the_next_run(tmp_path):
    _table_set(tmp_path, throws=4)
    lines = (tmp_path / "meta.jsonl").read_text().splitlines(keepends=True)
    (tmp_path / "meta.jsonl").write_text("".join(lines[:2]))
    add_poses(tmp_path, FakePhysics())
    with open(tmp_path / "meta.jsonl", "a") as fh:  # a batch going on with the set
        fh.writelines(lines[2:])
    physics = FakePhysics()
    assert add_poses(tmp_path, physics) == {"throws": 4, "added": 2, "had": 2}
    assert physics.asked == [0, 1, 2, 3]  # the poses there are checked too


def test_a_set_rendered_with_its_poses_is_checked_and_left_as_it_is(tmp_path):
    _table_set(tmp_path, poses=True)
    before = _files(tmp_path)
    assert add_poses(tmp_path, FakePhysics()) == {"throws": 3, "added": 0, "had": 3}
    assert {k: v for k, v in _files(tmp_path).items() if k != ".lock"} == before


def _edit(root, throw: int, die: int, change) -> None:
    lines = [json.loads(line) for line in (root / "meta.jsonl").read_text().splitlines()]
    change(lines[throw]["dice"][die])
    (root / "meta.jsonl").write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in lines))


@pytest.mark.parametrize("change, message", [
    (lambda d: d["box"].__setitem__(0, d["box"][0] + 0.02), r"-001\.jpg die 1: box .* \(0\.01\d px apart\)"),
    (lambda d: d.__setitem__("value", d["value"] % 6 + 1), r"-001\.jpg die 1: value"),
    (lambda d: d.__setitem__("tilt_deg", d["tilt_deg"] + 0.02), r"-001\.jpg die 1: tilt"),
    (lambda d: d.__setitem__("pose", {"centre": [0.0, 0.0, 0.0], "rotation": np.eye(3).tolist()}),
     r"-001\.jpg die 1: its recorded pose is not the re-run's"),
])
def test_a_line_the_physics_does_not_give_again_is_refused_and_nothing_changes(tmp_path, change, message):
    _table_set(tmp_path)
    _edit(tmp_path, 1, 1, change)
    before = _files(tmp_path)
    with pytest.raises(PoseMismatch, match=message) as caught:
        add_poses(tmp_path, FakePhysics())
    assert "nothing was changed" in str(caught.value)
    assert {k: v for k, v in _files(tmp_path).items() if k != ".lock"} == before


def test_within_the_records_rounding_the_line_is_the_same(tmp_path):
    _table_set(tmp_path)
    _edit(tmp_path, 2, 0, lambda d: d["box"].__setitem__(3, d["box"][3] + 0.005))
    assert add_poses(tmp_path, FakePhysics())["added"] == 3


def test_another_count_of_dice_another_seed_or_another_table_is_refused(tmp_path):
    _table_set(tmp_path)
    before = _files(tmp_path)

    def fewer(table, index):
        seed, scenario, poses = FakePhysics()(table, index)
        return seed, scenario, poses[:1]

    with pytest.raises(PoseMismatch, match="1 dice re-run, 2 recorded"):
        add_poses(tmp_path, fewer)
    with pytest.raises(PoseMismatch, match="seed is"):
        add_poses(tmp_path, lambda table, index: (7, *FakePhysics()(table, index)[1:]))
    facts = json.loads((tmp_path / "table.json").read_text())
    facts["camera"]["fx"] += 1
    (tmp_path / "table.json").write_text(json.dumps(facts, indent=1, sort_keys=True) + "\n")
    with pytest.raises(PoseMismatch, match=r"not the one table.json holds \(camera differ\).*b7a3ec797c7c"):
        add_poses(tmp_path, FakePhysics())
    assert {k: v for k, v in _files(tmp_path).items() if k not in (".lock", "table.json")} == \
        {k: v for k, v in before.items() if k != "table.json"}
    with pytest.raises(PoseMismatch, match="no table set folder"):
        add_poses(tmp_path / "images", FakePhysics())


def test_the_file_is_replaced_whole_never_written_in_place(tmp_path, monkeypatch):
    """The new ``meta.jsonl`` is written beside it and renamed over it: until the rename the old
    file is whole, and a stop before it leaves the old one."""
    _table_set(tmp_path)
    old = (tmp_path / "meta.jsonl").read_bytes()
    real = records.os.replace
    renamed = []

    def watch(src, dst):
        renamed.append((str(src), str(dst)))
        if str(dst).endswith("meta.jsonl"):
            assert (tmp_path / "meta.jsonl").read_bytes() == old  # untouched until the rename
            assert b'"pose"' in open(src, "rb").read()
        real(src, dst)

    monkeypatch.setattr(records.os, "replace", watch)
    add_poses(tmp_path, FakePhysics())
    assert (str(tmp_path / "meta.jsonl.tmp"), str(tmp_path / "meta.jsonl")) in renamed

    def stop(src, dst):
        raise KeyboardInterrupt  # stopped before the rename

    _table_set(tmp_path / "again")
    old = (tmp_path / "again" / "meta.jsonl").read_bytes()
    monkeypatch.setattr(records.os, "replace", stop)
    with pytest.raises(KeyboardInterrupt):
        add_poses(tmp_path / "again", FakePhysics())
    assert (tmp_path / "again" / "meta.jsonl").read_bytes() == old


def test_the_poses_wait_for_the_folders_lock_as_a_batch_does(tmp_path):
    _table_set(tmp_path)
    old = (tmp_path / "meta.jsonl").read_bytes()
    done = []
    with open(tmp_path / ".lock", "a") as fh:  # a batch appending its line holds it
        fcntl.flock(fh, fcntl.LOCK_EX)
        worker = threading.Thread(target=lambda: done.append(add_poses(tmp_path, FakePhysics())))
        worker.start()
        worker.join(0.5)
        assert worker.is_alive() and not done
        assert (tmp_path / "meta.jsonl").read_bytes() == old
        fcntl.flock(fh, fcntl.LOCK_UN)
    worker.join(10)
    assert done == [{"throws": 3, "added": 3, "had": 0}]


def test_a_line_cut_short_by_a_stop_is_dropped_as_the_renderer_drops_it(tmp_path):
    _table_set(tmp_path)
    with open(tmp_path / "meta.jsonl", "a") as fh:
        fh.write('{"image": "rail-960x720-t0001001-003.jpg", "di')
    assert add_poses(tmp_path, FakePhysics())["added"] == 3
    assert (tmp_path / "meta.jsonl").read_text().count("\n") == 3


def test_the_command_goes_through_every_folder_and_says_which_it_refused(tmp_path, monkeypatch, capsys):
    good, bad = tmp_path / "good", tmp_path / "bad"
    _table_set(good)
    _table_set(bad)
    _edit(bad, 0, 0, lambda d: d.__setitem__("value", d["value"] % 6 + 1))
    monkeypatch.setitem(sys.modules, "pybullet", types.ModuleType("pybullet"))
    real = tableposes.add_poses
    monkeypatch.setattr(tableposes, "add_poses", lambda root: real(root, FakePhysics()))
    assert cli.main(["tableset-poses", str(bad), str(good)]) == 2
    out, err = capsys.readouterr()
    assert out == f"{good}: 3 throws, poses added to 3, 0 had them\n"
    assert err.startswith(f"error: {bad}: the physics run again disagrees") and "value" in err


def test_the_command_says_it_needs_the_physics(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "pybullet", None)  # not installed
    assert cli.main(["tableset-poses", str(tmp_path)]) == 2
    assert "needs pybullet" in capsys.readouterr().err
