"""Where the dice of a crops render go: a grid of cells in the picture, one die in each, so one
render gives a labelled crop of every die (pure geometry and seeded draws, no Blender).

The cells are laid out in pixels, not on the table: each die is put where the ray through its
cell's centre meets the plane of its centre, so it lands in the middle of its crop whatever the
camera's tilt. The cells' pitch is the crop's half width plus the largest die's reach, so a die
never reaches into another die's crop; only a die paired with it (pushed against it, lying near
it or leant on it) is seen in its crop, as dice lie together in a real roll.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from training.render.exposure import exposure_offset
from training.render.geometry import PinholeCamera
from training.render.looks import (CageLook, ClothLook, DieLook, RailLook, cage_look, cloth_look, die_look,
                                   rail_look)

CROP = 96
#: Pixels around the outer crops, so a die that moved a little outwards keeps its crop centred.
MARGIN = 16
#: A die's image box reaches at most this many times its edge in pixels from its centre (a cube
#: turned 45 degrees and seen 50 degrees off vertical: half of 1.41 across plus its side face).
REACH = 0.9
#: Pairs: how often a cell's die is paired with the next cell's, and how: pushed against it,
#: lying near it, or leant on it like a ladder.
PAIR_SHARE = 0.3
PAIR_KINDS = ("touching", "near", "cocked")
PAIR_WEIGHTS = (0.25, 0.4, 0.35)


@dataclass(frozen=True)
class Pair:
    """Two dice of neighbouring cells brought together: ``b`` pushed against ``a`` (touching),
    moved near it, or leant on it (cocked); ``a`` stays on its cell."""

    a: int
    b: int
    kind: str


@dataclass(frozen=True)
class GridPlan:
    """The cells of a crops render: ``cols`` x ``rows`` cells ``pitch`` pixels apart in a picture
    of ``size``, the camera, and where each die lies on the table (metres, centre height)."""

    cols: int
    rows: int
    pitch: int
    size: tuple[int, int]
    camera: PinholeCamera
    centres_px: np.ndarray  # (n, 2) each cell's centre in the picture
    positions: np.ndarray  # (n, 3) each die's centre on the table
    edge_px: np.ndarray  # (n,) each die's edge in pixels where it lies
    pairs: tuple[Pair, ...]


def grid_shape(rng: np.random.Generator, kind: str, tilt_deg: float) -> tuple[int, int]:
    """Columns and rows: the rail's few rows keep many dice near the wall; an oblique camera gets
    fewer rows, so the dice's sizes change less from the near row to the far one."""
    if kind == "rail":
        return int(rng.integers(3, 6)), 2 if tilt_deg > 25 else int(rng.integers(2, 4))
    return int(rng.integers(3, 5)), 3 if tilt_deg > 25 else int(rng.integers(3, 5))


def cell_centres(cols: int, rows: int, pitch: int) -> tuple[np.ndarray, tuple[int, int]]:
    """The cells' centres in pixels, row by row, and the picture's size (crops and margin)."""
    offset = MARGIN + CROP / 2
    centres = np.array([(offset + c * pitch, offset + r * pitch) for r in range(rows) for c in range(cols)], float)
    return centres, ((cols - 1) * pitch + CROP + 2 * MARGIN, (rows - 1) * pitch + CROP + 2 * MARGIN)


def pitch_for(edge_px: float) -> int:
    """The cells' pitch for dice up to ``edge_px`` across: the crop's half width, the other die's
    reach and a few pixels, so no die's box reaches into a neighbour's crop."""
    return int(math.ceil(CROP / 2 + REACH * edge_px + 4))


def ray_to_height(cam: PinholeCamera, px: float, py: float, z: float) -> np.ndarray:
    """Where the ray through pixel ``(px, py)`` meets the horizontal plane at height ``z``."""
    d = cam.ray(px, py)
    if d[2] >= -1e-9:
        raise ValueError("the ray never comes down to the table")
    t = (z - cam.position[2]) / d[2]
    return cam.position + t * d


def depth(cam: PinholeCamera, point: np.ndarray) -> float:
    """Distance of ``point`` in front of the camera, along its axis."""
    return float(-((np.asarray(point) - cam.position) @ cam.rotation)[2])


def plan_grid(cols: int, rows: int, halves: list[float], ref_edge_px: float, tilt_deg: float, heading: float,
              roll: float, fov_deg: float, pairs: tuple[Pair, ...] = ()) -> GridPlan:
    """Lay out the cells and the camera: the camera looks at the table's origin from ``tilt_deg``
    off vertical, from the direction ``heading``, so the largest die is ``ref_edge_px`` across at
    the aim point; each die goes where its cell's ray meets the plane of its centre. The pitch
    is fitted to the largest die as it comes out (near rows of an oblique view are larger)."""
    big = 2 * max(halves)
    edge_max = ref_edge_px
    for _ in range(4):
        pitch = pitch_for(edge_max)
        centres, size = cell_centres(cols, rows, pitch)
        focal = size[0] / (2 * math.tan(math.radians(fov_deg) / 2))
        distance = focal * big / ref_edge_px
        tilt = math.radians(tilt_deg)
        offset = np.array([math.cos(heading) * math.sin(tilt), math.sin(heading) * math.sin(tilt), math.cos(tilt)])
        aim = np.array([0.0, 0.0, max(halves)])
        cam = PinholeCamera.looking_at(aim + offset * distance, aim, focal, size[0], size[1], roll)
        positions = np.array([ray_to_height(cam, cx, cy, h) for (cx, cy), h in zip(centres, halves)])
        edges = np.array([focal * 2 * h / depth(cam, p) for p, h in zip(positions, halves)])
        if pitch >= pitch_for(float(edges.max())):
            return GridPlan(cols, rows, pitch, size, cam, centres, positions, edges, pairs)
        edge_max = float(edges.max())
    return GridPlan(cols, rows, pitch, size, cam, centres, positions, edges, pairs)


