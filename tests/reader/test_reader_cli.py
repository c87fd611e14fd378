"""`dicetable read` and `dicetable bench` as a user runs them: JSON contract, bad files, labelled folders."""
from __future__ import annotations

import json

import cv2
import pytest

from controller.cli import main


@pytest.fixture
def images(tmp_path, draw_table):
    good = tmp_path / "two.png"
    cv2.imwrite(str(good), draw_table([(200, 240, 3), (420, 240, 5)]))
    jpg = tmp_path / "full.jpg"
    cv2.imwrite(str(jpg), draw_table([(200, 240, 2), (420, 240, 6)]))
    truncated = tmp_path / "truncated.jpg"
    truncated.write_bytes(jpg.read_bytes()[:300])
    text = tmp_path / "notes.jpg"
    text.write_text("this is not a picture\n")
    empty = tmp_path / "empty.png"
    empty.write_bytes(b"")
    return {"good": good, "truncated": truncated, "text": text, "empty": empty, "missing": tmp_path / "nope.jpg"}


def run_read(capsys, *argv):
    status = main(["read", *argv])
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    return status, lines


def test_read_json_contract(capsys, images):
    status, lines = run_read(capsys, "--game", "craps", "--json", str(images["good"]))
    assert status == 0
    (line,) = lines
    assert {"image", "status", "dice", "ms"} <= set(line)
    assert set(line) <= {"image", "status", "dice", "ms", "reason", "model"}
    assert line["image"] == str(images["good"])
    assert line["status"] in ("ok", "uncertain", "no_read")
    assert isinstance(line["ms"], float) and line["ms"] > 0
    for die in line["dice"]:
        assert set(die) == {"value", "confidence", "box"}
        assert 1 <= die["value"] <= 6 and 0 <= die["confidence"] <= 1
        assert len(die["box"]) == 4 and all(isinstance(v, int) for v in die["box"])


