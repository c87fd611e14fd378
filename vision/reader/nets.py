"""The reader's ONNX networks, run through OpenCV's DNN module.

The files lie in a model folder (``vision.reader.model_dir``; the bundled one is
``vision/models``). OpenCV's DNN is the only runtime needed: no PyTorch at the table.
"""
from __future__ import annotations

import threading
from pathlib import Path

import cv2
import numpy as np

#: OpenCV 5 runs a network with its new DNN engine or its classic one (OpenCV 4
#: has only the classic one). On one x86 core the classic engine runs the
#: classifiers' 40x40 crops about 20% faster and the detector about 10% faster;
#: both give the same outputs (tested).
ENGINE = "ENGINE_CLASSIC"


class ModelMissing(RuntimeError):
    """A network file is absent or unreadable (an install problem, not a bad frame)."""


class DiceNets:
    """The detector, the two classifiers and the two leaning checks, safe to share
    between threads (one lock for the detector, one for the crop networks)."""

    def __init__(self, detector: Path, classifier: Path, second_classifier: Path, leaning: Path,
                 leaning_alone: Path):
        self._det = load_net(detector)
        self._cls = [load_net(classifier), load_net(second_classifier)]
        self._lean = load_net(leaning)
        self._lean_alone = load_net(leaning_alone)
        self._det_lock = threading.Lock()
        self._cls_lock = threading.Lock()
        self._warm_up()

    def _warm_up(self) -> None:
        """OpenCV plans each network on its first run; do it now, not on the first roll."""
        self.detect(np.zeros((1, 3, 192, 256), np.float32))  # a 640x480 camera frame, shrunk
        blob = np.zeros((1, 3, 40, 40), np.float32)
        self.classify(blob)
        self.classify(blob, second=True)
        self.leaning(np.zeros((1, 6, 40, 40), np.float32))
        self.leaning_alone(blob)

    def detect(self, blob: np.ndarray) -> np.ndarray:
        """(1, 3, H, W) in 0..1 -> (4, H/4, W/4): heat logit, log(size/16), dx, dy."""
        with self._det_lock:
            self._det.setInput(blob)
            return self._det.forward()[0]

    def classify(self, blob: np.ndarray, second: bool = False) -> np.ndarray:
        """(N, 3, 40, 40) in 0..1 -> (N, 7) probabilities of (not a die, 1..6),
        by the first classifier or, with ``second``, by the other one."""
        if len(blob) == 0:
            return np.zeros((0, 7), np.float32)
        with self._cls_lock:
            net = self._cls[1 if second else 0]
            net.setInput(blob)
            logits = net.forward()
        logits = logits - logits.max(axis=1, keepdims=True)
        e = np.exp(logits)
        return e / e.sum(axis=1, keepdims=True)

    def leaning(self, blob: np.ndarray) -> np.ndarray:
        """(N, 6, 40, 40) in 0..1, each a die's crop and a reference die's of the same frame
        (``vision.reader.leaning``) -> (N,) probability that the first die leans."""
        return self._probability(self._lean, blob)

    def leaning_alone(self, blob: np.ndarray) -> np.ndarray:
        """(N, 3, 40, 40) in 0..1 -> (N,) probability that each die leans, from its crop alone."""
        return self._probability(self._lean_alone, blob)

    def _probability(self, net, blob: np.ndarray) -> np.ndarray:
        """A one-logit crop network's answers as probabilities (none asked of no crops)."""
        if len(blob) == 0:
            return np.zeros(0, np.float32)
        with self._cls_lock:
            net.setInput(blob)
            logits = net.forward()[:, 0]
        return 1.0 / (1.0 + np.exp(-logits))


def load_net(path: Path, engine: str = ENGINE):
    """An ONNX file as an OpenCV network, on the named engine (``cv2.dnn.ENGINE_*``;
    the reader's by default) where this OpenCV has it, else on its only one."""
    if not path.is_file():
        raise ModelMissing(f"model file missing: {path}")
    flag = getattr(cv2.dnn, engine, None)
    try:
        return cv2.dnn.readNetFromONNX(str(path)) if flag is None else cv2.dnn.readNetFromONNX(str(path), flag)
    except cv2.error as exc:
        raise ModelMissing(f"model file unreadable: {path}: {exc}") from exc
