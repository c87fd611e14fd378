"""The provenance a policy's sweep writes names its folders without this machine's own paths."""
from __future__ import annotations

from pathlib import Path

from training.sweep_thresholds import ROOT, shown


def test_a_folder_beside_the_checkout_is_named_from_the_checkout():
    assert shown(ROOT.parent / "shared" / "datasets" / "byler-d6-tray") == "../shared/datasets/byler-d6-tray"


def test_a_folder_elsewhere_is_named_by_its_name_alone():
    assert shown(Path("/nowhere-beside-the-checkout/renders/rail-640x480")) == "rail-640x480"
