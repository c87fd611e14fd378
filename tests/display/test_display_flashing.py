"""The flashing instructions copy every module the Pico's main.py needs."""
from __future__ import annotations

import ast
import re
from pathlib import Path

FIRMWARE = Path(__file__).resolve().parents[2] / "firmware"


def _firmware_imports(module: str) -> set[str]:
    tree = ast.parse((FIRMWARE / f"{module}.py").read_text())
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module == "firmware":
                found.update(alias.name for alias in node.names)
            elif node.module.startswith("firmware."):
                found.add(node.module.split(".")[1])
    return found


def _closure(start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        module = todo.pop()
        if module not in seen:
            seen.add(module)
            todo.extend(_firmware_imports(module))
    return seen


def test_readme_copies_every_module_main_imports():
    readme = (FIRMWARE / "README.md").read_text()
    copied = set(re.findall(r"firmware/(\w+)\.py", readme.split("## Flashing")[1].split("## Wiring")[0]))
    needed = _closure("main") | {"__init__"}
    assert needed <= copied, f"not copied to the Pico: {sorted(needed - copied)}"
    assert "virtual" not in copied  # a stand-in, never on the Pico
