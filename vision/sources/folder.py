"""A folder of recorded images, replayed as a camera (bench testing on a laptop).

Images are taken in the order of ``frames.csv`` when the folder has one (as
``dicetable record`` writes: ``file,index,timestamp``), with the recording's
timestamps; otherwise in natural name order (``frame_2`` before
``frame_10``) at a nominal frame rate. A corrupt or unreadable file is
reported as a :class:`BrokenFrame` and the next read moves on to the next file;
a looping folder whose every file is broken ends after one pass.
"""
from __future__ import annotations

import csv
import math
import os
import re
import stat
from pathlib import Path

import cv2
import numpy as np

from vision.sources.base import (
    BrokenFrame, EndOfStream, Frame, FrameSource, HealthState, Pacer, SourceUnavailable, check_image, shrunk,
)
from vision.sources.imagesize import MAX_FILE_BYTES, MAX_PIXELS, measure, too_large

IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"}
INDEX_FILE = "frames.csv"


def natural_key(name: str) -> list:
    return [int(part) if part.isdigit() else part.lower() for part in re.split(r"(\d+)", name)]


def list_recording(folder: Path, fps: float) -> list[tuple[Path, float]]:
    """``(path, timestamp)`` for each image of the folder, in playing order.

    A ``frames.csv`` that cannot be played (a timestamp that is not a number) makes the
    recording :class:`SourceUnavailable`, naming the file and line, rather than a bare
    ``ValueError`` that would end ``dicetable run`` with a traceback.
    """
    index = folder / INDEX_FILE
    if index.is_file():
        entries: list[tuple[Path, float]] = []
        with open(index, newline="") as fh:
            rows = csv.DictReader(fh)
            for row in rows:
                if row.get("file"):
                    stamp = row.get("timestamp")
                    when = _timestamp(stamp, index, rows.line_num) if stamp not in (None, "") else len(entries) / fps
                    entries.append((folder / row["file"], when))
        return entries
    files = sorted((p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES), key=lambda p: natural_key(p.name))
    return [(p, i / fps) for i, p in enumerate(files)]


def _timestamp(text: str, index: Path, line: int) -> float:
    """The recorded timestamp ``text`` in seconds; :class:`SourceUnavailable` naming ``index`` and ``line`` if it is none."""
    try:
        stamp = float(text)
    except ValueError:
        stamp = math.nan
    if not math.isfinite(stamp):
        raise SourceUnavailable(f"{index} line {line}: timestamp {text!r} is not a number of seconds")
    return stamp


def decode_image_file(path: Path | str) -> tuple[np.ndarray | None, str | None]:
    """``(BGR image, None)``, or ``(None, why not)``: never raises.

    One decoder for every command that reads image files (``read``, ``bench``, a recorded
    folder), so a file is refused with the same reason wherever it is given. Only a regular
    file is read (a FIFO would be waited on for ever), and only once its header says it has at
    most :data:`~vision.sources.imagesize.MAX_PIXELS` pixels (:mod:`vision.sources.imagesize`):
    the memory a file costs is bounded before it is decoded. ``imdecode`` of the bytes rather
    than ``imread``: it takes any path the system does."""
    data, problem = _image_bytes(path)
    if data is None:
        return None, problem
    try:
        image = cv2.imdecode(data, cv2.IMREAD_COLOR)
    except cv2.error:
        image = None
    if image is None:
        return None, "not a readable image"
    return image, None


def _image_bytes(path: Path | str) -> tuple[np.ndarray | None, str | None]:
    """The bytes of the image file at ``path``, or None and why it is not read."""
    try:  # O_NONBLOCK: opening a FIFO must not wait for a writer; a regular file ignores it
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except (OSError, ValueError) as exc:
        return None, f"cannot open the file: {getattr(exc, 'strerror', None) or exc}"
    with open(fd, "rb") as stream:
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                return None, "not a regular file (a folder, a pipe or a device is no image)"
            if info.st_size == 0:
                return None, "empty file"
            if info.st_size > MAX_FILE_BYTES:
                return None, f"a file of {info.st_size} bytes, larger than any image of {MAX_PIXELS / 1e6:.0f} megapixels"
            size = measure(stream)
            if size is None:  # no header of FORMATS: what is not measured is not decoded
                return None, "not a readable image"
            refused = too_large(*size)
            if refused:
                return None, refused
            stream.seek(0)
            return np.frombuffer(stream.read(), np.uint8), None
        except OSError as exc:
            return None, f"cannot read the file: {exc.strerror or exc}"


def read_image(path: Path) -> np.ndarray:
    """Decode an image file as a camera frame, or :class:`BrokenFrame` saying why not."""
    image, problem = decode_image_file(path)
    if image is None:
        raise BrokenFrame(f"{path.name}: {problem}")
    return check_image(image, path.name)


class FolderSource(FrameSource):
    """Replays a folder of images; ``loop`` starts again at the end, ``realtime`` keeps the recorded pace."""

    def __init__(self, path: str | Path, fps: float = 30.0, loop: bool = False, realtime: bool = False,
                 size: tuple[int, int] | None = None, full_size: tuple[int, int] | None = None) -> None:
        """``full_size`` with ``size``: images bigger than ``size`` (of its shape) are shrunk to it
        for motion and finding, and kept whole as the full-resolution frame (``Frame.full``)."""
        super().__init__()
        self.small: tuple[int, int] | None = (size[0], size[1]) if full_size and size else None
        self.path = Path(path)
        self.name = f"folder:{self.path}"
        if not self.path.is_dir():
            raise SourceUnavailable(f"{self.name}: no such folder")
        self.fps = fps
        self.loop = loop
        self.realtime = realtime
        self._entries = list_recording(self.path, fps)
        if not self._entries:
            raise SourceUnavailable(f"{self.name}: no images in the folder")
        self._pos = 0
        self._count = 0
        self._good_in_pass = False  # a loop over files that are all broken must end, not spin
        self._offset = 0.0
        self._pacer = Pacer()
        self._set_health(HealthState.OK)

    def __len__(self) -> int:
        return len(self._entries)

    def read(self) -> Frame:
        if self._pos >= len(self._entries):
            if not self.loop:
                self._set_health(HealthState.ENDED)
                raise EndOfStream(f"{self.name}: end after {self._count} frames")
            if not self._good_in_pass:
                self._set_health(HealthState.ENDED)
                raise EndOfStream(f"{self.name}: not one readable image in the folder; looping would only repeat the errors")
            last = self._entries[-1][1]
            self._offset += last - self._entries[0][1] + 1.0 / self.fps
            self._pos = 0
            self._good_in_pass = False
        path, stamp = self._entries[self._pos]
        self._pos += 1
        stamp += self._offset
        if self.realtime:
            self._pacer.wait(stamp)
        try:
            image = read_image(path)
        except BrokenFrame as exc:
            self._set_health(HealthState.DEGRADED, str(exc))
            raise
        self._set_health(HealthState.OK)
        self._good_in_pass = True
        small, full = shrunk(image, self.small)
        frame = Frame(small, stamp, self._count, {"file": path.name}, full)
        self._count += 1
        return frame

