"""The print on a table's cloth (a craps-like layout's lines, boxes and lettering, drawn as a mask)
and the fuzz of its surface.

The camera sees a small patch of the table, so what matters is that dice land on and beside
printed lines, letters and numbers in the cloth's print colour, not that the layout is a real one.
"""
from __future__ import annotations

import cv2
import numpy as np

WORDS = ("PASS LINE", "DON'T PASS BAR", "COME", "DON'T COME", "FIELD", "BIG 6", "BIG 8", "ODDS",
         "2 3 4 9 10 11 12", "SEVEN", "ANY CRAPS", "HARDWAYS", "4", "5", "SIX", "8", "NINE", "10",
         "PAYS DOUBLE", "HAZARD", "MAIN", "CHANCE", "NICK")
FONTS = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_TRIPLEX, cv2.FONT_HERSHEY_COMPLEX)


def layout_mask(seed: int, size_px: int = 2048, metres: float = 2.0, density: float = 1.0) -> np.ndarray:
    """A ``size_px`` square mask (float32 0..1, 1 where ink is) of a layout spanning ``metres``."""
    rng = np.random.default_rng(seed)
    px_per_m = size_px / metres
    mask = np.zeros((size_px, size_px), np.uint8)
    for _ in range(int(rng.integers(4, 10) * density)):
        thick = max(1, int(rng.uniform(0.004, 0.015) * px_per_m))
        if rng.random() < 0.6:  # a straight line across much of the table
            p0 = rng.uniform(0, size_px, 2)
            angle = rng.choice([0.0, np.pi / 2]) + rng.normal(0, 0.05)
            d = np.array([np.cos(angle), np.sin(angle)]) * size_px
            cv2.line(mask, tuple(int(v) for v in p0 - d), tuple(int(v) for v in p0 + d), 255, thick, cv2.LINE_AA)
        else:  # an arc, as around the pass line's curve
            centre = tuple(int(v) for v in rng.uniform(0, size_px, 2))
            radius = int(rng.uniform(0.2, 1.0) * px_per_m)
            start = rng.uniform(0, 360)
            cv2.ellipse(mask, centre, (radius, radius), 0, start, start + rng.uniform(40, 180), 255, thick,
                        cv2.LINE_AA)
    for _ in range(int(rng.integers(3, 9) * density)):  # boxes, as the place numbers sit in
        x, y = rng.uniform(0, size_px, 2)
        w, h = rng.uniform(0.08, 0.3, 2) * px_per_m
        cv2.rectangle(mask, (int(x), int(y)), (int(x + w), int(y + h)), 255,
                      max(1, int(rng.uniform(0.003, 0.01) * px_per_m)), cv2.LINE_AA)
    for _ in range(int(rng.integers(6, 16) * density)):
        word = WORDS[int(rng.integers(len(WORDS)))]
        height_m = rng.uniform(0.015, 0.08)
        font = FONTS[int(rng.integers(len(FONTS)))]
        scale = height_m * px_per_m / 22.0
        thick = max(1, int(scale * rng.uniform(1.5, 3.5)))
        org = (int(rng.uniform(0, size_px)), int(rng.uniform(0, size_px)))
        angle = float(rng.choice([0, 90, 180, 270]) + rng.normal(0, 3))
        _stamp_word(mask, word, org, font, scale, thick, angle)
    return mask.astype(np.float32) / 255.0


def _stamp_word(mask: np.ndarray, word: str, org: tuple[int, int], font: int, scale: float, thick: int,
                angle: float) -> None:
    """Print ``word`` at ``org`` turned by ``angle`` degrees about it, into ``mask``: drawn on a patch
    around it only (a whole-table canvas per word cost a quarter of a second a table), cut where
    the table ends, as if drawn on the whole table."""
    (tw, th), base = cv2.getTextSize(word, font, scale, thick)
    r = int(np.ceil(np.hypot(tw, th + base))) + thick + 2
    side = 2 * r + 1
    x0, y0 = org[0] - r, org[1] - r  # the patch's corner on the table
    patch = np.zeros((side, side), np.uint8)
    cv2.putText(patch, word, (r, r), font, scale, 255, thick, cv2.LINE_AA)
    size = mask.shape[0]
    lo_x, lo_y = max(0, -x0), max(0, -y0)
    hi_x, hi_y = min(side, size - x0), min(side, size - y0)
    if lo_x >= hi_x or lo_y >= hi_y:
        return
    inside = np.zeros_like(patch)
    inside[lo_y:hi_y, lo_x:hi_x] = patch[lo_y:hi_y, lo_x:hi_x]  # nothing is printed off the table
    turned = cv2.warpAffine(inside, cv2.getRotationMatrix2D((float(r), float(r)), angle, 1.0), (side, side))
    region = mask[y0 + lo_y:y0 + hi_y, x0 + lo_x:x0 + hi_x]
    np.maximum(region, turned[lo_y:hi_y, lo_x:hi_x], out=region)


#: The felt's fuzz: a tile of this many pixels repeated every this many metres (0.23 mm a pixel).
FUZZ_TILE_PX = 512
FUZZ_TILE_M = 0.12


def fuzz_texture(seed: int, size_px: int = FUZZ_TILE_PX) -> np.ndarray:
    """A tileable fractal noise (float32 HxWx3 around 0.5, one noise per channel): white noise
    filtered in the frequency domain, so it wraps at its edges, in four octaves from features of
    about 2 mm (as the felt's fibres and pills) down to a quarter of that."""
    rng = np.random.default_rng([seed, 31])
    f = np.fft.fftfreq(size_px)
    f2 = f[:, None] ** 2 + f[None, :] ** 2
    # one filter for the four octaves, each scaled to unit deviation (Parseval: a filter's output
    # of unit white noise deviates by the root mean square of the filter)
    gain = np.zeros((size_px, size_px))
    for octave in range(4):
        sigma = 9.5 / 2 ** octave / 2  # the Gaussian's width in pixels for this octave's features
        g = np.exp(-2 * np.pi ** 2 * sigma ** 2 * f2)
        gain += g / np.sqrt(np.mean(g ** 2)) * 0.5 ** octave
    gain /= np.sqrt(np.mean(gain ** 2))
    out = np.empty((size_px, size_px, 3), np.float32)
    for channel in range(3):
        noise = np.real(np.fft.ifft2(np.fft.fft2(rng.normal(size=(size_px, size_px))) * gain))
        out[..., channel] = noise * 0.12 + 0.5
    return np.clip(out, 0.0, 1.0)
