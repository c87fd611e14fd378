"""The die's surface as a mesh with texture coordinates, and the texture of its pips.

A die is a cube with rounded edges (radius from nearly sharp, as a casino die, to well
rounded): each face is a grid whose rows crowd into the rounded rim, every vertex pushed out to
the rounded box. Each face maps to its own tile of a 3x2 texture atlas (face ``v`` in tile
``v - 1``), where the pips are painted, so the same mesh carries any pip layout.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from training.render.geometry import FACE_AXES, FACE_NORMALS

ATLAS_COLS, ATLAS_ROWS = 3, 2

#: Pip centres of each face in face units (-1..1 across the face), before the offset is applied.
PIP_LAYOUT: dict[int, tuple[tuple[float, float], ...]] = {
    1: ((0, 0),),
    2: ((-1, -1), (1, 1)),
    3: ((-1, -1), (0, 0), (1, 1)),
    4: ((-1, -1), (1, -1), (-1, 1), (1, 1)),
    5: ((-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)),
    6: ((-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)),
}


@dataclass(frozen=True)
class MeshData:
    """Vertices (Nx3, metres), normals (Nx3), quads (Mx4 vertex indices) and per-corner UVs (Mx4x2)."""

    vertices: np.ndarray
    normals: np.ndarray
    quads: np.ndarray
    uvs: np.ndarray


def _grid(rounded: float, flat_steps: int = 6, rim_steps: int = 4) -> np.ndarray:
    """Face coordinates from -1 to 1: even steps over the flat part, denser ones over the rim."""
    inner = 1.0 - rounded
    flat = np.linspace(-inner, inner, flat_steps + 1)
    rim = inner + rounded * np.sin(np.linspace(0, np.pi / 2, rim_steps + 1)[1:])
    return np.concatenate([-rim[::-1], flat, rim])


def tile_uv(value: int, u: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Atlas texture coordinates (0..1, v up) of face-coordinates ``u, v`` (-1..1) on face ``value``."""
    col, row = (value - 1) % ATLAS_COLS, (value - 1) // ATLAS_COLS
    return (col + (u + 1) / 2) / ATLAS_COLS, (ATLAS_ROWS - 1 - row + (v + 1) / 2) / ATLAS_ROWS


def rounded_share(rounded: float) -> float:
    """The edge radius as a share of the half edge that a die of ``rounded`` is made with."""
    return float(np.clip(rounded, 0.005, 0.45))


def die_mesh(half: float, rounded: float) -> MeshData:
    """A rounded cube of half edge ``half``; ``rounded`` is the edge radius as a share of ``half``
    (0.02 nearly sharp, 0.3 well rounded): the cube of half edge ``half * (1 - rounded)`` with a
    ball of radius ``half * rounded`` swept over it."""
    rounded = rounded_share(rounded)
    t = _grid(rounded)
    core = half * (1.0 - rounded)
    verts, norms, quads, uvs = [], [], [], []
    for value, n in FACE_NORMALS.items():
        u_axis, v_axis = FACE_AXES[value]
        uu, vv = np.meshgrid(t, t, indexing="ij")
        p = half * (n + uu[..., None] * u_axis + vv[..., None] * v_axis)
        c = np.clip(p, -core, core)
        d = p - c
        length = np.linalg.norm(d, axis=-1, keepdims=True)
        normal = d / np.maximum(length, 1e-12)
        pos = c + normal * half * rounded
        base = sum(len(x) for x in verts)
        verts.append(pos.reshape(-1, 3))
        norms.append(normal.reshape(-1, 3))
        k = len(t)
        tu, tv = tile_uv(value, uu, vv)
        for i in range(k - 1):
            for j in range(k - 1):
                idx = [i * k + j, (i + 1) * k + j, (i + 1) * k + j + 1, i * k + j + 1]
                quads.append([base + x for x in idx])
                uvs.append([(tu.flat[x], tv.flat[x]) for x in idx])
    return MeshData(np.concatenate(verts), np.concatenate(norms), np.array(quads), np.array(uvs))


def pip_atlas(tile: int, pip_radius: float, pip_offset: float, blur_px: float = 0.0,
              rotations: tuple[int, ...] = (0, 0, 0, 0, 0, 0)) -> np.ndarray:
    """The pip mask atlas (float32, rows top to bottom, 1 where a pip is painted): face ``v`` in
    tile ``v - 1``. ``pip_radius`` and ``pip_offset`` are shares of the half face; ``rotations``
    turns each face's layout by quarter turns (dice differ in how their 2, 3 and 6 lie)."""
    scale = 8  # draw at 8x and shrink, so pip edges are smooth
    atlas = np.zeros((tile * ATLAS_ROWS, tile * ATLAS_COLS), np.float32)
    for value, pips in PIP_LAYOUT.items():
        big = np.zeros((tile * scale, tile * scale), np.uint8)
        for pu, pv in pips:
            for _ in range(rotations[value - 1] % 4):
                pu, pv = -pv, pu
            cx = (1 + pu * pip_offset) / 2 * tile * scale
            cy = (1 - pv * pip_offset) / 2 * tile * scale  # image rows run down, face v runs up
            cv2.circle(big, (int(round(cx)), int(round(cy))), int(round(pip_radius / 2 * tile * scale)), 255, -1,
                       lineType=cv2.LINE_AA)
        small = cv2.resize(big, (tile, tile), interpolation=cv2.INTER_AREA).astype(np.float32) / 255
        if blur_px > 0:
            small = cv2.GaussianBlur(small, (0, 0), blur_px)
        col, row = (value - 1) % ATLAS_COLS, (value - 1) // ATLAS_COLS
        atlas[row * tile:(row + 1) * tile, col * tile:(col + 1) * tile] = small
    return atlas
