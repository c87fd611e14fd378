"""The reader's latency on a Raspberry Pi, estimated from the work its networks do.

Nothing here runs on a Pi: the emulated arm64 root of ``make pi-rehearsal`` checks what a Pi
reads, not how fast (an emulator's timings say nothing of the core it emulates). So the estimate
is arithmetic: the multiply-accumulates (MACs) of every network call a read makes, counted from
the ONNX graphs at the input shapes the reader gives them, divided by a per-core rate assumed for
each Pi's core (``CORES``). The calls are counted by reading real frames, since how many crops a
read looks at (candidates, second looks, a second detector pass) depends on the frame.

Usage::

    .venv/bin/python -m vision.benchtool.dataset G --count 120 --seed 13
    .venv/bin/python bench/pi_latency.py G [FOLDER...] [--model MODEL_DIR] [--json]

Needs the ``onnx`` package (the ``learn`` extra). The rest of a read (cropping, the pip counter,
the judge) does no network work and is not in the estimate; the report gives its share of a read
on the machine it runs on. On a Pi, ``dicetable bench FOLDER --json`` measures the real figure.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import onnx
from onnx import shape_inference

from vision.benchtool.labels import load_folder
from vision.reader import load_model, read_dice
from vision.reader.model_dir import CLASSIFIER, DETECTOR, LEANING, LEANING_ALONE, SECOND_CLASSIFIER
from vision.reader.nets import DiceNets

#: Multiply-accumulates per second assumed for one core running OpenCV DNN's float32 convolutions:
#: half of the core's NEON FMA peak. A Cortex-A72 issues one 4-lane FMA a cycle (two 64-bit pipes),
#: at 1.5 GHz on a Pi 4; a Cortex-A76 two (two 128-bit pipes), at 2.4 GHz on a Pi 5. Half of peak is
#: an assumption, not a measurement: small convolutions on 40x40 crops keep no core's pipes full.
CORES = {
    "Cortex-A72 (Pi 4, 1.5 GHz)": 0.5 * 4 * 1.5e9,
    "Cortex-A76 (Pi 5, 2.4 GHz)": 0.5 * 8 * 2.4e9,
}


def graph_macs(model: onnx.ModelProto, input_shape: Sequence[int]) -> int:
    """Multiply-accumulates of one run of ``model`` on an input of ``input_shape`` (N, C, H, W).

    Counted for the operators that do them: Conv (each output element costs its kernel's
    ``C_in / group * kH * kW``), Gemm and MatMul (each output element costs the inner dimension).
    Activations, pooling and resizing are a few operations per element, not counted. Shapes come
    from ONNX's shape inference with the input's symbolic dimensions fixed to ``input_shape``."""
    fixed = onnx.ModelProto()
    fixed.CopyFrom(model)
    dims = fixed.graph.input[0].type.tensor_type.shape.dim
    if len(dims) != len(input_shape):
        raise ValueError(f"input has {len(dims)} dimensions, shape given has {len(input_shape)}")
    for dim, size in zip(dims, input_shape):
        dim.ClearField("dim_param")
        dim.dim_value = int(size)
    inferred = shape_inference.infer_shapes(fixed, strict_mode=True)
    graph = inferred.graph
    shapes = {v.name: [d.dim_value for d in v.type.tensor_type.shape.dim]
              for v in [*graph.input, *graph.value_info, *graph.output]}
    shapes.update({t.name: list(t.dims) for t in graph.initializer})
    total = 0
    for node in graph.node:
        if node.op_type == "Conv":
            kernel = shapes[node.input[1]]  # (C_out, C_in / group, kH, kW)
            total += _elements(shapes[node.output[0]]) * _elements(kernel[1:])
        elif node.op_type == "Gemm":
            trans_a = next((a.i for a in node.attribute if a.name == "transA"), 0)
            a_shape = shapes[node.input[0]]
            inner = a_shape[0] if trans_a else a_shape[1]
            total += _elements(shapes[node.output[0]]) * inner
        elif node.op_type == "MatMul":
            total += _elements(shapes[node.output[0]]) * shapes[node.input[0]][-1]
    return total


def _elements(shape: Sequence[int]) -> int:
    n = 1
    for d in shape:
        if d <= 0:
            raise ValueError(f"shape {list(shape)} has a dimension shape inference left unknown")
        n *= d
    return n


@dataclass(frozen=True)
class Call:
    """One network run during a read: the network's file, the input's shape, its processor time."""

    network: str
    shape: tuple[int, ...]
    seconds: float


class CountingNets(DiceNets):
    """The reader's networks, keeping every call made through them after the warm-up. Times are
    the calling thread's processor time (OpenCV runs one thread here), so that a busy machine
    does not inflate them."""

    def __init__(self, folder: Path):
        self.calls: list[Call] = []
        super().__init__(folder / DETECTOR, folder / CLASSIFIER, folder / SECOND_CLASSIFIER, folder / LEANING,
                         folder / LEANING_ALONE)
        self.calls.clear()

    def _kept(self, network: str, blob: np.ndarray, t0: float, out: Any) -> Any:
        self.calls.append(Call(network, tuple(blob.shape), time.thread_time() - t0))
        return out

    def detect(self, blob: np.ndarray) -> np.ndarray:
        t0 = time.thread_time()
        return self._kept(DETECTOR, blob, t0, super().detect(blob))

    def classify(self, blob: np.ndarray, second: bool = False) -> np.ndarray:
        t0 = time.thread_time()
        return self._kept(SECOND_CLASSIFIER if second else CLASSIFIER, blob, t0, super().classify(blob, second))

    def leaning(self, blob: np.ndarray) -> np.ndarray:
        t0 = time.thread_time()
        return self._kept(LEANING, blob, t0, super().leaning(blob))

    def leaning_alone(self, blob: np.ndarray) -> np.ndarray:
        t0 = time.thread_time()
        return self._kept(LEANING_ALONE, blob, t0, super().leaning_alone(blob))


class MacTable:
    """MACs of each network of a model folder per input shape, counted once per shape.

    A crop network's MACs grow with the batch, so a batch of N costs N times a batch of one."""

    def __init__(self, folder: Path):
        self.folder = folder
        self._graphs: dict[str, onnx.ModelProto] = {}
        self._macs: dict[tuple[str, tuple[int, ...]], int] = {}

    def macs(self, network: str, shape: tuple[int, ...]) -> int:
        one = (1, *shape[1:])
        key = (network, one)
        if key not in self._macs:
            if network not in self._graphs:
                self._graphs[network] = onnx.load(str(self.folder / network))
            self._macs[key] = graph_macs(self._graphs[network], one)
        return shape[0] * self._macs[key]


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def measure(folders: list[Path], model_dir: Path | None) -> dict[str, Any]:
    """Read every labelled image of ``folders`` (count given) and count each read's network work."""
    model = load_model(model_dir)
    nets = CountingNets(model.folder)
    table = MacTable(model.folder)
    per_read: list[int] = []
    net_ms: list[float] = []
    read_ms: list[float] = []
    for folder in folders:
        for item in load_folder(folder):
            frame = cv2.imread(str(item.path))
            if frame is None:
                continue
            nets.calls.clear()
            t0 = time.thread_time()
            read_dice(frame, expect=len(item.dice), model=model, nets=nets)
            read_ms.append(1000.0 * (time.thread_time() - t0))
            per_read.append(sum(table.macs(c.network, c.shape) for c in nets.calls))
            net_ms.append(1000.0 * sum(c.seconds for c in nets.calls))
    if not per_read:
        raise SystemExit("pi_latency: no labelled image found in " + ", ".join(map(str, folders)))
    median, p95 = statistics.median(per_read), _percentile([float(m) for m in per_read], 0.95)
    return {
        "reads": len(per_read),
        "networks_mmac": {name: table.macs(name, shape) / 1e6 for name, shape in (
            (DETECTOR, (1, 3, 192, 256)), (CLASSIFIER, (1, 3, 40, 40)), (SECOND_CLASSIFIER, (1, 3, 40, 40)),
            (LEANING, (1, 6, 40, 40)), (LEANING_ALONE, (1, 3, 40, 40)))},
        "read_mmac_median": median / 1e6,
        "read_mmac_p95": p95 / 1e6,
        "here_read_cpu_ms_median": statistics.median(read_ms),
        "here_network_share": sum(net_ms) / sum(read_ms) if sum(read_ms) else 0.0,
        "here_network_gmac_s": sum(per_read) / sum(net_ms) / 1e6 if sum(net_ms) else 0.0,
        "here_opencv": cv2.__version__,
        "here_numpy": np.__version__,
        "estimate_network_ms": {core: {"median": 1000.0 * median / rate, "p95": 1000.0 * p95 / rate,
                                       "rate_gmac_s": rate / 1e9}
                                for core, rate in CORES.items()},
    }


