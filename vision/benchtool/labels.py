"""Labelled folders of dice photographs: what the truth is for each image.

Two label formats are read, so a folder recorded at the table can be scored
as easily as the public datasets and the exports of annotation tools:

- YOLO text files, one die a line: ``class cx cy w h`` normalised 0..1, maybe
  followed by a confidence, or a polygon or oriented box ``class x1 y1 x2 y2
  x3 y3 ...`` (Roboflow's polygon export, YOLO-OBB), read as the box around
  its points. Coordinates in pixels are refused, not guessed at. The file is
  beside the image, in a sibling ``labels*/`` folder (``images/x.jpg`` ->
  ``labels_yolo/x.txt``, as in ``../shared/datasets``), or where Ultralytics
  keeps it: the path's last ``images`` folder replaced by ``labels``
  (``images/train/x.jpg`` -> ``labels/train/x.txt``).

  Class ``c`` is face ``c + 1`` unless a list of class names says otherwise:
  ``classes.txt``, darknet's ``obj.names`` or Roboflow's ``_darknet.labels``
  (one name a line), or the ``names`` of a ``data.yaml`` (as annotation tools
  export it), the nearest one going up from the labels' folder. The search
  goes past the bench folder by up to two levels, because one split of an
  export (``export/test``, ``root/images/train``) keeps its names above it.
  A name that names one face (``"3"``, ``"Three"``, ``"dice-3"``,
  ``"d6_three"``) maps its class, in any order; one that names none
  (``"dice"``) is refused only on a label that uses it. Every image says
  which mapping it was read by (``classes_from``), so a folder labelled
  elsewhere is scored by its own classes, or says plainly that it was not;
- a ``manifest.csv`` at the top of the folder with the columns
  ``image,values`` (in any case, spaces around them ignored) where ``values``
  lists the face values (``"3 5"``, ``"3;5"`` or ``"[3, 5]"``, quoted when it
  holds commas; ``[]`` for an image with no dice). Such labels have no
  positions, so the bench matches them to the read as a multiset of values.
  Optional columns ``touching`` and ``leaning`` (``1``, ``true`` or ``yes``
  when the roll has dice touching or a die leaning; ``vision.benchtool.dataset``
  writes ``1``) mark rolls that must not come out ``ok`` whatever their
  values; they apply to the image also when its dice are scored from YOLO
  labels.

Text files are read as UTF-8, with or without a byte-order mark. Nothing here
reads pixels: the bench loads each image itself, so a broken file is scored
as a ``no_read`` instead of stopping the run. ``load_labelled`` also says what
it left out (images without a label, labels without an image), so a score
taken on part of a folder says so.
"""
from __future__ import annotations

import csv
import re
from dataclasses import dataclass, replace
from pathlib import Path

#: Image files the bench reads (``.jpe`` and ``.jfif`` are JPEG names OpenCV decodes too).
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".jpe", ".jfif", ".png", ".bmp", ".tif", ".tiff", ".webp")
#: Manifest columns that, when set, mark a roll the reader must not call ``ok``.
NOT_TO_SETTLE = ("touching", "leaning")
#: How a manifest flag column may say set and not set (compared trimmed, in lower case).
FLAG_SET = ("1", "1.0", "true", "yes", "y")
FLAG_UNSET = ("", "0", "0.0", "false", "no", "n")


@dataclass(frozen=True)
class LabelledDie:
    """One labelled die: its face value and, when known, its box centre and size (pixels
    are unknown until the image is decoded, so these stay normalised 0..1)."""

    value: int
    cx: float | None = None
    cy: float | None = None
    w: float | None = None
    h: float | None = None

    @property
    def box(self) -> tuple[float, float, float, float]:
        """``(cx, cy, w, h)`` of a die labelled with its position; a ValueError for one known only by its value."""
        if self.cx is None or self.cy is None or self.w is None or self.h is None:
            raise ValueError(f"the die showing {self.value} is labelled without its position")
        return self.cx, self.cy, self.w, self.h


@dataclass(frozen=True)
class LabelledImage:
    """An image file and the dice it shows. ``positional`` is False for manifest labels."""

    path: Path
    dice: tuple[LabelledDie, ...]
    positional: bool
    #: why this roll must not be settled (``"touching"``, ``"leaning"``), from the manifest
    not_to_settle: tuple[str, ...] = ()
    #: what its YOLO classes were read as: the class-name file used, or ``NO_CLASS_NAMES``;
    #: ``""`` for manifest labels, which hold face values
    classes_from: str = ""

    @property
    def values(self) -> tuple[int, ...]:
        return tuple(sorted(d.value for d in self.dice))


