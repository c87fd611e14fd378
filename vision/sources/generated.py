"""A camera that films generated scenes: the demo's and the tests' table.

The controller decides each roll's values (from its own seeded random
generator), calls :meth:`GeneratedSource.throw`, and reads frames as from a
real camera: the dice tumble, come to rest showing exactly those values, lie
there a while, and (on the rail table) a dealer's hand takes them away, leaving
the empty felt until the next throw. In the hazard cage the dice stay in the
dish between spins. :meth:`GeneratedSource.lay` shows dice already at rest, as a
camera started in the middle of a roll finds them. Each frame's ``meta`` carries the ground truth
(``throw``, ``moving``, ``values``), which the controller compares with the
read and the settle benchmark uses as its reference.

The source knows settings (``rail``, ``cage``) and a count of dice, not games: which game
throws how many dice is the rules' (``controller.rules.DICE``), and the app passes the
count and the setting of its game (``controller.camera.generated_options``).
"""
from __future__ import annotations

import time
from collections import deque
from typing import Sequence

import numpy as np

from vision.scenes.motion import hand_pass, rest, throw
from vision.scenes.render import SceneRenderer, SceneState, place_dice
from vision.scenes.table import DICE_SHOWN, SETTINGS, Setting, make_table
from vision.sources.base import Frame, FrameSource, HealthState, Pacer, SourceUnavailable


class GeneratedSource(FrameSource):
    """Seeded generated camera at ``fps`` filming ``dice`` dice in ``setting``; ``throw(values)``
    queues one roll.

    ``realtime`` paces :meth:`read` to ``fps`` like a camera; otherwise frames
    come as fast as they are rendered and timestamps are ``index / fps``
    (deterministic, for tests and benchmarks). ``rest_s`` is how long the dice
    lie still before the hand takes them (rail table); ``lead_s`` how long the
    table is shown as it is before the dice fly (the shooter picking them up),
    so that a throw is never the very first thing a camera sees. ``dice`` defaults to the
    setting's usual count (:data:`vision.scenes.table.DICE_SHOWN`).
    """

    name = "generated"

    def __init__(
        self,
        seed: int = 0,
        setting: Setting = "rail",
        dice: int | None = None,
        size: tuple[int, int] = (640, 480),
        fps: float = 30.0,
        realtime: bool = False,
        rest_s: float = 1.5,
        lead_s: float = 0.3,
    ) -> None:
        super().__init__()
        self.seed = seed
        self.size = (int(size[0]), int(size[1]))
        self.fps = float(fps)
        self.realtime = realtime
        self.rest_frames = max(1, int(round(rest_s * self.fps)))
        self.lead_frames = max(0, int(round(lead_s * self.fps)))
        self._rng = np.random.default_rng(seed)
        self._queue: deque[tuple[SceneState, int]] = deque()  # (scene, throw number)
        self._throws = 0
        self._count = 0
        self._pacer = Pacer()
        self._closed = False
        if setting not in SETTINGS:
            raise ValueError(f"unknown setting {setting!r}: expected one of {', '.join(SETTINGS)}")
        if dice is None:
            dice = DICE_SHOWN[setting]
        if isinstance(dice, bool) or not isinstance(dice, int) or dice < 1:
            raise ValueError(f"dice={dice!r}: expected a whole number of dice, 1 or more")
        self.setting: Setting = setting
        self.dice = dice
        self.table = make_table(setting, self._rng, self.size)
        self.renderer = SceneRenderer(self.table, self._rng)
        if setting == "cage":  # the dice lie in the cage from the start
            start = tuple(int(v) for v in self._rng.integers(1, 7, dice))
            self._idle = SceneState(dice=place_dice(self._rng, self.table, start))
        else:
            self._idle = SceneState()
        self._set_health(HealthState.OK)

    @property
    def pending(self) -> int:
        """Frames still queued for the throws asked for (0: showing the idle table)."""
        return len(self._queue)

    def throw(self, values: Sequence[int], touching: bool = False, leaning: int | None = None) -> int:
        """Queue a throw that ends with ``values`` at rest; returns the throw's number (from 1).

        Queued behind any throw still playing. ``touching``: the first two dice
        end up touching; ``leaning``: the index of a die that ends leaning on
        the rail (or on the cage's floor), for the reader's refusals.
        """
        vals = self._roll_of(values)
        start = self._queue[-1][0] if self._queue else self._idle
        states = rest(start, self.lead_frames)
        states += throw(self._rng, self.table, vals, rest_frames=self.rest_frames, touching=touching, leaning=leaning, start_dice=start.dice)
        return self._enqueue(states)

    def lay(self, values: Sequence[int]) -> int:
        """From the next frame on, show dice at rest showing ``values``, with no throw filmed; returns
        the throw's number.

        What a camera started in the middle of a roll finds: the dice landed while the table was
        down. Whatever was queued is dropped. On the rail the hand takes the dice after ``rest_s``;
        in the cage they lie until the next throw (spin)."""
        vals = self._roll_of(values)
        self._queue.clear()
        landed = SceneState(dice=place_dice(self._rng, self.table, vals))
        return self._enqueue(rest(landed, self.rest_frames))

    def empty_picture(self) -> np.ndarray | None:
        """The rail table with no dice, as calibration would film it; None for the cage, whose settle
        detector needs none. With it, dice lying in view when the camera starts (:meth:`lay`) are
        told from the felt, as on a calibrated table."""
        if self.table.setting != "rail":
            return None
        return self.renderer.reference(SceneState())

    def _roll_of(self, values: Sequence[int]) -> tuple[int, ...]:
        """``values`` checked: this source's count of dice, each 1-6; ``ValueError`` otherwise."""
        vals = tuple(int(v) for v in values)
        if len(vals) != self.dice or not all(1 <= v <= 6 for v in vals):
            raise ValueError(f"this table throws {self.dice} dice with values 1-6, got {list(values)}")
        return vals

    def _enqueue(self, states: list[SceneState]) -> int:
        """Queue a roll's frames, ending with the dice at rest; on the rail the dealer's hand then
        takes them. Returns the roll's number."""
        self._throws += 1
        if self.table.setting == "rail":
            states += hand_pass(self._rng, self.table, states[-1], take_dice=True)
            self._idle = SceneState()
        else:
            self._idle = rest(states[-1], 1)[0]
        self._queue.extend((st, self._throws) for st in states)
        return self._throws

    def read(self) -> Frame:
        if self._closed:
            raise SourceUnavailable("generated: closed")
        if self._queue:
            state, number = self._queue.popleft()
        else:
            state, number = self._idle, 0
        image, label = self.renderer.render(state)
        stamp = self._count / self.fps
        if self.realtime:
            self._pacer.wait(stamp)
            stamp = time.monotonic()
        meta = {
            "throw": number,
            "moving": label.moving,
            "values": label.values,
            "label": label,
        }
        frame = Frame(image, stamp, self._count, meta)
        self._count += 1
        return frame

    def close(self) -> None:
        self._closed = True
        super().close()
