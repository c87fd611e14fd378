"""The reader on a sample of real held-out photographs from ../shared/datasets.

Only the held-out runs (``vision.benchtool.split``) are used: the networks
and thresholds never saw them. The bars are what the reader really reaches
there (docs/vision.md), with a little room; no silent misread is allowed.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from vision.benchtool.labels import load_folder
from vision.benchtool.run import run, summarise
from vision.benchtool.split import select
from vision.reader import read_dice

DATASETS = Path(__file__).resolve().parents[2].parent / "shared" / "datasets"

#: folder -> (images sampled, minimum per-die accuracy)
BARS = {"byler-d6-tray": (20, 0.92), "matteop65-wood-webcam": (30, 0.93)}


@pytest.mark.parametrize("folder", sorted(BARS))
def test_heldout_photos(folder):
    path = DATASETS / folder
    if not path.is_dir():
        pytest.skip(f"dataset folder missing: {path} (../shared/datasets is not on this machine)")
    n, min_accuracy = BARS[folder]
    items = select(load_folder(path), "heldout")
    sample = items[:: max(1, len(items) // n)][:n]
    summary = summarise(run(sample, read_dice, give_count=True))
    assert summary["silent_misread_dice"] == 0
    assert summary["per_die_accuracy"] >= min_accuracy
