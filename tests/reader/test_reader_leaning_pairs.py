"""Each die weighed against the other dice of its frame (``vision.reader.leaning``)."""
from __future__ import annotations

import numpy as np

from vision.reader.leaning import lowest_against_others, pair_blob


def crops(*greys: float) -> np.ndarray:
    return np.stack([np.full((3, 4, 4), g, np.float32) for g in greys])


def asked() -> tuple[list[tuple[float, float]], object]:
    """A pair network that answers the first crop's grey minus the reference's, and notes each pair."""
    seen: list[tuple[float, float]] = []

    def run(pairs: np.ndarray) -> np.ndarray:
        assert pairs.shape[1:] == (6, 4, 4)
        seen.extend((round(float(p[0, 0, 0]), 3), round(float(p[3, 0, 0]), 3)) for p in pairs)
        return np.array([p[0, 0, 0] - p[3, 0, 0] for p in pairs], np.float32)

    return seen, run


def test_each_die_is_asked_against_every_other_and_the_lowest_answer_is_kept():
    seen, run = asked()
    out = lowest_against_others(crops(0.9, 0.1, 0.2), run)
    assert sorted(seen) == sorted([(0.9, 0.1), (0.9, 0.2), (0.1, 0.9), (0.1, 0.2), (0.2, 0.9), (0.2, 0.1)])
    # the die unlike both others stays high; each of the two alike is low against the other
    assert np.allclose(out, [0.7, -0.8, -0.7])


def test_a_lone_die_is_asked_against_itself_and_no_die_costs_nothing():
    seen, run = asked()
    assert np.allclose(lowest_against_others(crops(0.4), run), [0.0]) and seen == [(0.4, 0.4)]
    seen, run = asked()
    assert lowest_against_others(np.zeros((0, 3, 4, 4), np.float32), run).shape == (0,) and seen == []


def test_a_pair_is_the_die_then_its_reference():
    both = pair_blob(crops(0.3), crops(0.6))
    assert both.shape == (1, 6, 4, 4) and both[0, :3].max() == np.float32(0.3) and both[0, 3:].min() == np.float32(0.6)
