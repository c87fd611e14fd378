"""Calibration on generated scenes, whose true landing area and die size are known."""
from __future__ import annotations

import tomllib
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from messages import ConfigError
from vision.calibrate import (
    CALIBRATION_KEYS,
    CalibrationError,
    calibrate,
    calibration_from_table,
    check_image,
    hue_distance,
    load_calibration,
    load_empty_image,
    save_calibration,
)
from vision.scenes.die import orientation
from vision.scenes.render import DieState, SceneRenderer, SceneState, place_dice
from vision.scenes.table import make_table


def table_frames(setting: str, seed: int, n_dice: int, touching: bool = False):
    rng = np.random.default_rng(seed)
    table = make_table(setting, rng, (640, 480))
    renderer = SceneRenderer(table, rng)
    empty = [renderer.render(SceneState())[0] for _ in range(3)]
    dice = [
        renderer.render(SceneState(dice=place_dice(rng, table, tuple(int(v) for v in rng.integers(1, 7, n_dice)), touching=touching)))[0]
        for _ in range(3)
    ]
    return table, empty, dice


def laid_frames(setting: str, seed: int, dice: tuple[DieState, ...]):
    """The empty table and the table with ``dice`` laid where the test puts them."""
    rng = np.random.default_rng(seed)
    table = make_table(setting, rng, (640, 480))
    renderer = SceneRenderer(table, rng)
    empty = [renderer.render(SceneState())[0] for _ in range(3)]
    return table, empty, [renderer.render(SceneState(dice=dice))[0] for _ in range(3)]


def cage_cluster(seed: int, apart: bool):
    """Three dice flush in a triangle in the cage's dish, and a fourth apart from them if ``apart``."""
    rng = np.random.default_rng(seed)
    table = make_table("cage", rng, (640, 480))
    assert table.dish is not None
    (cx, cy), _ = table.dish
    s = table.die_size * 1.02
    dice: tuple[DieState, ...] = (DieState(cx - s / 2, cy, orientation(2, 0.0)), DieState(cx + s / 2, cy, orientation(5, 0.0)),
            DieState(float(cx), cy - s, orientation(3, 0.0)))
    if apart:
        dice += (DieState(cx - 2.5 * s, cy + s / 2, orientation(4, 0.4)),)
    return laid_frames("cage", seed, dice)


def iou(a: np.ndarray, b: np.ndarray) -> float:
    a, b = a > 0, b > 0
    return float((a & b).sum() / (a | b).sum())


@pytest.mark.parametrize("setting, seed, n", [("rail", 1, 2), ("rail", 6, 2), ("cage", 2, 3), ("cage", 9, 3)])
def test_finds_the_landing_area_the_die_size_and_the_colours(setting, seed, n):
    table, empty, dice = table_frames(setting, seed, n)
    result = calibrate(empty, dice, expect=n)
    cal = result.calibration
    assert result.warnings == []
    assert iou(cal.landing_mask, table.landing) > 0.93
    assert cal.die_size_px == pytest.approx(table.die_size, rel=0.08)
    assert [len(found) for found in result.dice] == [n, n, n]
    assert len(cal.dice_hsv) == 1
    assert hue_distance(cal.dice_hsv[0][0], 0) <= 10 and cal.dice_hsv[0][1] > 120  # saturated red
    assert abs(int(cal.felt_hsv[0]) - 65) <= 15  # green felt


def test_the_rail_is_outside_the_landing_area():
    table, empty, dice = table_frames("rail", 3, 2)
    mask = calibrate(empty, dice).calibration.landing_mask
    assert not mask[: table.rail_y].any()
    assert mask[table.rail_y + 20 :, 40:-40].all()


def test_touching_dice_do_not_spoil_the_die_size_and_are_flagged():
    table, empty, _ = table_frames("rail", 4, 2)
    _, _, touching = table_frames("rail", 4, 2, touching=True)
    _, _, apart = table_frames("rail", 4, 2)
    result = calibrate(empty, touching + apart[:1])
    assert result.calibration.die_size_px == pytest.approx(table.die_size, rel=0.08)
    assert any(not blob.alone for blob in result.dice[0])


