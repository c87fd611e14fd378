"""The checkout holds no file made by a run: a path with a colon is a URL or a drive taken for a
file name (a database opened at ``postgresql://...`` as a path), and breaks checkouts elsewhere."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def test_no_tracked_path_has_a_colon():
    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("not a git checkout")
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout
    assert [p for p in listed.decode().split("\0") if ":" in p] == []
