"""Labelled folders of dice photographs: what the truth is for each image.

Two label formats are read, so a folder recorded at the table can be scored
as easily as the public datasets:

- YOLO text files (``class cx cy w h``, normalised 0..1, class ``c`` = face
  ``c + 1``), either beside each image or in a sibling ``labels*/`` folder
  (``images/x.jpg`` -> ``labels_yolo/x.txt``), as in ``../shared/datasets``;
- a ``manifest.csv`` at the top of the folder with the columns
  ``image,values`` where ``values`` lists the face values (``"3 5"``,
  ``"3;5"`` or ``"[3, 5]"``). Such labels have no positions, so the bench
  matches them to the read as a multiset of values. Optional columns
  ``touching`` and ``leaning`` (``1`` when the roll has dice touching or a
  die leaning, as ``vision.scenes.dataset`` writes them) mark rolls that must
  not come out ``ok`` whatever their values; they apply to the image also
  when its dice are scored from YOLO labels.

Nothing here reads pixels: the bench loads each image itself, so a broken
file is scored as a ``no_read`` instead of stopping the run.
"""
from __future__ import annotations

import csv
import re
from dataclasses import dataclass, replace
from pathlib import Path

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp")
#: Manifest columns that, set to 1, mark a roll the reader must not call ``ok``.
NOT_TO_SETTLE = ("touching", "leaning")


@dataclass(frozen=True)
class LabelledDie:
    """One labelled die: its face value and, when known, its box centre and size (pixels
    are unknown until the image is decoded, so these stay normalised 0..1)."""

    value: int
    cx: float | None = None
    cy: float | None = None
    w: float | None = None
    h: float | None = None


@dataclass(frozen=True)
class LabelledImage:
    """An image file and the dice it shows. ``positional`` is False for manifest labels."""

    path: Path
    dice: tuple[LabelledDie, ...]
    positional: bool
    #: why this roll must not be settled (``"touching"``, ``"leaning"``), from the manifest
    not_to_settle: tuple[str, ...] = ()

    @property
    def values(self) -> tuple[int, ...]:
        return tuple(sorted(d.value for d in self.dice))


class LabelError(ValueError):
    """A label file or manifest line that cannot be understood; names the file and line."""


def parse_yolo(text: str, source: str = "<labels>") -> tuple[LabelledDie, ...]:
    """Parse YOLO lines; class ``c`` means face value ``c + 1`` (both public datasets)."""
    dice = []
    for n, line in enumerate(text.splitlines(), 1):
        parts = line.split()
        if not parts:
            continue
        try:
            c = int(float(parts[0]))
            cx, cy, w, h = (float(p) for p in parts[1:5])
        except (ValueError, TypeError) as exc:
            raise LabelError(f"{source}:{n}: not a YOLO line: {line!r}") from exc
        if not 0 <= c <= 5:
            raise LabelError(f"{source}:{n}: class {c} is not a die face (0..5)")
        dice.append(LabelledDie(c + 1, cx, cy, w, h))
    return tuple(dice)


def yolo_line(die: LabelledDie) -> str:
    """One YOLO line for a die with a box, as ``parse_yolo`` reads it (class = face - 1)."""
    return f"{die.value - 1} {die.cx:.6f} {die.cy:.6f} {die.w:.6f} {die.h:.6f}"


def parse_values(field: str, source: str = "<manifest>") -> tuple[LabelledDie, ...]:
    """Parse a manifest ``values`` field such as ``"3 5"``, ``"3;5"`` or ``"[3, 5]"``."""
    tokens = [t for t in re.split(r"[\s,;\[\]()+-]+", field) if t]
    try:
        values = [int(t) for t in tokens]
    except ValueError as exc:
        raise LabelError(f"{source}: values {field!r} are not integers") from exc
    if any(not 1 <= v <= 6 for v in values):
        raise LabelError(f"{source}: values {field!r} must be faces 1..6")
    return tuple(LabelledDie(v) for v in values)


def _yolo_file_for(image: Path) -> Path | None:
    beside = image.with_suffix(".txt")
    if beside.is_file():
        return beside
    for sibling in sorted(image.parent.parent.glob("labels*")):
        candidate = sibling / (image.stem + ".txt")
        if sibling.is_dir() and candidate.is_file():
            return candidate
    return None


def _read_manifest(folder: Path) -> list[LabelledImage]:
    manifest = folder / "manifest.csv"
    out = []
    with manifest.open(newline="") as fh:
        reader = csv.DictReader(fh)
        if not reader.fieldnames or not {"image", "values"} <= set(reader.fieldnames):
            raise LabelError(f"{manifest}: needs the columns image,values")
        for n, row in enumerate(reader, 2):
            path = (folder / row["image"]).resolve()
            flags = tuple(k for k in NOT_TO_SETTLE if (row.get(k) or "").strip() == "1")
            out.append(LabelledImage(path, parse_values(row["values"] or "", f"{manifest}:{n}"), False, flags))
    return out


def load_folder(folder: str | Path) -> list[LabelledImage]:
    """Every labelled image under ``folder``, sorted by path.

    Every image file with a YOLO label is taken (images without one have no
    truth and are skipped). A ``manifest.csv`` at the top is used instead
    when it lists more images than have YOLO labels: positions, when there
    are some for every image, make the stronger score.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise LabelError(f"{folder}: not a folder")
    positional = _read_yolo(folder)
    if (folder / "manifest.csv").is_file():
        listed = _read_manifest(folder)
        if len(listed) > len(positional):
            return sorted(listed, key=lambda li: str(li.path))
        flags = {li.path: li.not_to_settle for li in listed if li.not_to_settle}
        positional = [replace(li, not_to_settle=flags.get(li.path.resolve(), ())) for li in positional]
    return positional


def _read_yolo(folder: Path) -> list[LabelledImage]:
    out = []
    for path in sorted(folder.rglob("*")):
        if path.suffix.lower() not in IMAGE_SUFFIXES or not path.is_file():
            continue
        label = _yolo_file_for(path)
        if label is None:
            continue
        out.append(LabelledImage(path, parse_yolo(label.read_text(errors="replace"), str(label)), True))
    return out
