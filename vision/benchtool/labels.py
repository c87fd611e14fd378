"""Labelled folders of dice photographs: what the truth is for each image.

Two label formats are read, so a folder recorded at the table can be scored
as easily as the public datasets:

- YOLO text files (``class cx cy w h``, normalised 0..1), either beside each
  image or in a sibling ``labels*/`` folder (``images/x.jpg`` ->
  ``labels_yolo/x.txt``), as in ``../shared/datasets``. Class ``c`` is face
  ``c + 1`` unless a list of class names says otherwise: ``classes.txt`` (or
  darknet's ``obj.names``) beside the labels or in a folder above them, up to
  the bench folder, or the ``names`` of a ``data.yaml`` there (as exported by
  annotation tools). Each name must name one face (``"3"``, ``"Three"``,
  ``"dice-3"``, ``"d6_three"``), in any order, so a folder labelled elsewhere
  is scored by its own classes, not by a guess;
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


#: Class ``c`` is face ``c + 1`` when no class names are given (both public datasets).
DEFAULT_FACES = (1, 2, 3, 4, 5, 6)
#: Files that list YOLO class names, one per line, in class order.
CLASS_NAME_FILES = ("classes.txt", "obj.names")
#: Files whose ``names`` key lists them (a YOLO dataset's description).
DATASET_YAML_FILES = ("data.yaml", "dataset.yaml")
_FACE_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}


def face_of_class_name(name: str) -> int | None:
    """The face a class name stands for (``"3"``, ``"Three"``, ``"dice-3"``,
    ``"d6_three"``), or None when it names no face or more than one."""
    low = re.sub(r"d6", " ", name.lower())  # the die's kind is not its face
    faces = {int(d) for d in re.findall(r"(?<![0-9])[1-6](?![0-9])", low)}
    faces |= {_FACE_WORDS[w] for w in re.findall(r"(?<![a-z])(one|two|three|four|five|six)(?![a-z])", low)}
    if re.search(r"(?<![0-9])(0|[7-9]|[0-9]{2,})(?![0-9])", low):
        return None
    return faces.pop() if len(faces) == 1 else None


def class_faces(names: list[str], source: str) -> tuple[int, ...]:
    """The face of each class, in class order; a name that names no face is an error."""
    faces = []
    for c, name in enumerate(names):
        face = face_of_class_name(name)
        if face is None:
            raise LabelError(f"{source}: class {c} {name!r} names no die face 1..6")
        faces.append(face)
    return tuple(faces)


def yaml_names(text: str) -> list[str] | None:
    """The ``names`` of a YOLO dataset's YAML description, in class order, or None.

    Only the forms those files use: an inline list (``names: ['1', '2']``), a
    block list (``- one``) or a block mapping (``0: one``). Reading one key
    does not warrant a YAML library among the runtime dependencies. An inline
    mapping (``names: {0: one, 1: two}``) is read too.
    """
    lines = text.splitlines()
    for i, line in enumerate(lines):
        head = re.match(r"names\s*:\s*(.*?)\s*(#.*)?$", line)
        if not head:
            continue
        rest = head.group(1)
        if rest[:1] in ("[", "{"):
            inline = " ".join([rest, *lines[i + 1:]])
            close = "]" if rest[0] == "[" else "}"
            inner = inline[1:inline.index(close)] if close in inline else inline[1:]
            tokens = [t.strip() for t in inner.split(",") if t.strip()]
            if close == "}":  # {0: one, 1: two}
                pairs = dict(t.split(":", 1) for t in tokens if ":" in t)
                tokens = [pairs[k] for k in sorted(pairs, key=lambda k: int(k.strip()) if k.strip().isdigit() else 0)]
            return [t.strip().strip("'\"") for t in tokens]
        items: dict[int, str] = {}
        for follow in lines[i + 1:]:
            item = re.sub(r"\s+#.*$", "", follow.strip())
            if not item or item.startswith("#"):
                continue
            entry = re.match(r"(?:-\s*|(\d+)\s*:\s*)(.+)$", item) if follow[:1].isspace() or item.startswith("-") else None
            if entry is None:
                break
            items[int(entry.group(1)) if entry.group(1) else len(items)] = entry.group(2).strip().strip("'\"")
        return [items[k] for k in sorted(items)] or None
    return None


def faces_for(label: Path, root: Path) -> tuple[int, ...]:
    """The faces of the classes used by the YOLO file ``label``: from the nearest
    class-name list between its folder and ``root``, else ``DEFAULT_FACES``."""
    folder = label.parent
    while True:
        for name in CLASS_NAME_FILES:
            listing = folder / name
            if listing.is_file():
                names = [n.strip() for n in listing.read_text(errors="replace").splitlines() if n.strip()]
                return class_faces(names, str(listing))
        for name in DATASET_YAML_FILES:
            described = folder / name
            if described.is_file():
                names = yaml_names(described.read_text(errors="replace"))
                if names:
                    return class_faces(names, str(described))
        if folder == root or root not in folder.parents:
            return DEFAULT_FACES
        folder = folder.parent


def parse_yolo(text: str, source: str = "<labels>", faces: tuple[int, ...] = DEFAULT_FACES) -> tuple[LabelledDie, ...]:
    """Parse YOLO lines; class ``c`` means face ``faces[c]`` (``c + 1`` by default)."""
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
        if not 0 <= c < len(faces):
            raise LabelError(f"{source}:{n}: class {c} is not a die face (0..{len(faces) - 1})")
        dice.append(LabelledDie(faces[c], cx, cy, w, h))
    return tuple(dice)


def boxed_die(value: int, box: tuple[float, float, float, float], width: int, height: int) -> LabelledDie:
    """A die of face ``value`` in the box ``(x, y, w, h)`` in pixels of a ``width`` x ``height`` frame,
    as a label (normalised, as YOLO keeps it)."""
    x, y, w, h = box
    return LabelledDie(value, (x + w / 2) / width, (y + h / 2) / height, w / width, h / height)


def yolo_line(die: LabelledDie) -> str:
    """One YOLO line for a die with a box, as ``parse_yolo`` reads it with no class names (class = face - 1)."""
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
    faces: dict[Path, tuple[int, ...]] = {}
    for path in sorted(folder.rglob("*")):
        if path.suffix.lower() not in IMAGE_SUFFIXES or not path.is_file():
            continue
        label = _yolo_file_for(path)
        if label is None:
            continue
        if label.parent not in faces:
            faces[label.parent] = faces_for(label, folder)
        text = label.read_text(errors="replace")
        out.append(LabelledImage(path, parse_yolo(text, str(label), faces[label.parent]), True))
    return out