def test_a_camera_aimed_at_nothing_like_felt_is_refused():
    rng = np.random.default_rng(0)
    noise = [rng.integers(0, 255, (120, 160, 3), dtype=np.uint8) for _ in range(2)]
    with pytest.raises(CalibrationError, match="felt"):
        calibrate(noise, noise)


def test_no_dice_in_the_dice_frames_is_refused():
    _, empty, _ = table_frames("rail", 5, 2)
    with pytest.raises(CalibrationError, match="no dice"):
        calibrate(empty, empty[:1])


def test_frames_of_different_sizes_or_none_are_refused():
    _, empty, dice = table_frames("rail", 5, 2)
    with pytest.raises(CalibrationError, match="size"):
        calibrate(empty, [d[:240, :320] for d in dice])
    with pytest.raises(CalibrationError, match="no empty-table"):
        calibrate([], dice)


def test_a_moving_empty_table_and_a_wrong_dice_count_are_warned_about():
    table, empty, dice = table_frames("rail", 7, 2)
    _, _, three = table_frames("rail", 7, 3)
    disturbed = empty[:2] + [dice[0]]
    result = calibrate(disturbed + empty, [three[0]] + dice, expect=2)
    assert any("frame 1: found 3 dice, expected 2" in w for w in result.warnings)
    assert result.calibration.die_size_px == pytest.approx(table.die_size, rel=0.08)
    result = calibrate([empty[0], empty[1], dice[1]], dice)  # the median of three leaves the dice out
    assert any("differ" in w for w in result.warnings)


def test_no_dice_frame_with_the_expected_count_is_refused():
    _, empty, dice = table_frames("rail", 7, 2)
    with pytest.raises(CalibrationError, match="no dice frame shows 3 dice apart"):
        calibrate(empty, dice, expect=3)


def test_three_dice_touching_in_a_cluster_are_refused_not_taken_for_one_big_die():
    _, empty, dice = cage_cluster(2, apart=False)
    with pytest.raises(CalibrationError, match="shows 3 dice apart"):
        calibrate(empty, dice, expect=3)
    _, empty, dice = cage_cluster(9, apart=True)
    with pytest.raises(CalibrationError, match="differ in size"):
        calibrate(empty, dice)


def test_something_taken_away_between_the_empty_and_the_dice_frames_is_refused():
    """A chip on the felt in the empty frames, gone in the dice frames, is a second 'lone die'
    twice the size of the one die laid; the median of the two kept nothing and gave nan."""
    table, empty, dice = laid_frames("rail", 3, (DieState(450.0, 300.0, orientation(3, 0.3)),))
    r = int(table.die_size * 0.9)
    for frame in empty:
        cv2.circle(frame, (150, 350), r, (40, 40, 200), -1, cv2.LINE_AA)
        cv2.circle(frame, (150, 350), int(r * 0.7), (230, 230, 230), 3, cv2.LINE_AA)
    with pytest.raises(CalibrationError, match="differ in size"):
        calibrate(empty, dice)


def shifted(frame: np.ndarray, dx: int, dy: int) -> np.ndarray:
    return cv2.warpAffine(frame, np.array([[1, 0, dx], [0, 1, dy]], np.float32), frame.shape[1::-1], borderMode=cv2.BORDER_REPLICATE)


def darkened(frame: np.ndarray, x0: int, x1: int) -> np.ndarray:
    out = frame.copy()
    out[:, x0:x1] = (out[:, x0:x1] * 0.55).astype(np.uint8)
    return out


def test_a_shadow_or_a_nudged_camera_between_the_two_steps_is_refused():
    """Else the settle detector, comparing the table with an empty picture that no longer
    matches it, takes every rest for a hand and never hands out a roll."""
    _, empty, dice = table_frames("rail", 3, 2)
    with pytest.raises(CalibrationError, match="the light or the camera changed"):
        calibrate([darkened(f, 200, 460) for f in empty], dice, expect=2)
    _, empty, dice = table_frames("rail", 1, 2)
    with pytest.raises(CalibrationError, match="the light or the camera changed"):
        calibrate(empty, [shifted(f, 3, 2) for f in dice], expect=2)
    dimmed = [(f * 0.8).astype(np.uint8) for f in dice]  # the camera's exposure: the detector evens it out
    assert calibrate(empty, dimmed, expect=2).calibration.die_size_px