def test_read_prints_a_short_line_by_default_and_its_help_says_so(capsys, images):
    from controller.cli.commands import read

    assert main(["read", "--game", "craps", str(images["good"])]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    assert line.startswith(f"{images['good']}: ") and not line.startswith("{")
    assert "--json" in read.HELP  # the summary `dicetable --help` lists must not promise JSON by default


def test_bad_files_give_no_read_lines_and_the_command_goes_on(capsys, images):
    order = ["truncated", "text", "empty", "missing", "good"]
    status, lines = run_read(capsys, "--expect", "2", "--json", *(str(images[k]) for k in order))
    assert status == 1  # some files were not images
    assert [line["image"] for line in lines] == [str(images[k]) for k in order]
    for line in lines[:4]:
        assert line["status"] == "no_read" and line["dice"] == [] and line["reason"]
    assert lines[4]["status"] != "no_read" or "image" not in lines[4]["reason"]


def test_read_and_bench_take_a_model_folder_and_name_it(capsys, images, tmp_path):
    import shutil

    from vision.reader.model_dir import BUNDLED_MODEL, MODEL_FILES, model_digest

    folder = tmp_path / "table-model"
    folder.mkdir()
    for name in MODEL_FILES:
        shutil.copy(BUNDLED_MODEL / name, folder / name)
    status, (line,) = run_read(capsys, "--game", "craps", "--json", "--model", str(folder), str(images["good"]))
    assert status == 0 and line["model"] == model_digest(folder) and line["dice"]
    (folder / "dice_detector.onnx").unlink()
    assert main(["read", "--model", str(folder), str(images["good"])]) == 2
    assert "dice_detector.onnx: missing" in capsys.readouterr().err
    assert main(["bench", str(tmp_path), "--model", str(folder)]) == 2


def test_game_sets_the_dice_count(capsys, images):
    _, (line,) = run_read(capsys, "--game", "hazard", "--json", str(images["good"]))
    assert line["status"] == "no_read" and "expected 3" in line["reason"]


def test_game_and_expect_are_exclusive(images):
    with pytest.raises(SystemExit):
        main(["read", "--game", "craps", "--expect", "2", str(images["good"])])


def _labelled_folder(root, draw_table, manifest: bool):
    root.mkdir()
    scenes = [[(200, 240, 1), (420, 240, 4)], [(150, 150, 6), (450, 300, 2)], [(320, 240, 5)]]
    rows = ["image,values"]
    for i, dice in enumerate(scenes):
        name = f"roll_{i}.png"
        drawn = [(x, y, 3 if i == 2 else v) for x, y, v in dice]  # roll_2's label is wrong: a sure miss
        cv2.imwrite(str(root / name), draw_table(drawn, seed=i))
        if manifest:
            rows.append(f'{name},"{" ".join(str(v) for _, _, v in dice)}"')
        else:
            lines = [f"{v - 1} {x / 640:.4f} {y / 480:.4f} {40 / 640:.4f} {40 / 480:.4f}" for x, y, v in dice]
            (root / f"roll_{i}.txt").write_text("\n".join(lines) + "\n")
    (root / "broken.png").write_bytes(b"\x89PNG not really")
    if manifest:
        rows.append("broken.png,3 3")
        (root / "manifest.csv").write_text("\n".join(rows) + "\n")
    else:
        (root / "broken.txt").write_text("2 0.5 0.5 0.06 0.08\n2 0.2 0.2 0.06 0.08\n")


@pytest.mark.parametrize("manifest", [False, True], ids=["yolo", "manifest"])
def test_bench_on_a_labelled_folder(tmp_path, capsys, draw_table, manifest):
    folder = tmp_path / "set"
    _labelled_folder(folder, draw_table, manifest)
    out = tmp_path / "report"
    status = main(["bench", str(folder), "--report", str(out), "--json"])
    captured = capsys.readouterr()
    assert status == 0
    summary = json.loads(captured.out)
    assert summary["images"] == 4 and summary["dice"] == 7
    assert summary["no_read_rate"] >= 0.25  # the broken file at least
    for key in ("per_die_accuracy", "per_roll_accuracy", "silent_misread_images", "silent_misread_dice",
                "silent_misread_die_rate", "uncertain_rate", "ms_median", "ms_p95"):
        assert key in summary
    # 4 dice can be right: roll_2 is mislabelled and the broken file's 2 dice are missed
    assert 3 / 7 <= summary["per_die_accuracy"] <= 4 / 7 + 1e-9
    assert "4/4" not in captured.err  # no progress bar in a captured (not a terminal) stream
    assert summary["machine"]["opencv"] == cv2.__version__ and summary["machine"]["opencv_threads"] == 1
    assert summary["machine"]["probe_samples"] == 3  # the probe ran after each of the 3 decodable frames
    page = (out / "index.html").read_text()
    assert "broken.png" in page and "roll_2" in page  # every miss is on the contact sheet
    assert "fixed blur" in page  # and the page says how fast the machine was
    assert any(p.name.endswith("roll_2.jpg") for p in (out / "misses").iterdir())


def test_bench_text_report_and_bad_folder(tmp_path, capsys, draw_table):
    folder = tmp_path / "set"
    _labelled_folder(folder, draw_table, manifest=False)
    assert main(["bench", str(folder), "--report", str(tmp_path / "r")]) == 0
    out = capsys.readouterr().out
    assert "per-die accuracy" in out and "latency median" in out
    assert "measured on" in out and "fixed blur" in out
    assert main(["bench", str(tmp_path / "absent")]) == 2


def test_bench_says_why_a_listed_image_was_not_read(tmp_path, capsys, draw_table):
    """A file that is there but empty or not an image is scored as the reader's no_read, with the
    reason `dicetable read` gives; a row naming no file is the labels' mistake, refused by line."""
    folder = tmp_path / "set"
    _labelled_folder(folder, draw_table, manifest=True)
    (folder / "empty.png").write_bytes(b"")
    with (folder / "manifest.csv").open("a") as manifest:
        manifest.write('empty.png,"1 2"\n')
    assert main(["bench", str(folder), "--report", str(tmp_path / "r"), "--json"]) == 0
    reasons = json.loads(capsys.readouterr().out)["reasons"]
    assert reasons.get("empty file") == 1 and reasons.get("not a readable image") == 1  # broken.png
    with (folder / "manifest.csv").open("a") as manifest:
        manifest.write('gone.png,"1 2"\n')
    assert main(["bench", str(folder), "--report", str(tmp_path / "r"), "--json"]) == 2
    assert "manifest.csv:7: image 'gone.png' is not there" in capsys.readouterr().err


def test_bench_says_how_it_read_the_classes_and_what_it_left_out(tmp_path, capsys, draw_table):
    """Class names read wrongly turn right reads into silent misreads: the figures say which were used."""
    folder = tmp_path / "export" / "test"
    folder.parent.mkdir()
    _labelled_folder(folder, draw_table, manifest=False)
    (folder / "broken.png").unlink()
    (tmp_path / "export" / "data.yaml").write_text("names: ['1', '2', '3', '4', '5', '6']\n")
    (folder / "notes.jpg").write_bytes(b"")
    assert main(["bench", str(folder), "--report", str(tmp_path / "r"), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["classes"] == [str((tmp_path / "export" / "data.yaml").resolve())]
    assert summary["unlabelled_images"] == 1 and summary["orphan_labels"] == 1  # broken.txt lost its image
    assert main(["bench", str(folder), "--report", str(tmp_path / "r")]) == 0
    out = capsys.readouterr().out
    assert "classes: " in out and "1 image files without a label, not scored: notes.jpg" in out
    assert "1 label files without an image: broken.txt" in out
    assert "notes.jpg" in (tmp_path / "r" / "index.html").read_text()


@pytest.mark.parametrize("limit", ["0", "-3"])
def test_bench_refuses_a_limit_under_one(tmp_path, capsys, limit):
    """--limit 0 read every image and -3 all but the last three: a figure over the wrong images."""
    with pytest.raises(SystemExit) as done:
        main(["bench", str(tmp_path), f"--limit={limit}"])
    assert done.value.code == 2 and "must be at least 1" in capsys.readouterr().err


def test_bench_limit_reads_the_first_images_only(tmp_path, capsys, draw_table):
    folder = tmp_path / "set"
    _labelled_folder(folder, draw_table, manifest=True)
    assert main(["bench", str(folder), "--report", str(tmp_path / "r"), "--json", "--limit", "2"]) == 0
    assert json.loads(capsys.readouterr().out)["images"] == 2


def test_bench_refuses_a_report_folder_it_cannot_write_before_reading_anything(tmp_path, capsys, draw_table, monkeypatch):
    """A finished run whose report could not be written lost its figures to a traceback."""
    folder = tmp_path / "set"
    _labelled_folder(folder, draw_table, manifest=False)
    taken = tmp_path / "afile"
    taken.write_text("")
    read = []
    monkeypatch.setattr("vision.reader.read_dice", lambda *a, **k: read.append(1))
    assert main(["bench", str(folder), "--report", str(taken)]) == 2
    assert "cannot write the report to" in capsys.readouterr().err and read == []


def test_bench_report_reused_keeps_only_this_runs_misses_and_links_odd_names(tmp_path, capsys, draw_table):
    folder = tmp_path / "set"
    _labelled_folder(folder, draw_table, manifest=False)
    (folder / "roll_2.png").rename(folder / "roll #2.png")
    (folder / "roll_2.txt").rename(folder / "roll #2.txt")
    out = tmp_path / "report"
    (out / "misses").mkdir(parents=True)
    (out / "misses" / "0007_old_run.jpg").write_bytes(b"")
    assert main(["bench", str(folder), "--report", str(out)]) == 0
    assert not (out / "misses" / "0007_old_run.jpg").exists()
    page = (out / "index.html").read_text()
    assert "roll%20%232.jpg" in page and 'href="misses/0' in page and "roll #2.jpg\"" not in page
    assert any(p.name.endswith("roll #2.jpg") for p in (out / "misses").iterdir())


def test_bench_of_the_current_folder_is_titled_by_its_name(tmp_path, capsys, draw_table, monkeypatch):
    folder = tmp_path / "set"
    _labelled_folder(folder, draw_table, manifest=False)
    monkeypatch.chdir(folder)
    assert main(["bench", "."]) == 0
    assert capsys.readouterr().out.startswith("set (all, count given)")
    assert (folder / "bench-report" / "set-all" / "index.html").is_file()


def test_bench_says_when_the_split_holds_none_of_the_labelled_images(tmp_path, capsys, draw_table):
    folder = tmp_path / "set"
    _labelled_folder(folder, draw_table, manifest=False)
    from vision.benchtool.labels import load_folder
    from vision.benchtool.split import select

    split = "heldout" if not select(load_folder(folder), "heldout") else "tune"
    assert main(["bench", str(folder), "--split", split]) == 2
    assert f"none of its 4 labelled images is in the {split} split" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["read", "bench"])
@pytest.mark.parametrize("size", ["0", "-5", "nan", "inf"])
def test_a_die_size_that_is_no_size_is_refused(capsys, command, size):
    """Refused at once: otherwise every read would be a no_read ("calibration: die size ..."), which
    looks like the reader failing."""
    with pytest.raises(SystemExit) as done:
        main([command, f"--die-size={size}", "x"])
    assert done.value.code == 2 and "must be a number above 0" in capsys.readouterr().err
