"""Labelled photos altered for the bench (vision.benchtool.altered): the boxes move with the dice."""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.benchtool.labels import LabelledDie, load_folder
from vision.benchtool.altered import CLOSE_UP_FRAME, Alteration, close_ups, main, reorient, rescale, retouch, stretch


def photo_with_squares(boxes: list[tuple[int, int, int, int]], size=(480, 640)) -> np.ndarray:
    img = np.full((*size, 3), 90, np.uint8)
    for x, y, w, h in boxes:
        img[y:y + h, x:x + w] = 250
    return img


def as_label(box, value, size=(480, 640)) -> LabelledDie:
    x, y, w, h = box
    return LabelledDie(value, (x + w / 2) / size[1], (y + h / 2) / size[0], w / size[1], h / size[0])


def bright_box(img: np.ndarray) -> tuple[float, float, float, float]:
    ys, xs = np.nonzero(img[:, :, 0] > 170)
    return xs.min(), ys.min(), xs.max() + 1 - xs.min(), ys.max() + 1 - ys.min()


@pytest.mark.parametrize("factor", [0.5, 0.7, 1.6, 2.0])
def test_the_labels_follow_the_dice(factor):
    boxes = [(250, 200, 40, 40)]
    out, dice = rescale(photo_with_squares(boxes), (as_label(boxes[0], 4),), factor)
    assert out.shape == (480, 640, 3)
    (d,) = dice
    x, y, w, h = bright_box(out)
    assert d.value == 4
    assert d.cx * 640 == pytest.approx(x + w / 2, abs=1.5)
    assert d.cy * 480 == pytest.approx(y + h / 2, abs=1.5)
    assert d.w * 640 == pytest.approx(40 * factor, abs=1.5) and w == pytest.approx(40 * factor, abs=2)


@pytest.mark.parametrize("turn", [0, 90, 180, 270])
@pytest.mark.parametrize("mirror", [False, True])
def test_the_labels_turn_with_the_dice(turn, mirror):
    box = (250, 100, 60, 30)  # not square and off centre, so every turn and mirror moves it differently
    out, (d,) = reorient(photo_with_squares([box]), (as_label(box, 2),), turn, mirror)
    height, width = out.shape[:2]
    assert (width, height) == ((640, 480) if turn in (0, 180) else (480, 640))
    x, y, w, h = bright_box(out)
    assert d.value == 2
    assert (d.cx * width, d.cy * height) == pytest.approx((x + w / 2, y + h / 2), abs=0.01)
    assert (d.w * width, d.h * height) == pytest.approx((w, h), abs=0.01)


def test_a_quarter_turn_is_clockwise():
    box = (0, 0, 40, 40)  # top left goes to top right
    out, (d,) = reorient(photo_with_squares([box]), (as_label(box, 6),), 90, False)
    assert bright_box(out)[:2] == (440, 0) and d.cx > 0.5 and d.cy < 0.5


@pytest.mark.parametrize("factor", [0.75, 1.0, 4 / 3])
def test_a_stretched_photo_keeps_its_labels_and_stretches_its_dice(factor):
    box = (250, 100, 60, 30)
    label = as_label(box, 3)
    out = stretch(photo_with_squares([box]), factor)
    assert out.shape == (480, round(640 * factor), 3)
    x, y, w, h = bright_box(out)
    assert w == pytest.approx(60 * factor, abs=1.5) and h == 30
    width = out.shape[1]  # a label in fractions of the frame still fits the die
    assert (label.cx * width, label.w * width) == pytest.approx((x + w / 2, w), abs=1.5)


def test_an_enlarged_photo_that_would_cut_a_die_is_left_out():
    boxes = [(10, 10, 40, 40), (590, 430, 40, 40)]
    labels = (as_label(boxes[0], 1), as_label(boxes[1], 6))
    assert rescale(photo_with_squares(boxes), labels, 2.0) is None
    assert rescale(photo_with_squares(boxes), labels, 0.5) is not None


def labelled_folder(root: Path, image_name: str, boxes: list[tuple[int, int, int, int]], values: list[int]) -> Path:
    """A folder in the public sets' layout holding one photo of squares, labelled with ``values``."""
    (root / "images").mkdir(parents=True)
    (root / "labels_yolo").mkdir()
    cv2.imwrite(str(root / "images" / image_name), photo_with_squares(boxes))
    (root / "labels_yolo" / f"{Path(image_name).stem}.txt").write_text("".join(
        f"{v - 1} {d.cx} {d.cy} {d.w} {d.h}\n" for v, d in ((v, as_label(b, v)) for b, v in zip(boxes, values))))
    return root


def test_the_command_writes_a_folder_the_bench_reads(tmp_path: Path):
    src = labelled_folder(tmp_path / "src", "a_1.jpg", [(250, 200, 40, 40), (400, 260, 40, 40)], [2, 5])
    (src / "images" / "broken_1.jpg").write_bytes(b"not a picture")
    (src / "labels_yolo" / "broken_1.txt").write_text("0 0.5 0.5 0.1 0.1\n")
    assert main([str(src), str(tmp_path / "out"), "--factor", "0.5", "--noise", "3"]) == 0
    (item,) = load_folder(tmp_path / "out")
    assert item.values == (2, 5)
    assert item.classes_from.endswith("out/labels_yolo/classes.txt")  # the folder names its own classes
    assert item.dice[0].w == pytest.approx(40 / 640 * 0.5, abs=1e-4)
    assert main([str(src), str(tmp_path / "turned"), "--turn", "90", "--grey"]) == 0
    (item,) = load_folder(tmp_path / "turned")
    assert item.values == (2, 5) and _shape(item.path) == (640, 480, 3)
    assert main([str(src), str(tmp_path / "square"), "--stretch", "0.75"]) == 0  # 640x480 made 480x480
    (item,) = load_folder(tmp_path / "square")
    assert item.values == (2, 5) and _shape(item.path) == (480, 480, 3)
    assert item.dice[0].w == pytest.approx(40 / 640, abs=1e-4)


