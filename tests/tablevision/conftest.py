"""Fixtures for the table-vision tests: small recordings made on the spot."""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest


def textured(i: int, size: tuple[int, int] = (160, 120)) -> np.ndarray:
    """A frame that is recognisably number ``i``: noise plus a bright square at x = 10 * i."""
    rng = np.random.default_rng(i)
    w, h = size
    img = rng.integers(30, 90, (h, w, 3), dtype=np.uint8)
    x = (10 * i) % (w - 12)
    img[20:32, x : x + 12] = 250
    return img


def settle_events(src, det) -> list:
    """Feed every frame of the throw playing on a generated ``src`` to ``det``; the events it gave."""
    events = []
    while src.pending:
        event = det.feed(src.read())
        if event is not None:
            events.append(event)
    return events


@pytest.fixture
def drain_throw():
    """``settle_events`` above, for tests that film throws through a settle detector."""
    return settle_events


@pytest.fixture
def make_frame():
    """The frame factory above, for tests that build their own recordings."""
    return textured


@pytest.fixture
def image_folder(tmp_path: Path) -> Path:
    """Five frames named out of plain sort order, plus one corrupt file and a text file."""
    folder = tmp_path / "rec"
    folder.mkdir()
    for i in (1, 2, 10):
        cv2.imwrite(str(folder / f"frame_{i}.png"), textured(i))
    (folder / "frame_3.png").write_bytes(b"\x89PNG\r\n\x1a\n this is not really an image")
    cv2.imwrite(str(folder / "frame_4.jpg"), textured(4))
    (folder / "notes.txt").write_text("not an image")
    return folder


@pytest.fixture
def video_file(tmp_path: Path) -> Path:
    """Twelve frames at 10 fps, written with cv2.VideoWriter (MJPG in AVI: available in every OpenCV build)."""
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 10.0, (160, 120))
    assert writer.isOpened()
    for i in range(12):
        writer.write(textured(i))
    writer.release()
    return path