@dataclass(frozen=True)
class LabelledFolder:
    """What a bench folder holds: its labelled images and what was left out of them, so a
    score on part of a folder can say so.

    ``unlabelled`` are the image files with no label; ``orphans`` the YOLO label files no
    image uses (see ``load_labelled``); ``classes_from`` the distinct class mappings the
    images were read by (empty for manifest labels)."""

    images: list[LabelledImage]
    unlabelled: tuple[Path, ...] = ()
    orphans: tuple[Path, ...] = ()
    classes_from: tuple[str, ...] = ()


class LabelError(ValueError):
    """A label file or manifest line that cannot be understood; names the file and line."""


#: Class ``c`` is face ``c + 1`` when no class names are given (both public datasets).
DEFAULT_FACES = (1, 2, 3, 4, 5, 6)
#: The ``classes_from`` of labels read with ``DEFAULT_FACES``.
NO_CLASS_NAMES = "class c is face c+1 (no class names found)"
#: Files that list YOLO class names, one per line, in class order.
CLASS_NAME_FILES = ("classes.txt", "obj.names", "_darknet.labels")
#: Files whose ``names`` key lists them (a YOLO dataset's description).
DATASET_YAML_FILES = ("data.yaml", "dataset.yaml")
#: How many folders above the bench folder class names are looked for.
NAMES_ABOVE_ROOT = 2
#: How far past 0..1 a normalised coordinate may stray (rounding by annotation tools).
COORDINATE_SLACK = 0.01
_FACE_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
#: A line of YOLO labels: a class and at least four numbers.
_YOLO_LINE = re.compile(r"\d+(?:\s+[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?){4,}")


@dataclass(frozen=True)
class ClassFaces:
    """What a YOLO folder's classes stand for: ``faces[c]`` is the face of class ``c``, None
    for a name that names no face (``"dice"``); ``names`` are the names read (none for the
    default) and ``source`` where they were read, or ``NO_CLASS_NAMES``."""

    faces: tuple[int | None, ...]
    names: tuple[str, ...] = ()
    source: str = NO_CLASS_NAMES


#: Class ``c`` is face ``c + 1``.
DEFAULT_CLASSES = ClassFaces(DEFAULT_FACES)


def face_of_class_name(name: str) -> int | None:
    """The face a class name stands for (``"3"``, ``"Three"``, ``"dice-3"``,
    ``"d6_three"``), or None when it names no face or more than one."""
    low = re.sub(r"d6", " ", name.lower())  # the die's kind is not its face
    faces = {int(d) for d in re.findall(r"(?<![0-9])[1-6](?![0-9])", low)}
    faces |= {_FACE_WORDS[w] for w in re.findall(r"(?<![a-z])(one|two|three|four|five|six)(?![a-z])", low)}
    if re.search(r"(?<![0-9])(0|[7-9]|[0-9]{2,})(?![0-9])", low):
        return None
    return faces.pop() if len(faces) == 1 else None


def class_faces(names: list[str]) -> tuple[int | None, ...]:
    """The face of each class, in class order; None for a name that names no face.

    Such a class (``"dice"`` beside ``one`` .. ``six``) is no error until a label uses
    it: exports often carry a class nobody drew."""
    return tuple(face_of_class_name(name) for name in names)


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


def _read_text(path: Path) -> str:
    """A label, names or description file's text: UTF-8, with the byte-order mark some
    Windows tools write dropped (left in, it hides the first class or the ``names`` key)."""
    return path.read_text(encoding="utf-8-sig", errors="replace")


def faces_for(label: Path, root: Path) -> ClassFaces:
    """What the classes of the YOLO file ``label`` stand for: the nearest class-name list
    going up from its folder, else ``DEFAULT_CLASSES``.

    The search goes up to ``NAMES_ABOVE_ROOT`` folders past ``root`` (the bench folder):
    one split of an export (``export/test``, ``root/images/train``) keeps its names above
    it, and read as face ``c + 1`` there its classes would be silent misreads. It stops
    there so that an unrelated list higher up is not taken.

    A names file found that yields no names (an empty ``classes.txt``, a ``data.yaml``
    whose ``names`` cannot be read) is an error naming it rather than a reason to look
    further: it describes these labels, and whatever is found past it would be a guess.
    """
    root = root.resolve()
    ups = (root, *root.parents)
    top = ups[min(NAMES_ABOVE_ROOT, len(ups) - 1)]
    folder = label.parent.resolve()
    while True:
        found = _names_in(folder)
        if found is not None:
            return found
        if folder == top or top not in folder.parents:
            return DEFAULT_CLASSES
        folder = folder.parent


