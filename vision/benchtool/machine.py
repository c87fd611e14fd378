"""Where a bench ran, and how fast that machine was while it ran.

A latency figure says as much about the machine as about the reader. On the
shared machine the reader was developed on, the same frames read with the
same code gave medians a fifth apart within minutes, and the speed changed
from one second to the next with nothing else of ours running (neighbours
on the host, invisible to the load average).

So the bench names the processor, the OpenCV build and threads, and times a
fixed piece of OpenCV work (``SpeedProbe``: a blur of one 640x480 colour
frame) after every frame it reads. The probe's median, compared with what it
takes on the same machine when that machine is quiet, says whether the
latency figures were measured on a whole core or on part of one; its median
against its own fastest time in the run says how much the speed moved
during the run.
"""
from __future__ import annotations

import os
import platform
import time
from pathlib import Path
from typing import Any, Callable

import cv2
import numpy as np

from vision.model import DiceRead

CPUINFO = Path("/proc/cpuinfo")


def cpu_model(cpuinfo: Path = CPUINFO) -> str:
    """The machine's or processor's name as the kernel gives it (a Raspberry
    Pi's ``Model``, x86 ``model name``, else Arm ``Hardware``), else what
    Python's ``platform`` knows."""
    try:
        text = cpuinfo.read_text(errors="replace")
    except OSError:
        text = ""
    fields: dict[str, str] = {}
    for row in text.splitlines():
        key, sep, value = row.partition(":")
        if sep and value.strip():
            fields.setdefault(key.strip(), value.strip())
    for key in ("Model", "model name", "Hardware"):
        if key in fields:
            return fields[key]
    return platform.processor() or platform.machine() or "unknown"


def usable_cores() -> int | None:
    """The cores this process may run on (its affinity, which a container or
    ``taskset`` narrows), else the machine's count, else None."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count()


class SpeedProbe:
    """Times one fixed piece of OpenCV work, a 7x7 Gaussian blur of a 640x480
    colour frame (about 0.75-0.85 ms on one core of the development machine
    when it is quiet), each time ``sample`` is called."""

    def __init__(self) -> None:
        self._frame = np.random.default_rng(0).integers(0, 256, (480, 640, 3), dtype=np.uint8)
        self._ms: list[float] = []
        cv2.GaussianBlur(self._frame, (7, 7), 0)  # the first call pays for set-up: not a sample

    def sample(self) -> None:
        """Time the blur once, now."""
        t0 = time.perf_counter()
        cv2.GaussianBlur(self._frame, (7, 7), 0)
        self._ms.append((time.perf_counter() - t0) * 1000.0)

    def figures(self) -> dict[str, Any]:
        """How many samples, their median and fastest time (ms), and the median
        over the fastest: how much the machine's speed moved during the run."""
        if not self._ms:
            return {"probe_samples": 0, "probe_ms_median": None, "probe_ms_fastest": None, "slowdown": None}
        median, fastest = float(np.median(self._ms)), float(min(self._ms))
        return {"probe_samples": len(self._ms), "probe_ms_median": round(median, 3),
                "probe_ms_fastest": round(fastest, 3), "slowdown": round(median / fastest, 2) if fastest > 0 else None}


def probed(reader: Callable[..., DiceRead], probe: SpeedProbe) -> Callable[..., DiceRead]:
    """``reader``, followed after every read by a sample of ``probe``."""

    def read_then_probe(frame: np.ndarray, **kwargs: Any) -> DiceRead:
        read = reader(frame, **kwargs)
        probe.sample()
        return read

    return read_then_probe


def describe(probe: SpeedProbe) -> dict[str, Any]:
    """The ``machine`` part of the bench's figures (call it after the run)."""
    return {"cpu": cpu_model(), "cores": usable_cores(), "opencv": cv2.__version__,
            "opencv_threads": cv2.getNumThreads(), **probe.figures()}


def summary_line(machine: dict[str, Any]) -> str:
    """The ``machine`` figures as one line of the text report and the HTML page."""
    cores, threads = machine["cores"], machine["opencv_threads"]
    where = (f"measured on {machine['cpu']} ({_count(cores, 'core')}), OpenCV {machine['opencv']} "
             f"with {_count(threads, 'thread')}")
    if machine["slowdown"] is None:
        return where
    return (f"{where}; a fixed blur after each frame took {machine['probe_ms_median']:.2f} ms at the median, "
            f"{machine['slowdown']:.2f} times its fastest in this run ({machine['probe_ms_fastest']:.2f} ms)")


def _count(n: int | None, noun: str) -> str:
    if n is None:
        return f"unknown {noun}s"
    return f"{n} {noun}{'' if n == 1 else 's'}"
