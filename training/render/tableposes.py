"""The dice's rest poses of a table set's throws (``python -m training.render tableset-poses DIR``),
added to a folder's ``meta.jsonl`` without rendering, and the box a pose gives in the picture.

A throw's physics is drawn from its seed alone (:func:`settle_throw`, which the renderer runs
too), so it is run again and each die's pose written beside what was measured from it at render
time. The re-run must agree with every line (as many dice, each with its ``value``, its
``tilt_deg`` within 0.01 degree and its ``box`` within 0.01 px), and the table drawn from the
folder's seed with its ``table.json``; otherwise nothing is written. ``meta.jsonl`` is rewritten
whole (a temporary file renamed over it) under the folder's lock, so a batch appending to the
folder waits for it, and a line it appends afterwards has no pose until the command is run again.
"""
from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path

import numpy as np

from training.render.diemesh import die_mesh
from training.render.geometry import image_box, mesh_pixels, tilt_deg, top_face
from training.render.physics import DiePose, settle_cage, settle_rail
from training.render.records import folder_lock, pose_record, replace_text
from training.render.table import Table, draw_table, table_facts, throw_scenario, throw_seed
from training.render.version import CODE_VERSION

#: How far the re-run may stray from a recorded die (the record keeps two decimals).
TILT_TOLERANCE_DEG = 0.01
BOX_TOLERANCE_PX = 0.01
#: How far a pose already in the record may stray from the re-run's (its rounding).
POSE_TOLERANCE = 1e-6
#: Facts of ``table.json`` the command may add to a folder whose code wrote none.
ADDED_FACTS = ("die_edge_radius_m",)


class PoseMismatch(ValueError):
    """The physics run again does not give what the folder records: nothing was written."""


def settle_throw(table: Table, index: int) -> tuple[int, str, list[DiePose]]:
    """Throw ``index`` of ``table``: its seed, its scenario and where its dice come to rest."""
    seed = throw_seed(table.seed, index)
    scenario = throw_scenario(table.seed, index)
    half = table.die.size_m / 2
    physics = np.random.default_rng([seed, 3])
    if table.kind == "rail":
        poses = settle_rail(physics, table.rail_world(), [half] * table.dice, scenario)
    else:
        poses = settle_cage(physics, table.cage_world(), [half] * table.dice, scenario)
    return seed, scenario, poses


def mesh_box(table: Table, mesh: np.ndarray, pose: DiePose) -> list[float]:
    """The box the label gives a die at ``pose`` (its mesh projected, cut to the frame; nothing for
    a die reaching behind the camera), as ``scene.die_facts`` measures it."""
    px = mesh_pixels(table.camera, pose.centre, pose.rotation, mesh)
    if px is None:
        return [0.0, 0.0, 0.0, 0.0]
    return image_box(px, table.camera.width, table.camera.height)[0]


def pose_box(pose: dict, table: dict, rounded: bool = True) -> list[float]:
    """The box ``[x, y, w, h]`` (the labels' pixels) of a die of ``meta.jsonl`` from its ``pose``
    and ``table.json`` alone, through the OpenCV camera: the die is the cube of edge ``die_edge_m``
    whose edges are rounded by ``die_edge_radius_m`` (with ``rounded`` False: its 8 corners, the
    sharp cube's box, at most that radius's image larger)."""
    cv = table["camera"]["opencv"]
    k, r, t = np.array(cv["K"]), np.array(cv["R"]), np.array(cv["t"])
    half = table["die_edge_m"] / 2
    radius = table.get("die_edge_radius_m", 0.0) if rounded else 0.0
    signs = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)], dtype=float)
    centre, rotation = np.array(pose["centre"]), np.array(pose["rotation"])
    corners = centre + (signs * (half - radius)) @ rotation.T  # the balls' centres
    cam = corners @ r.T + t
    if np.any(cam[:, 2] <= radius):
        raise ValueError("the die reaches behind the camera")
    xs, ys = [], []
    for x, y, z in cam:
        for a, out, f, c in ((x, xs, k[0, 0], k[0, 2]), (y, ys, k[1, 1], k[1, 2])):
            # the planes through the camera tangent to the ball, across this image axis
            angle, spread = math.atan2(a, z), math.asin(min(1.0, radius / math.hypot(a, z)))
            out += [c + 0.5 + f * math.tan(angle - spread), c + 0.5 + f * math.tan(angle + spread)]
    w, h = table["size"]
    x0, x1 = max(0.0, min(xs)), min(float(w), max(xs))
    y0, y1 = max(0.0, min(ys)), min(float(h), max(ys))
    return [x0, y0, max(0.0, x1 - x0), max(0.0, y1 - y0)]


def _plain(value):
    """``value`` as JSON gives it back (tuples as lists)."""
    return json.loads(json.dumps(value))