def test_the_cage_may_turn_between_the_two_steps():
    """Its wires stop elsewhere after a spin; the settle detector does not use the empty picture there."""
    rng = np.random.default_rng(2)
    table = make_table("cage", rng, (640, 480))
    renderer = SceneRenderer(table, rng)
    empty = [renderer.render(SceneState())[0] for _ in range(3)]
    dice = place_dice(rng, table, (1, 3, 5))
    turned = [renderer.render(SceneState(dice=dice, cage_phase=0.3))[0] for _ in range(3)]
    result = calibrate(empty, turned, expect=3, mode="cage")
    assert result.calibration.die_size_px == pytest.approx(table.die_size, rel=0.08)
    with pytest.raises(CalibrationError, match="calibrated as a cage: mode=.cage., --game hazard"):
        calibrate(empty, turned, expect=3)


def felt_frames(seed: int, bgr: tuple[int, int, int]):
    """The rail table with its felt recoloured to mean ``bgr`` (texture and lighting kept)."""
    rng = np.random.default_rng(seed)
    table = make_table("rail", rng, (640, 480))
    grey = cv2.cvtColor(table.background, cv2.COLOR_BGR2GRAY).astype(np.float32)
    felt = table.landing > 0
    background = table.background.copy()
    shade = grey[felt] / grey[felt].mean()
    background[felt] = np.clip(shade[:, None] * np.array(bgr, np.float32), 0, 255).astype(np.uint8)
    table = replace(table, background=background)
    renderer = SceneRenderer(table, rng)
    empty = [renderer.render(SceneState())[0] for _ in range(3)]
    dice = place_dice(rng, table, (2, 5))
    return table, empty, [renderer.render(SceneState(dice=dice))[0] for _ in range(3)]


def test_grey_felt_is_found_and_dark_grey_felt_taking_in_the_rail_is_warned_about():
    table, empty, dice = felt_frames(1, (110, 110, 110))
    result = calibrate(empty, dice, expect=2)
    assert result.warnings == []
    assert iou(result.calibration.landing_mask, table.landing) > 0.93
    assert result.calibration.die_size_px == pytest.approx(table.die_size, rel=0.08)
    _, empty, dice = felt_frames(1, (60, 60, 60))  # as dark as the rail's rubber
    result = calibrate(empty, dice, expect=2)
    assert any("landing area covers" in w and "rail" in w for w in result.warnings)


@pytest.mark.parametrize("seed, expect", [(3, None), (1, 2)])
def test_dice_the_felts_colour_are_blamed_on_the_colour(seed, expect):
    _, empty, dice = felt_frames(seed, (40, 40, 190))  # red felt, red dice
    with pytest.raises(CalibrationError, match="close in colour to the felt"):
        calibrate(empty, dice, expect=expect)
    _, empty, dice = felt_frames(seed, (30, 25, 140))
    with pytest.raises(CalibrationError, match="close in colour to the felt"):
        calibrate(empty, dice, expect=2)


def test_saved_calibration_loads_back_with_its_mask_and_empty_picture(tmp_path: Path):
    table, empty, dice = table_frames("cage", 2, 3)
    result = calibrate(empty, dice, expect=3)
    path = save_calibration(result, tmp_path / "cal")
    assert {p.name for p in path.parent.iterdir()} == {"calibration.toml", "landing_mask.png", "empty.png", "calibration_check.png"}
    loaded = load_calibration(path)
    assert loaded.landing_mask is not None and result.calibration.landing_mask is not None
    assert np.array_equal(loaded.landing_mask, result.calibration.landing_mask)
    assert loaded.die_size_px == result.calibration.die_size_px
    assert loaded.dice_hsv == result.calibration.dice_hsv and loaded.felt_hsv == result.calibration.felt_hsv
    empty_image = load_empty_image(path)
    assert empty_image is not None and np.array_equal(empty_image, result.empty)


