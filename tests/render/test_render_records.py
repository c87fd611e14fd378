"""Frames and crops folders: what the bench and the reader's training read, and how a stopped
batch goes on (no Blender needed: records are written from measured facts)."""
from __future__ import annotations

import csv
import json
from dataclasses import replace

import cv2
import numpy as np
import pytest

from training.render.records import CROPS_HEADER, CropsFolder, FramesFolder, image_record, manifest_row, yolo_text
from training.render.rules import DieFacts
from vision.benchtool.labels import load_labelled

DIE = DieFacts(value=5, box=(100.0, 50.0, 40.0, 30.0), tilt_deg=2.0, on_rail=False, on_die=False, touching=False,
               visible=0.95, lamp_on_top=False, top_px=25.0, in_frame=True)


def _jpeg(w=64, h=48) -> bytes:
    return cv2.imencode(".jpg", np.full((h, w, 3), 90, np.uint8))[1].tobytes()


def test_a_record_carries_every_field_of_the_contract():
    rec = image_record("a.jpg", "rail", (640, 480), 7, [DIE, replace(DIE, value=2, box=(300.0, 50.0, 40.0, 30.0))])
    assert rec["image"] == "a.jpg" and rec["kind"] == "rail" and rec["size"] == [640, 480] and rec["seed"] == 7
    assert rec["settleable"] is True
    keys = {"value", "box", "tilt_deg", "on_rail", "on_die", "touching", "visible", "lamp_on_top", "top_px",
            "in_frame", "eligible"}
    assert all(set(d) == keys for d in rec["dice"])
    assert rec["dice"][0]["eligible"] is True


def test_yolo_lines_number_class_as_face_minus_one_normalised():
    rec = image_record("a.jpg", "rail", (640, 480), 1, [DIE])
    cls, cx, cy, w, h = yolo_text(rec).split()
    assert cls == "4"
    assert float(cx) == pytest.approx(120 / 640, abs=1e-6) and float(cy) == pytest.approx(65 / 480, abs=1e-6)
    assert float(w) == pytest.approx(40 / 640, abs=1e-6) and float(h) == pytest.approx(30 / 480, abs=1e-6)


def test_hidden_dice_are_left_out_of_the_labels_and_cocked_or_touching_rolls_are_flagged():
    hidden = replace(DIE, value=1, visible=0.05)
    rec = image_record("a.jpg", "cage", (640, 480), 1, [DIE, hidden, replace(DIE, value=6, tilt_deg=30.0)])
    assert yolo_text(rec).count("\n") == 2
    assert manifest_row(rec) == ["images/a.jpg", "5 6", "0", "1"]
    on_die = image_record("b.jpg", "cage", (640, 480), 1, [replace(DIE, on_die=True, touching=True)])
    assert manifest_row(on_die)[2:] == ["1", "1"]
    empty = image_record("c.jpg", "rail", (640, 480), 1, [hidden])
    assert manifest_row(empty)[1] == "[]"


