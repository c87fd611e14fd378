"""The scene generator draws what its labels say."""
from __future__ import annotations

import csv
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.scenes import Camera, render_scene
from vision.benchtool.dataset import main as dataset_main, write_dataset
from vision.scenes.die import draw_die, orientation, top_value
from vision.scenes.render import random_look


def white_pips(image: np.ndarray, box: tuple[int, int, int, int]) -> int:
    x, y, w, h = box
    hsv = cv2.cvtColor(image[y : y + h, x : x + w], cv2.COLOR_BGR2HSV)
    # White paint: unsaturated and bright (the ghost pips seen through the body are pink).
    white = ((hsv[..., 1] < 70) & (hsv[..., 2] > 90)).astype(np.uint8)
    n, _, stats, _ = cv2.connectedComponentsWithStats(white)
    # Round spots smaller than a third of the die: not a cage wire or a printed line crossing the box.
    small = 0.3 * min(w, h)
    return int(sum(
        1 for _, _, sw, sh, area in stats[1:]
        if area >= 6 and sw <= small and sh <= small and max(sw, sh) <= 2 * min(sw, sh)
    ))


@pytest.mark.parametrize("value", range(1, 7))
@pytest.mark.parametrize("yaw, gain, size", [(0.0, 1.0, 48), (0.5, 0.75, 40), (1.2, 1.1, 56), (2.9, 0.85, 34)])
def test_each_die_shows_as_many_white_pips_as_its_value(value, yaw, gain, size):
    canvas = np.zeros((120, 120, 3), np.uint8)
    canvas[:] = (50, 110, 25)
    light = np.array([0.2, -0.3, 0.93])
    box = draw_die(canvas, (60, 60), size, orientation(value, yaw), random_look(np.random.default_rng(value)), light, gain)
    assert white_pips(canvas, box) == value


@pytest.mark.parametrize("setting", ["rail", "cage"])
def test_scene_labels_give_the_values_asked_for_with_boxes_in_the_frame(setting):
    values = (3, 1, 6) if setting == "cage" else (5, 2)
    image, label = render_scene(4, values, setting=setting)
    assert label.values == values and label.setting == setting
    h, w = image.shape[:2]
    for die in label.dice:
        x, y, bw, bh = die.box
        assert 0 <= x and 0 <= y and x + bw <= w and y + bh <= h and bw > 20 and bh > 20


@pytest.mark.parametrize("tilt", [0.0, 0.3])
def test_box_holds_a_red_die_on_green_felt(tilt):
    image, label = render_scene(3, (4, 4), camera=Camera(noise=0), glare=0.0, tilt=tilt)
    assert len(label.dice) == 2
    hsv = cv2.cvtColor(image, cv2.COLOR_BGR2HSV)
    for die in label.dice:
        x, y, w, h = die.box
        centre = hsv[y + h // 2 - 3 : y + h // 2 + 3, x + w // 2 - 3 : x + w // 2 + 3]  # a four has no centre pip
        assert (np.minimum(centre[..., 0], 180 - centre[..., 0]) < 12).mean() > 0.8
    felt = hsv[-20:, :20]
    assert 40 < np.median(felt[..., 0]) < 90


def test_touching_and_leaning_dice_are_labelled():
    _, touching = render_scene(1, (2, 3), touching=True)
    assert touching.touching
    _, apart = render_scene(1, (2, 3))
    assert not apart.touching
    _, leaning = render_scene(2, (5, 1), leaning=0)
    assert [d.leaning for d in leaning.dice] == [True, False]
    lean, flat = leaning.dice
    assert lean.box[3] != lean.box[2] or lean.box[2] > flat.box[2]  # a side face shows


@pytest.mark.parametrize("value", range(1, 7))
def test_orientation_puts_the_value_on_top_whatever_the_turn_and_tilt(value):
    for yaw in (0.0, 0.7, 2.0):
        for tilt in (0.0, 0.4):
            assert top_value(orientation(value, yaw, tilt, 1.2)) == value


def test_dataset_writer_makes_yolo_labels_and_a_manifest(tmp_path: Path):
    out = write_dataset(tmp_path / "ds", 4, seed=1, size=(320, 240))
    assert (out / "labels_yolo" / "classes.txt").read_text().split() == ["1", "2", "3", "4", "5", "6"]
    with open(out / "manifest.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 4
    for row in rows:
        image = cv2.imread(str(out / row["image"]))
        assert image is not None and image.shape == (240, 320, 3)
        lines = (out / "labels_yolo" / (Path(row["image"]).stem + ".txt")).read_text().split()
        classes = [int(c) for c in lines[0::5]]
        assert sorted(c + 1 for c in classes) == sorted(int(v) for v in row["values"].split())
        coords = np.array(lines, float).reshape(-1, 5)[:, 1:]
        assert ((coords > 0) & (coords <= 1)).all()


def test_the_dataset_command_draws_frames_of_the_size_asked_and_refuses_a_bad_size(tmp_path: Path):
    assert dataset_main([str(tmp_path / "big"), "--count", "1", "--seed", "2", "--size", "960x720"]) == 0
    (image,) = (tmp_path / "big" / "images").iterdir()
    big = cv2.imread(str(image))
    assert big is not None and big.shape == (720, 960, 3)
    for bad in ("960", "960x", "32x32", "axb"):
        with pytest.raises(SystemExit):
            dataset_main([str(tmp_path / "bad"), "--size", bad])


def test_same_seed_same_scene():
    a, la = render_scene(11)
    b, lb = render_scene(11)
    assert np.array_equal(a, b) and la == lb