def _throw_problems(record: dict, seed: int, scenario: str, poses: list[DiePose], table: Table,
                    mesh: np.ndarray) -> list[str]:
    name = record.get("image", "?")
    if seed != record.get("seed"):
        return [f"{name}: throw {record['throw']}'s seed is {seed}, the record's {record.get('seed')}"]
    if scenario != record.get("scenario"):
        return [f"{name}: scenario {scenario!r} re-run, {record.get('scenario')!r} recorded"]
    dice = record.get("dice", [])
    if len(poses) != len(dice):
        return [f"{name}: {len(poses)} dice re-run, {len(dice)} recorded"]
    problems = []
    for n, (pose, die) in enumerate(zip(poses, dice)):
        value, tilt = top_face(pose.rotation), tilt_deg(pose.rotation)
        box = mesh_box(table, mesh, pose)
        if value != die["value"]:
            problems.append(f"{name} die {n}: value {value} re-run, {die['value']} recorded")
        if abs(tilt - die["tilt_deg"]) > TILT_TOLERANCE_DEG + 1e-9:
            problems.append(f"{name} die {n}: tilt {tilt:.4f} deg re-run, {die['tilt_deg']} recorded")
        apart = max(abs(a - b) for a, b in zip(box, die["box"]))
        if apart > BOX_TOLERANCE_PX + 1e-9:
            problems.append(f"{name} die {n}: box {[round(v, 3) for v in box]} re-run, {die['box']} recorded "
                            f"({apart:.3f} px apart)")
        if "pose" in die:
            new = pose_record(pose.centre, pose.rotation)
            old = die["pose"]
            if (np.abs(np.subtract(new["centre"], old["centre"])).max() > POSE_TOLERANCE
                    or np.abs(np.subtract(new["rotation"], old["rotation"])).max() > POSE_TOLERANCE):
                problems.append(f"{name} die {n}: its recorded pose is not the re-run's")
    return problems


def add_poses(root: Path, settle: Callable[[Table, int], tuple[int, str, list[DiePose]]] = settle_throw) -> dict:
    """Add each die's ``pose`` to the lines of a table set's ``meta.jsonl`` (and
    ``die_edge_radius_m`` to a ``table.json`` without it), the physics of each throw run again by
    ``settle``; raise :class:`PoseMismatch`, writing nothing, where it disagrees with the folder.
    Returns counts: ``throws`` in the file, ``added`` (lines given poses), ``had`` (lines that had
    them)."""
    root = Path(root)
    table_path, meta_path = root / "table.json", root / "meta.jsonl"
    if not table_path.is_file() or not meta_path.is_file():
        raise PoseMismatch(f"{root} is no table set folder: it has no table.json or no meta.jsonl")
    with folder_lock(root):
        facts = json.loads(table_path.read_text())
        table = draw_table(int(facts["table_seed"]), facts["kind"], (int(facts["size"][0]), int(facts["size"][1])))
        drawn = _plain(table_facts(table))
        differ = sorted(k for k in drawn if k in facts and facts[k] != drawn[k])
        if differ:
            raise PoseMismatch(f"{root}: the table drawn from seed {table.seed} is not the one table.json holds "
                               f"({', '.join(differ)} differ): run this command from the code that made the folder "
                               f"(code {facts.get('code')}, its export under the cache)")
        data = meta_path.read_text()
        if data and not data.endswith("\n"):
            data = data[: data.rfind("\n") + 1]  # a line cut short by a stop: the renderer drops it too
        records = [json.loads(line) for line in data.splitlines() if line.strip()]
        mesh = die_mesh(table.die.size_m / 2, table.die.rounded).vertices
        problems: list[str] = []
        out, added, had = [], 0, 0
        for record in records:
            name = record.get("image", "?")
            same = [k for k in ("kind", "size", "table_seed") if record.get(k) != facts[k]]
            if same or "throw" not in record:
                problems.append(f"{name}: not a throw of this table ({', '.join(same) or 'no throw number'})")
                continue
            seed, scenario, poses = settle(table, int(record["throw"]))
            problems += _throw_problems(record, seed, scenario, poses, table, mesh)
            if record["dice"] and all("pose" in d for d in record["dice"]):
                had += 1
                out.append(record)
                continue
            dice = [{**d, "pose": pose_record(p.centre, p.rotation)} for d, p in zip(record["dice"], poses)]
            out.append({**record, "dice": dice, "poses_code": CODE_VERSION})
            added += 1
        if problems:
            more = f"\n  ... and {len(problems) - 10} more" if len(problems) > 10 else ""
            raise PoseMismatch(f"{root}: the physics run again disagrees with meta.jsonl, nothing was changed:\n  "
                               + "\n  ".join(problems[:10]) + more)
        if added:
            replace_text(meta_path, "".join(json.dumps(r, sort_keys=True) + "\n" for r in out))
        missing = {k: drawn[k] for k in ADDED_FACTS if k not in facts}
        if missing:
            replace_text(table_path, json.dumps({**facts, **missing}, indent=1, sort_keys=True) + "\n")
    return {"throws": len(records), "added": added, "had": had}
