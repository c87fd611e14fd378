"""Settle detection: exactly one still frame per roll, as soon as it is safe.

The camera films continuously; the reader must see one frame per roll, taken
when every die has stopped. :class:`SettleDetector` is fed every frame and
answers, for the few frames that matter, :class:`Settled` (here is the roll's
still frame) or :class:`Unsettled` (something has been moving in the landing
area for too long: the dealer should look).

How it decides, on a small (1/``scale``) copy of each frame, inside the
landing-area mask:

- **Motion** is a change from the previous frame larger than
  ``pixel_threshold`` in any colour channel (red dice on green felt have
  nearly the grey level of the felt, so grey images would miss them) over
  more than a fraction of a die's area.
- **Still** means ``still_s`` of frames without motion, each also compared with
  the first frame of the still period, so a die creeping a pixel per frame is
  not taken for still. The frame handed out is the last of that period: no
  frame of a die still rolling can be handed out.
- **One per roll.** A roll is handed out only while the detector is *armed*;
  handing it out disarms it. On the rail table it is armed again when the
  landing area has been seen empty (the stickman took the dice back), so a die
  bumped after landing, or a hand passing over the dice, can never make a
  second roll. In the hazard cage the dice never leave: it is armed again
  by the cage's spin (``spin_s`` of continuous motion). The controller may also
  :meth:`~SettleDetector.arm` it (bets locked) and
  :meth:`~SettleDetector.disarm` it. A roll that does not come to rest
  within ``timeout_s`` (count it from the start of the cage's spin, so make it
  longer than a spin) gives one :class:`Unsettled` and disarms: the dealer
  decides that roll, and those dice stopping later are not the next roll.
- **Motion that leaves the landing area empty** (a hand or the stick passing
  over it, dice thrown off it) was no throw that landed: nothing is handed
  out, and a throw after it is timed from its own motion, not from that.
- **Dice already at rest.** After a restart in the middle of a roll the dice
  may have come to rest while nothing watched: no motion will come. Armed
  with ``at_rest=True``, the detector hands out the first still scene that
  shows dice (on the rail: differs from the empty table; in the cage: any),
  with or without motion before it. Until the rail's landing area is seen
  empty or the cage spins (the dice that follow are then a new roll's),
  every hand-out is marked :attr:`Settled.at_rest`: a die nudged or a hand
  passing does not make those dice a new throw. On the rail it stays armed
  meanwhile, so the throw after the stick took the dice is handed out as the
  roll; the cage's next roll comes with a spin.
  Only the controller knows when to ask this; the reader's caller must not
  settle such a frame unconfirmed, as the dice may be an earlier roll's.
- **Empty or not** compares the still scene with a picture of the empty table
  (from calibration, :meth:`~SettleDetector.set_empty`, or, failing both, the
  scene at start if it stays still before anything moves, which must then be
  an empty table). It follows slow lighting drift while the table is empty.
  With no picture of the empty table at all, every still scene after motion
  counts as dice, and only the controller's :meth:`~SettleDetector.arm`
  re-arms the rail table.
- **A hand reaching in** and resting there is not a roll: it changes far
  more of the table than dice can, or (when only fingers show) it crosses the
  edge of the landing area joined to its arm, which dice do not. The
  detector waits for the hand to leave.

Pure logic on numpy arrays: no clock (times are counted in frames at
``fps``), no I/O, so it runs the same on recordings, generated sequences and
the live camera.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Literal

import cv2
import numpy as np

from vision.model import is_pixel_size
from vision.sources.base import Frame

log = logging.getLogger("vision.settle")


#: A row's brightness may differ from the whole picture's by this factor at most
#: (flicker bands of a mains lamp are a few percent to about 15%) ...
ROW_GAIN_LIMIT = 1.3
#: ... and rows lit alike within this are left as they are (a grey level or two).
ROW_GAIN_TOLERANCE = 0.01


def _row_gains(a: np.ndarray, b: np.ndarray, weight: np.ndarray, fallback: np.ndarray | None = None) -> np.ndarray:
    """Per row, the factor that brings ``b``'s brightness to ``a``'s, over the pixels ``weight``
    keeps; 1 (or ``fallback``) where a row keeps too few of them to tell."""
    num, den = np.einsum("ij,ij->i", a, weight), np.einsum("ij,ij->i", b, weight)
    enough = (weight.sum(axis=1) >= 4) & (den > 0)
    default = np.ones(len(a), np.float32) if fallback is None else fallback
    return np.where(enough, num / np.maximum(den, 1e-6), default).astype(np.float32)


@dataclass(frozen=True)
class SettleConfig:
    """Thresholds; times in seconds at ``fps`` (see :meth:`frames`). Areas are in die areas.

    ``still_s`` trades speed for safety: it is the delay this adds to every
    roll (minus one frame) and the longest pause of a tumbling die it would
    mistake for rest.
    """

    mode: Literal["rail", "cage"] = "rail"
    fps: float = 30.0
    still_s: float = 0.2
    empty_s: float = 0.2
    spin_s: float = 1.0
    timeout_s: float = 10.0
    scale: int = 4
    pixel_threshold: int = 18
    presence_threshold: int = 35
    motion_area: float = 0.12
    empty_area: float = 0.3
    max_presence_area: float = 10.0
    reach_in_area: float = 2.5  # larger than this and crossing the area's edge: an arm, not dice
    die_size_px: float | None = None  # None: a twelfth of the frame's width
    adapt_rate: float = 0.05  # how fast the empty picture follows the lighting
    follow_light: bool = True  # compare frames after evening out their brightness (overall, then row by row)

    def __post_init__(self) -> None:
        if self.die_size_px is not None and not is_pixel_size(self.die_size_px):
            # A calibration gone wrong must stop the start with its reason, not the first frame with a traceback.
            raise ValueError(f"settle: die_size_px must be a positive number of pixels, got {self.die_size_px!r}")

    def frames(self, seconds: float) -> int:
        """``seconds`` as a whole number of frames (at least one)."""
        return max(1, int(round(seconds * self.fps)))

    @classmethod
    def in_frames(
        cls, fps: float = 30.0, still: int = 6, empty: int = 6, spin: int = 30, timeout: int = 300, **others: object
    ) -> "SettleConfig":
        """The same settings given as frame counts at ``fps`` (for recordings thought of frame by frame)."""
        return cls(fps=fps, still_s=still / fps, empty_s=empty / fps, spin_s=spin / fps, timeout_s=timeout / fps, **others)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Settled:
    """The roll's still frame. ``rest_index``: the first frame of the still period."""

    frame: Frame
    roll: int
    rest_index: int
    at_rest: bool = False
    """Handed out after ``arm(at_rest=True)`` and before the landing area was seen empty or the
    cage spun: the dice may have lain there since an earlier roll."""

    @property
    def delay_frames(self) -> int:
        """Frames between the dice coming to rest and this frame being handed out."""
        return self.frame.index - self.rest_index


