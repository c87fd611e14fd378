"""Die and camera geometry the labels are computed from: which face is up, how far a die
is tilted, where a point lands in the image, whether a lamp is mirrored on a top face.

Pure numpy, so the rules that decide a label are tested without Blender or the physics.

A die's own frame: face 1 looks along +Z, 6 along -Z, 2 along +Y, 5 along -Y, 3 along +X
and 4 along -X (opposite faces add up to seven). World: Z is up, metres.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Outward normal of each face in the die's own frame, by face value.
FACE_NORMALS: dict[int, np.ndarray] = {
    1: np.array([0.0, 0.0, 1.0]),
    6: np.array([0.0, 0.0, -1.0]),
    2: np.array([0.0, 1.0, 0.0]),
    5: np.array([0.0, -1.0, 0.0]),
    3: np.array([1.0, 0.0, 0.0]),
    4: np.array([-1.0, 0.0, 0.0]),
}

#: In-face axes (u, v) of each face with u x v = the face's normal, so a face's print is
#: seen unmirrored from outside the die.
FACE_AXES: dict[int, tuple[np.ndarray, np.ndarray]] = {
    1: (np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0])),
    6: (np.array([1.0, 0.0, 0.0]), np.array([0.0, -1.0, 0.0])),
    2: (np.array([-1.0, 0.0, 0.0]), np.array([0.0, 0.0, 1.0])),
    5: (np.array([1.0, 0.0, 0.0]), np.array([0.0, 0.0, 1.0])),
    3: (np.array([0.0, 1.0, 0.0]), np.array([0.0, 0.0, 1.0])),
    4: (np.array([0.0, -1.0, 0.0]), np.array([0.0, 0.0, 1.0])),
}

UP = np.array([0.0, 0.0, 1.0])


def top_face(rotation: np.ndarray) -> int:
    """The value of the face whose outward normal is closest to straight up, for a die turned by
    the 3x3 ``rotation`` (die frame to world). A cocked die is labelled by this face too."""
    ups = {value: float((rotation @ n)[2]) for value, n in FACE_NORMALS.items()}
    return max(ups, key=ups.__getitem__)


def tilt_deg(rotation: np.ndarray) -> float:
    """Angle in degrees between the top face's normal and vertical (0 for a die lying flat)."""
    n = rotation @ FACE_NORMALS[top_face(rotation)]
    return float(np.degrees(np.arccos(np.clip(n[2], -1.0, 1.0))))


def rotation_with_face_up(value: int, yaw: float) -> np.ndarray:
    """A rotation that puts face ``value`` flat on top, then turns the die by ``yaw`` radians
    about the vertical."""
    n = FACE_NORMALS[value]
    u, v = FACE_AXES[value]
    # Rows of the die-to-world matrix map u -> X, v -> Y, n -> Z: its transpose is [u v n].
    base = np.stack([u, v, n], axis=0)
    c, s = np.cos(yaw), np.sin(yaw)
    turn = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    return turn @ base


def axis_angle(axis: np.ndarray, angle: float) -> np.ndarray:
    """The rotation of ``angle`` radians about ``axis`` (Rodrigues' formula)."""
    a = np.asarray(axis, dtype=float)
    a = a / np.linalg.norm(a)
    k = np.array([[0.0, -a[2], a[1]], [a[2], 0.0, -a[0]], [-a[1], a[0], 0.0]])
    return np.eye(3) + np.sin(angle) * k + (1.0 - np.cos(angle)) * (k @ k)


def quaternion_to_matrix(q: tuple[float, float, float, float]) -> np.ndarray:
    """A rotation matrix from a quaternion ``(x, y, z, w)`` as the physics engine gives it."""
    x, y, z, w = (float(c) for c in q)
    n = x * x + y * y + z * z + w * w
    if n == 0.0:
        raise ValueError("a zero quaternion is no rotation")
    s = 2.0 / n
    return np.array([
        [1 - s * (y * y + z * z), s * (x * y - z * w), s * (x * z + y * w)],
        [s * (x * y + z * w), 1 - s * (x * x + z * z), s * (y * z - x * w)],
        [s * (x * z - y * w), s * (y * z + x * w), 1 - s * (x * x + y * y)],
    ])


