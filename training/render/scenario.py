"""What a throw is before anything is rendered (pure): how many dice each kind of table throws, and
which scenario a throw is set in: thrown, two dice touching, or a die cocked."""
from __future__ import annotations

import numpy as np

DICE_PER_KIND = {"rail": 2, "cage": 3}


def scenario_for(rng: np.random.Generator, cocked_share: float = 0.12, touching_share: float = 0.1) -> str:
    r = rng.random()
    return "cocked" if r < cocked_share else "touching" if r < cocked_share + touching_share else "thrown"


def scenario_of(seed: int) -> str:
    """The scenario the frame of ``seed`` is rendered in (``"cocked"``, ``"touching"`` or
    ``"thrown"``), known before rendering: a set rich in one scenario picks its seeds by it."""
    return scenario_for(np.random.default_rng([seed, 2]))
