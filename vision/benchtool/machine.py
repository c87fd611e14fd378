"""Where a bench ran, and how fast that machine was while it ran.

A latency figure says as much about the machine as about the reader. On the
shared machine the reader was developed on, the same frames read with the
same code gave medians a fifth apart within minutes, and the speed changed
from one second to the next with nothing else of ours running (neighbours
on the host, invisible to the load average; docs/vision.md, "Latency").

So the bench names the processor, the OpenCV build and threads, and times a
fixed piece of OpenCV work (``SpeedProbe``: a blur of one 640x480 colour
frame) after every frame it reads. The probe's median over the run against
its fastest time says how much slower than its best the machine ran during
the bench, which tells a slow reader from a busy machine.
"""
from __future__ import annotations

import os
import platform
import time
from pathlib import Path

import cv2
import numpy as np

CPUINFO = Path("/proc/cpuinfo")


def cpu_model(cpuinfo: Path = CPUINFO) -> str:
    """The machine's or processor's name as the kernel gives it (a Raspberry
    Pi's ``Model``, x86 ``model name``, else Arm ``Hardware``), else what
    Python's ``platform`` knows."""
    try:
        text = cpuinfo.read_text()
    except OSError:
        text = ""
    fields = {}
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if sep and value.strip():
            fields.setdefault(key.strip(), value.strip())
    for key in ("Model", "model name", "Hardware"):
        if key in fields:
            return fields[key]
    return platform.processor() or platform.machine() or "unknown"


class SpeedProbe:
    """Times one fixed piece of OpenCV work, a 7x7 Gaussian blur of a 640x480
    colour frame (about 0.8 ms on one core of the development machine when it
    is quiet), each time ``sample`` is called."""

    def __init__(self) -> None:
        self._frame = np.random.default_rng(0).integers(0, 256, (480, 640, 3), dtype=np.uint8)
        self._ms: list[float] = []

    def sample(self) -> None:
        t0 = time.perf_counter()
        cv2.GaussianBlur(self._frame, (7, 7), 0)
        self._ms.append((time.perf_counter() - t0) * 1000.0)

    def figures(self) -> dict:
        """Median and fastest time of the probe (ms), and their ratio: how much
        slower than its best the machine ran, typically, during the samples."""
        if not self._ms:
            return {"probe_ms_median": None, "probe_ms_fastest": None, "slowdown": None}
        median, fastest = float(np.median(self._ms)), float(min(self._ms))
        return {"probe_ms_median": round(median, 3), "probe_ms_fastest": round(fastest, 3),
                "slowdown": round(median / fastest, 2) if fastest > 0 else None}


def describe(threads: int, probe: SpeedProbe) -> dict:
    """The ``machine`` part of the bench's figures."""
    return {"cpu": cpu_model(), "cores": os.cpu_count(), "opencv": cv2.__version__,
            "opencv_threads": threads, **probe.figures()}


def line(machine: dict) -> str:
    """One line for the text report and the HTML page."""
    threads = machine["opencv_threads"]
    where = (f"measured on {machine['cpu']} ({machine['cores']} cores), OpenCV {machine['opencv']} with "
             f"{threads} thread{'s' if threads != 1 else ''}")
    if machine.get("slowdown") is None:
        return where
    return (f"{where}; a fixed blur took {machine['probe_ms_median']:.2f} ms at the median, "
            f"{machine['probe_ms_fastest']:.2f} at its fastest: the machine ran {machine['slowdown']:.2f} "
            f"times slower than its best")
