"""Named frame sequences with known truth, for the settle detector's tests and benchmark.

Each :class:`Scenario` is a list of scene states (rendered lazily) and, for
every throw in it, the index of the first frame at which all its dice lie
still (``rests``). A correct settle detector hands out exactly one frame per
entry of ``rests``, at or after it, and nothing else.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator

import numpy as np

from vision.scenes.motion import bump, hand_pass, rest, throw, wobble
from vision.scenes.render import SceneRenderer, SceneState, place_dice
from vision.scenes.table import DICE_SHOWN, Table, make_table
from vision.sources.base import Frame

SCENARIOS = ("roll", "bump_after", "bump_before", "hand_over_dice", "hand_on_empty", "two_quick", "never_settles", "cage")


@dataclass
class Scenario:
    """States of a sequence, the truth about it, and the renderer that draws it."""

    name: str
    table: Table
    renderer: SceneRenderer
    states: list[SceneState] = field(default_factory=list)
    rests: list[int] = field(default_factory=list)  # first rest frame of each throw
    values: list[tuple[int, ...]] = field(default_factory=list)

    def add(self, states: list[SceneState]) -> None:
        self.states.extend(states)

    def add_throw(self, rng: np.random.Generator, values: tuple[int, ...], rest_frames: int) -> None:
        start = self.states[-1].dice if self.states else ()
        states = throw(rng, self.table, values, rest_frames=rest_frames, start_dice=start)
        first_rest = next(i for i, s in enumerate(states) if not s.moving)
        self.rests.append(len(self.states) + first_rest)
        self.values.append(tuple(values))
        self.add(states)

    def frames(self, fps: float = 30.0) -> Iterator[Frame]:
        """Render the sequence, one :class:`Frame` at a time, with the truth in ``meta``."""
        for i, state in enumerate(self.states):
            image, label = self.renderer.render(state)
            yield Frame(image, i / fps, i, {"moving": state.moving, "values": label.values})


def build(name: str, seed: int = 0, size: tuple[int, int] = (640, 480)) -> Scenario:
    """The scenario ``name`` (one of :data:`SCENARIOS`), drawn from ``seed``."""
    rng = np.random.default_rng(seed)
    setting = "cage" if name == "cage" else "rail"
    table = make_table(setting, rng, size)
    sc = Scenario(name, table, SceneRenderer(table, rng))
    n = DICE_SHOWN[setting]
    vals = lambda: tuple(int(v) for v in rng.integers(1, 7, n))  # noqa: E731
    empty = SceneState()
    if name == "roll":
        sc.add(rest(empty, 15))
        sc.add_throw(rng, vals(), 30)
        sc.add(hand_pass(rng, table, sc.states[-1], take_dice=True))
        sc.add(rest(empty, 15))
    elif name == "bump_after":
        sc.add(rest(empty, 10))
        sc.add_throw(rng, vals(), 20)
        sc.add(bump(rng, table, sc.states[-1], index=0))
        sc.add(rest(sc.states[-1], 30))
    elif name == "bump_before":
        sc.add(rest(empty, 10))
        sc.add_throw(rng, vals(), 2)  # at rest for two frames only, then knocked
        bumped = bump(rng, table, sc.states[-1], index=1)
        sc.add(bumped)
        sc.rests[-1] = len(sc.states) - 1  # truly at rest only once the bump is over
        sc.add(rest(sc.states[-1], 30))
    elif name == "hand_over_dice":
        sc.add(rest(empty, 10))
        sc.add_throw(rng, vals(), 20)
        sc.add(hand_pass(rng, table, sc.states[-1], frames_hold=15))
        sc.add(rest(sc.states[-1], 20))
    elif name == "hand_on_empty":
        sc.add(rest(empty, 10))
        sc.add(hand_pass(rng, table, empty, frames_hold=25, jitter=0.0))  # laid flat on the felt
        sc.add(rest(empty, 20))
    elif name == "two_quick":
        sc.add(rest(empty, 10))
        sc.add_throw(rng, vals(), 10)
        sc.add(hand_pass(rng, table, sc.states[-1], take_dice=True, frames_in=6, frames_hold=4, frames_out=6))
        sc.add(rest(empty, 8))
        sc.add_throw(rng, vals(), 20)
    elif name == "never_settles":
        sc.add(rest(empty, 10))
        sc.add_throw(rng, vals(), 1)
        sc.rests.clear()  # the throw never comes to rest
        sc.add(wobble(rng, sc.states[-1], 0, 330))
    elif name == "cage":
        sc.add(rest(SceneState(dice=place_dice(rng, table, vals())), 20))
        sc.add_throw(rng, vals(), 20)
        sc.add_throw(rng, vals(), 20)
    else:
        raise ValueError(f"unknown scenario {name!r}: expected one of {', '.join(SCENARIOS)}")
    return sc