def test_full_resolution_frames_give_the_die_size_in_their_pixels_and_it_is_kept(tmp_path: Path):
    table, empty, dice = table_frames("rail", 1, 2)
    full = [cv2.resize(f, (1920, 1440), interpolation=cv2.INTER_CUBIC) for f in dice]
    result = calibrate(empty, dice, expect=2, full_dice_frames=full)
    cal = result.calibration
    assert cal.full_size == (1920, 1440) and cal.frame_size == (640, 480) and cal.die_size_px is not None
    assert cal.full_die_size_px == pytest.approx(3 * cal.die_size_px, rel=0.01)
    loaded = load_calibration(save_calibration(result, tmp_path / "cal"))
    assert (loaded.full_size, loaded.full_die_size_px) == (cal.full_size, cal.full_die_size_px)
    assert loaded.die_size_at((1440, 1920, 3)) == cal.full_die_size_px
    with pytest.raises(CalibrationError, match="do not show the small frames' view"):
        calibrate(empty, dice, expect=2, full_dice_frames=[cv2.resize(f, (1920, 1080)) for f in dice])


def test_dice_seen_from_straight_above_give_no_tilt_and_a_tilt_is_kept(tmp_path: Path):
    _, empty, dice = table_frames("rail", 6, 2)
    result = calibrate(empty, dice, expect=2)
    assert result.calibration.view_tilt_deg < 10
    result.calibration.view_tilt_deg, result.calibration.view_toward_deg = 22.5, 80.0
    loaded = load_calibration(save_calibration(result, tmp_path / "cal"))
    assert (loaded.view_tilt_deg, loaded.view_toward_deg) == (22.5, 80.0)


def test_check_image_outlines_the_area_and_darkens_outside():
    table, empty, dice = table_frames("rail", 8, 2)
    result = calibrate(empty, dice)
    img = check_image(result)
    assert img.shape == dice[0].shape
    outside = result.calibration.landing_mask == 0
    assert np.median(img[outside]) < np.median(dice[0][outside]) * 0.6
    yellow = (img[:, :, 0] < 80) & (img[:, :, 1] > 200) & (img[:, :, 2] > 200)
    assert yellow.sum() > 500  # the outline


@pytest.mark.parametrize(
    "table, key",
    [
        ({"die_size_px": -3}, "die_size_px"),
        ({"die_size_px": float("nan")}, "die_size_px"),
        ({"die_size_px": float("inf")}, "die_size_px"),
        ({"die_size_px": True}, "die_size_px"),
        ({"dice_hsv": [[1, 2]]}, "dice_hsv"),
        ({"felt_hsv": "green"}, "felt_hsv"),
        ({"landing_mask": "missing.png"}, "landing_mask"),
    ],
)
def test_bad_calibration_tables_name_the_key(tmp_path: Path, table, key):
    with pytest.raises(ConfigError, match=key):
        calibration_from_table(table, tmp_path)


def test_a_calibration_file_with_a_nan_die_size_is_refused(tmp_path: Path):
    path = tmp_path / "calibration.toml"
    path.write_text("[calibration]\ndie_size_px = nan\n")
    with pytest.raises(ConfigError, match="die_size_px"):
        load_calibration(path)


def test_unreadable_calibration_file_is_a_clear_error(tmp_path: Path):
    bad = tmp_path / "calibration.toml"
    bad.write_text("[calibration\ndie_size_px = ")
    with pytest.raises(ConfigError, match="cannot read"):
        load_calibration(bad)


#: A calibration as ``dicetable calibrate`` writes it, of 64x48 frames (the pictures by :func:`calibration_folder`).
VALID = """# Table calibration written by `dicetable calibrate`.
[calibration]
frame_size = [64, 48]
landing_mask = "landing_mask.png"
empty_image = "empty.png"
die_size_px = 21.5
dice_hsv = [[6, 217, 119], [100, 40, 230]]
felt_hsv = [70, 230, 82]
"""


def calibration_folder(folder: Path, text: str = VALID, size: tuple[int, int] = (64, 48)) -> Path:
    """A calibration folder with ``text`` as its calibration.toml and a mask and empty picture of ``size``."""
    folder.mkdir(parents=True, exist_ok=True)
    width, height = size
    mask = np.zeros((height, width), np.uint8)
    mask[5:-5, 5:-5] = 255
    cv2.imwrite(str(folder / "landing_mask.png"), mask)
    cv2.imwrite(str(folder / "empty.png"), np.full((height, width, 3), (40, 120, 30), np.uint8))
    path = folder / "calibration.toml"
    path.write_text(text)
    return path


