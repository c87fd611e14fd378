"""Write frames to a folder that :class:`~vision.sources.folder.FolderSource` replays.

Layout: one image per frame (``frame_000123.png``) and ``frames.csv`` with
``file,index,timestamp,wall_time`` plus, when the frame carries them (a
generated source), the truth columns ``values`` and ``moving``. Each row is
flushed to the operating system as it is written, so a recording cut short by
Ctrl-C or a crash keeps every frame it listed; a power cut can lose the last
few seconds the system had not yet written to the card (no fsync per frame:
at 30 frames a second it would wear an SD card and slow the recording).
"""
from __future__ import annotations

import csv
import time
from pathlib import Path

import cv2

from vision.sources.base import Frame
from vision.sources.folder import INDEX_FILE

COLUMNS = ["file", "index", "timestamp", "wall_time", "values", "moving"]
FORMATS = {"png": [cv2.IMWRITE_PNG_COMPRESSION, 1], "jpg": [cv2.IMWRITE_JPEG_QUALITY, 95]}


class Recorder:
    """Appends frames to ``folder``; ``fmt`` is ``png`` (lossless, the default) or ``jpg``."""

    def __init__(self, folder: str | Path, fmt: str = "png", jpeg_quality: int = 95) -> None:
        if fmt not in FORMATS:
            raise ValueError(f"image format {fmt!r}: expected one of {', '.join(FORMATS)}")
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.fmt = fmt
        self._params = [cv2.IMWRITE_JPEG_QUALITY, int(jpeg_quality)] if fmt == "jpg" else FORMATS[fmt]
        index = self.folder / INDEX_FILE
        new = not index.exists()
        self._fh = open(index, "a", newline="")
        self._csv = csv.writer(self._fh)
        if new:
            self._csv.writerow(COLUMNS)
            self._fh.flush()
        self.count = 0

    def write(self, frame: Frame) -> str:
        """Save ``frame``; returns its file name (relative to the folder)."""
        name = f"frame_{frame.index:06d}.{self.fmt}"
        if not cv2.imwrite(str(self.folder / name), frame.image, self._params):
            raise OSError(f"cannot write {self.folder / name}")
        values = frame.meta.get("values")
        moving = frame.meta.get("moving")
        self._csv.writerow([
            name, frame.index, f"{frame.timestamp:.6f}", f"{time.time():.6f}",
            " ".join(str(v) for v in values) if values is not None else "",
            "" if moving is None else int(bool(moving)),
        ])
        self._fh.flush()
        self.count += 1
        return name

    def close(self) -> None:
        self._fh.close()

    def __enter__(self) -> Recorder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