def draw_pairs(rng: np.random.Generator, cols: int, rows: int) -> tuple[Pair, ...]:
    """Which neighbouring cells' dice are brought together, and how; each die in one pair at most."""
    taken: set[int] = set()
    pairs = []
    for i in range(cols * rows):
        if i in taken or rng.random() >= PAIR_SHARE:
            continue
        r, c = divmod(i, cols)
        options = [j for j in ((i + 1) if c + 1 < cols else None, (i + cols) if r + 1 < rows else None)
                   if j is not None and j not in taken]
        if not options:
            continue
        j = options[int(rng.integers(len(options)))]
        kind = PAIR_KINDS[int(rng.choice(len(PAIR_KINDS), p=PAIR_WEIGHTS))]
        pairs.append(Pair(i, j, kind))
        taken.update((i, j))
    return tuple(pairs)


def crop_window(centre_px: np.ndarray, size: tuple[int, int]) -> tuple[int, int]:
    """The top-left corner of the ``CROP`` square centred on ``centre_px``, kept in the picture."""
    x = int(round(float(centre_px[0]) - CROP / 2))
    y = int(round(float(centre_px[1]) - CROP / 2))
    return min(max(x, 0), size[0] - CROP), min(max(y, 0), size[1] - CROP)


def box_overlap(window: tuple[int, int], box: tuple[float, float, float, float]) -> float:
    """The share of the crop at ``window`` covered by ``box`` (``[x, y, w, h]`` in the picture)."""
    x0, y0 = window
    bx, by, bw, bh = box
    w = max(0.0, min(x0 + CROP, bx + bw) - max(x0, bx))
    h = max(0.0, min(y0 + CROP, by + bh) - max(y0, by))
    return w * h / (CROP * CROP)


#: Share of crops renders in the hazard cage's dish (the rest by the rail).
CAGE_SHARE = 0.25
DIE_PX = (24.0, 64.0)


@dataclass(frozen=True)
class GridScene:
    """Everything drawn for one crops render before the physics: its kind, each die's look, the
    cloth, rail and cage, the room light, how the picture is exposed and the cells' plan."""

    kind: str
    dice: tuple[DieLook, ...]
    faces: tuple[int, ...]
    yaws: tuple[float, ...]
    cloth: ClothLook
    rail: RailLook
    cage: CageLook
    ambient: float
    ambient_rgb: tuple[float, float, float]
    exposure_offset: float
    view: str
    plan: GridPlan


def _stream(seed: int, *stage: int) -> np.random.Generator:
    return np.random.default_rng([seed, *stage])


def draw_grid_scene(seed: int) -> GridScene:
    """The crops render of ``seed``: per render the kind, cloth, rail or cage, camera, light and
    exposure; per die its own look (colour, material, size, edges, pips), face and turn. The
    largest die is 24-64 px across at the aim point, and no smaller than the smallest die allows
    (so the smallest is 24 px or more there); no die comes out over 64 px, so the near row of an
    oblique view may take the far one a little under 24 px."""
    looks = _stream(seed, 1)
    kind = "cage" if looks.random() < CAGE_SHARE else "rail"
    cloth = cloth_look(looks, kind)
    rail = rail_look(looks)
    cage = cage_look(looks)
    tilt = float(looks.uniform(0, 50))
    heading = float(looks.uniform(-np.pi, np.pi))
    if kind == "rail":
        heading = -abs(heading)  # from the players' side, the wall beyond the dice
    roll = float(looks.normal(0, 0.08))
    fov = float(looks.uniform(20, 45))
    ambient = float(looks.uniform(0.02, 0.25))
    ambient_rgb = tuple(float(c) for c in looks.uniform(0.5, 1.0, 3))
    offset = exposure_offset(looks)
    view = str(looks.choice(["Standard", "AgX", "Filmic"], p=[0.5, 0.3, 0.2]))
    layout = _stream(seed, 2)
    cols, rows = grid_shape(layout, kind, tilt)
    n = cols * rows
    dice = tuple(die_look(_stream(seed, 9, i)) for i in range(n))
    faces = tuple(int(v) for v in layout.integers(1, 7, n))
    yaws = tuple(float(v) for v in layout.uniform(0, 2 * np.pi, n))
    sizes = [d.size_m for d in dice]
    low = min(DIE_PX[0] * max(sizes) / min(sizes), DIE_PX[1] - 4)
    ref = float(np.exp(layout.uniform(np.log(low), np.log(DIE_PX[1]))))
    pairs = draw_pairs(layout, cols, rows)
    plan = plan_grid(cols, rows, [s / 2 for s in sizes], ref, tilt, heading, roll, fov, pairs)
    if plan.edge_px.max() > DIE_PX[1]:  # the near row of an oblique view came out too large
        ref *= DIE_PX[1] / float(plan.edge_px.max())
        plan = plan_grid(cols, rows, [s / 2 for s in sizes], ref, tilt, heading, roll, fov, pairs)
    return GridScene(kind, dice, faces, yaws, cloth, rail, cage, ambient, ambient_rgb, offset, view, plan)