def problems_of(path: Path) -> list[tuple[str, str]]:
    """The problems :func:`load_calibration` finds in ``path`` (all of them, in one error)."""
    with pytest.raises(ConfigError) as info:
        load_calibration(path)
    assert info.value.source == str(path)
    assert str(info.value).splitlines() == [f"{path}: {key}: {message}" for key, message in info.value.problems]
    return list(info.value.problems)


def test_a_valid_calibration_file_loads_as_written(tmp_path: Path):
    """The checks refuse wrong values only: every key as the calibrate tool writes it still loads."""
    cal = load_calibration(calibration_folder(tmp_path))
    mask = cal.landing_mask
    assert mask is not None and mask.shape == (48, 64) and mask[24, 32] == 255 and mask[0, 0] == 0
    assert cal.die_size_px == 21.5
    assert cal.dice_hsv == [(6, 217, 119), (100, 40, 230)] and cal.felt_hsv == (70, 230, 82)
    empty_image = load_empty_image(tmp_path / "calibration.toml")
    assert empty_image is not None and empty_image.shape == (48, 64, 3)


def test_a_calibration_file_saved_with_a_byte_order_mark_loads_as_without_one(tmp_path: Path):
    """A Windows editor may start the file with a BOM; the table's configuration accepts one, so this file must too."""
    path = calibration_folder(tmp_path)
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert load_calibration(path).dice_hsv == [(6, 217, 119), (100, 40, 230)]
    assert load_empty_image(path) is not None


def test_a_calibration_file_that_is_not_utf8_is_a_clear_error_not_a_traceback(tmp_path: Path):
    """An accented comment saved as Latin-1 gave a UnicodeDecodeError traceback: systemd restarts those forever."""
    path = calibration_folder(tmp_path, "[calibration]\n# mesur\u00e9 le 3 mai\ndie_size_px = 40\n")
    path.write_bytes(path.read_text().encode("latin-1"))
    assert problems_of(path) == [("(file)", "cannot read calibration: not UTF-8 text (TOML must be): byte 21")]
    with pytest.raises(ConfigError, match="not UTF-8"):
        load_empty_image(path)


@pytest.mark.parametrize("text, problem", [
    ("dice_hsv = 5", ("calibration.dice_hsv", "expected a list of [h, s, v] colours, such as [[6, 217, 119]], got 5")),
    # one colour not wrapped in its list: one mistake, said once
    ("dice_hsv = [6, 217, 119]", ("calibration.dice_hsv", "expected a list of [h, s, v] colours, such as [[6, 217, 119]], "
                                                          "got [6, 217, 119]")),
    ("dice_hsv = [[6, 217, 119], 7]", ("calibration.dice_hsv", "expected [h, s, v] integers, got 7")),
    ("dice_hsv = [[600, 217, 119]]", ("calibration.dice_hsv", "hue 600 is outside 0..179 (OpenCV's HSV: hue 0..179, "
                                                              "saturation and value 0..255), got [600, 217, 119]")),
    ("dice_hsv = [[6, -1, 256]]", ("calibration.dice_hsv", "saturation -1 is outside 0..255, value 256 is outside 0..255 "
                                                           "(OpenCV's HSV: hue 0..179, saturation and value 0..255), "
                                                           "got [6, -1, 256]")),
    ("felt_hsv = [180, 230, 82]", ("calibration.felt_hsv", "hue 180 is outside 0..179 (OpenCV's HSV: hue 0..179, "
                                                           "saturation and value 0..255), got [180, 230, 82]")),
    ("felt_hsv = [true, 230, 82]", ("calibration.felt_hsv", "expected [h, s, v] integers, got [True, 230, 82]")),
    ('frame_size = "x"', ("calibration.frame_size", "expected [width, height], two whole numbers of pixels above 0, got 'x'")),
    ("frame_size = [0, 48]", ("calibration.frame_size", "expected [width, height], two whole numbers of pixels above 0, "
                                                        "got [0, 48]")),
    ("frame_size = [64.0, 48]", ("calibration.frame_size", "expected [width, height], two whole numbers of pixels above 0, "
                                                           "got [64.0, 48]")),
    ("landing_mask = 5", ("calibration.landing_mask", "expected the name of a PNG file, got 5")),
    ("empty_image = false", ("calibration.empty_image", "expected the name of a PNG file, got False")),
])
def test_a_bad_calibration_value_is_refused_by_name(tmp_path: Path, text, problem):
    """Each value of the wrong type or out of range (``dice_hsv = 5``, a hue of 600,
    ``frame_size = "x"``) is refused, naming its key and its value."""
    key = text.split(" = ")[0]
    lines = [line for line in VALID.splitlines() if not line.startswith(f"{key} = ")]
    assert problems_of(calibration_folder(tmp_path, "\n".join(lines + [text]) + "\n")) == [problem]
    with pytest.raises(ConfigError) as info:
        calibration_from_table(tomllib.loads(text), tmp_path)
    assert info.value.problems == (problem,) and info.value.source is None


