"""Dice thrown, dropped and left to settle with pybullet: where each die comes to rest and what it
rests against (the felt, the rail, another die).

The physics runs in centimetres (Bullet's collision margins are sized for objects of a unit or
more; a 19 mm die in metres would be all margin) and answers in metres. Only static shapes the
dice can meet are modelled: the felt, the back wall at the pyramids' tips and the side walls for
a rail; the dish and its sloping rim for the cage.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from training.render.geometry import quaternion_to_matrix, tilt_deg

CM = 100.0  # physics units per metre
G = 981.0
STEP = 1.0 / 480.0
#: A die resting on the felt is this close to lying flat; leaning against something, it is not.
REST_FLAT_DEG = 2.0
TOUCH_CM = 0.05
#: How often a die is set to lean before a cocked scene settles for what it got.
LEAN_TRIES = 3


@dataclass(frozen=True)
class DiePose:
    """Where one die came to rest (metres) and what it rests on."""

    centre: tuple[float, float, float]
    rotation: np.ndarray  # die frame to world, 3x3
    on_rail: bool
    on_die: bool
    touching: bool


@dataclass(frozen=True)
class RailWorld:
    """A rail's landing area: the back wall's face at y = ``wall_y`` (the pyramids' tips), the
    side walls at x = +-``side_x``, all in metres."""

    wall_y: float
    wall_height: float
    side_x: float = 0.45


@dataclass(frozen=True)
class CageWorld:
    """The cage's dish: a flat disc of ``radius`` with a rim rising outwards."""

    radius: float


def _quaternion(rng: np.random.Generator) -> list[float]:
    q = rng.normal(size=4)
    return list(q / np.linalg.norm(q))


def _tilted_quaternion(axis: np.ndarray, angle: float, yaw_first: float) -> list[float]:
    """The quaternion turning by ``yaw_first`` about vertical, then ``angle`` about ``axis``."""
    def q_axis(a: np.ndarray, t: float) -> np.ndarray:
        a = a / np.linalg.norm(a)
        return np.array([*(a * np.sin(t / 2)), np.cos(t / 2)])

    def mul(q1: np.ndarray, q2: np.ndarray) -> np.ndarray:
        x1, y1, z1, w1 = q1
        x2, y2, z2, w2 = q2
        return np.array([w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2, w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
                         w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2, w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2])
    return list(mul(q_axis(axis, angle), q_axis(np.array([0.0, 0.0, 1.0]), yaw_first)))


class _Sim:
    """One pybullet world, freed on exit."""

    def __init__(self) -> None:
        import pybullet  # imported here: only the renderer's own environment has it

        self.p = pybullet
        self.cid = pybullet.connect(pybullet.DIRECT)
        self.p.setGravity(0, 0, -G, physicsClientId=self.cid)
        self.p.setTimeStep(STEP, physicsClientId=self.cid)
        self.p.setPhysicsEngineParameter(deterministicOverlappingPairs=1, numSolverIterations=60,
                                         physicsClientId=self.cid)
        self.statics: dict[int, str] = {}
        self.dice: list[int] = []

    def __enter__(self) -> "_Sim":
        return self

    def __exit__(self, *exc) -> None:
        self.p.disconnect(physicsClientId=self.cid)

    def static_box(self, half, pos, orn=(0, 0, 0, 1), what: str = "rail", friction: float = 0.9) -> int:
        shape = self.p.createCollisionShape(self.p.GEOM_BOX, halfExtents=list(half), physicsClientId=self.cid)
        body = self.p.createMultiBody(0, shape, basePosition=list(pos), baseOrientation=list(orn),
                                      physicsClientId=self.cid)
        self.p.changeDynamics(body, -1, lateralFriction=friction, restitution=0.5, physicsClientId=self.cid)
        self.statics[body] = what
        return body

    def die(self, half_cm: float, pos, orn, velocity, spin, friction: float) -> int:
        shape = self.p.createCollisionShape(self.p.GEOM_BOX, halfExtents=[half_cm] * 3, physicsClientId=self.cid)
        body = self.p.createMultiBody(0.008, shape, basePosition=list(pos), baseOrientation=list(orn),
                                      physicsClientId=self.cid)
        self.p.changeDynamics(body, -1, lateralFriction=friction, restitution=0.35, rollingFriction=0.002,
                              spinningFriction=0.002, linearDamping=0.05, angularDamping=0.05,
                              physicsClientId=self.cid)
        self.p.resetBaseVelocity(body, list(velocity), list(spin), physicsClientId=self.cid)
        self.dice.append(body)
        return body

    def settle(self, seconds: float = 6.0) -> None:
        """Step until every die has been still for a quarter second, or ``seconds`` have passed."""
        still = 0
        for _ in range(int(seconds / STEP)):
            self.p.stepSimulation(physicsClientId=self.cid)
            moving = False
            for body in self.dice:
                v, w = self.p.getBaseVelocity(body, physicsClientId=self.cid)
                if np.linalg.norm(v) > 0.3 or np.linalg.norm(w) > 0.3:
                    moving = True
                    break
            still = 0 if moving else still + 1
            if still * STEP > 0.25:
                return

    def leaning(self, body: int, half_cm: float) -> bool:
        """Whether a die came to rest off the flat: tilted, or lifted off the felt."""
        pos, rot = self.pose(body)
        return tilt_deg(rot) > REST_FLAT_DEG or pos[2] > half_cm + 0.08

    def pose(self, body: int):
        pos, orn = self.p.getBasePositionAndOrientation(body, physicsClientId=self.cid)
        return np.array(pos), quaternion_to_matrix(orn)

    def contacts(self, a: int, b: int) -> bool:
        return bool(self.p.getClosestPoints(a, b, TOUCH_CM, physicsClientId=self.cid))

    def poses(self, half_cm: float) -> list[DiePose]:
        out = []
        for body in self.dice:
            pos, rot = self.pose(body)
            resting_off_felt = self.leaning(body, half_cm)
            on_rail = resting_off_felt and any(self.contacts(body, s) for s in self.statics if self.statics[s] == "rail")
            others = [d for d in self.dice if d != body]
            touching = any(self.contacts(body, d) for d in others)
            on_die = resting_off_felt and touching
            out.append(DiePose(tuple(float(c) / CM for c in pos), rot, bool(on_rail), bool(on_die), bool(touching)))
        return out


def _throw(sim: _Sim, rng: np.random.Generator, half: float, x_range, y_range, towards: np.ndarray,
           speed: tuple[float, float], friction: float) -> None:
    pos = [rng.uniform(*x_range), rng.uniform(*y_range), rng.uniform(3 * half, 8 * half)]
    direction = towards + rng.normal(0, 0.3, 3) * np.array([1, 1, 0])
    direction /= max(np.linalg.norm(direction), 1e-9)
    velocity = direction * rng.uniform(*speed) + np.array([0, 0, rng.uniform(-20, 10)])
    sim.die(half, pos, _quaternion(rng), velocity, rng.normal(0, 25, 3), friction)


def _lean(sim: _Sim, rng: np.random.Generator, half: float, body: int, support_xy: np.ndarray,
          away: np.ndarray) -> None:
    """Set ``body`` to lean, like a ladder, on a support whose face is at ``support_xy`` (the wall, or
    another die's side), ``away`` pointing from it to the die: the die's edge far from the support
    on the felt, its near side lifted against the support (its top face tilted away from it). It is
    let go just above that place, and the physics finds where it really rests."""
    away = away / np.linalg.norm(away)
    axis = np.cross(np.array([0.0, 0.0, 1.0]), away)
    tilt = np.radians(rng.uniform(12, 40))
    reach = half * (np.cos(tilt) + np.sin(tilt))  # from the centre to the lowest and to the nearest corner
    offset = reach + rng.uniform(0.02, 0.1)
    pos = [support_xy[0] + away[0] * offset, support_xy[1] + away[1] * offset, reach + 0.05]
    sim.p.resetBasePositionAndOrientation(body, pos, _tilted_quaternion(axis, tilt, rng.uniform(-0.2, 0.2)),
                                          physicsClientId=sim.cid)
    sim.p.resetBaseVelocity(body, [0, 0, 0], [0, 0, 0], physicsClientId=sim.cid)


def settle_rail(rng: np.random.Generator, world: RailWorld, halves: list[float], scenario: str) -> list[DiePose]:
    """Throw dice at the back wall and let them settle. ``scenario`` is ``"thrown"``, ``"touching"``
    (one die pushed against another) or ``"cocked"`` (one die leaned on the rail or on another die)."""
    half = halves[0] * CM
    friction = float(rng.uniform(0.6, 1.0))
    with _Sim() as sim:
        wall_y = world.wall_y * CM
        sim.static_box([200, 200, 0.5], [0, 0, -0.5], what="felt", friction=1.0)
        sim.static_box([200, 5, world.wall_height * CM / 2], [0, wall_y + 5, world.wall_height * CM / 2])
        for sx in (-1, 1):
            sim.static_box([5, 100, 10], [sx * (world.side_x * CM + 5), wall_y - 50, 10])
        sim.static_box([200, 5, 20], [0, wall_y - 95, 20], what="wall")
        for _ in halves:
            _throw(sim, rng, half, (-20, 20), (wall_y - 30, wall_y - 10), np.array([0.0, 1.0, 0.0]),
                   (40, 160), friction)
        sim.settle()
        if scenario == "touching" and len(sim.dice) > 1:
            a_pos, _ = sim.pose(sim.dice[0])
            angle = rng.uniform(0, 2 * np.pi)
            d = 2 * half * rng.uniform(1.0, 1.3)
            pos = [a_pos[0] + d * np.cos(angle), min(a_pos[1] + d * np.sin(angle), wall_y - half * 1.5), half * 1.3]
            sim.p.resetBasePositionAndOrientation(sim.dice[1], pos, _tilted_quaternion(
                np.array([1.0, 0, 0]), 0.0, rng.uniform(0, 2 * np.pi)), physicsClientId=sim.cid)
            spin_to = np.array([a_pos[0] - pos[0], a_pos[1] - pos[1], 0.0])
            sim.p.resetBaseVelocity(sim.dice[1], list(spin_to * 3), [0, 0, 0], physicsClientId=sim.cid)
            sim.settle()
        elif scenario == "cocked":
            for _ in range(LEAN_TRIES):
                body = sim.dice[-1]
                if len(sim.dice) > 1 and rng.random() < 0.45:
                    a_pos, _ = sim.pose(sim.dice[0])
                    angle = rng.uniform(0, 2 * np.pi)
                    away = np.array([np.cos(angle), np.sin(angle), 0.0])
                    _lean(sim, rng, half, body, a_pos[:2] + away[:2] * half, away)
                else:
                    foot = np.array([rng.uniform(-20, 20), wall_y])
                    _lean(sim, rng, half, body, foot, np.array([rng.normal(0, 0.2), -1.0, 0.0]))
                sim.settle()
                if sim.leaning(body, half):
                    break
        return sim.poses(half)


def settle_cage(rng: np.random.Generator, world: CageWorld, halves: list[float], scenario: str) -> list[DiePose]:
    """Drop dice into the cage's dish and let them settle (``scenario`` as for :func:`settle_rail`)."""
    half = halves[0] * CM
    friction = float(rng.uniform(0.6, 1.0))
    r = world.radius * CM
    with _Sim() as sim:
        sim.static_box([100, 100, 0.5], [0, 0, -0.5], what="felt", friction=1.0)
        segments = 24
        for k in range(segments):
            a = 2 * np.pi * k / segments
            # a plank leaning outwards from the dish's edge: the rim
            q = _tilted_quaternion(np.array([-np.sin(a), np.cos(a), 0.0]), -np.radians(55), a)
            c = np.array([np.cos(a), np.sin(a)]) * (r + 1.2)
            sim.static_box([2.0, r * np.pi / segments + 0.3, 0.3], [c[0], c[1], 1.0], q)
        for _ in halves:
            _throw(sim, rng, half, (-0.4 * r, 0.4 * r), (-0.4 * r, 0.4 * r), rng.normal(0, 1, 3) * [1, 1, 0] + 1e-3,
                   (10, 80), friction)
        sim.settle()
        if scenario == "touching" and len(sim.dice) > 1:
            a_pos, _ = sim.pose(sim.dice[0])
            angle = rng.uniform(0, 2 * np.pi)
            d = 2 * half * rng.uniform(1.0, 1.3)
            sim.p.resetBasePositionAndOrientation(
                sim.dice[1], [a_pos[0] + d * np.cos(angle), a_pos[1] + d * np.sin(angle), half * 1.3],
                _tilted_quaternion(np.array([1.0, 0, 0]), 0.0, rng.uniform(0, 2 * np.pi)), physicsClientId=sim.cid)
            sim.p.resetBaseVelocity(sim.dice[1], [-np.cos(angle) * 8, -np.sin(angle) * 8, 0], [0, 0, 0],
                                    physicsClientId=sim.cid)
            sim.settle()
        elif scenario == "cocked":
            for _ in range(LEAN_TRIES):
                body = sim.dice[-1]
                if rng.random() < 0.6:
                    a_pos, _ = sim.pose(sim.dice[0])
                    angle = rng.uniform(0, 2 * np.pi)
                    away = np.array([np.cos(angle), np.sin(angle), 0.0])
                    _lean(sim, rng, half, body, a_pos[:2] + away[:2] * half, away)
                else:
                    angle = rng.uniform(0, 2 * np.pi)
                    out = np.array([np.cos(angle), np.sin(angle), 0.0])
                    _lean(sim, rng, half, body, out[:2] * r, -out)
                sim.settle()
                if sim.leaning(body, half):
                    break
        return sim.poses(half)