def test_a_frames_folder_is_read_by_the_bench_with_its_classes(tmp_path):
    folder = FramesFolder(tmp_path)
    folder.add(image_record("r1.jpg", "rail", (64, 48), 1, [replace(DIE, box=(10.0, 10.0, 12.0, 12.0))]), _jpeg())
    folder.add(image_record("r2.jpg", "rail", (64, 48), 2, [replace(DIE, value=3, box=(30.0, 20.0, 10.0, 10.0))]),
               _jpeg())
    assert (tmp_path / "labels" / "classes.txt").read_text().split() == ["1", "2", "3", "4", "5", "6"]
    read = load_labelled(tmp_path)
    assert [li.values for li in read.images] == [(5,), (3,)]
    assert all(li.positional for li in read.images)
    with open(tmp_path / "manifest.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["image"] for r in rows] == ["images/r1.jpg", "images/r2.jpg"]
    assert [json.loads(line)["image"] for line in (tmp_path / "meta.jsonl").read_text().splitlines()] == \
        ["r1.jpg", "r2.jpg"]


def test_a_frames_folder_goes_on_after_a_stop_in_the_middle_of_a_line(tmp_path):
    folder = FramesFolder(tmp_path)
    folder.add(image_record("r1.jpg", "rail", (64, 48), 1, [DIE]), _jpeg())
    with open(tmp_path / "meta.jsonl", "a") as fh:
        fh.write('{"image": "r2.jpg", "ki')  # the stop came while r2's line was written
    (tmp_path / "images" / "r2.jpg").write_bytes(_jpeg())
    again = FramesFolder(tmp_path)
    assert again.done("r1.jpg") and not again.done("r2.jpg")
    again.add(image_record("r2.jpg", "rail", (64, 48), 2, [DIE]), _jpeg())
    lines = (tmp_path / "meta.jsonl").read_text().splitlines()
    assert [json.loads(line)["image"] for line in lines] == ["r1.jpg", "r2.jpg"]


def test_two_batches_filling_one_folder_keep_each_other_s_rows(tmp_path):
    """Two batches of other seeds writing into one folder side by side: each rewrites the manifest
    from every line of ``meta.jsonl``, not only its own."""
    first, second = FramesFolder(tmp_path), FramesFolder(tmp_path)
    first.add(image_record("r1.jpg", "rail", (640, 480), 1, [DIE]), _jpeg())
    second.add(image_record("r2.jpg", "rail", (640, 480), 2, [DIE]), _jpeg())
    first.add(image_record("r3.jpg", "rail", (640, 480), 3, [DIE]), _jpeg())
    with open(tmp_path / "manifest.csv", newline="") as fh:
        assert [r["image"] for r in csv.DictReader(fh)] == ["images/r1.jpg", "images/r2.jpg", "images/r3.jpg"]
    assert first.done("r2.jpg") and [li.values for li in load_labelled(tmp_path).images] == [(5,)] * 3


def test_an_image_whose_picture_is_gone_is_not_done(tmp_path):
    folder = FramesFolder(tmp_path)
    folder.add(image_record("r1.jpg", "rail", (64, 48), 1, [DIE]), _jpeg())
    (tmp_path / "images" / "r1.jpg").unlink()
    assert not FramesFolder(tmp_path).done("r1.jpg")


def test_a_crops_folder_has_the_contract_header_and_resumes(tmp_path):
    folder = CropsFolder(tmp_path)
    png = cv2.imencode(".png", np.zeros((96, 96, 3), np.uint8))[1].tobytes()
    folder.add("c1.png", png, 4, 30.5, 1.25, 0.9, "casino-red-polished", 11, {"value": 4})
    with open(tmp_path / "crops.csv", "a") as fh:
        fh.write("crops/c2.png,3,2")  # cut short by a stop
    again = CropsFolder(tmp_path)
    assert again.done("c1.png") and not again.done("c2.png")
    again.add("c2.png", png, 3, 25.0, 0.0, 1.0, "opaque-white-glossy", 12, {"value": 3})
    with open(tmp_path / "crops.csv", newline="") as fh:
        reader = csv.DictReader(fh)
        rows = list(reader)
    assert reader.fieldnames == CROPS_HEADER
    assert [(r["image"], r["value"], r["seed"]) for r in rows] == [("crops/c1.png", "4", "11"), ("crops/c2.png", "3", "12")]
    assert [json.loads(line)["seed"] for line in (tmp_path / "crops_meta.jsonl").read_text().splitlines()] == [11, 12]


def test_a_crop_whose_picture_was_lost_gets_it_back_without_a_second_row(tmp_path):
    folder = CropsFolder(tmp_path)
    png = cv2.imencode(".png", np.zeros((96, 96, 3), np.uint8))[1].tobytes()
    folder.add("c1.png", png, 4, 30.5, 1.25, 0.9, "casino-red-polished", 11, {"value": 4})
    (tmp_path / "crops" / "c1.png").unlink()
    again = CropsFolder(tmp_path)
    assert not again.done("c1.png")
    again.add("c1.png", png, 4, 30.5, 1.25, 0.9, "casino-red-polished", 11, {"value": 4})
    assert again.done("c1.png")
    assert (tmp_path / "crops.csv").read_text().count("crops/c1.png") == 1
    assert len((tmp_path / "crops_meta.jsonl").read_text().splitlines()) == 1