def matrix_to_quaternion(rotation: np.ndarray) -> list[float]:
    """The quaternion ``[x, y, z, w]`` of a rotation matrix (the inverse of
    :func:`quaternion_to_matrix`, taken from the largest of the four so it stays exact)."""
    m = np.asarray(rotation, dtype=float)
    t = np.trace(m)
    if t > 0:
        s = 2.0 * np.sqrt(1.0 + t)
        q = [(m[2, 1] - m[1, 2]) / s, (m[0, 2] - m[2, 0]) / s, (m[1, 0] - m[0, 1]) / s, s / 4]
    else:
        i = int(np.argmax(np.diag(m)))
        j, k = (i + 1) % 3, (i + 2) % 3
        s = 2.0 * np.sqrt(1.0 + m[i, i] - m[j, j] - m[k, k])
        q = [0.0, 0.0, 0.0, (m[k, j] - m[j, k]) / s]
        q[i] = s / 4
        q[j] = (m[j, i] + m[i, j]) / s
        q[k] = (m[k, i] + m[i, k]) / s
    return [float(c) for c in q]


def cube_corners(centre: np.ndarray, rotation: np.ndarray, half: float) -> np.ndarray:
    """The 8 corners (8x3) of a cube of half edge ``half`` at ``centre`` turned by ``rotation``."""
    signs = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)], dtype=float)
    return np.asarray(centre, dtype=float) + (signs * half) @ rotation.T


