"""The camera's exposure: metered on the linear render so the scene's key lands at a mid tone,
held down where a white die on a dark cloth would blow out, and moved by a drawn offset that
leaves most frames near the metered exposure and a few dark (pure numpy: no Blender)."""
from __future__ import annotations

import numpy as np
import pytest

from training.render.exposure import (EV_RANGE, TARGET_KEY, WHITE_DIE, WHITE_LEVEL, exposure_offset, metered_ev,
                                      scene_key)

GREEN = (0.02, 0.16, 0.05)  # luminance about 0.12
BLACK = (0.012, 0.012, 0.014)


def test_the_key_of_a_flat_image_is_its_luminance():
    assert scene_key(np.full((30, 40, 3), 0.05, np.float32)) == pytest.approx(0.05, rel=0.01)


@pytest.mark.parametrize("level", [0.002, 0.02, 0.2])
def test_the_metered_exposure_puts_the_key_at_the_target_whatever_the_light(level):
    image = np.full((30, 40, 3), level, np.float32)
    ev = metered_ev(image, 0.0, GREEN)
    assert scene_key(image * 2**ev) == pytest.approx(TARGET_KEY, rel=0.02)
    assert metered_ev(image, -1.5, GREEN) == pytest.approx(ev - 1.5)


def test_a_dark_cloth_is_exposed_so_a_white_die_on_it_is_not_blown_out():
    cloth = np.full((30, 40, 3), 0.001, np.float32)  # black cloth under some light
    ev = metered_ev(cloth, 0.0, BLACK)
    white = 0.001 * WHITE_DIE / float(np.array(BLACK) @ [0.2126, 0.7152, 0.0722])
    assert white * 2**ev == pytest.approx(WHITE_LEVEL, rel=0.02)
    assert scene_key(cloth * 2**ev) < TARGET_KEY / 2  # a black cloth stays dark


def test_the_exposure_stays_in_its_range():
    assert metered_ev(np.zeros((4, 4, 3), np.float32), 0.0, GREEN) == EV_RANGE[1]
    assert metered_ev(np.full((4, 4, 3), 1e4, np.float32), 0.0, GREEN) == EV_RANGE[0]


def test_most_frames_are_near_the_metered_exposure_and_a_few_are_dark():
    rng = np.random.default_rng(3)
    offsets = np.array([exposure_offset(rng) for _ in range(4000)])
    assert 0.75 < np.mean(np.abs(offsets) <= 0.5) < 0.9
    assert 0.07 < np.mean(offsets <= -0.8) < 0.13
    assert offsets.min() >= -1.5 and offsets.max() <= 1.0
