"""How frames and dice are resized before the networks see them.

Training (``training/train_reader.py``) imports these same functions, so the
pictures the networks learned from and the ones they are shown at the table
are made by one piece of code and can never drift apart.
"""
from __future__ import annotations

import cv2
import numpy as np

#: The detector's output grid is this many times coarser than its input.
DET_STRIDE = 4
#: Without a calibration the frame's long side is brought to this many pixels
#: for the detector; the public photos then show dice of about 16 px.
DET_LONG_SIDE = 256
#: With a calibrated top-face size, the frame is scaled so a top face is this big.
DET_TOP_FACE_PX = 17.0
#: Size of the square crop the classifier reads, and how much wider than the
#: die's bounding box the crop is (room for a centre that is a little off).
CLS_SIZE = 40
CROP_FACTOR = 1.3


def detector_scale(shape: tuple[int, ...], die_size_px: float | None) -> float:
    """Factor from frame pixels to detector-input pixels."""
    if die_size_px:
        return DET_TOP_FACE_PX / float(die_size_px)
    return DET_LONG_SIDE / float(max(shape[0], shape[1]))


def detector_input(frame: np.ndarray, scale: float) -> np.ndarray:
    """The frame resized for the detector, padded to a multiple of 4 * DET_STRIDE."""
    h, w = frame.shape[:2]
    nh, nw = max(1, round(h * scale)), max(1, round(w * scale))
    small = _shrink(frame, nw, nh)
    m = 4 * DET_STRIDE
    ph, pw = (-nh) % m, (-nw) % m
    if ph or pw:
        small = cv2.copyMakeBorder(small, 0, ph, 0, pw, cv2.BORDER_REPLICATE)
    return small


def detector_view(frame: np.ndarray, scale: float, finding: np.ndarray | None = None) -> np.ndarray:
    """The detector's input for ``frame`` resized by ``scale``, made from ``finding`` instead where
    that is a smaller picture of the same view (same shape within 1%) still at least as big as the
    input: a camera's low-resolution stream spares shrinking a full-resolution frame."""
    if finding is not None:
        h, w = frame.shape[:2]
        fh, fw = finding.shape[:2]
        k = scale * w / fw
        if k <= 1.0 and abs(fw / fh - w / h) <= 0.01 * w / h:
            return detector_input(finding, k)
    return detector_input(frame, scale)


def _shrink(frame: np.ndarray, nw: int, nh: int) -> np.ndarray:
    """Resize to (nw, nh): area-averaged halvings (OpenCV's fast path), then
    one linear step of less than two. For 640x480 -> 256x192 this is about six
    times faster than one INTER_AREA resize by 2.5 and within half a grey
    level of it, so the detector sees the pictures it was trained on."""
    small = frame
    while small.shape[1] >= 2 * nw and small.shape[0] >= 2 * nh:
        small = cv2.resize(small, (small.shape[1] // 2, small.shape[0] // 2), interpolation=cv2.INTER_AREA)
    if small.shape[:2] != (nh, nw):
        small = cv2.resize(small, (nw, nh), interpolation=cv2.INTER_LINEAR)
    return small


def crop_die(frame: np.ndarray, cx: float, cy: float, side: float, angle_deg: float = 0.0,
             size: int = CLS_SIZE) -> np.ndarray:
    """A ``size`` square crop (the networks' CLS_SIZE unless said) centred on
    (cx, cy), CROP_FACTOR times ``side`` wide."""
    span = max(side * CROP_FACTOR, 4.0)
    k = size / span
    m = cv2.getRotationMatrix2D((cx, cy), angle_deg, k)
    m[0, 2] += size / 2 - cx
    m[1, 2] += size / 2 - cy
    interp = cv2.INTER_AREA if k < 1 else cv2.INTER_LINEAR
    return cv2.warpAffine(frame, m, (size, size), flags=interp, borderMode=cv2.BORDER_REPLICATE)


def to_blob(images: list[np.ndarray]) -> np.ndarray:
    """BGR uint8 images (all of one size) -> float32 NCHW in 0..1, the networks' input.

    OpenCV lays the images out as NCHW floats in one call (scale 1, no mean:
    the values stay exact), and the division by 255 in place is numpy's
    float32 one: the values of stacking, converting, dividing and transposing
    in numpy, bit for bit, in two passes over the pixels instead of five."""
    blob: np.ndarray = cv2.dnn.blobFromImages(images)
    blob /= np.float32(255.0)
    return blob