def top_face_corners(centre: np.ndarray, rotation: np.ndarray, half: float) -> np.ndarray:
    """The 4 corners (4x3, in order around the face) of the die's top face."""
    value = top_face(rotation)
    n, (u, v) = FACE_NORMALS[value], FACE_AXES[value]
    local = [half * (n + su * u + sv * v) for su, sv in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
    return np.asarray(centre, dtype=float) + np.array(local) @ rotation.T


@dataclass(frozen=True)
class PinholeCamera:
    """A pinhole camera: where it is, where it looks, its focal length in pixels and frame size.

    Its frame: x to the right of the image, y up in the image, looking along -z (as Blender's
    camera). Pixel coordinates have (0, 0) at the top-left corner of the top-left pixel."""

    position: np.ndarray
    rotation: np.ndarray  # camera frame to world, 3x3
    focal_px: float
    width: int
    height: int

    @staticmethod
    def looking_at(position, target, focal_px: float, width: int, height: int, roll: float = 0.0) -> "PinholeCamera":
        """A camera at ``position`` aimed at ``target``, turned by ``roll`` radians about its axis."""
        pos = np.asarray(position, dtype=float)
        forward = np.asarray(target, dtype=float) - pos
        forward /= np.linalg.norm(forward)
        helper = np.array([0.0, 1.0, 0.0]) if abs(forward[2]) > 0.999 else UP
        right = np.cross(forward, helper)
        right /= np.linalg.norm(right)
        up = np.cross(right, forward)
        rot = np.stack([right, up, -forward], axis=1)
        if roll:
            rot = rot @ axis_angle(np.array([0.0, 0.0, 1.0]), roll)
        return PinholeCamera(pos, rot, float(focal_px), int(width), int(height))

    def project(self, points: np.ndarray) -> np.ndarray:
        """Pixel coordinates (Nx2) of world points (Nx3) in front of the camera."""
        p = (np.atleast_2d(points) - self.position) @ self.rotation
        depth = -p[:, 2]
        if np.any(depth <= 0):
            raise ValueError("a point behind the camera has no pixel")
        x = self.width / 2 + self.focal_px * p[:, 0] / depth
        y = self.height / 2 - self.focal_px * p[:, 1] / depth
        return np.stack([x, y], axis=1)

    def in_front(self, points: np.ndarray, near: float = 1e-3) -> bool:
        """Whether every point lies at least ``near`` metres in front of the camera."""
        p = (np.atleast_2d(points) - self.position) @ self.rotation
        return bool(np.all(-p[:, 2] >= near))

    def ray(self, px: float, py: float) -> np.ndarray:
        """The unit direction in the world of the ray through pixel coordinates ``(px, py)``."""
        d = np.array([(px - self.width / 2) / self.focal_px, -(py - self.height / 2) / self.focal_px, -1.0])
        d = self.rotation @ d
        return d / np.linalg.norm(d)

    @property
    def fov_x(self) -> float:
        """Horizontal field of view in radians."""
        return 2.0 * float(np.arctan(self.width / (2.0 * self.focal_px)))

    def look_from_vertical_deg(self) -> float:
        """How far the camera's axis is from straight down, in degrees."""
        forward = -self.rotation[:, 2]
        return float(np.degrees(np.arccos(np.clip(-forward[2], -1.0, 1.0))))


def mesh_pixels(camera: PinholeCamera, centre, rotation: np.ndarray, mesh: np.ndarray) -> np.ndarray | None:
    """Where the vertices of a die's ``mesh`` (Nx3, its own frame) land in the image (Nx2) with the
    die at ``centre`` turned by ``rotation``; None when any lies behind the camera (or beside it)."""
    world = np.asarray(centre) + mesh @ rotation.T
    if not camera.in_front(world):
        return None
    return camera.project(world)


def image_box(pixels: np.ndarray, width: int, height: int) -> tuple[list[float], bool]:
    """The box ``[x, y, w, h]`` around projected points, cut to the frame, and whether the points
    all lie inside the frame."""
    x0, y0 = pixels.min(axis=0)
    x1, y1 = pixels.max(axis=0)
    inside = bool(x0 >= 0 and y0 >= 0 and x1 <= width and y1 <= height)
    cx0, cy0 = max(0.0, float(x0)), max(0.0, float(y0))
    cx1, cy1 = min(float(width), float(x1)), min(float(height), float(y1))
    return [cx0, cy0, max(0.0, cx1 - cx0), max(0.0, cy1 - cy0)], inside


def top_face_px(camera: PinholeCamera, corners: np.ndarray) -> float:
    """The top face's width in pixels: the mean length of its four projected edges."""
    px = camera.project(corners)
    return float(np.mean([np.linalg.norm(px[i] - px[(i + 1) % 4]) for i in range(4)]))


def mirror_point(camera_pos: np.ndarray, lamp_pos: np.ndarray, plane_point: np.ndarray,
                 normal: np.ndarray) -> np.ndarray | None:
    """Where on a mirror plane the camera sees the lamp reflected, or None when camera and lamp
    are not both in front of the plane."""
    n = np.asarray(normal, dtype=float) / np.linalg.norm(normal)
    c = np.asarray(camera_pos, dtype=float)
    lamp = np.asarray(lamp_pos, dtype=float)
    p0 = np.asarray(plane_point, dtype=float)
    dc, dl = float((c - p0) @ n), float((lamp - p0) @ n)
    if dc <= 0 or dl <= 0:
        return None
    mirrored = c - 2 * dc * n
    t = dc / (dc + dl)  # where the line mirrored camera -> lamp crosses the plane
    return mirrored + (lamp - mirrored) * t


def lamp_on_top_face(camera_pos: np.ndarray, lamp_pos: np.ndarray, lamp_radius: float, centre: np.ndarray,
                     rotation: np.ndarray, half: float) -> bool:
    """Whether a round lamp of ``lamp_radius`` is mirrored on the die's top face as the camera sees
    it: the reflection point, widened by the size of the lamp's image on the face, falls on the face."""
    value = top_face(rotation)
    n = rotation @ FACE_NORMALS[value]
    u, v = (rotation @ a for a in FACE_AXES[value])
    face_centre = np.asarray(centre, dtype=float) + half * n
    hit = mirror_point(camera_pos, lamp_pos, face_centre, n)
    if hit is None:
        return False
    d_cam = float(np.linalg.norm(np.asarray(camera_pos) - hit))
    d_lamp = float(np.linalg.norm(np.asarray(lamp_pos) - hit))
    spread = lamp_radius * d_cam / (d_cam + d_lamp)
    rel = hit - face_centre
    return abs(float(rel @ u)) <= half + spread and abs(float(rel @ v)) <= half + spread


def mirror_lamp_position(camera_pos: np.ndarray, face_centre: np.ndarray, lamp_height: float) -> np.ndarray | None:
    """Where to hang a lamp at height ``lamp_height`` so a flat face at ``face_centre`` mirrors it
    into the camera; None when the reflected ray never climbs that high."""
    c = np.asarray(camera_pos, dtype=float)
    p = np.asarray(face_centre, dtype=float)
    d = p - c
    d /= np.linalg.norm(d)
    r = d - 2 * float(d @ UP) * UP
    if r[2] <= 1e-6 or lamp_height <= p[2]:
        return None
    return p + r * (lamp_height - p[2]) / r[2]
