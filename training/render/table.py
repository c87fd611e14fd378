"""Table sets: one table fixed for a whole set, every frame a new throw (pure: seeded draws and
geometry, no Blender, no physics).

A dice camera at a real table is mounted once and set up once on the empty table, then watches
the same felt, rail or cage, lamps and dice for the whole shift. The table's seed draws all of
that (:func:`draw_table`): the dice set (all dice alike), the cloth and its print, the rail or the
cage, the lamps and the room light, the camera's pose and lens, aimed at where thrown dice come
to rest and not at any one throw's dice, its view transform and exposure offset, and the camera
model's white balance, vignette, defocus and JPEG quality. A throw draws only the dice's fall and
the sensor's noise, from a throw seed made of the table's seed and the throw's number
(:func:`throw_seed`), so every throw of a set has its own and none depends on another.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace

import cv2
import numpy as np

from training.render.compose import place_lamps
from training.render.diemesh import rounded_share
from training.render.exposure import exposure_offset
from training.render.geometry import PinholeCamera, cube_corners, image_box, rotation_with_face_up, top_face_corners
from training.render.looks import (CageLook, ClothLook, DieLook, Lamp, PhotoLook, RailLook, cage_look, cloth_look,
                                   die_look, photo_look, rail_look)
from training.render.physics import CageWorld, DiePose, RailWorld
from training.render.scenario import DICE_PER_KIND, scenario_for

#: Mixed into every seed of a table set, so a table's draws never repeat a frame's of the same seed.
TABLE_TAG = 4242
#: Where thrown dice come to rest on a rail table (metres; the wall's pyramid tips at y = 0): the
#: middle of the physics' rest positions (``settle_rail``: 90% within x -0.2..0.2, y -0.22..-0.02).
RAIL_LANDING = (0.0, -0.12)
#: How wide the frame is at the aim point (metres, across the camera's axis): the landing area
#: with some felt around it, so a die now and then lands cut by the frame's edge.
RAIL_VIEW_M = (0.45, 0.75)
#: The cage's view as a multiple of the dish's radius (the dish and some of its rim).
CAGE_VIEW_R = (2.2, 3.0)
#: The box around a flat die at the aim point (the larger side, pixels, at its mean turn) stays
#: within this at the reference width (scaled with the frame's width).
BOX_PX = {"rail": (31.0, 54.0), "cage": (29.0, 44.0)}
REFERENCE_WIDTH = {"rail": 960, "cage": 640}
#: The camera's tilt from straight down (degrees): rail cameras straight down in a share of
#: tables, otherwise oblique from the players' side; cage cameras anywhere from above.
RAIL_STRAIGHT_SHARE = 0.3
RAIL_TILT = (5.0, 45.0)
CAGE_TILT = (0.0, 35.0)
#: The camera never hangs lower than this over the felt (rail), or than this over the cage's top.
RAIL_MIN_HEIGHT = 0.35
CAGE_CLEARANCE = 0.15
#: The chance one lamp hangs where a flat die's top in the landing area mirrors it into the camera.
MIRRORED_LAMP_SHARE = 0.4


@dataclass(frozen=True)
class TableCamera:
    """How the table's camera is mounted: its tilt from straight down, the direction it looks from,
    its roll and field of view, where it is aimed and how wide the frame is there, and its settings."""

    tilt_deg: float
    heading: float  # radians: the camera stands at this bearing from the aim point
    roll: float
    fov_deg: float
    view_m: float
    aim: tuple[float, float, float]
    exposure_offset: float  # stops from the exposure metered on the empty table
    view: str  # Blender's view transform
    #: Always: the path tracer's noise, unlike a camera's, would differ from frame to frame where
    #: nothing changed (on the cage's chrome, 23% of pixels by over 20 levels between two empty
    #: frames at 12 samples; 3% denoised). The sensor's noise is the camera model's, per frame.
    denoise: bool


@dataclass(frozen=True)
class Table:
    """Everything a table set keeps fixed (see the module's docstring)."""

    kind: str
    size: tuple[int, int]
    seed: int
    die: DieLook
    cloth: ClothLook
    rail: RailLook
    cage: CageLook
    ambient: float
    ambient_rgb: tuple[float, float, float]
    mount: TableCamera
    camera: PinholeCamera
    lamps: tuple[Lamp, ...]
    photo: PhotoLook
    side_x: float  # rail: where a side wall (if the rail has one) stands, away from the camera

    @property
    def dice(self) -> int:
        return DICE_PER_KIND[self.kind]

    @property
    def cage_top(self) -> float:
        return 2 * self.cage.waist_height

    @property
    def ground_rgb(self) -> tuple[float, float, float]:
        """The reflectance under the dice, which the exposure keeps a white die on from blowing out."""
        return self.cloth.rgb if self.kind == "rail" else self.cage.dish_rgb

    def rail_world(self) -> RailWorld:
        return RailWorld(0.0, self.rail.wall_height)

    def cage_world(self) -> CageWorld:
        return CageWorld(self.cage.dish_radius)


def table_stream(seed: int, stage: int) -> np.random.Generator:
    """The generator of one stage of the table of ``seed``'s draws."""
    return np.random.default_rng([TABLE_TAG, seed, stage])


def throw_seed(table_seed: int, throw: int) -> int:
    """The seed of throw ``throw`` of the table of ``table_seed``: its scenario, physics, visibility
    rays, Cycles' sampling and sensor noise are drawn from it."""
    return int(np.random.SeedSequence([TABLE_TAG, table_seed, 1, throw]).generate_state(1)[0]) % 2**31


def empty_seed(table_seed: int, index: int) -> int:
    """The seed of empty frame ``index``: Cycles' sampling and the sensor noise, as two exposures of
    the same empty table differ."""
    return int(np.random.SeedSequence([TABLE_TAG, table_seed, 2, index]).generate_state(1)[0]) % 2**31


def throw_scenario(table_seed: int, throw: int) -> str:
    """``"thrown"``, ``"touching"`` or ``"cocked"``, in the shares frames have (``scenario_for``)."""
    return scenario_for(np.random.default_rng([throw_seed(table_seed, throw), 2]))


def throw_name(kind: str, size: tuple[int, int], table_seed: int, throw: int) -> str:
    return f"{kind}-{size[0]}x{size[1]}-t{table_seed:07d}-{throw:03d}.jpg"


def empty_name(index: int) -> str:
    return f"empty-{index}.jpg"


def box_per_edge(tilt_deg: float) -> float:
    """The larger side of a flat die's box over its edge, both in pixels, at its mean turn and seen
    ``tilt_deg`` from vertical: the top face turned (1.27 on average), foreshortened, and a side
    face showing below it."""
    t = math.radians(tilt_deg)
    return max(1.27, 1.27 * math.cos(t) + math.sin(t))


def _mount(rng: np.random.Generator, kind: str, width: int, die: DieLook, cage: CageLook) -> TableCamera:
    """The camera's mounting: covering the landing area, so a die's box comes out within
    ``BOX_PX`` (scaled with the width), and hanging above the rail or the cage."""
    scale = width / REFERENCE_WIDTH[kind]
    if kind == "rail":
        tilt = 0.0 if rng.random() < RAIL_STRAIGHT_SHARE else float(rng.uniform(*RAIL_TILT))
        heading = -float(rng.uniform(0.0, math.pi))  # from the players' side, never behind the wall
        fov = float(rng.uniform(30, 55))
        view_m = float(rng.uniform(*RAIL_VIEW_M))
        aim = (RAIL_LANDING[0] + float(rng.uniform(-0.04, 0.04)), RAIL_LANDING[1] + float(rng.uniform(-0.03, 0.03)), 0.0)
        lowest = RAIL_MIN_HEIGHT
    else:
        tilt = float(rng.uniform(*CAGE_TILT))
        heading = float(rng.uniform(-math.pi, math.pi))
        fov = float(rng.uniform(25, 50))
        view_m = float(rng.uniform(*CAGE_VIEW_R)) * cage.dish_radius
        r = cage.dish_radius
        aim = (float(rng.uniform(-0.08, 0.08)) * r, float(rng.uniform(-0.08, 0.08)) * r, 0.0)
        lowest = 2 * cage.waist_height + CAGE_CLEARANCE
    # the die's edge at the aim point is width * die / view, its box box_per_edge times that; an
    # oblique camera sees the far dice smaller, so the smallest edge is kept as straight down
    lo, hi = BOX_PX[kind][0] * scale / box_per_edge(0.0), BOX_PX[kind][1] * scale / box_per_edge(tilt)
    view_m = float(np.clip(view_m, width * die.size_m / hi, width * die.size_m / lo))
    distance = view_m / (2 * math.tan(math.radians(fov) / 2))
    if distance * math.cos(math.radians(tilt)) < lowest:  # too low: further away, a longer lens
        distance = lowest / math.cos(math.radians(tilt))
        fov = math.degrees(2 * math.atan(view_m / (2 * distance)))
    return TableCamera(
        tilt_deg=tilt, heading=heading, roll=float(rng.normal(0, 0.06)), fov_deg=fov, view_m=view_m, aim=aim,
        exposure_offset=exposure_offset(rng),
        view=str(rng.choice(["Standard", "AgX", "Filmic"], p=[0.5, 0.3, 0.2])),
        denoise=True,
    )


def mount_camera(mount: TableCamera, width: int, height: int) -> PinholeCamera:
    """The pinhole camera of a mounting."""
    focal = width / (2 * math.tan(math.radians(mount.fov_deg) / 2))
    distance = focal * mount.view_m / width
    tilt = math.radians(mount.tilt_deg)
    offset = np.array([math.cos(mount.heading) * math.sin(tilt), math.sin(mount.heading) * math.sin(tilt),
                       math.cos(tilt)])
    aim = np.array(mount.aim, dtype=float)
    return PinholeCamera.looking_at(aim + offset * distance, aim, focal, width, height, mount.roll)


def _lamp_spot(rng: np.random.Generator, kind: str, die: DieLook, cage: CageLook) -> DiePose:
    """A flat die somewhere in the landing area: where a mirrored lamp may be hung for."""
    if kind == "rail":
        x, y = float(rng.uniform(-0.15, 0.15)), float(rng.uniform(-0.2, -0.03))
    else:
        radius, angle = float(rng.uniform(0, 0.6)) * cage.dish_radius, float(rng.uniform(-math.pi, math.pi))
        x, y = radius * math.cos(angle), radius * math.sin(angle)
    return DiePose((x, y, die.size_m / 2), rotation_with_face_up(1, float(rng.uniform(0, math.pi))), False, False,
                   False)


def draw_table(seed: int, kind: str, size: tuple[int, int]) -> Table:
    """The table of ``seed``: everything a set keeps fixed, for a ``"rail"`` or ``"cage"`` table
    seen in frames of ``size``."""
    if kind not in DICE_PER_KIND:
        raise ValueError(f"a table is a rail or a cage, not {kind!r}")
    width, height = size
    looks = table_stream(seed, 1)
    die = die_look(looks)
    cloth = cloth_look(looks, kind)
    rail = rail_look(looks)
    cage = cage_look(looks)
    ambient = float(looks.uniform(0.02, 0.25))
    ambient_rgb = tuple(float(c) for c in looks.uniform(0.5, 1.0, 3))
    if kind == "cage" and die.size_m < 0.019:  # a cage is made for its dice: smaller dice, a smaller dish
        shrink = max(die.size_m / 0.019, 0.7)
        cage = replace(cage, dish_radius=cage.dish_radius * shrink, waist_radius=cage.waist_radius * shrink)
    mount = _mount(table_stream(seed, 2), kind, width, die, cage)
    camera = mount_camera(mount, width, height)
    photo = replace(photo_look(table_stream(seed, 3)), motion_px=0.0)  # the dice are at rest
    lamp_rng = table_stream(seed, 4)
    spot = _lamp_spot(lamp_rng, kind, die, cage)
    lamps = place_lamps(lamp_rng, camera, [spot], die.size_m, np.array(mount.aim), MIRRORED_LAMP_SHARE)
    side = RailWorld(0.0, 0.0).side_x
    side_x = side if camera.position[0] < mount.aim[0] else -side  # never between the camera and the dice
    return Table(kind, (width, height), seed, die, cloth, rail, cage, ambient, ambient_rgb, mount, camera,
                 tuple(lamps), photo, side_x)


# --- the landing area and a flat die's image ------------------------------------------------------

def _clip(points: np.ndarray, keep) -> np.ndarray:
    """Sutherland-Hodgman: the part of a convex polygon (Nx3) where the linear ``keep(p) >= 0``."""
    out = []
    n = len(points)
    for k in range(n):
        a, b = points[k], points[(k + 1) % n]
        ka, kb = keep(a), keep(b)
        if ka >= 0:
            out.append(a)
        if (ka >= 0) != (kb >= 0):
            out.append(a + (b - a) * (ka / (ka - kb)))
    return np.array(out).reshape(-1, 3)


def clip_to_view(camera: PinholeCamera, polygon: np.ndarray, near: float = 0.01) -> np.ndarray:
    """The part of a convex world polygon (Nx3) the camera's frame shows (the frustum's five planes)."""
    w, h, f = camera.width, camera.height, camera.focal_px

    def cam(p):
        return (p - camera.position) @ camera.rotation  # x right, y up, looking along -z

    planes = (
        lambda p: -cam(p)[2] - near,
        lambda p: f * cam(p)[0] + w / 2 * -cam(p)[2],
        lambda p: w / 2 * -cam(p)[2] - f * cam(p)[0],
        lambda p: h / 2 * -cam(p)[2] - f * cam(p)[1],
        lambda p: f * cam(p)[1] + h / 2 * -cam(p)[2],
    )
    out = np.asarray(polygon, dtype=float)
    for keep in planes:
        if len(out) < 3:
            return np.zeros((0, 3))
        out = _clip(out, keep)
    return out if len(out) >= 3 else np.zeros((0, 3))


def landing_world(table: Table) -> np.ndarray:
    """The felt the dice can come to rest on (Nx3, on the plane z = 0): on a rail table between the
    back wall's pyramid tips, the side walls and the players' wall of the physics; in the cage, the
    dish's floor."""
    if table.kind == "rail":
        world = table.rail_world()
        x, front = world.side_x, world.wall_y - 0.9
        return np.array([[-x, front, 0.0], [x, front, 0.0], [x, world.wall_y, 0.0], [-x, world.wall_y, 0.0]])
    r = table.cage.dish_radius
    a = np.linspace(0, 2 * math.pi, 64, endpoint=False)
    return np.stack([r * np.cos(a), r * np.sin(a), np.zeros_like(a)], axis=1)


def landing_area(table: Table) -> tuple[np.ndarray, np.ndarray]:
    """The landing area inside the frame: on the plane (Mx3) and in the image (Mx2, pixels)."""
    world = clip_to_view(table.camera, landing_world(table))
    if not len(world):
        return world, np.zeros((0, 2))
    return world, table.camera.project(world)


def on_plane(camera: PinholeCamera, px: float, py: float, z: float) -> np.ndarray | None:
    """Where the ray through pixel ``(px, py)`` meets the plane at height ``z``, or None."""
    d = camera.ray(px, py)
    if abs(d[2]) < 1e-9:
        return None
    t = (z - camera.position[2]) / d[2]
    return camera.position + t * d if t > 0 else None


def flat_die_samples(table: Table, steps: int = 3) -> list[dict]:
    """A flat die (face 1 up, its sides along x and y) at a grid of places across the landing area
    as the image shows it: its centre on the table, its top face's corners and its box in pixels."""
    _, image = landing_area(table)
    if not len(image):
        return []
    cam, half = table.camera, table.die.size_m / 2
    hull = image.astype(np.float32).reshape(-1, 1, 2)
    x0, y0 = image.min(axis=0)
    x1, y1 = image.max(axis=0)
    rotation = rotation_with_face_up(1, 0.0)
    out = []
    for fy in (np.arange(steps) + 0.5) / steps:
        for fx in (np.arange(steps) + 0.5) / steps:
            px, py = x0 + fx * (x1 - x0), y0 + fy * (y1 - y0)
            if cv2.pointPolygonTest(hull, (float(px), float(py)), False) < 0:
                continue
            centre = on_plane(cam, px, py, half)
            if centre is None:
                continue
            box, inside = image_box(cam.project(cube_corners(centre, rotation, half)), cam.width, cam.height)
            top = cam.project(top_face_corners(centre, rotation, half))
            out.append({"centre": _r(centre, 4), "top_face": _r(top, 2), "box": _r(box, 2), "in_frame": inside})
    return out


def rest_boxes(table: Table, count: int = 200) -> np.ndarray:
    """The larger side of the box (pixels) of a flat die at ``count`` places and turns where thrown
    dice mostly rest (rail: x -0.2..0.2 m, y -0.22..-0.02 m; cage: within three quarters of the
    dish's radius), those in view: how large a table shows its dice."""
    rng = np.random.default_rng([TABLE_TAG, table.seed, 9])
    half, cam = table.die.size_m / 2, table.camera
    out = []
    for _ in range(count):
        if table.kind == "rail":
            x, y = rng.uniform(-0.2, 0.2), rng.uniform(-0.22, -0.02)
        else:
            radius, angle = 0.75 * table.cage.dish_radius * math.sqrt(rng.random()), rng.uniform(0, 2 * math.pi)
            x, y = radius * math.cos(angle), radius * math.sin(angle)
        corners = cube_corners(np.array([x, y, half]), rotation_with_face_up(1, rng.uniform(0, math.pi / 2)), half)
        if not cam.in_front(corners):
            continue
        box, inside = image_box(cam.project(corners), cam.width, cam.height)
        if inside:
            out.append(max(box[2], box[3]))
    return np.array(out)


def _r(values, digits: int):
    return (np.round(np.asarray(values, dtype=float), digits) + 0.0).tolist()  # no -0.0


def opencv_pose(camera: PinholeCamera) -> dict:
    """The camera for OpenCV: ``x_cv = R @ X + t`` (x right, y down, z forward), ``K`` with the
    principal point in OpenCV's pixel coordinates (pixel centres at whole numbers, half a pixel
    less than this module's, whose (0, 0) is the top-left pixel's corner), no distortion."""
    flip = np.diag([1.0, -1.0, -1.0])
    r = flip @ camera.rotation.T
    t = -r @ camera.position
    f = camera.focal_px
    k = [[f, 0.0, camera.width / 2 - 0.5], [0.0, f, camera.height / 2 - 0.5], [0.0, 0.0, 1.0]]
    return {"R": _r(r, 9), "t": _r(t, 9), "K": _r(k, 6), "dist": [0.0] * 5}


def table_facts(table: Table) -> dict:
    """What ``table.json`` says of a table (its code, samples and metered exposure are added when
    it is rendered)."""
    cam = table.camera
    world, image = landing_area(table)
    facts = {
        "kind": table.kind, "size": list(table.size), "table_seed": table.seed, "dice_per_throw": table.dice,
        "die_edge_m": round(table.die.size_m, 6),
        "die_edge_radius_m": round(table.die.size_m / 2 * rounded_share(table.die.rounded), 7),
        "material": table.die.material,
        "camera": {
            "fx": round(cam.focal_px, 4), "fy": round(cam.focal_px, 4),
            "cx": cam.width / 2, "cy": cam.height / 2,
            "rotation": _r(cam.rotation, 9), "position": _r(cam.position, 6),
            "tilt_deg": round(cam.look_from_vertical_deg(), 2), "heading_deg": round(math.degrees(table.mount.heading), 2),
            "roll_deg": round(math.degrees(table.mount.roll), 2), "fov_deg": round(table.mount.fov_deg, 3),
            "aim": _r(table.mount.aim, 6), "view_m": round(table.mount.view_m, 4),
            "opencv": opencv_pose(cam),
        },
        "plane": {"point": [0.0, 0.0, 0.0], "normal": [0.0, 0.0, 1.0],
                  "surface": "felt" if table.kind == "rail" else "dish floor"},
        "landing_area": {"image": _r(image, 2), "world": _r(world, 4)},
        "flat_die": flat_die_samples(table),
        "lamps": [{"position": _r(lamp.position, 4), "radius_m": round(lamp.radius, 4), "kelvin": round(lamp.kelvin),
                   "watts": round(lamp.watts, 2)} for lamp in table.lamps],
        "ambient": round(table.ambient, 4), "ambient_rgb": _r(table.ambient_rgb, 4),
        "cloth": table.cloth.name, "cloth_rgb": _r(table.cloth.rgb, 4), "print_rgb": list(table.cloth.print_rgb),
        "view": table.mount.view, "denoise": table.mount.denoise,
        "exposure_offset_ev": round(table.mount.exposure_offset, 3), "jpeg_quality": table.photo.jpeg_quality,
        "photo": {k: (_r(v, 4) if isinstance(v, tuple) else round(v, 4) if isinstance(v, float) else v)
                  for k, v in asdict(table.photo).items()},
    }
    if table.kind == "rail":
        facts["rail"] = {"wall_y": 0.0, "wall_height": round(table.rail.wall_height, 4),
                         "side_wall_x": round(table.side_x, 3) if table.rail.corner else None}
    else:
        facts["cage"] = {"dish_radius": round(table.cage.dish_radius, 4), "top": round(table.cage_top, 4),
                         "wires": table.cage.wires, "mesh": table.cage.mesh}
    return facts


def describe(table: Table) -> str:
    """One line of what a table is, to choose seeds by before rendering."""
    boxes = rest_boxes(table)
    span = (f"{np.percentile(boxes, 10):.0f}-{np.percentile(boxes, 90):.0f} px ({len(boxes) / 2:.0f}% whole in view)"
            if len(boxes) else "none in view")
    return (f"{table.kind} seed {table.seed}: tilt {table.camera.look_from_vertical_deg():.1f} deg, "
            f"flat die box {span}, {table.die.material} {table.die.size_m * 1000:.1f} mm, cloth {table.cloth.name}, "
            f"{len(table.lamps)} lamps, view {table.mount.view}, offset {table.mount.exposure_offset:+.2f} EV, "
            f"JPEG {table.photo.jpeg_quality}")
