"""The held-out split: which labelled images nobody may tune on.

Photos of one scene are near-duplicates (the webcam set comes in bursts of
about five frames of one arrangement), so splitting by frame would leak the
scene into both halves. Images are grouped into runs of ``GROUP`` consecutive
shots sharing a name prefix (``six_1..six_10``, ``IMG_20191208_1112..``),
ordered by their trailing number, and a whole run is held out when a hash of
its name falls in the held-out bucket: about ``1 / BUCKETS`` of each folder.
The rule depends only on file names, so training and the bench always agree.
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


def _prefix_and_number(path: Path) -> tuple[str, int]:
    m = _NAME.match(path.stem)
    if not m:
        return path.stem, 0
    return m.group("prefix"), int(m.group("num"))


def group_keys(paths: Iterable[Path]) -> dict[Path, str]:
    """Map each path to the name of its run of consecutive shots."""
    by_prefix: dict[tuple[Path, str], list[tuple[int, Path]]] = defaultdict(list)
    for p in paths:
        prefix, num = _prefix_and_number(p)
        by_prefix[(p.parent, prefix)].append((num, p))
    keys = {}
    for (parent, prefix), items in by_prefix.items():
        for i, (_, p) in enumerate(sorted(items)):
            keys[p] = f"{parent.name}/{prefix}#{i // GROUP}"
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