def _names_in(folder: Path) -> ClassFaces | None:
    """The classes a names file in ``folder`` lists, or None when it has none."""
    for name in CLASS_NAME_FILES:
        listing = folder / name
        if listing.is_file():
            return _named_classes([n.strip() for n in _read_text(listing).splitlines() if n.strip()], listing)
    for name in DATASET_YAML_FILES:
        described = folder / name
        if described.is_file():
            return _named_classes(yaml_names(_read_text(described)), described)
    return None


def _named_classes(names: list[str] | None, source: Path) -> ClassFaces:
    """The classes ``source`` names; a names file that names none is an error."""
    if not names:
        raise LabelError(f"{source}: no class names can be read from it; list them one a line "
                         "(names: [...] in a YAML file), or put a classes.txt nearer the labels")
    return ClassFaces(class_faces(names), tuple(names), str(source))


def parse_yolo(text: str, source: str = "<labels>", classes: ClassFaces = DEFAULT_CLASSES) -> tuple[LabelledDie, ...]:
    """Parse YOLO lines; class ``c`` means face ``classes.faces[c]`` (``c + 1`` by default).

    A line is ``class cx cy w h``, maybe followed by a confidence, or a polygon or
    oriented box ``class x1 y1 x2 y2 x3 y3 ...``, taken as the box around its points.
    Any other count of columns, and coordinates outside 0..1, are errors: a polygon read
    as a box, or a box in pixels, would put every die somewhere else.
    """
    dice = []
    for n, line in enumerate(text.splitlines(), 1):
        parts = line.split()
        if not parts:
            continue
        where = f"{source}:{n}"
        try:
            c = int(float(parts[0]))
            numbers = [float(p) for p in parts[1:]]
        except (ValueError, OverflowError) as exc:
            raise LabelError(f"{where}: not a YOLO line: {line!r}") from exc
        dice.append(LabelledDie(_face(c, classes, where), *_box(numbers, where, line)))
    return tuple(dice)