def test_a_misspelt_key_is_refused_with_the_known_keys(tmp_path: Path):
    """Ignored, it left the die size unset: the reader then guessed the scale of every frame unseen."""
    path = calibration_folder(tmp_path, VALID.replace("die_size_px", "die_sise_px"))
    known = "known: " + ", ".join(CALIBRATION_KEYS)
    assert problems_of(path) == [("calibration.die_sise_px", f"unknown key ({known})")]


def test_a_key_outside_the_calibration_table_is_refused(tmp_path: Path):
    """A key written above the ``[calibration]`` line belongs to no table the loader reads."""
    path = calibration_folder(tmp_path, "die_size_px = 30\n" + VALID)
    (key, message), = problems_of(path)
    assert key == "die_size_px" and message.startswith("outside the [calibration] table")
    path.write_text("calibration = 3\n")
    assert problems_of(path) == [("calibration", "must be a table ([calibration])")]


def test_pictures_of_another_size_than_the_calibrated_frames_are_refused(tmp_path: Path):
    """A mask or empty picture left from another calibration would mask, or compare, the wrong pixels."""
    path = calibration_folder(tmp_path, size=(32, 24))
    assert problems_of(path) == [("calibration.landing_mask",
                                  f"{tmp_path / 'landing_mask.png'} is 32x24, but frame_size is 64x48: calibrate again")]
    path.write_text(VALID.replace('landing_mask = "landing_mask.png"\n', ""))
    assert load_calibration(path).landing_mask is None
    with pytest.raises(ConfigError, match=r"calibration\.empty_image: .*empty\.png is 32x24, but frame_size is 64x48"):
        load_empty_image(path)


def test_every_problem_of_a_file_is_reported_at_once(tmp_path: Path):
    """As the table's configuration does: one start-up to learn all there is to mend."""
    text = VALID.replace("[64, 48]", '"64x48"').replace("21.5", "-2").replace("[70, 230, 82]", "[70, 230, 300]")
    path = calibration_folder(tmp_path, text + "die_sise_px = 20\n")
    assert [key for key, _ in problems_of(path)] == [
        "calibration.die_sise_px", "calibration.frame_size", "calibration.die_size_px", "calibration.felt_hsv"]


def test_a_wrong_calibration_is_a_configuration_error_naming_the_key(tmp_path: Path):
    """``dicetable run`` exits 2 on a configuration error, which systemd does not restart, but 1 on a traceback."""
    from controller.config import ConfigError, load

    calibration_folder(tmp_path / "cal").write_bytes(b"[calibration]\ndie_size_px = 4\xe9\n")
    table = tmp_path / "table.toml"
    table.write_text('[calibration]\nfile = "cal/calibration.toml"\n')
    with pytest.raises(ConfigError, match="not UTF-8 text"):
        load(table)
    table.write_text("[calibration]\ndice_hsv = 5\n")
    with pytest.raises(ConfigError, match=r"calibration\.dice_hsv: expected a list of \[h, s, v\] colours"):
        load(table)


def test_dice_too_small_to_settle_are_warned_about():
    def shrink(frames):
        return [cv2.resize(f, (256, 192), interpolation=cv2.INTER_AREA) for f in frames]

    _, empty, dice = table_frames("rail", 1, 2)
    result = calibrate(shrink(empty), shrink(dice), expect=2)
    assert result.calibration.die_size_px < 24
    assert any("px across" in w and "closer" in w for w in result.warnings)
