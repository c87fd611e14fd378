"""Run the reader over a labelled folder and gather the figures of the bench report."""
from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import cv2
import numpy as np

from vision.benchtool.labels import LabelledImage
from vision.benchtool.progress import Progress
from vision.benchtool.score import ImageScore, score, tally_reasons
from vision.model import Calibration, DiceRead, ReadStatus
from vision.sources.folder import decode_image_file

Reader = Callable[..., DiceRead]


@dataclass
class ImageResult:
    item: LabelledImage
    read: DiceRead
    score: ImageScore
    size: tuple[int, int]  # width, height (0, 0) when the file could not be decoded
    #: the processor time the reader's thread spent on the image (ms): unlike the read's own
    #: ``ms`` (wall time), it does not grow when other jobs share the machine's cores
    cpu_ms: float = 0.0


def run(items: list[LabelledImage], reader: Reader, give_count: bool = True,
        calibration: Calibration | None = None, progress: Progress | None = None,
        finding: tuple[int, int] | None = None) -> list[ImageResult]:
    """Read every image (``expect`` = its labelled count when ``give_count``) and score it.
    ``finding`` (width, height): each image is also given shrunk to that size, as a camera's
    low-resolution stream gives it, to find the dice on (the shrinking is not timed: the
    camera does it)."""
    results = []
    for item in items:
        frame, problem = decode_image_file(item.path)
        expect = len(item.dice) if give_count and item.dice else None
        cpu = 0.0
        if frame is None:
            read = DiceRead(ReadStatus.NO_READ, (), problem)
            size = (0, 0)
        else:
            small = cv2.resize(frame, finding, interpolation=cv2.INTER_AREA) if finding else None
            kwargs = {"finding": small} if small is not None else {}
            t0 = time.thread_time()
            read = reader(frame, expect=expect, calibration=calibration, **kwargs)
            cpu = (time.thread_time() - t0) * 1000.0
            size = (frame.shape[1], frame.shape[0])
        results.append(ImageResult(item, read, score(item, read, *size), size, cpu))
        if progress:
            progress.step()
    return results


def summarise(results: list[ImageResult]) -> dict:
    """The report's figures (fractions in 0..1, times in ms)."""
    n_img = len(results)
    n_dice = sum(r.score.labelled for r in results)
    correct = sum(r.score.correct for r in results)
    times = [r.read.ms for r in results if r.size != (0, 0)]
    cpu = [r.cpu_ms for r in results if r.size != (0, 0)]
    status = {s.value: sum(r.read.status == s for r in results) for s in ReadStatus}
    ok = [r for r in results if r.read.status == ReadStatus.OK]
    refusable = [r for r in results if r.item.not_to_settle]

    def frac(a: float, b: float) -> float | None:
        return a / b if b else None

    return {
        "images": n_img,
        "dice": n_dice,
        "per_die_accuracy": frac(correct, n_dice),
        "per_roll_accuracy": frac(sum(r.score.roll_correct for r in results), n_img),
        "dice_wrong": sum(r.score.wrong for r in results),
        "dice_missed": sum(r.score.missed for r in results),
        "dice_extra": sum(r.score.extra for r in results),
        "ok_rate": frac(status["ok"], n_img),
        "uncertain_rate": frac(status["uncertain"], n_img),
        "no_read_rate": frac(status["no_read"], n_img),
        "ok_roll_accuracy": frac(sum(r.score.roll_correct for r in ok), len(ok)),
        "silent_misread_images": sum(r.score.silent for r in results),
        "silent_misread_image_rate": frac(sum(r.score.silent for r in results), n_img),
        "silent_misread_dice": sum(r.score.silent_dice for r in results),
        "silent_misread_die_rate": frac(sum(r.score.silent_dice for r in results), n_dice),
        "rolls_not_to_settle": len(refusable),
        "rolls_not_to_settle_read_ok": sum(r.read.status == ReadStatus.OK for r in refusable),
        "ms_median": float(np.median(times)) if times else None,
        "ms_p95": float(np.percentile(times, 95)) if times else None,
        "cpu_ms_median": float(np.median(cpu)) if cpu else None,
        "reasons": _reasons(results),
    }


def _reasons(results: list[ImageResult]) -> dict[str, int]:
    return tally_reasons(r.read.reason for r in results if r.read.reason)


def settled_but_should_not_be(result: ImageResult) -> bool:
    """An ``ok`` read of a roll labelled as one not to settle (dice touching, a die leaning)."""
    return bool(result.item.not_to_settle) and result.read.status == ReadStatus.OK


def misses(results: list[ImageResult]) -> list[ImageResult]:
    """Every image whose read is not exactly right, or that came out ``ok`` when it
    must not; silent misreads first, then those."""
    bad = [r for r in results if not r.score.roll_correct or settled_but_should_not_be(r)]
    return sorted(bad, key=lambda r: (not r.score.silent, not settled_but_should_not_be(r), str(r.item.path)))


def display_path(path: Path, root: Path) -> str:
    """``path`` as seen from the benched folder (manifest paths are absolute, the folder may not be)."""
    try:
        return str(path.resolve().relative_to(root.resolve()))
    except ValueError:
        return str(path)
