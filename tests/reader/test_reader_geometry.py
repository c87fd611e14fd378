"""How frames are shrunk for the detector: the fast path must show the detector what it was trained on."""
from __future__ import annotations

import cv2
import numpy as np

from vision.reader import geometry as G


def test_a_camera_frame_becomes_the_detectors_input_size():
    frame = np.zeros((480, 640, 3), np.uint8)
    small = G.detector_input(frame, G.detector_scale(frame.shape, None))
    assert small.shape[1] == G.DET_LONG_SIDE
    assert small.shape[0] % (4 * G.DET_STRIDE) == 0 and small.shape[1] % (4 * G.DET_STRIDE) == 0


def test_shrinking_by_halves_looks_like_one_area_resize():
    rng = np.random.default_rng(3)
    # a textured frame with dice-sized detail: noise blurred to a few pixels
    frame = cv2.GaussianBlur(rng.integers(0, 256, (480, 640, 3), dtype=np.uint8), (0, 0), 2.0)
    for size in ((256, 192), (320, 240), (200, 150), (640, 480)):
        fast = G._shrink(frame, *size)
        area = cv2.resize(frame, size, interpolation=cv2.INTER_AREA)
        assert fast.shape == area.shape
        assert np.abs(fast.astype(float) - area).mean() < 1.5