@dataclass(frozen=True)
class Unsettled:
    """Motion since ``since_index`` has not come to rest within ``timeout_s``."""

    frame: Frame
    roll: int
    since_index: int
    reason: str


class SettleDetector:
    """Feed every frame to :meth:`feed`; act on the :class:`Settled` / :class:`Unsettled` it returns."""

    # What the detector knows of the stream, reset by _reset_stream() at every new one.
    _prev: np.ndarray | None
    _anchor: np.ndarray | None
    _anchor_index: int
    _still: int
    _moving: bool
    _motion_run: int
    _run_start: int | None  # first frame of the latest run of motion
    _motion_since_arm: bool
    _motion_start: int | None
    _timed_out: bool
    _next_index: int
    _seen_motion: bool
    _empty: np.ndarray | None

    def __init__(self, config: SettleConfig | None = None, landing_mask: np.ndarray | None = None, empty: np.ndarray | None = None) -> None:
        self.config = config or SettleConfig()
        if self.config.mode not in ("rail", "cage"):
            raise ValueError(f"settle mode must be 'rail' or 'cage', not {self.config.mode!r}")
        self._mask_full = landing_mask
        self._empty_full = empty
        self.rolls = 0
        self.armed = False
        # Like ``armed``, orders from the table, which a new stream keeps: hand out dice found lying
        # still (once), and mark every hand-out until the dice in view are surely a new roll's.
        self._take_lying = False
        self._suspect = False
        self._shape: tuple[int, int] | None = None
        self._reset_stream()

    # --- control from the table ------------------------------------------------

    def arm(self, at_rest: bool = False) -> None:
        """A roll is expected (bets locked): the next dice to come to rest after motion are handed out.

        Arming an armed detector changes nothing (but ``at_rest``). Motion that
        began before the call and has not come to rest yet counts for this roll:
        the table may learn of a throw (or of the cage's motor stopping) a moment
        after the dice started moving. ``at_rest``: the dice may already lie
        still (the module docstring's "Dice already at rest").
        """
        if at_rest:
            self._take_lying = self._suspect = True
        if self.armed:
            return
        self.armed = True
        self._timed_out = False
        unsettled = self._moving or (self._anchor is not None and self._still < self._still_frames and self._run_start is not None)
        self._motion_since_arm = bool(unsettled)
        self._motion_start = self._run_start if unsettled else None
        log.debug("armed%s", " (dice already moving)" if unsettled else "")

    def disarm(self) -> None:
        """No roll expected: nothing is handed out until armed again."""
        self.armed = False
        self._take_lying = self._suspect = False

    def set_empty(self, image: np.ndarray) -> None:
        """Use ``image`` (full size, BGR) as the picture of the empty landing area."""
        self._empty_full = image
        self._empty = None if self._shape is None else self._small(image).astype(np.float32)

    @property
    def state(self) -> str:
        """One word for logs and the operator's screen."""
        if self._moving:
            return "moving"
        return "armed" if self.armed else "waiting"

    # --- the per-frame work ----------------------------------------------------

    def feed(self, frame: Frame | np.ndarray) -> Settled | Unsettled | None:
        """Take the next frame of the stream; return an event when one happens on it."""
        if not isinstance(frame, Frame):
            frame = Frame(frame, self._next_index / self.config.fps, self._next_index)
        self._next_index = frame.index + 1
        shape = frame.image.shape[:2]
        if shape != self._shape:
            if self._shape is not None:
                log.warning("frame size changed from %s to %s: starting over", self._shape, shape)
            self._start(shape)
        small = self._small(frame.image)
        prev, self._prev = self._prev, small
        if prev is None:
            return None
        cfg = self.config
        if self._count(small, prev, cfg.pixel_threshold) > self._motion_px:
            return self._on_motion(frame)
        self._moving = False
        self._motion_run = 0
        if self._anchor is None:
            # The previous frame is the first with everything where it now lies.
            self._anchor, self._anchor_index, self._still = prev, frame.index - 1, 2
        elif self._count(small, self._anchor, cfg.pixel_threshold) > self._motion_px:
            # Slow creep: no big step between frames, but not where it was.
            self._anchor, self._anchor_index, self._still = small, frame.index, 1
            return self._check_timeout(frame)
        else:
            self._still += 1
        if self._still < self._still_frames:
            return self._check_timeout(frame)
        return self._on_still(frame, small)

    def _on_motion(self, frame: Frame) -> Unsettled | None:
        self._moving = True
        self._seen_motion = True
        self._anchor = None
        self._still = 0
        self._motion_run += 1
        if self._motion_run == 1:
            self._run_start = frame.index
        if self.armed and not self._motion_since_arm:
            self._motion_since_arm = True
            self._motion_start = frame.index
        if self.config.mode == "cage" and self._motion_run == self._spin_frames:
            log.debug("cage spin seen at frame %d: armed", frame.index)
            self.armed = True
            self._motion_since_arm = True
            self._timed_out = False
            self._take_lying = self._suspect = False  # the dice that stop now are this spin's
            self._motion_start = frame.index - self._motion_run + 1
        return self._check_timeout(frame)

    def _on_still(self, frame: Frame, small: np.ndarray) -> Settled | Unsettled | None:
        cfg = self.config
        if cfg.mode == "rail" and self._empty is None and not self._seen_motion:
            self._empty = small.astype(np.float32)
            log.info("no picture of the empty table: taking frame %d (still since the start) as empty", frame.index)
        if cfg.mode == "rail" and self._empty is not None:
            present_map = self._changed(small, self._empty, cfg.presence_threshold)
            present = int(np.count_nonzero(present_map))
            if present <= self._empty_px:
                cv2.accumulateWeighted(small.astype(np.float32), self._empty, cfg.adapt_rate)
                # Whatever moved has gone without landing, and no dice lie here from before.
                self._motion_since_arm = False
                self._motion_start = None
                self._take_lying = self._suspect = False
                if self._still >= self._empty_frames and not self.armed:
                    log.debug("landing area empty at frame %d: armed", frame.index)
                    self.arm()
                return None
            if present > self._max_presence_px or self._reaches_in(present_map):
                return self._check_timeout(frame)  # a hand or an object resting in the landing area: wait for it to go
        if not (self.armed and (self._motion_since_arm or self._take_lying)):
            return None
        at_rest, self._take_lying = self._suspect, False
        # Dice that may be an earlier roll's leave the rail armed for a throw; anything else is the roll.
        self.armed = at_rest and cfg.mode == "rail"
        self._motion_since_arm = False
        self._motion_start = None
        self._run_start = None
        self.rolls += 1
        log.log(logging.INFO if at_rest else logging.DEBUG, "roll %d settled%s: frame %d, at rest since %d",
                self.rolls, " (dice found at rest)" if at_rest else "", frame.index, self._anchor_index)
        return Settled(frame, self.rolls, self._anchor_index, at_rest=at_rest)

    def _check_timeout(self, frame: Frame) -> Unsettled | None:
        if not self.armed or self._motion_start is None or self._timed_out:
            return None
        if frame.index - self._motion_start < self._timeout_frames:
            return None
        self._timed_out = True
        self._take_lying = self._suspect = False  # the dealer decides this roll; what lies here after is not to be read
        # The roll goes to the dealer; when these dice stop at last they must not be
        # taken for the next roll, so nothing is handed out until armed again.
        self.armed = False
        reason = f"no rest {self.config.timeout_s:g} s after the dice started moving"
        log.warning("roll %d: %s", self.rolls + 1, reason)
        return Unsettled(frame, self.rolls + 1, self._motion_start, reason)

    # --- helpers ----------------------------------------------------------------

    def _reset_stream(self) -> None:
        self._prev = None
        self._anchor = None
        self._anchor_index = 0
        self._still = 0
        self._moving = False
        self._motion_run = 0
        self._run_start = None
        self._motion_since_arm = False
        self._motion_start = None
        self._timed_out = False
        self._next_index = 0
        self._seen_motion = False
        self._empty = None

    def _start(self, shape: tuple[int, int]) -> None:
        cfg = self.config
        self._shape = shape
        self._reset_stream()
        h, w = shape
        self._small_size = (max(1, w // cfg.scale), max(1, h // cfg.scale))
        if self._mask_full is not None and self._mask_full.shape[:2] == shape:
            mask = cv2.resize(self._mask_full, self._small_size, interpolation=cv2.INTER_AREA) > 127
        else:
            if self._mask_full is not None:
                log.warning("landing mask %s does not fit frames %s: watching the whole frame", self._mask_full.shape[:2], shape)
            mask = np.ones(self._small_size[::-1], bool)
        self._mask = mask
        self._mask_u8 = mask.astype(np.uint8) * 255
        self._mask_f = mask.astype(np.float32)
        # The rim of the landing area: its boundary with the rest of the frame, and the frame's edge.
        inside = np.pad(mask, 1).astype(np.uint8)
        self._edge = (cv2.erode(inside, np.ones((3, 3), np.uint8))[1:-1, 1:-1] == 0) & mask
        die = (cfg.die_size_px or w / 12.0) / cfg.scale
        area = die * die
        self._motion_px = max(2, int(cfg.motion_area * area))
        self._empty_px = max(3, int(cfg.empty_area * area))
        self._max_presence_px = int(cfg.max_presence_area * area)
        self._arm_px = int(cfg.reach_in_area * area)
        self._still_frames = max(2, cfg.frames(cfg.still_s))
        self._empty_frames = max(self._still_frames, cfg.frames(cfg.empty_s))
        self._spin_frames = cfg.frames(cfg.spin_s)
        self._timeout_frames = cfg.frames(cfg.timeout_s)
        if self._empty_full is not None and self._empty_full.shape[:2] == shape:
            self._empty = self._small(self._empty_full).astype(np.float32)

    def _small(self, image: np.ndarray) -> np.ndarray:
        return cv2.resize(image, self._small_size, interpolation=cv2.INTER_AREA)

    def _changed(self, a: np.ndarray, b: np.ndarray, threshold: int) -> np.ndarray:
        """Where, in the landing area, ``a`` and ``b`` differ by more than ``threshold`` in some channel."""
        if b.dtype != a.dtype:
            b = b.astype(a.dtype)
        if self.config.follow_light:
            b = self._light_matched(a, b, threshold)
        diff = cv2.absdiff(a, b)
        if diff.ndim == 3:
            blue, green, red = cv2.split(diff)  # numpy's max over a last axis of 3 is ten times slower
            diff = cv2.max(cv2.max(blue, green), red)
        return (diff > threshold) & self._mask

    def _light_matched(self, a: np.ndarray, b: np.ndarray, threshold: int) -> np.ndarray:
        """``b`` with the lighting of ``a``: a change of brightness moves every pixel a
        little, a die moves a few pixels a lot, so the change is taken out first:
        overall, per colour channel (a USB camera's own exposure, a lamp's colour),
        then row by row where the rows are lit unevenly (:meth:`_row_light`)."""
        ma, mb = cv2.mean(a, self._mask_u8), cv2.mean(b, self._mask_u8)
        gains = tuple(x / y if y > 1 else 1.0 for x, y in zip(ma, mb))
        b = cv2.multiply(b, gains)  # type: ignore[call-overload]  # a per-channel scalar, which OpenCV's stubs lack
        rows = self._row_light(a, b, threshold)
        if rows is None:
            return b
        scaled = b.astype(np.float32) * (rows[:, None, None] if b.ndim == 3 else rows[:, None])
        return np.clip(scaled + 0.5, 0, 255).astype(b.dtype)

    def _row_light(self, a: np.ndarray, b: np.ndarray, threshold: int) -> np.ndarray | None:
        """Each row's gain from ``b`` to ``a``, or None when no row is off by ``ROW_GAIN_TOLERANCE``.

        A lamp flickering at mains frequency, filmed by a rolling shutter, lights the
        picture in horizontal bands that move from frame to frame. Each row's gain is
        estimated twice, the second time without the pixels the first leaves far off
        (a die, a hand), and kept within ``ROW_GAIN_LIMIT``, so a large object is not
        explained away as light.
        """
        ga, gb = (cv2.cvtColor(x, cv2.COLOR_BGR2GRAY) if x.ndim == 3 else x for x in (a, b))
        ga, gb = ga.astype(np.float32), gb.astype(np.float32)
        gain = _row_gains(ga, gb, self._mask_f)
        gain = _row_gains(ga, gb, self._mask_f * (np.abs(ga - gb * gain[:, None]) <= threshold), gain)
        if np.abs(gain - 1.0).max() < ROW_GAIN_TOLERANCE:
            return None
        return np.clip(gain, 1.0 / ROW_GAIN_LIMIT, ROW_GAIN_LIMIT)

    def _count(self, a: np.ndarray, b: np.ndarray, threshold: int) -> int:
        return int(np.count_nonzero(self._changed(a, b, threshold)))

    def _reaches_in(self, present: np.ndarray) -> bool:
        """Is something bigger than two dice crossing the edge of the landing area? An arm is.

        Dice lie inside the landing area; a hand resting on the felt is joined to
        an arm that comes in across its edge.
        """
        n, labels, stats, _ = cv2.connectedComponentsWithStats(present.astype(np.uint8), connectivity=8)
        for k in range(1, n):
            if stats[k, cv2.CC_STAT_AREA] > self._arm_px and np.any((labels == k) & self._edge):
                return True
        return False


def settle_stream(frames, detector: SettleDetector):
    """Yield every event of ``detector`` over an iterable of frames (for tools and benches)."""
    for frame in frames:
        event = detector.feed(frame)
        if event is not None:
            yield event


__all__ = ["SettleConfig", "SettleDetector", "Settled", "Unsettled", "settle_stream"]
