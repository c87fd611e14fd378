"""A one-line progress bar on stderr, so a long bench shows it is alive without touching stdout.

Drawn only on a terminal: in a log or a pipe (``2>&1 | jq``, CI) its carriage-return frames would
be dozens of garbled lines, so there it draws nothing."""
from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    """``with Progress(total) as bar: bar.step()``; redraws at most ten times a second."""

    def __init__(self, total: int, label: str = "bench", stream: TextIO | None = None, width: int = 30):
        self.total, self.label, self.width = max(total, 0), label, width
        self.stream = stream if stream is not None else sys.stderr
        self.shown = self.stream.isatty()
        self.done = 0
        self._t0 = time.monotonic()
        self._last = 0.0

    def __enter__(self) -> "Progress":
        self._draw()
        return self

    def step(self, n: int = 1) -> None:
        self.done += n
        now = time.monotonic()
        if now - self._last >= 0.1 or self.done >= self.total:
            self._draw()

    def _draw(self) -> None:
        self._last = time.monotonic()
        if not self.shown:
            return
        frac = self.done / self.total if self.total else 1.0
        filled = int(frac * self.width)
        elapsed = self._last - self._t0
        eta = elapsed / self.done * (self.total - self.done) if self.done else 0.0
        bar = "#" * filled + "-" * (self.width - filled)
        self.stream.write(f"\r{self.label} [{bar}] {self.done}/{self.total} {elapsed:5.1f}s eta {eta:5.1f}s")
        self.stream.flush()

    def __exit__(self, *exc) -> None:
        self._draw()
        if self.shown:
            self.stream.write("\n")
            self.stream.flush()