def _box(numbers: list[float], where: str, line: str) -> tuple[float, float, float, float]:
    """The box ``(cx, cy, w, h)`` a YOLO line's numbers after the class give."""
    if len(numbers) in (4, 5):  # a box, maybe with a confidence
        coordinates = numbers[:4]
        box = (numbers[0], numbers[1], numbers[2], numbers[3])
    elif len(numbers) >= 6 and len(numbers) % 2 == 0:  # the corners of a polygon
        coordinates = numbers
        xs, ys = numbers[0::2], numbers[1::2]
        box = ((min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2, max(xs) - min(xs), max(ys) - min(ys))
    else:
        raise LabelError(f"{where}: {len(numbers) + 1} columns: a YOLO line is class cx cy w h [confidence], "
                         f"or class x1 y1 x2 y2 x3 y3 ... for a polygon: {line!r}")
    if not all(-COORDINATE_SLACK <= v <= 1 + COORDINATE_SLACK for v in coordinates):
        raise LabelError(f"{where}: coordinates outside 0..1 look like pixels, not normalised values: {line!r}")
    return box


def _face(c: int, classes: ClassFaces, where: str) -> int:
    """The face of class ``c`` on the line ``where``."""
    if not 0 <= c < len(classes.faces):
        raise LabelError(f"{where}: class {c} is not a die face (0..{len(classes.faces) - 1}); "
                         f"classes: {classes.source}")
    face = classes.faces[c]
    if face is None:
        raise LabelError(f"{where}: class {c} {classes.names[c]!r} names no die face 1..6 ({classes.source})")
    return face


def boxed_die(value: int, box: tuple[float, float, float, float], width: int, height: int) -> LabelledDie:
    """A die of face ``value`` in the box ``(x, y, w, h)`` in pixels of a ``width`` x ``height`` frame,
    as a label (normalised, as YOLO keeps it)."""
    x, y, w, h = box
    return LabelledDie(value, (x + w / 2) / width, (y + h / 2) / height, w / width, h / height)


def yolo_line(die: LabelledDie) -> str:
    """One YOLO line for a die with a box, as ``parse_yolo`` reads it with no class names (class = face - 1)."""
    return f"{die.value - 1} {die.cx:.6f} {die.cy:.6f} {die.w:.6f} {die.h:.6f}"


def write_class_names(folder: Path) -> Path:
    """Write ``classes.txt`` (``1`` .. ``6``) into the label folder ``folder``, as :func:`yolo_line`
    numbers the classes: a folder this project labels then says so itself, and is not read by a
    names file that happens to lie in a folder above it.

    A folder that names its classes otherwise already (labels of another tool, which new ones
    would join) is a :class:`LabelError`: rewriting its names would change the faces of the labels
    there, and a ``classes.txt`` beside its ``data.yaml`` would take its place."""
    here = _names_in(folder)
    if here is None and any(_reads_as_yolo(label) for label in folder.glob("*.txt")):
        # Labels already here are read by the names above them (a dataset's data.yaml), as the bench
        # finds them benching the folder above: a classes.txt here would take their place.
        classes = faces_for(folder / CLASS_NAME_FILES[0], folder.parent)
    else:
        classes = here or DEFAULT_CLASSES
    if classes.faces != DEFAULT_FACES:
        raise LabelError(f"{classes.source}: names the classes otherwise than face - 1; "
                         "write these labels to a folder of their own")
    path = folder / CLASS_NAME_FILES[0]
    if here is None:
        path.write_text("".join(f"{face}\n" for face in DEFAULT_FACES))
    return path


def parse_values(field: str, source: str = "<manifest>") -> tuple[LabelledDie, ...]:
    """Parse a manifest ``values`` field such as ``"3 5"``, ``"3;5"`` or ``"[3, 5]"`` (``"[]"``: no dice)."""
    tokens = [t for t in re.split(r"[\s,;\[\]()+-]+", field) if t]
    try:
        values = [int(t) for t in tokens]
    except ValueError as exc:
        raise LabelError(f"{source}: values {field!r} are not integers") from exc
    if any(not 1 <= v <= 6 for v in values):
        raise LabelError(f"{source}: values {field!r} must be faces 1..6")
    return tuple(LabelledDie(v) for v in values)


def _yolo_file_for(image: Path) -> Path | None:
    """The YOLO label of ``image``: beside it, in a sibling ``labels*`` folder of its folder,
    or in Ultralytics' place for it. Looked for from the absolute path, so that a bench
    folder given as ``.`` still has a parent."""
    image = image.absolute()
    beside = image.with_suffix(".txt")
    if beside.is_file():
        return beside
    for sibling in sorted(image.parent.parent.glob("labels*")):
        candidate = sibling / (image.stem + ".txt")
        if sibling.is_dir() and candidate.is_file():
            return candidate
    parts = image.parts
    if "images" in parts[:-1]:  # Ultralytics: the last images folder becomes labels
        i = len(parts) - 2 - parts[-2::-1].index("images")
        candidate = Path(*parts[:i], "labels", *parts[i + 1:]).with_suffix(".txt")
        if candidate.is_file():
            return candidate
    return None


def _manifest_row(row: dict, folder: Path, where: str) -> LabelledImage:
    """One manifest row as a labelled image; ``where`` is its file and line.

    Each mistake that would otherwise drop dice or whole images unseen is an error: a
    values list split over several columns for want of quotes, values left empty (an
    image with no dice is written ``[]``), an image that is not there."""
    if None in row:  # DictReader keeps the fields past the header's under None
        raise LabelError(f"{where}: more fields than the header has columns; quote values that hold commas "
                         "(x.jpg,\"2,2\") or write them with spaces (x.jpg,2 2)")
    name = (row["image"] or "").strip()
    path = _manifest_image(folder, name)
    if not name or not path.is_file():
        raise LabelError(f"{where}: image {name!r} is not there ({path})")
    values = (row["values"] or "").strip()
    if not values:
        raise LabelError(f"{where}: values are empty; write [] for an image with no dice")
    flags = tuple(k for k in NOT_TO_SETTLE if _flag(row.get(k), k, where))
    return LabelledImage(path, parse_values(values, where), False, flags)


def _manifest_image(folder: Path, name: str) -> Path:
    """The image a manifest row names: ``folder/name``, or else, as exports write them either
    way, ``folder/images/name`` for a bare name and ``folder/NAME`` for ``images/NAME``."""
    path = (folder / name).resolve()
    if path.is_file() or not name:
        return path
    other = folder / name.removeprefix("images/") if name.startswith("images/") else folder / "images" / name
    return other.resolve() if other.is_file() else path


def _flag(text: str | None, column: str, where: str) -> bool:
    """Whether a manifest flag column is set; a value that is neither yes nor no is an error."""
    value = (text or "").strip().lower()
    if value in FLAG_SET:
        return True
    if value in FLAG_UNSET:
        return False
    raise LabelError(f"{where}: {column} {text!r} is neither set ({', '.join(FLAG_SET)}) "
                     f"nor unset ({', '.join(FLAG_UNSET[1:])} or empty)")


def _read_manifest(folder: Path) -> list[LabelledImage]:
    """The rows of ``folder/manifest.csv``; its columns are matched trimmed and in any case,
    and a space after a comma is skipped (``a.jpg, "2 2"``), as hand-written files have them."""
    manifest = folder / "manifest.csv"
    with manifest.open(newline="", encoding="utf-8-sig") as fh:
        reader = csv.DictReader(fh, skipinitialspace=True)
        found = reader.fieldnames or []
        reader.fieldnames = [f.strip().lower() for f in found]
        if not {"image", "values"} <= set(reader.fieldnames):
            raise LabelError(f"{manifest}: needs the columns image,values; found "
                             f"{', '.join(repr(f) for f in found) or 'none'}")
        return [_manifest_row(row, folder, f"{manifest}:{reader.line_num}") for row in reader]


def load_labelled(folder: str | Path) -> LabelledFolder:
    """Every labelled image under ``folder``, sorted by path, and what was left out.

    Every image file with a YOLO label is taken. A ``manifest.csv`` at the top is used
    instead when it lists more images than have YOLO labels: positions, when there are
    some for every image, make the stronger score. ``unlabelled`` are the image files
    with no label in the labels used (YOLO files, or the manifest's rows).

    ``orphans`` are YOLO label files no image uses, from the folders of the labels
    used and those holding images: a ``.txt`` file counts when its first non-empty line
    is a class and four numbers, so notes and READMEs do not, nor does an empty label
    (no dice), which cannot be told from an empty note. Files in label folders that no
    image led to are not looked at.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise LabelError(f"{folder}: not a folder")
    images = sorted(p for p in folder.rglob("*") if p.suffix.lower() in IMAGE_SUFFIXES and p.is_file())
    found = _read_yolo(folder, images)
    if not (folder / "manifest.csv").is_file():
        return found
    listed = _read_manifest(folder)
    if len(listed) > len(found.images):
        named = {li.path for li in listed}
        unlabelled = tuple(p for p in images if p.resolve() not in named)
        return LabelledFolder(sorted(listed, key=lambda li: str(li.path)), unlabelled, found.orphans)
    flags = {li.path: li.not_to_settle for li in listed if li.not_to_settle}
    return replace(found, images=[replace(li, not_to_settle=flags.get(li.path.resolve(), ())) for li in found.images])


def load_folder(folder: str | Path) -> list[LabelledImage]:
    """Every labelled image under ``folder``, sorted by path (``load_labelled`` without
    the account of what was left out)."""
    return load_labelled(folder).images


def _read_yolo(folder: Path, images: list[Path]) -> LabelledFolder:
    out, unlabelled, used = [], [], set()
    classes: dict[Path, ClassFaces] = {}
    for path in images:
        label = _yolo_file_for(path)
        if label is None:
            unlabelled.append(path)
            continue
        used.add(_canonical(label))
        if label.parent not in classes:
            classes[label.parent] = faces_for(label, folder)
        mapping = classes[label.parent]
        dice = parse_yolo(_read_text(label), str(label), mapping)
        out.append(LabelledImage(path, dice, True, classes_from=mapping.source))
    mappings = tuple(dict.fromkeys(li.classes_from for li in out))
    return LabelledFolder(out, tuple(unlabelled), _orphans(images, used), mappings)


def _orphans(images: list[Path], used: set[Path]) -> tuple[Path, ...]:
    """The YOLO label files in the folders of ``used`` labels and of ``images`` that no image uses."""
    folders = {label.parent for label in used} | {image.parent.resolve() for image in images}
    return tuple(sorted(
        text for place in folders for text in place.glob("*.txt")
        if text not in used and text.name not in CLASS_NAME_FILES and _reads_as_yolo(text)))


def _canonical(path: Path) -> Path:
    """``path`` in its folder's resolved form, so one file reached two ways is one file
    (the file itself is not resolved: a label may be a link into a pool of files)."""
    return path.parent.resolve() / path.name


def _reads_as_yolo(path: Path) -> bool:
    """Whether the first non-empty line of ``path`` is a YOLO line (a class and four numbers)."""
    with path.open(encoding="utf-8-sig", errors="replace") as fh:
        for line in fh:
            if line.strip():
                return _YOLO_LINE.fullmatch(line.strip()) is not None
    return False
