"""The held-out split: which labelled images nobody may tune on.

Photos of one scene are near-duplicates (the webcam set comes in bursts of
about five frames of one arrangement), so splitting by frame would leak the
scene into both halves. Images are grouped into runs of ``GROUP`` consecutive
shots sharing a name prefix (``six_1..six_10``, ``IMG_20191208_1112..``),
ordered by their trailing number, and a whole run is held out when a hash of
its name falls in the held-out bucket: about ``1 / BUCKETS`` of each folder.
The rule depends only on file names, so training and the bench always agree.

Exports that rename files are read by the name of the photo they came from: Roboflow writes
``IMG_1234.jpg`` as ``IMG_1234_jpg.rf.<hash>.jpg``, and every augmented copy of one photo gets
another hash. The hash and the ``_jpg`` are dropped, and copies of one photo (the same number)
always fall in the same run, so they never land on both sides of the split.
"""
from __future__ import annotations

import re
import zlib
from collections import defaultdict
from pathlib import Path
from typing import Iterable, Literal, TypeVar

GROUP = 10
BUCKETS = 5

Split = Literal["all", "heldout", "tune"]
T = TypeVar("T")

_NAME = re.compile(r"^(?P<prefix>.*?)[_-]?(?P<num>\d+)$")
#: What an export appends to the photo's own name (Roboflow: ``_jpg.rf.<hex hash>``).
_EXPORT_SUFFIX = re.compile(r"(?:_(?:jpe?g|png|bmp|webp|tiff?))?\.rf\.[0-9a-f]+$", re.IGNORECASE)


def source_name(path: Path) -> str:
    """The name of the photo ``path`` was exported from (its stem without an export's suffix)."""
    return _EXPORT_SUFFIX.sub("", path.stem)


def _prefix_and_number(path: Path) -> tuple[str, int]:
    name = source_name(path)
    m = _NAME.match(name)
    if not m:
        return name, 0
    return m.group("prefix"), int(m.group("num"))


def group_keys(paths: Iterable[Path]) -> dict[Path, str]:
    """Map each path to the name of its run of consecutive shots."""
    by_prefix: dict[tuple[Path, str], list[tuple[int, Path]]] = defaultdict(list)
    for p in paths:
        prefix, num = _prefix_and_number(p)
        by_prefix[(p.parent, prefix)].append((num, p))
    keys = {}
    for (parent, prefix), items in by_prefix.items():
        rank = {num: i for i, num in enumerate(sorted({num for num, _ in items}))}  # copies share a rank
        for num, p in items:
            keys[p] = f"{parent.name}/{prefix}#{rank[num] // GROUP}"
    return keys


def is_heldout(group_key: str) -> bool:
    return zlib.crc32(b"dicetable-heldout:" + group_key.encode()) % BUCKETS == 0


def select(items: list[T], split: Split, path_of=lambda item: item.path) -> list[T]:
    """Keep the items of ``split`` ("all", "heldout" or "tune" = everything not held out)."""
    if split == "all":
        return list(items)
    keys = group_keys(path_of(i) for i in items)
    want = split == "heldout"
    return [i for i in items if is_heldout(keys[path_of(i)]) == want]
