"""`dicetable learn`: fine-tune on a table's frames, judge on a held-out share, write only if better."""
from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from controller.cli import main
from vision.benchtool.labels import LabelledDie, LabelledImage
from vision.model import DiceRead, Die, ReadStatus
from vision.reader.model_dir import CLASSIFIER, LEANING, LEANING_ALONE, MODEL_FILES, SECOND_CLASSIFIER, model_problems
from vision.reader.policy import POLICY_FILE

learn_module = pytest.importorskip("training.learn")
pytest.importorskip("torch", reason="the learn extra (torch) is not installed")


@pytest.fixture(scope="module")
def session(tmp_path_factory) -> Path:
    from vision.benchtool.dataset import main as write_dataset

    out = tmp_path_factory.mktemp("session")
    assert write_dataset([str(out / "frames"), "--count", "10", "--seed", "5"]) == 0
    return out / "frames"


def frame(values: tuple[int, ...], positional: bool = False):
    import numpy as np

    dice = tuple(LabelledDie(v, 0.2 + 0.3 * i, 0.5, 0.1, 0.1) if positional else LabelledDie(v)
                 for i, v in enumerate(values))
    return learn_module.Frame(LabelledImage(Path(f"f{values}.png"), dice, positional), np.zeros((100, 200, 3), np.uint8))


def read(*values: int) -> DiceRead:
    return DiceRead(ReadStatus.UNCERTAIN, tuple(Die(v, 0.5, (20 + 60 * i, 40, 20, 20)) for i, v in enumerate(values)))


def test_frames_without_boxes_are_placed_by_the_base_read_where_the_values_leave_one_choice():
    assert [d[3] for d in learn_module.placed_dice(frame((3, 5)), read(5, 3))] == [5, 3]
    assert [d[3] for d in learn_module.placed_dice(frame((3, 5)), read(3, 6))] == [3, 5]  # one die read wrong
    assert learn_module.placed_dice(frame((3, 5)), read(4, 6)) == []  # two wrong: which is which?
    assert learn_module.placed_dice(frame((3, 5)), read(3)) == []  # a die missed
    boxed = learn_module.placed_dice(frame((2, 4), positional=True), read())
    assert [(round(d[0]), d[3]) for d in boxed] == [(40, 2), (100, 4)]


def test_the_held_out_share_is_fixed_by_the_seed():
    frames = [frame((v, w)) for v in range(1, 7) for w in range(1, 4)]
    train, held = learn_module.split(frames, 0)
    assert len(held) == round(learn_module.HOLDOUT * len(frames)) and len(train) + len(held) == len(frames)
    again = learn_module.split(list(reversed(frames)), 0)
    assert [f.item.path for f in again[1]] == [f.item.path for f in held]
    assert [f.item.path for f in learn_module.split(frames, 1)[1]] != [f.item.path for f in held]


def test_the_policy_learned_is_no_laxer_than_the_base_s(monkeypatch):
    # the training frames would settle more at a lower "sure" bar than the base's: it is kept all the same
    from types import SimpleNamespace

    import training.thresholds as chooser
    from tests.reader.test_reader_policy_choice import case
    from vision.reader.policy import DEFAULT_POLICY

    cases = [case((3, 5), 0.0, sure=0.85), case((2, 6), 0.0, sure=0.85)]
    monkeypatch.setattr(chooser, "collect", lambda images, nets, base: cases)
    base = replace(DEFAULT_POLICY, sure_alone=0.9)
    chosen = learn_module._choose_policy(SimpleNamespace(nets=None, policy=base), [frame((3, 5)), frame((2, 6))])
    assert chosen.sure_alone >= 0.9


def fixed_figures(monkeypatch, base, new):
    """Held-out figures for the base and the new model, whatever they read."""
    answers = {}

    def figures(model, frames):
        return answers.setdefault(model.digest, learn_module.Figures(*(base if not answers else new)))

    monkeypatch.setattr(learn_module, "figures", figures)


def test_learn_writes_the_model_folder_when_the_new_model_passes_the_gate(session, tmp_path, monkeypatch, capsys):
    fixed_figures(monkeypatch, base=(3, 1, 0, 6, 5), new=(3, 2, 0, 6, 6))
    few = learn_module.Steps(2, 2)
    monkeypatch.setattr(learn_module, "Steps", lambda: few)
    out = tmp_path / "table-model"
    assert main(["learn", str(session), "--out", str(out)]) == 0
    assert model_problems(out) == [] and {p.name for p in out.iterdir()} == set(MODEL_FILES)
    # classifier B and the leaning check stay the base's: a value settles only where B agrees
    bundled = Path(__file__).resolve().parents[2] / "vision" / "models"
    for kept in (SECOND_CLASSIFIER, LEANING, LEANING_ALONE):
        assert (out / kept).read_bytes() == (bundled / kept).read_bytes()
    assert (out / CLASSIFIER).read_bytes() != (bundled / CLASSIFIER).read_bytes()
    provenance = json.loads((out / POLICY_FILE).read_text())["provenance"]
    assert provenance["held_out_figures"]["new"]["ok"] == 2 and provenance["frames"]["held_out"] == 3
    printed = capsys.readouterr().out
    assert "base model" in printed and "new model" in printed and f"wrote {out}" in printed
    assert main(["read", "--model", str(out), "--json", str(next((session / "images").iterdir()))]) == 0


@pytest.mark.parametrize("new", [(3, 2, 1, 6, 5), (3, 0, 0, 6, 6)])  # a silent misread; fewer ok
def test_learn_writes_nothing_when_the_gate_refuses(session, tmp_path, monkeypatch, new):
    fixed_figures(monkeypatch, base=(3, 1, 0, 6, 5), new=new)
    few = learn_module.Steps(2, 2)
    monkeypatch.setattr(learn_module, "Steps", lambda: few)
    out = tmp_path / "table-model"
    assert main(["learn", str(session), "--out", str(out)]) == 1
    assert not out.exists() and not list(tmp_path.glob(".table-model*"))


def test_learn_errors_exit_2(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    assert main(["learn", str(tmp_path / "empty"), "--out", str(tmp_path / "m")]) == 2
    assert "no labelled" in capsys.readouterr().err
    (tmp_path / "file").write_text("x")
    assert main(["learn", str(tmp_path / "empty"), "--out", str(tmp_path / "file")]) == 2
    assert main(["learn", str(tmp_path / "empty"), "--out", str(tmp_path / "m"), "--base", str(tmp_path)]) == 2
