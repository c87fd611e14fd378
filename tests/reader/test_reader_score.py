"""Scoring reads against labels: centre matching, manifests, silent misreads."""
from __future__ import annotations

from pathlib import Path

import pytest

from vision.benchtool.labels import (LabelError, LabelledDie, LabelledImage, face_of_class_name, load_folder, parse_values,
                                     parse_yolo, yaml_names)
from vision.benchtool.score import score
from vision.benchtool.split import group_keys, select
from vision.model import DiceRead, Die, ReadStatus


def test_yolo_class_c_is_face_c_plus_1():
    dice = parse_yolo("0 0.5 0.5 0.1 0.1\n5 0.2 0.2 0.1 0.1\n")
    assert [d.value for d in dice] == [1, 6]
    with pytest.raises(LabelError):
        parse_yolo("7 0.5 0.5 0.1 0.1")


def test_manifest_values_in_several_spellings():
    for text in ("3 5", "3;5", "[3, 5]", "3,5"):
        assert [d.value for d in parse_values(text)] == [3, 5]
    with pytest.raises(LabelError):
        parse_values("3 9")


def test_centre_matching_accepts_a_tiny_pip_box():
    # a "1" labelled by its single pip (box 2% wide) is matched by a whole-die detection
    item = LabelledImage(Path("x.jpg"), (LabelledDie(1, 0.5, 0.5, 0.02, 0.02),), True)
    right = DiceRead(ReadStatus.OK, (Die(1, 0.99, (300, 220, 40, 40)),))
    s = score(item, right, 640, 480)
    assert (s.correct, s.wrong, s.missed, s.extra) == (1, 0, 0, 0)
    far = DiceRead(ReadStatus.OK, (Die(1, 0.99, (100, 100, 40, 40)),))
    s = score(item, far, 640, 480)
    assert (s.correct, s.missed, s.extra) == (0, 1, 1)
    assert s.silent and s.silent_dice == 2


def test_wrong_value_counts_as_silent_only_when_ok():
    item = LabelledImage(Path("x.jpg"), (LabelledDie(4, 0.5, 0.5, 0.06, 0.08),), True)
    wrong_ok = score(item, DiceRead(ReadStatus.OK, (Die(5, 0.99, (300, 220, 40, 40)),)), 640, 480)
    wrong_unsure = score(item, DiceRead(ReadStatus.UNCERTAIN, (Die(5, 0.6, (300, 220, 40, 40)),)), 640, 480)
    assert wrong_ok.silent and wrong_ok.silent_dice == 1
    assert not wrong_unsure.silent and wrong_unsure.wrong == 1


def test_manifest_scoring_is_by_multiset():
    item = LabelledImage(Path("x.jpg"), parse_values("2 6"), False)
    s = score(item, DiceRead(ReadStatus.OK, (Die(6, 1, (0, 0, 1, 1)), Die(3, 1, (0, 0, 1, 1)))), 0, 0)
    assert (s.correct, s.wrong, s.missed, s.extra) == (1, 1, 0, 0)


def test_split_keeps_runs_of_shots_together(tmp_path):
    paths = [tmp_path / f"six_{i}.jpg" for i in range(1, 41)]
    keys = group_keys(paths)
    assert keys[paths[0]] == keys[paths[9]] != keys[paths[10]]
    items = [LabelledImage(p, (), True) for p in paths]
    held, tune = select(items, "heldout"), select(items, "tune")
    assert len(held) + len(tune) == 40
    assert not {i.path for i in held} & {i.path for i in tune}
    for group in ({keys[i.path] for i in held}):
        assert all(keys[i.path] != group for i in tune)


def test_load_folder_finds_sibling_label_folder(tmp_path):
    (tmp_path / "images").mkdir()
    (tmp_path / "labels_yolo").mkdir()
    (tmp_path / "images" / "a.jpg").write_bytes(b"x")
    (tmp_path / "images" / "b.jpg").write_bytes(b"x")  # no label: skipped
    (tmp_path / "labels_yolo" / "a.txt").write_text("2 0.5 0.5 0.1 0.1\n")
    items = load_folder(tmp_path)
    assert [i.path.name for i in items] == ["a.jpg"]
    assert items[0].values == (3,)


@pytest.mark.parametrize("name, face", [
    ("1", 1), ("Six", 6), ("dice-3", 3), ("d6_three", 3), ("face 4", 4), ("red_2", 2),
    ("dice", None), ("d6", None), ("0", None), ("7", None), ("12", None), ("two-3", None),
])
def test_a_class_name_names_one_face_or_none(name, face):
    assert face_of_class_name(name) == face


@pytest.mark.parametrize("text, names", [
    ("train: ../train/images\nnc: 3\nnames: ['three', 'one', 'two']\n", ["three", "one", "two"]),
    ("nc: 3\nnames:\n  - three  # the first class\n  - one\n  - two\nroboflow:\n  version: 1\n", ["three", "one", "two"]),
    ("names:\n  0: '3'\n  1: '1'\n  2: '2'\nnc: 3\n", ["3", "1", "2"]),
    ("names: {1: one, 0: three, 2: two}\n", ["three", "one", "two"]),
    ("nc: 3\n", None),
])
def test_yaml_names_in_the_forms_dataset_files_use(text, names):
    assert yaml_names(text) == names


