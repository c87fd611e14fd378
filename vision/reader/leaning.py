"""Whether a die leans, by two checks: each die weighed against the other dice of its frame, and
each die's crop alone.

A die leaning on the rail or on another die shows a side face. So does every flat die under a
camera off the vertical, and that picture is the one a cocked die gives a camera straight above:
one crop cannot tell them apart. The dice of one frame share the camera, so a flat die looks
like the other flat dice and a cocked one does not. The pair network (``dice_leaning_pair.onnx``,
``training/train_lean_pair.py``) reads a die's crop and a reference die's crop stacked into six
channels; each die is asked against every other die of the frame, and the lowest answer is kept
(a flat die is like at least one other flat die; two dice cocked in one roll are rare, and each
would still differ from a flat third). A lone die is asked against itself.

The single-crop network (``dice_leaning.onnx``, ``training/train_lean.py``) reads each crop alone.
The two miss different dice (the pair check a cocked die its neighbour's picture resembles, the
single one a cocked die that shows little of its side), so a die either doubts is not settled
(``judge.leaning_verdict``).
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from vision.reader.nets import DiceNets


def pair_blob(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Two (N, 3, H, W) blobs -> one (N, 6, H, W): each die's crop and its reference's."""
    return np.ascontiguousarray(np.concatenate([first, second], axis=1))


def lowest_against_others(blob: np.ndarray, run: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """(N, 3, H, W) crops of one frame's dice -> (N,) probability that each leans: ``run`` (the
    pair network) asked of each die against every other, the lowest kept; of one die, against itself."""
    n = len(blob)
    if n == 0:
        return np.zeros(0, np.float32)
    firsts, seconds = (np.array([0]), np.array([0])) if n == 1 else np.nonzero(~np.eye(n, dtype=bool))
    answers = run(pair_blob(blob[firsts], blob[seconds]))
    out = np.full(n, np.inf)
    np.minimum.at(out, firsts, answers)
    return out.astype(np.float32)


def leaning_checks(blob: np.ndarray, nets: DiceNets) -> tuple[np.ndarray, np.ndarray]:
    """(N, 3, H, W) crops of one frame's dice -> each die's probability of leaning by the pair
    check (against the frame's other dice) and by the single-crop check."""
    return lowest_against_others(blob, nets.leaning), nets.leaning_alone(blob)