def _text(figures: dict[str, Any], folders: list[Path]) -> list[str]:
    lines = [f"{figures['reads']} reads of {', '.join(map(str, folders))}, count given",
             "MACs per network run (detector at 256x192, a crop network per 40x40 crop): "
             + ", ".join(f"{k} {v:.1f} M" for k, v in figures["networks_mmac"].items()),
             f"MACs per read: median {figures['read_mmac_median']:.0f} M, p95 {figures['read_mmac_p95']:.0f} M",
             f"here (OpenCV {figures['here_opencv']}, NumPy {figures['here_numpy']}): read median "
             f"{figures['here_read_cpu_ms_median']:.1f} ms of processor time, {figures['here_network_share']:.0%} "
             f"of it in the networks, which ran at {figures['here_network_gmac_s']:.1f} GMAC/s"]
    for core, est in figures["estimate_network_ms"].items():
        lines.append(f"estimate, networks only, {core} at {est['rate_gmac_s']:.1f} GMAC/s: "
                     f"median {est['median']:.0f} ms, p95 {est['p95']:.0f} ms")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="+", type=Path, help="labelled folders (as dicetable bench reads them)")
    ap.add_argument("--model", type=Path, default=None, help="model folder (default: the bundled one)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)  # as the table reads and as the per-core rates assume
    figures = measure(args.folders, args.model)
    print(json.dumps(figures) if args.json else "\n".join(_text(figures, args.folders)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
