"""What a frames, table set or crops folder holds besides its pictures, written so a run can stop
anywhere and go on later: ``meta.jsonl`` (one line per finished image, the record of truth), the
``manifest.csv`` and YOLO labels that ``dicetable bench`` reads, a table set's ``table.json``,
and ``crops.csv``.

An image counts as done only once its line is in ``meta.jsonl`` (or ``crops.csv``); the picture
and its label are written before it, so a run stopped halfway redoes that one image. Batches of
other seeds may fill one frames folder side by side: each appends its line and rewrites the
manifest from every line in the file, one at a time (a lock file, ``.lock``).
"""
from __future__ import annotations

import csv
import fcntl
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from training.render.rules import DieFacts, cocked, eligible, settleable

CLASS_NAMES = "".join(f"{face}\n" for face in range(1, 7))
CROPS_HEADER = ["image", "value", "top_px", "tilt_deg", "visible", "material", "seed"]
#: A die hidden more than this is left out of the labels (nothing of it to find).
MIN_LABEL_VISIBLE = 0.1


def pose_record(centre, rotation) -> dict:
    """A die's rest pose, in the world's frame (metres): its ``centre`` and its ``rotation``, the 3x3
    matrix from the die's own axes to the world's (as the die is placed in Blender: a point ``p`` of
    the die lies at ``centre + rotation @ p``; ``geometry.FACE_NORMALS`` says which axis carries
    which face). Rounded to 0.1 micrometre and 1e-9."""
    return {"centre": (np.round(np.asarray(centre, dtype=float), 7) + 0.0).tolist(),
            "rotation": (np.round(np.asarray(rotation, dtype=float), 9) + 0.0).tolist()}


def die_record(die: DieFacts, pose=None) -> dict:
    """One die of ``meta.jsonl``; with ``pose`` (a ``physics.DiePose``: where it came to rest) its
    ``pose`` too."""
    record = {
        "value": die.value, "box": [round(v, 2) for v in die.box], "tilt_deg": round(die.tilt_deg, 2),
        "on_rail": die.on_rail, "on_die": die.on_die, "touching": die.touching, "visible": round(die.visible, 3),
        "lamp_on_top": die.lamp_on_top, "top_px": round(die.top_px, 2), "in_frame": die.in_frame,
        "eligible": eligible(die),
    }
    if pose is not None:
        record["pose"] = pose_record(pose.centre, pose.rotation)
    return record


def image_record(name: str, kind: str, size: tuple[int, int], seed: int, dice: list[DieFacts], poses=None,
                 **extra) -> dict:
    """One line of ``meta.jsonl``; ``poses`` (one per die, or None) where the dice rest, ``extra``
    what else is known of the scene (looks, camera)."""
    if poses is not None and len(poses) != len(dice):
        raise ValueError(f"{name}: {len(poses)} poses for {len(dice)} dice")
    records = [die_record(d, None if poses is None else poses[i]) for i, d in enumerate(dice)]
    return {"image": name, "kind": kind, "size": list(size), "seed": seed, "settleable": settleable(dice),
            "dice": records, **extra}


def labelled(dice: list[dict]) -> list[dict]:
    """The dice of a record that labels name: those at least a little in view."""
    return [d for d in dice if d["visible"] >= MIN_LABEL_VISIBLE and d["box"][2] > 0 and d["box"][3] > 0]


def yolo_text(record: dict) -> str:
    """The YOLO label of a record: ``class cx cy w h`` normalised, class = face - 1."""
    w, h = record["size"]
    lines = []
    for d in labelled(record["dice"]):
        x, y, bw, bh = d["box"]
        lines.append(f"{d['value'] - 1} {(x + bw / 2) / w:.6f} {(y + bh / 2) / h:.6f} {bw / w:.6f} {bh / h:.6f}")
    return "".join(line + "\n" for line in lines)


def manifest_row(record: dict) -> list[str]:
    """``image,values,touching,leaning``: the values of the dice in view; a roll with dice touching or
    a die cocked (leaning, on the rail, on another die) is flagged so the bench never expects ``ok``."""
    dice = labelled(record["dice"])
    values = " ".join(str(d["value"]) for d in dice) or "[]"
    touching = any(d["touching"] for d in record["dice"])
    leaning = any(cocked(d["tilt_deg"], d["on_rail"], d["on_die"]) for d in record["dice"])
    return [f"images/{record['image']}", values, str(int(touching)), str(int(leaning))]


def read_jsonl(path: Path) -> list[dict]:
    """The records of a ``meta.jsonl``; a last line cut short by a stop is skipped."""
    if not path.is_file():
        return []
    out = []
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return out


def trim_partial_line(path: Path) -> None:
    """Cut a last line left unfinished by a stop, so the next line appended starts on its own."""
    if not path.is_file():
        return
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        path.write_bytes(data[: data.rfind(b"\n") + 1])


