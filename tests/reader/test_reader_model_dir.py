"""Model folders: networks and policy travel together, a digest names them, mistakes are named."""
from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from vision.model import ReadStatus
from vision.reader import load_model, read_dice
from vision.reader.model_dir import BUNDLED_MODEL, MODEL_FILES, model_digest, model_problems
from vision.reader.nets import ModelMissing
from vision.reader.policy import (DEFAULT_POLICY, POLICY_FILE, PolicyError, ReadPolicy, load_policy,
                                  policy_from_dict, policy_to_dict, save_policy)


def copy_model(tmp_path: Path) -> Path:
    out = tmp_path / "model"
    out.mkdir()
    for name in MODEL_FILES:
        shutil.copy(BUNDLED_MODEL / name, out / name)
    return out


def test_the_bundled_model_is_a_model_folder_with_the_default_policy():
    assert model_problems(BUNDLED_MODEL) == []
    model = load_model()
    assert model.policy == DEFAULT_POLICY
    assert model.policy.provenance  # where its thresholds come from is written down
    assert model.digest == model_digest(BUNDLED_MODEL) and len(model.digest) == 16


def test_a_policy_round_trips_through_its_file(tmp_path: Path):
    policy = replace(DEFAULT_POLICY, sure_alone=0.93, die_px_band=(12.0, 30.0)).with_provenance({"by": "test"})
    save_policy(policy, tmp_path / POLICY_FILE)
    back = load_policy(tmp_path / POLICY_FILE)
    assert back == policy and back.provenance == {"by": "test"}


def test_a_policy_file_naming_fewer_thresholds_keeps_the_defaults_for_the_others():
    assert policy_from_dict({"format": 1, "thresholds": {"leaning": 0.8}}).leaning == 0.8
    assert policy_from_dict({"format": 1, "thresholds": {"leaning": 0.8}}).sure_alone == DEFAULT_POLICY.sure_alone


@pytest.mark.parametrize("data, where", [
    ({"format": 2}, "format"),
    ({"format": 1, "thresholds": {"sure_alon": 0.9}}, "thresholds.sure_alon: unknown"),
    ({"format": 1, "thresholds": {"sure_alone": "high"}}, "thresholds.sure_alone"),
    ({"format": 1, "thresholds": {"sure_alone": -1}}, "thresholds.sure_alone"),
    ({"format": 1, "thresholds": {"die_px_band": [36, 14]}}, "thresholds.die_px_band"),
    ([], "JSON object"),
])
def test_a_wrong_policy_is_refused_naming_the_key(data, where):
    with pytest.raises(PolicyError, match=where):
        policy_from_dict(data, "p.json")


def test_a_folder_missing_a_file_or_with_a_broken_policy_is_named(tmp_path: Path):
    folder = copy_model(tmp_path)
    (folder / "dice_classifier_b.onnx").unlink()
    (folder / POLICY_FILE).write_text("{not json")
    problems = model_problems(folder)
    assert any(p.endswith("dice_classifier_b.onnx: missing") for p in problems)
    assert any("not JSON" in p for p in problems)
    assert model_problems(tmp_path / "nowhere") == [f"no such model folder: {tmp_path / 'nowhere'}"]
    with pytest.raises(ModelMissing):
        load_model(folder)


def test_a_folder_with_the_single_crop_leaning_check_says_what_to_do(tmp_path: Path):
    """A model folder written before the leaning check weighed dice in pairs holds only the
    single-crop check, ``dice_leaning.onnx``: it is refused, naming the file to copy or the command to run."""
    folder = copy_model(tmp_path)
    (folder / "dice_leaning_pair.onnx").rename(folder / "dice_leaning.onnx")
    (problem,) = model_problems(folder)
    assert "dice_leaning_pair.onnx: missing" in problem and "single-crop leaning check" in problem
    assert "vision/models" in problem and "dicetable learn" in problem


def test_the_digest_changes_with_any_model_file_and_not_with_a_readme(tmp_path: Path):
    folder = copy_model(tmp_path)
    before = model_digest(folder)
    (folder / "README.md").write_text("notes")
    assert model_digest(folder) == before
    save_policy(replace(DEFAULT_POLICY, sure_alone=0.95), folder / POLICY_FILE)
    assert model_digest(folder) != before


def test_a_model_s_policy_is_the_one_the_reader_judges_by(tmp_path: Path, draw_table):
    frame = draw_table([(200, 240, 2), (430, 250, 5)], seed=3)
    assert read_dice(frame, expect=2).status == ReadStatus.OK
    folder = copy_model(tmp_path)
    strict = json.loads((folder / POLICY_FILE).read_text())
    strict["thresholds"].update(sure_alone=1.01, sure_with_pips=1.01, sure_doubted=1.01,
                                sure_doubted_second_look=1.01)
    (folder / POLICY_FILE).write_text(json.dumps(strict))
    read = read_dice(frame, expect=2, model=load_model(folder))
    assert read.status == ReadStatus.UNCERTAIN and read.values == (2, 5)


def test_a_model_rewritten_in_place_is_loaded_again(tmp_path: Path):
    folder = copy_model(tmp_path)
    first = load_model(folder)
    assert load_model(folder) is first
    save_policy(replace(DEFAULT_POLICY, leaning=0.8), folder / POLICY_FILE)
    assert load_model(folder).policy.leaning == 0.8


def test_a_policy_is_plain_data():
    assert policy_to_dict(ReadPolicy())["thresholds"]["die_px_band"] == [14.0, 36.0]
    assert np.isfinite(list(v for v in ReadPolicy().thresholds().values() if not isinstance(v, list))).all()



_COUNTS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
_REPO = Path(__file__).resolve().parents[2]
#: Where the networks are counted in words, and what each must count (besides anything else it counts).
_COUNTED = {"vision/README.md": "networks", "vision/models/README.md": "files", "vision/reader/__init__.py": "checks",
            "vision/reader/model_dir.py": "networks", "vision/reader/leaning.py": "checks", "docs/vision.md": "",
            "README.md": "", "training/README.md": ""}


def _said(path: str) -> dict[str, list[str]]:
    """The counts ``path`` gives in words: of networks, of leaning checks, and of files."""
    import re

    text = (_REPO / path).read_text(encoding="utf-8")
    words = "|".join(_COUNTS)
    return {what: [w.lower() for w in re.findall(rf"\b({words}) {pattern}\b", text, flags=re.IGNORECASE)]
            for what, pattern in (("networks", "(?:ONNX )?networks"), ("checks", "(?:leaning )?checks"),
                                  ("files", "files"))}


@pytest.mark.parametrize("path", list(_COUNTED))
def test_the_docs_count_the_networks_the_model_folder_holds(path):
    """However many networks a model folder needs (its ``.onnx`` files), the docs say that many, and
    as many leaning checks as there are leaning networks: a count left behind by a change is a
    reader's first wrong fact."""
    networks = [name for name in MODEL_FILES if name.endswith(".onnx")]
    truth = {"networks": _COUNTS[len(networks)], "checks": _COUNTS[sum("leaning" in name for name in networks)],
             "files": _COUNTS[len(MODEL_FILES)]}
    said = _said(path)
    if _COUNTED[path]:
        assert said[_COUNTED[path]], f"{path} no longer counts its {_COUNTED[path]}"
    for what in ("networks", "checks") + (("files",) if path == "vision/models/README.md" else ()):
        assert all(word == truth[what] for word in said[what]), f"{path} says {said[what]} {what}, not {truth[what]}"
