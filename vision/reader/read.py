"""One still frame in, one ``DiceRead`` out: find the dice, look at each, judge the roll.

``detect.py`` finds the places, ``look.py`` gathers the evidence at each, ``closeup.py`` looks
again at a frame that may be a close-up, ``judge.py`` decides with the model's policy."""
from __future__ import annotations

import time

import cv2
import numpy as np

from vision.model import Calibration, DiceRead, ReadStatus, is_pixel_size
from vision.reader.closeup import read_as_close_up
from vision.reader.detect import find_candidates
from vision.reader.judge import judge
from vision.reader.look import Reading, evidence_at
from vision.reader.model_dir import ReaderModel, load_model
from vision.reader.nets import DiceNets, ModelMissing
from vision.reader.oblique import top_faces
from vision.reader.topface import view_of


def _bad_frame(frame: object) -> str | None:
    if not isinstance(frame, np.ndarray):
        return "frame is not an image array"
    if frame.ndim != 3 or frame.shape[2] != 3:
        return f"frame must be HxWx3 BGR, got shape {frame.shape}"
    if frame.dtype != np.uint8:
        return f"frame must be uint8, got {frame.dtype}"
    if min(frame.shape[:2]) < 32:
        return f"frame too small: {frame.shape[1]}x{frame.shape[0]}"
    return None


def read_dice(frame: np.ndarray, expect: int | None = None, calibration: Calibration | None = None,
              nets: DiceNets | None = None, close_up: bool = True, model: ReaderModel | None = None,
              finding: np.ndarray | None = None) -> DiceRead:
    """Read the dice in one still BGR frame. Never raises on a bad frame: returns ``no_read``.

    ``model``: the networks and policy to read with (the bundled model when None); ``nets``
    replaces the model's networks (tests). ``finding``: a smaller picture of the same view
    (a camera's low-resolution stream) on which the dice are found; each is read from ``frame``.
    ``ms`` counts the reading only: loading the networks (once per process) happens before
    the clock starts. ``close_up=False`` leaves out the close-up pass (``closeup.py``), so that
    a bench can measure what it adds; a table always reads with it.
    """
    try:
        model = model or load_model()
    except ModelMissing as exc:
        return DiceRead(ReadStatus.NO_READ, (), str(exc))
    t0 = time.perf_counter()

    def done(read: DiceRead) -> DiceRead:
        return DiceRead(read.status, read.dice, read.reason, (time.perf_counter() - t0) * 1000.0)

    problem = _bad_frame(frame)
    if problem:
        return done(DiceRead(ReadStatus.NO_READ, (), problem))
    if expect is not None and expect < 1:
        return done(DiceRead(ReadStatus.NO_READ, (), f"expected dice count must be at least 1, got {expect}"))
    die_size = calibration.die_size_at(frame.shape) if calibration else None
    if die_size is not None and not is_pixel_size(die_size):
        return done(DiceRead(ReadStatus.NO_READ, (), f"calibration: die size must be a positive number of pixels, "
                                                     f"got {die_size!r}"))
    if finding is not None and _bad_frame(finding):
        finding = None  # the full frame alone still reads
    policy = model.policy
    view = view_of(calibration, frame.shape)
    reading = Reading(nets or model.nets, policy, view)
    mask = calibration.landing_mask if calibration else None
    if mask is not None and mask.shape[:2] != frame.shape[:2]:
        mask = cv2.resize(mask, (frame.shape[1], frame.shape[0]), interpolation=cv2.INTER_NEAREST)
    try:
        evidence = evidence_at(frame, reading, find_candidates(frame, reading.nets, die_size, policy, finding), expect)
        refusal = None
        if view is None:  # no calibrated tilt: each die's outline tells whether it shows a side face
            seen = top_faces(frame, reading, evidence)
            evidence, refusal = seen.evidence, seen.refusal
        read = judge(evidence, expect, frame.shape, mask, die_size, policy, view.toward if view else None)
        if close_up and die_size is None and (read.status is not ReadStatus.OK or _all_ones(read)):
            read = read_as_close_up(frame, reading, expect, mask, evidence, read)
        if refusal is not None and read.status is ReadStatus.OK:
            read = DiceRead(ReadStatus.UNCERTAIN, read.dice, refusal)
        if view is not None and view.tilt_deg > policy.max_view_tilt_deg and read.status is ReadStatus.OK:
            read = DiceRead(ReadStatus.UNCERTAIN, read.dice,
                            f"the camera is {view.tilt_deg:.0f} degrees off the vertical: confirm the top faces")
    except cv2.error as exc:
        return done(DiceRead(ReadStatus.NO_READ, (), f"could not process the frame: {exc}".splitlines()[0]))
    return done(read)


def _all_ones(read: DiceRead) -> bool:
    """Every die read shows 1: what the standard scale makes of a close-up die, each pip seen as a die."""
    return bool(read.dice) and all(d.value == 1 for d in read.dice)
