"""Only the top face: a die seen at an angle is read by its top face, or not settled.

A camera off the vertical sees the top face foreshortened and, beside it, the side face turned
towards the camera, whose pips the networks would read as readily. The die's geometry keeps that
face out of the value: with the calibrated tilt (``Calibration.view_tilt_deg``, and the direction
``view_toward_deg`` in which side faces show), a cube of side s seen at tilt t shows its top face
s cos t long and the near side face s sin t beyond it. :class:`TopFaceView` crops each die at its
top face's place (the box centre moved away from the side face by half of that) and stretches it
back square, so the networks see the top face as a camera straight above would, and the side
face falls outside the crop. Beyond the policy's ``max_view_tilt_deg`` no read is ``ok``: the side
face is then as large as the top one. A die seen at an angle where the camera is straight above
leans, and the leaning check refuses it (``judge.py``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.model import Calibration
from vision.reader import geometry as G

#: Below this tilt (degrees) the camera counts as straight above: the crop is the plain one.
STRAIGHT_DEG = 3.0


@dataclass(frozen=True)
class TopFaceView:
    """How a tilted camera sees each die: ``tilt_deg`` off the vertical, side faces showing
    towards ``toward`` (a unit vector in the image)."""

    tilt_deg: float
    toward: tuple[float, float]
    die_px: float | None = None

    @property
    def _t(self) -> float:
        return math.radians(self.tilt_deg)

    def top_face(self, cx: float, cy: float, side: float) -> tuple[float, float, float]:
        """Centre and side of the top face of the die boxed ``side`` wide at (cx, cy). A box of the
        whole outline holds the top face (s cos t long) and the near side face (s sin t) beside
        it, and its centre lies s sin t / 2 from the top face's; a box of the top face alone is
        s wide and centred on it. With the calibrated top face ``die_px`` the box's size says
        which (in between, in proportion); without it the box is taken for the whole outline."""
        t, die_px = self._t, self.die_px
        outline = math.cos(t) + math.sin(t)
        s = die_px if die_px else side / outline
        share = 1.0 if not die_px else min(1.0, max(0.0, (side - s) / (s * outline - s))) if outline > 1 else 0.0
        shift = share * s * math.sin(t) / 2
        return cx - self.toward[0] * shift, cy - self.toward[1] * shift, s

    def crop(self, frame: np.ndarray, cx: float, cy: float, side: float, angle_deg: float = 0.0,
             size: int = G.CLS_SIZE) -> np.ndarray:
        """The networks' crop of the die's top face, stretched back square along ``toward``
        and turned by ``angle_deg``, as ``geometry.crop_die`` crops a die seen from above."""
        tx, ty, s = self.top_face(cx, cy, side)
        k = size / max(s * G.CROP_FACTOR, 4.0)
        ux, uy = self.toward
        stretch = 1.0 / math.cos(self._t)
        # frame -> unstretched: stretch along ``toward`` only; then turn and scale about the centre
        a = np.eye(2) + (stretch - 1.0) * np.outer((ux, uy), (ux, uy))
        r = cv2.getRotationMatrix2D((0.0, 0.0), angle_deg, k)[:, :2]
        m = r @ a
        offset = np.array([size / 2, size / 2]) - m @ np.array([tx, ty])
        affine = np.hstack([m, offset[:, None]]).astype(np.float64)
        interp = cv2.INTER_AREA if k < 1 else cv2.INTER_LINEAR
        return cv2.warpAffine(frame, affine, (size, size), flags=interp, borderMode=cv2.BORDER_REPLICATE)


def view_of(calibration: Calibration | None, shape: tuple[int, ...]) -> TopFaceView | None:
    """The calibrated view of the frame, or None for a camera straight above (or uncalibrated)."""
    tilt = getattr(calibration, "view_tilt_deg", None) if calibration is not None else None
    if not tilt or tilt < STRAIGHT_DEG:
        return None
    toward = math.radians(calibration.view_toward_deg if calibration is not None else 90.0)
    die_px = calibration.die_size_at(shape) if calibration is not None else None
    return TopFaceView(float(tilt), (math.cos(toward), math.sin(toward)), die_px)
