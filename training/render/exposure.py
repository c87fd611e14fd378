"""The camera's exposure, metered on the rendered light as a casino camera's installer would set it.

The path tracer's picture is linear light whose level follows the lamps' power, their height and
the cloth's colour, which vary over a hundredfold between scenes: a fixed exposure leaves many
frames nearly black. So the linear render is metered first (the centre-weighted mean of the log
luminance, the "key" of the scene) and the exposure puts that key at a mid tone; on a dark cloth
that would blow out a white die, so the exposure is held where a white die lit as the cloth is
stays within a third of a stop of full scale (the cloth's own reflectance says how much light
falls on it). A drawn offset then moves it: most frames within a third of a stop or so, a few
clearly dark or bright.
Pure numpy: tested without Blender.
"""
from __future__ import annotations

import numpy as np

#: The linear luminance the metered key is exposed to (a mid grey, 118 of 255 through an sRGB
#: curve; on the usual green cloth the white die's hold below keeps it a little lower).
TARGET_KEY = 0.18
#: The reflectance of a white die's face, and the linear level it may reach: a third of a stop
#: over full scale, as a camera set for the table lets white plastic just touch clipping.
WHITE_DIE = 0.8
WHITE_LEVEL = 1.25
#: The exposure (in stops) never leaves this range, whatever the metering says.
EV_RANGE = (-4.0, 8.0)
#: Rec. 709 luminance weights of linear R, G, B.
LUMA = np.array([0.2126, 0.7152, 0.0722], np.float32)


def centre_weights(height: int, width: int) -> np.ndarray:
    """Centre-weighted metering: 1 in the middle falling to about 0.4 in the corners."""
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    r2 = ((xx + 0.5 - width / 2) / (width / 2)) ** 2 + ((yy + 0.5 - height / 2) / (height / 2)) ** 2
    return np.exp(-0.45 * r2)


def scene_key(rgb_linear: np.ndarray) -> float:
    """The centre-weighted geometric mean of the luminance of a linear RGB image (HxWx3); black
    pixels count as a thousandth of the mean, so a few of them do not sink it, and the key scales
    with the light."""
    rgb = np.asarray(rgb_linear, np.float64)[..., :3]
    lum = np.clip(rgb @ LUMA, 0.0, None)
    w = centre_weights(*lum.shape)
    floor = 1e-3 * float(lum.mean()) + 1e-12
    return float(np.exp(np.sum(w * np.log(lum + floor)) / np.sum(w)))


def metered_ev(rgb_linear: np.ndarray, offset_ev: float, ground_rgb: tuple[float, float, float]) -> float:
    """The exposure in stops that puts the image's key at ``TARGET_KEY`` (or lower, so a white die
    on ground of reflectance ``ground_rgb`` that fills the key stays at ``WHITE_LEVEL``), plus
    ``offset_ev``."""
    key = scene_key(rgb_linear)
    ground = max(float(np.asarray(ground_rgb, np.float32) @ LUMA), 1e-3)
    ev = min(np.log2(TARGET_KEY / key), np.log2(WHITE_LEVEL * ground / (WHITE_DIE * key))) + offset_ev
    return float(np.clip(ev, *EV_RANGE))


def exposure_offset(rng: np.random.Generator) -> float:
    """How far a frame is from the metered exposure, in stops: mostly close to it (a camera
    set up for the table), about one in ten 0.8 to 1.5 stops under (dark ones stay), a few over."""
    r = rng.random()
    if r < 0.1:
        return float(rng.uniform(-1.5, -0.8))
    if r < 0.15:
        return float(rng.uniform(0.5, 1.0))
    return float(np.clip(rng.normal(0.0, 0.3), -0.7, 0.7))