def _labelled_folder(tmp_path: Path, line: str) -> Path:
    """A folder laid out as annotation tools export it: split/images, split/labels, names at the top."""
    for sub in ("train/images", "train/labels"):
        (tmp_path / sub).mkdir(parents=True)
    (tmp_path / "train/images/a.jpg").write_bytes(b"x")
    (tmp_path / "train/labels/a.txt").write_text(line)
    return tmp_path


def test_yolo_classes_follow_the_folders_own_class_names(tmp_path):
    folder = _labelled_folder(tmp_path, "0 0.5 0.5 0.1 0.1\n2 0.2 0.2 0.1 0.1\n")
    assert load_folder(folder)[0].values == (1, 3)  # no names: class c is face c + 1
    (folder / "data.yaml").write_text("nc: 6\nnames: ['six', 'five', 'four', 'three', 'two', 'one']\n")
    assert load_folder(folder)[0].values == (4, 6)
    (folder / "train/labels/classes.txt").write_text("3\n2\n1\n")  # nearer the labels: it wins
    assert load_folder(folder)[0].values == (1, 3)


def test_class_names_that_name_no_face_are_refused_by_name(tmp_path):
    folder = _labelled_folder(tmp_path, "0 0.5 0.5 0.1 0.1\n")
    (folder / "data.yaml").write_text("names: ['dice', 'one']\n")
    with pytest.raises(LabelError, match="class 0 'dice' names no die face"):
        load_folder(folder)
    (folder / "data.yaml").write_text("names: ['one', 'two']\n")
    (folder / "train/labels/a.txt").write_text("2 0.5 0.5 0.1 0.1\n")
    with pytest.raises(LabelError, match=r"class 2 is not a die face \(0..1\)"):
        load_folder(folder)


def test_manifest_marks_rolls_not_to_settle_also_for_yolo_scored_images(tmp_path):
    (tmp_path / "images").mkdir()
    (tmp_path / "labels_yolo").mkdir()
    for name in ("a", "b", "c"):
        (tmp_path / "images" / f"{name}.png").write_bytes(b"x")
        (tmp_path / "labels_yolo" / f"{name}.txt").write_text("2 0.5 0.5 0.1 0.1\n")
    (tmp_path / "manifest.csv").write_text(
        "image,values,setting,touching,leaning\n"
        "images/a.png,3,rail,0,1\nimages/b.png,3,rail,1,0\nimages/c.png,3,cage,0,0\n")
    items = {i.path.name: i for i in load_folder(tmp_path)}
    assert all(i.positional for i in items.values())  # positions still score the dice
    assert items["a.png"].not_to_settle == ("leaning",)
    assert items["b.png"].not_to_settle == ("touching",)
    assert items["c.png"].not_to_settle == ()


def test_a_roll_not_to_settle_read_ok_is_counted_and_shown_as_a_miss():
    from vision.benchtool.run import ImageResult, misses, summarise

    def result(name: str, status: ReadStatus, flags: tuple[str, ...]) -> ImageResult:
        item = LabelledImage(Path(f"/x/{name}.png"), (LabelledDie(3),), False, flags)
        read = DiceRead(status, (Die(3, 0.99, (0, 0, 10, 10)),), None, 5.0)
        return ImageResult(item, read, score(item, read, 640, 480), (640, 480))

    results = [result("leaning_ok", ReadStatus.OK, ("leaning",)),
               result("leaning_refused", ReadStatus.NO_READ, ("leaning",)),
               result("flat_ok", ReadStatus.OK, ())]
    summary = summarise(results)
    assert summary["rolls_not_to_settle"] == 2 and summary["rolls_not_to_settle_read_ok"] == 1
    assert summary["silent_misread_images"] == 0  # the values were right: it is its own count
    assert [r.item.path.stem for r in misses(results)] == ["leaning_ok"]  # refusing it was right


def test_the_processor_time_per_read_counts_work_not_waiting(tmp_path):
    import time

    import cv2
    import numpy as np

    from vision.benchtool.run import run, summarise

    cv2.imwrite(str(tmp_path / "a.png"), np.zeros((64, 64, 3), np.uint8))
    item = LabelledImage(tmp_path / "a.png", (LabelledDie(3),), False)

    def waiting(frame, **_):  # wall time passes, the processor is idle: a machine busy with other jobs
        time.sleep(0.05)
        return DiceRead(ReadStatus.NO_READ, (), "no dice found", 50.0)

    def working(frame, **_):
        end = time.thread_time() + 0.03
        while time.thread_time() < end:
            pass
        return DiceRead(ReadStatus.NO_READ, (), "no dice found", 30.0)

    assert summarise(run([item], waiting))["cpu_ms_median"] < 20.0
    assert summarise(run([item], working))["cpu_ms_median"] >= 30.0
