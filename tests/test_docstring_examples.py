"""The ``>>>`` examples in the packages' docstrings run, so they stay true."""
from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("controller", "vision", "hardware", "firmware", "messages")


def _modules_with_examples() -> list[str]:
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if ">>>" in path.read_text(encoding="utf-8"):
                module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
                found.append(module.removesuffix(".__init__"))
    return found


@pytest.mark.parametrize("module", _modules_with_examples())
def test_the_examples_hold(module):
    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_the_examples_are_found():
    assert {"controller.journal", "hardware.gpio.lights"} <= set(_modules_with_examples())
