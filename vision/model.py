"""The data that crosses the vision layer's boundary: a die, a read, a table calibration.

These types are shared by the reader, the calibration tool, the settle
detector and the table controller, so they live apart from all of them and
hold no logic beyond conversion to and from plain data (JSON / TOML).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

import numpy as np


class ReadStatus(str, Enum):
    """How far a read may be trusted.

    ``ok``: settle it at once. ``uncertain``: the dealer must confirm or
    correct it. ``no_read``: the dice cannot be read as they lie (wrong count,
    touching, stacked, leaning, outside the landing area, unreadable frame).
    """

    OK = "ok"
    UNCERTAIN = "uncertain"
    NO_READ = "no_read"


def is_pixel_size(value: Any) -> bool:
    """Whether ``value`` can be a size in pixels (a die's side): a finite number above 0.

    ``nan`` fails every comparison and is truthy, so a plain ``size > 0`` or ``if size``
    lets it through to code that turns it into an integer and raises.
    """
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value > 0


def frame_size(text: str) -> tuple[int, int] | None:
    """``"640x480"`` -> ``(640, 480)``: a frame's width and height as a camera spec or a
    command line writes them; None when ``text`` is not two whole numbers joined by ``x``."""
    width, x, height = text.partition("x")
    return (int(width), int(height)) if x and width.isdigit() and height.isdigit() else None


@dataclass(frozen=True)
class Die:
    """One die's top face. ``box`` is ``(x, y, w, h)`` in pixels of the frame."""

    value: int
    confidence: float
    box: tuple[int, int, int, int]

    def to_json(self) -> dict[str, Any]:
        return {"value": self.value, "confidence": round(float(self.confidence), 4), "box": list(self.box)}


@dataclass(frozen=True)
class DiceRead:
    """The reader's verdict on one still frame.

    ``reason`` says why a read is not ``ok`` (for the dealer's screen and the
    journal); ``ms`` is the time spent reading after the frame was decoded.
    """

    status: ReadStatus
    dice: tuple[Die, ...] = ()
    reason: str | None = None
    ms: float = 0.0

    @property
    def values(self) -> tuple[int, ...]:
        return tuple(d.value for d in self.dice)

    @property
    def confidence(self) -> float:
        """The weakest die's confidence: a roll is only as sure as its least sure die."""
        return min((d.confidence for d in self.dice), default=0.0)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "status": self.status.value,
            "dice": [d.to_json() for d in self.dice],
            "ms": round(float(self.ms), 3),
        }
        if self.reason:
            out["reason"] = self.reason
        return out


@dataclass
class Calibration:
    """What one table looks like to its camera, measured by ``dicetable calibrate``.

    ``landing_mask`` is a uint8 image (255 inside the landing area) of the
    camera's frame size, or ``None`` for "the whole frame". ``die_size_px`` is
    the expected side of a die's top face in pixels, or ``None`` when unknown
    (the reader then estimates it per frame). ``dice_hsv`` lists the typical
    HSV colours of the dice bodies and ``felt_hsv`` that of the empty surface.
    """

    landing_mask: np.ndarray | None = None
    die_size_px: float | None = None
    dice_hsv: list[tuple[int, int, int]] = field(default_factory=list)
    felt_hsv: tuple[int, int, int] | None = None
    #: ``(width, height)`` of the frames ``die_size_px`` was measured on (None: whatever is read).
    frame_size: tuple[int, int] | None = None
    #: the die's side in pixels of the camera's full-resolution frame, and that frame's size, where
    #: the camera gives one beside the small frame (the reader reads dice from it).
    full_die_size_px: float | None = None
    full_size: tuple[int, int] | None = None
    #: how far the camera looks off the vertical (degrees; 0: straight above), and the direction
    #: in the frame, in degrees from the x axis towards y (90: down), in which side faces show.
    view_tilt_deg: float = 0.0
    view_toward_deg: float = 90.0

    def die_size_at(self, shape: tuple[int, ...]) -> float | None:
        """The die's side in pixels of a frame of ``shape`` (height, width, ...): measured at that
        size, or scaled from the size it was measured at."""
        width = shape[1]
        if self.full_die_size_px is not None and self.full_size is not None:
            if width == self.full_size[0]:
                return self.full_die_size_px
            if self.die_size_px is None:
                return self.full_die_size_px * width / self.full_size[0]
        if self.die_size_px is None or self.frame_size is None or not is_pixel_size(self.die_size_px):
            return self.die_size_px
        return self.die_size_px * width / self.frame_size[0]
