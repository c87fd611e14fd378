"""The camera model applied to a rendered frame: white balance, vignetting, blur, sensor noise and
JPEG compression, all drawn from the image's seed (see :class:`~training.render.looks.PhotoLook`).

Applied to the rendered pixels, not in the path tracer, so the labels (boxes, visibility) stay
those of the scene while the picture gets a real camera's faults.
"""
from __future__ import annotations

import cv2
import numpy as np

from training.render.looks import PhotoLook


def _motion_kernel(length: float, angle: float) -> np.ndarray:
    size = int(np.ceil(length)) * 2 + 1
    kernel = np.zeros((size, size), np.float32)
    c = size // 2
    dx, dy = np.cos(angle) * length / 2, np.sin(angle) * length / 2
    cv2.line(kernel, (int(round(c - dx)), int(round(c - dy))), (int(round(c + dx)), int(round(c + dy))), 1.0, 1,
             cv2.LINE_AA)
    return kernel / kernel.sum()


def apply_camera(bgr: np.ndarray, look: PhotoLook, rng: np.random.Generator) -> np.ndarray:
    """The rendered 8-bit BGR frame as this camera would have taken it (8-bit BGR, not yet JPEG)."""
    linear = (bgr.astype(np.float32) / 255.0) ** 2.2
    linear *= np.array(look.wb_gains[::-1], np.float32)  # gains are R, G, B
    h, w = linear.shape[:2]
    if look.vignette > 0:
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        r2 = ((xx - w / 2) ** 2 + (yy - h / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2)
        linear *= (1.0 - look.vignette * r2)[..., None]
    if look.blur_sigma > 0:
        linear = cv2.GaussianBlur(linear, (0, 0), look.blur_sigma)
    if look.motion_px > 0.5:
        linear = cv2.filter2D(linear, -1, _motion_kernel(look.motion_px, look.motion_angle))
    noise = rng.normal(0.0, 1.0, linear.shape).astype(np.float32)
    linear = linear + noise * np.sqrt(look.noise_sigma ** 2 + look.shot_noise ** 2 * np.clip(linear, 0, None))
    out = np.clip(np.clip(linear, 0, 1) ** (1 / 2.2) * 255.0 + 0.5, 0, 255)
    return out.astype(np.uint8)


def jpeg_bytes(bgr: np.ndarray, quality: int) -> bytes:
    ok, data = cv2.imencode(".jpg", bgr, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    return data.tobytes()