def replace_text(path: Path, text: str) -> None:
    """Write ``path`` whole or not at all: a temporary file beside it, renamed over it."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


@contextmanager
def folder_lock(root: Path) -> Iterator[None]:
    """Hold the folder's lock: one process at a time appends to ``meta.jsonl`` and rewrites the
    manifest from it (or, ``tableposes.py``, rewrites ``meta.jsonl`` with the dice's poses)."""
    with open(root / ".lock", "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


class FramesFolder:
    """A frames folder: ``images/``, ``labels/`` with ``classes.txt``, ``meta.jsonl``, ``manifest.csv``."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        (self.root / "images").mkdir(parents=True, exist_ok=True)
        (self.root / "labels").mkdir(exist_ok=True)
        names = self.root / "labels" / "classes.txt"
        if not names.is_file():
            names.write_text(CLASS_NAMES)
        with folder_lock(self.root):
            trim_partial_line(self.root / "meta.jsonl")
            self._read_records()

    def done(self, name: str) -> bool:
        return name in self.records and (self.root / "images" / name).is_file()

    def add(self, record: dict, jpeg: bytes) -> None:
        """Write the picture and its label, then its meta line, then the manifest."""
        name = record["image"]
        image = self.root / "images" / name
        tmp = image.with_name(name + ".tmp")
        tmp.write_bytes(jpeg)
        os.replace(tmp, image)
        replace_text(self.root / "labels" / (Path(name).stem + ".txt"), yolo_text(record))
        with folder_lock(self.root):
            with open(self.root / "meta.jsonl", "a") as fh:
                fh.write(json.dumps(record, sort_keys=True) + "\n")
            self._read_records()  # other batches' lines too
            self.write_manifest()

    def _read_records(self) -> None:
        self.records = {r["image"]: r for r in read_jsonl(self.root / "meta.jsonl")}

    def write_manifest(self) -> None:
        """The manifest of every record whose picture is there (call with the folder's lock held)."""
        rows = [["image", "values", "touching", "leaning"]]
        rows += [manifest_row(self.records[n]) for n in sorted(self.records)
                 if (self.root / "images" / n).is_file()]
        tmp = self.root / "manifest.csv.tmp"
        with open(tmp, "w", newline="") as fh:
            csv.writer(fh).writerows(rows)
        os.replace(tmp, self.root / "manifest.csv")


class TableFolder(FramesFolder):
    """A table set's folder: a frames folder of its throws (what the bench reads), and beside it
    ``empty/`` with the frames of the empty table and ``table.json`` with the table's facts."""

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        (self.root / "empty").mkdir(exist_ok=True)

    def empty_done(self, name: str) -> bool:
        return (self.root / "empty" / name).is_file()

    def add_empty(self, name: str, jpeg: bytes) -> None:
        path = self.root / "empty" / name
        tmp = path.with_name(name + ".tmp")
        tmp.write_bytes(jpeg)
        os.replace(tmp, path)

    def table(self) -> dict | None:
        """The facts ``table.json`` holds, or None before the table was metered."""
        path = self.root / "table.json"
        return json.loads(path.read_text()) if path.is_file() else None

    def write_table(self, facts: dict) -> None:
        replace_text(self.root / "table.json", json.dumps(facts, indent=1, sort_keys=True) + "\n")


class CropsFolder:
    """A crops folder: ``crops/*.png`` and ``crops.csv``."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        (self.root / "crops").mkdir(parents=True, exist_ok=True)
        self.csv = self.root / "crops.csv"
        self.names: set[str] = set()
        trim_partial_line(self.csv)
        if self.csv.is_file() and self.csv.stat().st_size:
            with open(self.csv, newline="") as fh:
                self.names = {row["image"] for row in csv.DictReader(fh) if row.get("seed")}
        else:
            with open(self.csv, "w", newline="") as fh:
                csv.writer(fh).writerow(CROPS_HEADER)

    def done(self, name: str) -> bool:
        return f"crops/{name}" in self.names and (self.root / "crops" / name).is_file()

    def add(self, name: str, png: bytes, value: int, top_px: float, tilt: float, visible: float, material: str,
            seed: int, meta: dict) -> None:
        """Write the crop, its line in ``crops_meta.jsonl`` (everything measured), then its row; a
        crop whose picture was lost but whose row is there gets its picture back, not a second row."""
        path = self.root / "crops" / name
        tmp = path.with_name(name + ".tmp")
        tmp.write_bytes(png)
        os.replace(tmp, path)
        if f"crops/{name}" in self.names:
            return
        trim_partial_line(self.root / "crops_meta.jsonl")
        with open(self.root / "crops_meta.jsonl", "a") as fh:
            fh.write(json.dumps({"image": f"crops/{name}", "seed": seed, **meta}, sort_keys=True) + "\n")
        with open(self.csv, "a", newline="") as fh:
            csv.writer(fh).writerow([f"crops/{name}", value, f"{top_px:.2f}", f"{tilt:.2f}", f"{visible:.3f}",
                                     material, seed])
        self.names.add(f"crops/{name}")
