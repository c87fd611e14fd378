"""The vision package's import graph points one way: each part imports only the parts below it.

From the bottom: the data types (``model``); the reader and the scene generator, which know
nothing of each other; the sources (the generated camera draws with the scenes); the settle
detector (frames from the sources); calibration (the reader's policy and the settle detector);
and the tooling on top (``benchtool``: the bench, labelled folders, scenarios), which may use
everything below it and which nothing below imports. ``LAYERS`` is that contract; the test reads
every module's imports (lazy ones inside functions included) and checks them against it.
"""
from __future__ import annotations

import ast
from pathlib import Path

VISION = Path(__file__).resolve().parents[1] / "vision"

#: Each part of ``vision`` and the parts it may import.
LAYERS: dict[str, set[str]] = {
    "model": set(),
    "models": set(),
    "reader": {"model"},
    "scenes": {"model"},
    "sources": {"model", "scenes"},
    "settle": {"model", "sources"},
    "calibrate": {"model", "reader", "settle"},
    "benchtool": {"model", "reader", "scenes", "sources", "settle", "calibrate"},
}


def part_of(module: str) -> str | None:
    """``vision.reader.look`` -> ``reader``; None outside vision."""
    names = module.split(".")
    return names[1] if names[0] == "vision" and len(names) > 1 else None


def imports_of(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def test_every_part_of_vision_has_a_place_in_the_layers():
    parts = {p.stem if p.is_file() else p.name for p in VISION.iterdir()
             if (p.suffix == ".py" and p.stem != "__init__") or (p.is_dir() and (p / "__init__.py").is_file())}
    assert parts == set(LAYERS)


def test_vision_imports_point_down_only():
    wrong = []
    for path in VISION.rglob("*.py"):
        here = part_of(".".join(path.relative_to(VISION.parent).with_suffix("").parts))
        for module in imports_of(path):
            there = part_of(module)
            if here and there and there != here and there not in LAYERS[here]:
                wrong.append(f"{path.relative_to(VISION.parent)} imports {module}")
    assert wrong == []


def test_the_layers_have_no_cycle():
    seen: dict[str, int] = {}

    def depth(part: str, trail: tuple[str, ...] = ()) -> int:
        assert part not in trail, f"cycle: {' -> '.join((*trail, part))}"
        if part not in seen:
            seen[part] = 1 + max((depth(p, (*trail, part)) for p in LAYERS[part]), default=0)
        return seen[part]

    for part in LAYERS:
        depth(part)
