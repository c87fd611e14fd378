"""Reading the truth of a bench folder as annotation tools export it: class names, label lines,
manifests, and an account of what was left out."""
from __future__ import annotations

from pathlib import Path

import pytest

from vision.benchtool.labels import (NO_CLASS_NAMES, LabelError, load_folder, load_labelled, parse_values,
                                     parse_yolo)

BOM = "\ufeff"
ALPHA = "five\nfour\none\nsix\nthree\ntwo\n"  # Roboflow sorts the names: class 0 is face 5


def _image(path: Path) -> Path:
    """An image file (labels are read without decoding it)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"x")
    return path


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _split(root: Path, split: str, line: str = "0 0.5 0.5 0.1 0.1\n") -> None:
    """One image of a Roboflow-style split: ``split/images/a.jpg`` with ``split/labels/a.txt``."""
    _image(root / split / "images" / "a.jpg")
    _write(root / split / "labels" / "a.txt", line)


# 1. Class names: found where exports put them, read through a byte-order mark, and said.

def test_roboflow_darknet_labels_file_names_the_classes(tmp_path):
    _image(tmp_path / "valid" / "a.jpg")
    _write(tmp_path / "valid" / "a.txt", "0 0.5 0.5 0.1 0.1\n3 0.2 0.2 0.1 0.1\n")
    names = _write(tmp_path / "valid" / "_darknet.labels", ALPHA)
    (item,) = load_folder(tmp_path)
    assert item.values == (5, 6)
    assert item.classes_from == str(names.resolve())


def test_one_split_of_an_export_is_read_by_the_names_above_it(tmp_path):
    export = tmp_path / "export"
    _split(export, "test")
    _write(export / "data.yaml", f"test: ../test/images\nnc: 6\nnames: {ALPHA.split()}\n")
    assert load_folder(export / "test")[0].values == (5,)
    assert load_folder(export / "test" / "images")[0].values == (5,)  # two levels above the bench folder


def test_ultralytics_split_reads_the_names_two_levels_up(tmp_path):
    _image(tmp_path / "images" / "train" / "a.jpg")
    _write(tmp_path / "labels" / "train" / "a.txt", "0 0.5 0.5 0.1 0.1\n")
    _write(tmp_path / "data.yaml", "path: .\ntrain: images/train\nnames:\n  0: two\n  1: one\n")
    assert load_folder(tmp_path / "images" / "train")[0].values == (2,)


def test_names_more_than_two_levels_above_the_bench_folder_are_not_taken(tmp_path):
    _write(tmp_path / "classes.txt", "six\nfive\nfour\nthree\ntwo\none\n")
    bench = tmp_path / "a" / "b" / "bench"
    _image(bench / "x.jpg")
    _write(bench / "x.txt", "0 0.5 0.5 0.1 0.1\n")
    (item,) = load_folder(bench)
    assert item.values == (1,) and item.classes_from == NO_CLASS_NAMES
    _write(tmp_path / "a" / "classes.txt", "six\nfive\nfour\nthree\ntwo\none\n")  # two levels up: taken
    assert load_folder(bench)[0].values == (6,)


@pytest.mark.parametrize("names_file, text", [
    ("data.yaml", "names: ['five', 'four', 'one', 'six', 'three', 'two']\nnc: 6\n"),
    ("classes.txt", ALPHA),
])
def test_a_byte_order_mark_does_not_hide_the_class_names(tmp_path, names_file, text):
    _split(tmp_path, "valid")
    _write(tmp_path / names_file, BOM + text)
    assert load_folder(tmp_path)[0].values == (5,)


def test_a_byte_order_mark_does_not_spoil_the_first_label_line(tmp_path):
    _image(tmp_path / "a.jpg")
    _write(tmp_path / "a.txt", BOM + "2 0.5 0.5 0.1 0.1\n")
    assert load_folder(tmp_path)[0].values == (3,)


def test_each_image_says_which_class_mapping_it_was_read_by(tmp_path):
    _image(tmp_path / "plain" / "a.jpg")
    _write(tmp_path / "plain" / "a.txt", "0 0.5 0.5 0.1 0.1\n")
    _image(tmp_path / "named" / "b.jpg")
    _write(tmp_path / "named" / "b.txt", "0 0.5 0.5 0.1 0.1\n")
    names = _write(tmp_path / "named" / "classes.txt", "1\n2\n3\n4\n5\n6\n")
    found = load_labelled(tmp_path)
    assert {i.path.name: i.classes_from for i in found.images} == {"a.jpg": NO_CLASS_NAMES,
                                                                   "b.jpg": str(names.resolve())}
    assert set(found.classes_from) == {NO_CLASS_NAMES, str(names.resolve())}


def test_manifest_labels_have_no_class_mapping(tmp_path):
    _image(tmp_path / "a.jpg")
    _write(tmp_path / "manifest.csv", "image,values\na.jpg,3\n")
    found = load_labelled(tmp_path)
    assert found.images[0].classes_from == "" and found.classes_from == ()


@pytest.mark.parametrize("names_file, text", [
    ("data.yaml", "nc: 6\nnames: !!python/tuple\n"),
    ("data.yaml", "nc: 6\n"),
    ("classes.txt", "\n"),
])
def test_a_names_file_without_readable_names_is_an_error_naming_it(tmp_path, names_file, text):
    _split(tmp_path, "train")
    _write(tmp_path / names_file, text)
    with pytest.raises(LabelError, match=rf"{names_file}: no class names can be read"):
        load_folder(tmp_path)


# 2. Label lines: boxes with a confidence, polygons, and no pixels.

def test_a_box_may_carry_a_confidence():
    (die,) = parse_yolo("2 0.5 0.4 0.1 0.2 0.87\n")
    assert (die.value, die.cx, die.cy, die.w, die.h) == (3, 0.5, 0.4, 0.1, 0.2)


def test_a_polygon_or_oriented_box_is_read_as_the_box_around_its_points():
    (die,) = parse_yolo("4 0.30 0.50 0.40 0.50 0.40 0.60 0.30 0.60\n")  # Roboflow's polygon export
    assert die.value == 5
    assert (die.cx, die.cy, die.w, die.h) == pytest.approx((0.35, 0.55, 0.1, 0.1))
    (tri,) = parse_yolo("0 0.1 0.1 0.3 0.1 0.2 0.4\n")  # three points: seven columns
    assert (tri.cx, tri.cy, tri.w, tri.h) == pytest.approx((0.2, 0.25, 0.2, 0.3))


@pytest.mark.parametrize("line", ["2 0.5 0.5", "2 0.5 0.5 0.1", "2 0.1 0.1 0.2 0.1 0.2 0.2 0.3"])
def test_other_column_counts_are_refused_with_file_and_line(line):
    with pytest.raises(LabelError, match=r"^x\.txt:2: .*columns"):
        parse_yolo(f"0 0.5 0.5 0.1 0.1\n{line}\n", "x.txt")


@pytest.mark.parametrize("line", ["4 264.8 371.8 43.5 36.7", "1 0.5 1.2 0.1 0.1", "1 -0.2 0.5 0.1 0.1",
                                  "1 0.1 0.1 30 0.1 30 40 0.1 40"])
def test_pixel_coordinates_are_refused_with_file_and_line(line):
    with pytest.raises(LabelError, match=r"^x\.txt:1: .*look like pixels"):
        parse_yolo(line, "x.txt")


def test_rounding_just_past_the_frame_is_accepted():
    (die,) = parse_yolo("0 1.005 -0.004 0.1 0.1\n")
    assert (die.cx, die.cy) == (1.005, -0.004)


# 3. Manifest rows.

def _manifest(tmp_path: Path, text: str, images: tuple[str, ...] = ("a.jpg", "b.jpg")) -> Path:
    for name in images:
        _image(tmp_path / name)
    _write(tmp_path / "manifest.csv", text)
    return tmp_path


def test_unquoted_values_over_several_columns_are_an_error_naming_the_line(tmp_path):
    folder = _manifest(tmp_path, "image,values\na.jpg,3\nb.jpg,2,2\n")
    with pytest.raises(LabelError, match=r"manifest\.csv:3: .*quote"):
        load_folder(folder)


def test_empty_values_are_an_error_and_no_dice_is_written_as_brackets(tmp_path):
    folder = _manifest(tmp_path, "image,values\na.jpg,\nb.jpg,3\n")
    with pytest.raises(LabelError, match=r"manifest\.csv:2: values are empty; write \[\]"):
        load_folder(folder)
    _write(tmp_path / "manifest.csv", "image,values\na.jpg,[]\nb.jpg,3\n")
    assert {i.path.name: i.values for i in load_folder(folder)} == {"a.jpg": (), "b.jpg": (3,)}
    assert parse_values("[]") == ()


def test_an_image_the_manifest_names_that_is_not_there_is_an_error(tmp_path):
    folder = _manifest(tmp_path, "image,values\na.jpg,3\nb.jpeg,3\n")
    with pytest.raises(LabelError, match=r"manifest\.csv:3: image 'b\.jpeg' is not there \(.*b\.jpeg\)"):
        load_folder(folder)


@pytest.mark.parametrize("header", [BOM + "image,values", "Image,Values", "image, values", " IMAGE ,VALUES "])
def test_manifest_columns_are_matched_trimmed_and_in_any_case(tmp_path, header):
    folder = _manifest(tmp_path, f'{header}\na.jpg, "2 2"\nb.jpg,3\n')
    assert {i.path.name: i.values for i in load_folder(folder)} == {"a.jpg": (2, 2), "b.jpg": (3,)}


def test_missing_manifest_columns_are_named_with_those_found(tmp_path):
    folder = _manifest(tmp_path, "file,faces\na.jpg,3\nb.jpg,3\n")
    with pytest.raises(LabelError, match=r"needs the columns image,values; found 'file', 'faces'"):
        load_folder(folder)


def test_manifest_flags_in_the_spellings_spreadsheets_write(tmp_path):
    names = [f"{k}.jpg" for k in range(11)]
    rows = zip(names, ["1", "1.0", "TRUE", "yes", "Y", "0", "0.0", "false", "No", "n", ""])
    folder = _manifest(tmp_path, "image,values,touching\n" + "".join(f"{n},3,{flag}\n" for n, flag in rows),
                       tuple(names))
    flags = {i.path.name: i.not_to_settle for i in load_folder(folder)}
    assert [flags[n] for n in names] == [("touching",)] * 5 + [()] * 6


def test_a_manifest_flag_that_is_neither_yes_nor_no_is_an_error(tmp_path):
    folder = _manifest(tmp_path, "image,values,leaning\na.jpg,3,0\nb.jpg,3,maybe\n")
    with pytest.raises(LabelError, match=r"manifest\.csv:3: leaning 'maybe' is neither set"):
        load_folder(folder)


# 4. Layouts and suffixes, and what was left out.

def test_ultralytics_layout_finds_labels_by_replacing_the_images_folder(tmp_path):
    for split in ("train", "val"):
        _image(tmp_path / "images" / split / f"{split}.jpg")
        _write(tmp_path / "labels" / split / f"{split}.txt", "1 0.5 0.5 0.1 0.1\n")
    assert [(i.path.name, i.values) for i in load_folder(tmp_path)] == [("train.jpg", (2,)), ("val.jpg", (2,))]


def test_jfif_and_jpe_are_images(tmp_path):
    for name in ("a.jfif", "b.jpe"):
        _image(tmp_path / name)
        _write(tmp_path / f"{Path(name).stem}.txt", "0 0.5 0.5 0.1 0.1\n")
    assert [i.path.name for i in load_folder(tmp_path)] == ["a.jfif", "b.jpe"]


def test_load_labelled_accounts_for_images_and_labels_left_out(tmp_path):
    _image(tmp_path / "images" / "a.jpg")
    _image(tmp_path / "images" / "no_label.jpg")
    _write(tmp_path / "labels" / "a.txt", "0 0.5 0.5 0.1 0.1\n")
    _write(tmp_path / "labels" / "ghost.txt", "1 0.5 0.5 0.1 0.1\n")
    _write(tmp_path / "labels" / "classes.txt", "1\n2\n3\n4\n5\n6\n")
    _write(tmp_path / "images" / "stray.txt", "2 0.5 0.5 0.1 0.1\n")  # beside the images
    _write(tmp_path / "images" / "README.txt", "Photos taken on 3 May.\n")
    _write(tmp_path / "images" / "empty.txt", "")
    _write(tmp_path / "unused" / "other.txt", "1 0.5 0.5 0.1 0.1\n")  # no image led there
    found = load_labelled(tmp_path)
    assert [i.path.name for i in found.images] == ["a.jpg"]
    assert [p.name for p in found.unlabelled] == ["no_label.jpg"]
    assert sorted(p.name for p in found.orphans) == ["ghost.txt", "stray.txt"]
    assert found.classes_from == (str((tmp_path / "labels" / "classes.txt").resolve()),)
    assert load_folder(tmp_path) == found.images


def test_images_a_manifest_does_not_list_are_accounted_for(tmp_path):
    folder = _manifest(tmp_path, "image,values\na.jpg,3\nb.jpg,4\n", ("a.jpg", "b.jpg", "c.jpg"))
    found = load_labelled(folder)
    assert [i.path.name for i in found.images] == ["a.jpg", "b.jpg"]
    assert [p.name for p in found.unlabelled] == ["c.jpg"]


# 5. Class names that name no face.

def test_a_class_that_names_no_face_is_refused_only_where_used(tmp_path):
    _split(tmp_path, "train", "5 0.5 0.5 0.1 0.1\n")
    _write(tmp_path / "data.yaml", "names: ['one', 'two', 'three', 'four', 'five', 'six', 'dice']\n")
    assert load_folder(tmp_path)[0].values == (6,)
    _write(tmp_path / "train" / "labels" / "a.txt", "5 0.5 0.5 0.1 0.1\n6 0.2 0.2 0.1 0.1\n")
    with pytest.raises(LabelError, match=r"a\.txt:2: class 6 'dice' names no die face"):
        load_folder(tmp_path)


def test_benching_the_current_folder_finds_labels_beside_it(tmp_path, monkeypatch):
    """``dicetable bench .`` inside ``images/``: ``.`` has no parent until made absolute."""
    _image(tmp_path / "images" / "a.jpg")
    _write(tmp_path / "labels" / "a.txt", "3 0.5 0.5 0.1 0.1\n")
    monkeypatch.chdir(tmp_path / "images")
    assert [(str(i.path), i.values) for i in load_folder(".")] == [("a.jpg", (4,))]


def test_a_linked_label_is_read_by_the_names_beside_the_link(tmp_path):
    """A folder of links into a pool of files is described by its own names file."""
    pool = _write(tmp_path / "pool" / "a.txt", "0 0.5 0.5 0.1 0.1\n")
    _write(tmp_path / "pool" / "classes.txt", "1\n2\n3\n4\n5\n6\n")
    _image(tmp_path / "set" / "a.jpg")
    (tmp_path / "set" / "a.txt").symlink_to(pool)
    _write(tmp_path / "set" / "classes.txt", "6\n5\n4\n3\n2\n1\n")
    found = load_labelled(tmp_path / "set")
    assert found.images[0].values == (6,) and found.orphans == ()


def test_class_names_are_written_only_where_none_name_the_classes_otherwise(tmp_path):
    """journal frames --yolo, the scene writer and the alterer write into folders that may hold
    another tool's labels: rewriting their names would change every face there."""
    from vision.benchtool.labels import write_class_names

    ours = tmp_path / "ours"
    ours.mkdir()
    written = write_class_names(ours)
    assert written.read_text().split() == ["1", "2", "3", "4", "5", "6"]
    assert write_class_names(ours) == written  # again: the same names, left as they are
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (theirs / "data.yaml").write_text("names: ['five', 'four', 'one', 'six', 'three', 'two']\n")
    with pytest.raises(LabelError, match="names the classes otherwise"):
        write_class_names(theirs)
    assert not (theirs / "classes.txt").exists()


def test_class_names_are_not_written_under_a_datasets_own(tmp_path):
    """Class names are not written under a dataset's own names for the labels already there:
    Ultralytics keeps OUT/data.yaml above OUT/labels, and a classes.txt written into OUT/labels
    would take its place."""
    from vision.benchtool.labels import write_class_names

    (tmp_path / "data.yaml").write_text("names: ['six', 'five', 'four', 'three', 'two', 'one']\n")
    labels = tmp_path / "labels"
    labels.mkdir()
    (labels / "old.txt").write_text("0 0.5 0.5 0.1 0.1\n")
    with pytest.raises(LabelError, match="names the classes otherwise"):
        write_class_names(labels)
    assert not (labels / "classes.txt").exists()
    fresh = tmp_path / "fresh"  # no labels yet: ours will be the only ones, named by our own file
    fresh.mkdir()
    assert write_class_names(fresh).read_text().split() == ["1", "2", "3", "4", "5", "6"]
