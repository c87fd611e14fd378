"""Frame sequences: dice tumbling and coming to rest, bumps, hands, the cage's spin.

Each function returns a list of :class:`SceneState` (one per frame) and never
draws anything, so sequences are cheap to build, easy to check (the
``moving`` flag is the ground truth the settle detector is measured against)
and rendered only when a frame is asked for.

Rail table: the dice come in from the shooter's end (the bottom of the
frame), hit the rail's pyramids, bounce back and slow down; the last few
frames a die slides flat, still turning, before it stops. Hazard cage: the
motor turns the cage (the wires sweep across the view) while the dice tumble
in the dish; when it stops, the cage coasts to a halt and the dice settle.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from vision.scenes.die import _axis_angle, orientation, random_rotation, top_value
from vision.scenes.render import DieState, Hand, SceneState, place_dice
from vision.scenes.table import Table


def _ease_out(t: np.ndarray) -> np.ndarray:
    return 1.0 - (1.0 - t) ** 2  # constant deceleration, as friction gives


def _yaw_of(rot: np.ndarray) -> float:
    """Yaw of a die lying flat (angle of its face's first axis in the image)."""
    for col in range(3):
        v = rot[:, col]
        if abs(v[2]) < 0.5:
            return float(np.arctan2(v[1], v[0]))
    return 0.0


def _die_path(
    rng: np.random.Generator,
    waypoints: list[np.ndarray],
    final: DieState,
    n_fly: int,
    n_slide: int,
    start: int,
    total: int,
) -> list[DieState | None]:
    """Positions and orientations of one die over ``total`` frames; ``None`` before it appears."""
    pts = np.array(waypoints + [np.array([final.x, final.y])], float)
    seg = np.linalg.norm(np.diff(pts, axis=0), axis=1)
    cum = np.concatenate([[0.0], np.cumsum(seg)]) / max(seg.sum(), 1e-6)
    n_move = n_fly + n_slide
    tau = _ease_out(np.linspace(0.0, 1.0, n_move + 1)[1:])
    xs = np.interp(tau, cum, pts[:, 0])
    ys = np.interp(tau, cum, pts[:, 1])
    axis = rng.normal(size=3)
    spin = rng.uniform(0.5, 0.9)  # radians per frame at the start
    rot = random_rotation(rng)
    final_yaw = _yaw_of(final.rot)
    extra_turn = rng.uniform(-1.2, 1.2)
    value = top_value(final.rot)
    out: list[DieState | None] = [None] * total
    prev = np.array(pts[0])
    for k in range(n_move):
        frame = start + k
        if frame >= total:
            break
        pos = np.array([xs[k], ys[k]])
        vel = pos - prev
        prev = pos
        if k < n_fly:
            rot = _axis_angle(axis, spin * (1 - k / (n_fly + n_slide))) @ rot
            out[frame] = DieState(pos[0], pos[1], rot, (float(vel[0]), float(vel[1])))
        else:
            left = 1.0 - (k - n_fly + 1) / n_slide
            yaw = final_yaw + extra_turn * left * left
            out[frame] = DieState(pos[0], pos[1], orientation(value, yaw), (float(vel[0]), float(vel[1])))
    at_rest = replace(final, velocity=(0.0, 0.0))
    for frame in range(start + n_move, total):
        out[frame] = at_rest  # one object, so "still at rest" is an identity test
    return out


def throw(
    rng: np.random.Generator,
    table: Table,
    values: tuple[int, ...],
    rest_frames: int = 30,
    touching: bool = False,
    leaning: int | None = None,
    start_dice: tuple[DieState, ...] = (),
) -> list[SceneState]:
    """A throw on the rail table (or a spin of the cage) ending with ``values`` at rest.

    The sequence is: the dice tumbling (``moving``), then ``rest_frames``
    frames of the dice at rest. In the cage, ``start_dice`` are the dice lying
    there before the spin.
    """
    final = place_dice(rng, table, tuple(values), touching=touching, leaning=leaning)
    if table.setting == "cage":
        return _spin(rng, table, final, rest_frames, start_dice)
    w, h = table.size
    s = table.die_size
    n_fly = [int(rng.integers(14, 22)) for _ in final]
    n_slide = [int(rng.integers(5, 11)) for _ in final]
    starts = [int(rng.integers(0, 3)) for _ in final]
    total = max(a + b + c for a, b, c in zip(starts, n_fly, n_slide)) + rest_frames
    paths = []
    for die, nf, ns, st in zip(final, n_fly, n_slide, starts):
        entry = np.array([rng.uniform(0.25, 0.75) * w, h + s])
        hit = np.array([np.clip(die.x + rng.uniform(-0.25, 0.25) * w, s, w - s), table.rail_y + s * 0.6])
        paths.append(_die_path(rng, [entry, hit], die, nf, ns, st, total))
    return _assemble(paths, total, rest_frames)


def _spin(rng, table: Table, final: tuple[DieState, ...], rest_frames: int, start_dice: tuple[DieState, ...]) -> list[SceneState]:
    (cx, cy), (ax, ay) = table.dish  # type: ignore[misc]
    n_motor = int(rng.integers(40, 60))  # motor on
    n_coast = int(rng.integers(12, 20))  # cage coasting to a stop
    speed = rng.uniform(0.12, 0.2)  # wire spacings per frame
    phase0 = float(rng.uniform(0, 1))
    phases = []
    p = phase0
    for k in range(n_motor + n_coast):
        v = speed if k < n_motor else speed * (1 - (k - n_motor + 1) / n_coast) ** 2
        p += v
        phases.append(p)
    n_fly = n_motor + n_coast - int(rng.integers(6, 10))
    total = n_motor + n_coast + 10 + rest_frames
    paths = []
    for i, die in enumerate(final):
        points = []
        if i < len(start_dice):
            points.append(np.array([start_dice[i].x, start_dice[i].y]))
        for _ in range(5):
            a, r = rng.uniform(0, 2 * np.pi), np.sqrt(rng.uniform(0, 0.6))
            points.append(np.array([cx + np.cos(a) * r * ax, cy + np.sin(a) * r * ay]))
        paths.append(_die_path(rng, points, die, n_fly, int(rng.integers(6, 12)), 0, total))
    states = _assemble(paths, total, rest_frames)
    end_phase = phases[-1]
    out = []
    for k, st in enumerate(states):
        phase = phases[k] if k < len(phases) else end_phase
        out.append(replace(st, cage_phase=phase, moving=st.moving or k < len(phases)))
    return out


def _assemble(paths: list[list[DieState | None]], total: int, rest_frames: int) -> list[SceneState]:
    states = []
    for k in range(total):
        dice = tuple(d for d in (p[k] for p in paths) if d is not None)
        moving = any(p[k] is not p[-1] for p in paths)
        states.append(SceneState(dice=dice, moving=moving))
    return states


def rest(state: SceneState, frames: int) -> list[SceneState]:
    """``frames`` frames of the same scene, nothing moving."""
    still = replace(state, moving=False, hand=None, dice=tuple(replace(d, velocity=(0.0, 0.0)) for d in state.dice))
    return [still] * frames


def bump(rng: np.random.Generator, table: Table, state: SceneState, index: int = 0, distance: float | None = None, frames: int = 6) -> list[SceneState]:
    """A die knocked after it landed: it slides ``distance`` pixels (default half a die) and stops."""
    die = state.dice[index]
    dist = distance if distance is not None else table.die_size * 0.5
    ang = rng.uniform(0, 2 * np.pi)
    target = np.array([die.x + np.cos(ang) * dist, die.y + np.sin(ang) * dist])
    out = []
    prev = np.array([die.x, die.y])
    for t in _ease_out(np.linspace(0, 1, frames + 1)[1:]):
        pos = np.array([die.x, die.y]) * (1 - t) + target * t
        moved = replace(die, x=float(pos[0]), y=float(pos[1]), rot=_axis_angle(np.array([0, 0, 1.0]), 0.05 * (1 - t)) @ die.rot, velocity=tuple(pos - prev))
        prev = pos
        dice = tuple(moved if i == index else d for i, d in enumerate(state.dice))
        out.append(replace(state, dice=dice, moving=True))
    out[-1] = replace(out[-1], moving=False, dice=tuple(replace(d, velocity=(0.0, 0.0)) for d in out[-1].dice))
    return out


def hand_pass(
    rng: np.random.Generator,
    table: Table,
    state: SceneState,
    frames_in: int = 10,
    frames_hold: int = 8,
    frames_out: int = 10,
    take_dice: bool = False,
    target: tuple[float, float] | None = None,
    jitter: float = 1.5,
) -> list[SceneState]:
    """A hand reaching in from the bottom edge, pausing, and leaving (with the dice if ``take_dice``).

    ``jitter``: how much the pausing hand trembles, in pixels (a hand laid
    flat on the felt hardly moves at all).
    """
    w, h = table.size
    if target is None:
        if state.dice:
            target = (float(np.mean([d.x for d in state.dice])), float(np.mean([d.y for d in state.dice])))
        else:
            target = (rng.uniform(0.3, 0.7) * w, rng.uniform(0.4, 0.7) * h)
    angle = -np.pi / 2 + rng.uniform(-0.4, 0.4)
    start = np.array([target[0] - np.cos(angle) * h, target[1] - np.sin(angle) * h])
    end = np.array(target)
    out = []
    dice = state.dice
    for k in range(frames_in):
        tip = start + (end - start) * _ease_out(np.array((k + 1) / frames_in))
        out.append(replace(state, dice=dice, hand=Hand(tuple(tip), angle), moving=True))
    for k in range(frames_hold):
        shake = rng.normal(0, jitter, 2)
        if take_dice and k == frames_hold // 2:
            dice = ()
        out.append(replace(state, dice=dice, hand=Hand(tuple(end + shake), angle), moving=True))
    for k in range(frames_out):
        tip = end + (start - end) * (1 - (1 - (k + 1) / frames_out) ** 2)
        out.append(replace(state, dice=dice, hand=Hand(tuple(tip), angle), moving=True))
    out.append(replace(state, dice=dice, hand=None, moving=False))
    return out


def wobble(rng: np.random.Generator, state: SceneState, index: int, frames: int) -> list[SceneState]:
    """A die that never comes to rest: spinning on a corner (rocking and turning)."""
    die = state.dice[index]
    out = []
    for k in range(frames):
        tilt = 0.25 + 0.1 * np.sin(k * 0.9)
        rot = orientation(die.value, _yaw_of(die.rot) + 0.35 * k, tilt, k * 0.6)
        moved = replace(die, rot=rot, x=die.x + 2 * np.sin(k * 0.7), y=die.y + 2 * np.cos(k * 0.5))
        out.append(replace(state, dice=tuple(moved if i == index else d for i, d in enumerate(state.dice)), moving=True))
    return out