def edges(img: np.ndarray) -> float:
    return float(np.abs(np.diff(img.astype(int), axis=0)).mean())


def test_the_camera_alterations_go_the_way_they_say():
    img = np.tile(np.linspace(40, 220, 64, dtype=np.uint8), (48, 1))[:, :, None].repeat(3, axis=2)
    img[::4, ::4] = 255  # fine detail for the blur to soften
    rng = np.random.default_rng(0)
    assert retouch(img, Alteration(), rng) is img
    assert retouch(img, Alteration(gamma=1.6), rng).mean() < img.mean() < retouch(img, Alteration(gamma=0.6), rng).mean()
    assert edges(retouch(img, Alteration(blur=1.5), rng)) < edges(img)
    noisy = retouch(img, Alteration(noise=10), rng)
    assert noisy.shape == img.shape and 5 < np.abs(noisy.astype(int) - img).mean() < 12
    squeezed = retouch(img, Alteration(jpeg=30), rng)  # lossy: the fine detail is changed, the picture kept
    assert squeezed.shape == img.shape and 0 < np.abs(squeezed.astype(int) - img).mean() < 15
    red = np.zeros((8, 8, 3), np.uint8)
    red[:, :, 2] = 200  # BGR
    grey = retouch(red, Alteration(grey=True), rng)
    assert grey.shape == red.shape and (grey == grey[:, :, :1]).all() and 0 < grey[0, 0, 0] < 200
    assert (retouch(red, Alteration(swap_channels=True), rng)[0, 0] == (200, 0, 0)).all()  # red die turned blue


def test_the_command_refuses_alterations_that_make_no_sense(tmp_path: Path):
    for bad in (["--factor", "0"], ["--gamma", "-1"], ["--jpeg", "0"], ["--blur", "-2"], ["--close-up", "0"],
                ["--close-up", "1.5"], ["--close-up", "0.5", "--factor", "2"], ["--turn", "45"],
                ["--stretch", "0"]):
        with pytest.raises(SystemExit):
            main([str(tmp_path), str(tmp_path / "out"), *bad])


@pytest.mark.parametrize("fill", [0.3, 0.6])
def test_a_close_up_is_the_die_alone_filling_its_share_of_the_frame(fill):
    boxes = [(250, 200, 40, 40)]
    ((out, d),) = close_ups(photo_with_squares(boxes), (as_label(boxes[0], 3),), fill)
    assert out.shape == (CLOSE_UP_FRAME[1], CLOSE_UP_FRAME[0], 3)
    x, y, w, h = bright_box(out)
    assert d.value == 3
    assert h == pytest.approx(fill * CLOSE_UP_FRAME[1], abs=2)
    assert d.h * CLOSE_UP_FRAME[1] == pytest.approx(h, abs=1.5) and d.w * CLOSE_UP_FRAME[0] == pytest.approx(w, abs=1.5)
    assert d.cx * CLOSE_UP_FRAME[0] == pytest.approx(x + w / 2, abs=1.5)
    assert d.cy * CLOSE_UP_FRAME[1] == pytest.approx(y + h / 2, abs=1.5)


def test_a_die_near_the_edge_is_framed_inside_the_photo():
    boxes = [(5, 5, 40, 40)]
    ((out, d),) = close_ups(photo_with_squares(boxes), (as_label(boxes[0], 6),), 0.5)
    x, y, w, h = bright_box(out)
    k = CLOSE_UP_FRAME[1] * 0.5 / 40
    assert (x, y) == (pytest.approx(5 * k, abs=3), pytest.approx(5 * k, abs=3))  # the frame moved inward: 5 px of floor left
    assert d.cx * CLOSE_UP_FRAME[0] == pytest.approx(x + w / 2, abs=1.5)


def test_only_dice_that_stand_alone_in_a_frame_that_fits_are_cut_out():
    boxes = [(100, 200, 40, 40), (170, 200, 40, 40), (500, 100, 40, 40)]
    labels = tuple(as_label(b, v) for b, v in zip(boxes, (1, 2, 4)))
    assert [d.value for _, d in close_ups(photo_with_squares(boxes), labels, 0.3)] == [4]  # 1 and 2 share a frame
    assert close_ups(photo_with_squares(boxes), labels, 0.05) == []  # a frame 800 px high does not fit


def test_the_command_writes_one_close_up_per_lone_die(tmp_path: Path):
    src = labelled_folder(tmp_path / "src", "a_1.png", [(100, 100, 40, 40), (450, 300, 40, 40)], [2, 5])
    assert main([str(src), str(tmp_path / "out"), "--close-up", "0.4"]) == 0
    items = sorted(load_folder(tmp_path / "out"), key=lambda i: i.path.name)
    assert [(i.path.name, i.values) for i in items] == [("a_1_0.png", (2,)), ("a_1_1.png", (5,))]


def _shape(path) -> tuple[int, ...]:
    image = cv2.imread(str(path))
    assert image is not None, path
    return image.shape
