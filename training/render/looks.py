"""What a scene looks like, drawn from a seeded generator: dice, cloth, rail, cage, lamps, camera.

Everything random about an image is drawn here (or in the camera model) from one
``numpy.random.Generator`` seeded by the image's seed, so the same seed gives the same image.
The draws are broad on purpose: the reader must learn dice, not one look.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Translucent casino dice colours (linear RGB of the body's tint).
CASINO_TINTS = {
    "red": (0.8, 0.03, 0.02), "green": (0.03, 0.5, 0.12),
    "blue": (0.02, 0.12, 0.7), "purple": (0.35, 0.04, 0.55), "amber": (0.85, 0.35, 0.02),
    "smoke": (0.25, 0.25, 0.27), "clear": (0.85, 0.85, 0.88), "pink": (0.85, 0.2, 0.4),
}
#: Opaque dice: body colour, pip colour (linear RGB).
OPAQUE_DICE = {
    "white": ((0.8, 0.8, 0.78), (0.01, 0.01, 0.01)), "ivory": ((0.75, 0.68, 0.5), (0.02, 0.02, 0.02)),
    "black": ((0.015, 0.015, 0.015), (0.85, 0.85, 0.85)), "red": ((0.55, 0.02, 0.02), (0.85, 0.85, 0.85)),
    "blue": ((0.02, 0.06, 0.45), (0.85, 0.85, 0.85)), "green": ((0.02, 0.3, 0.05), (0.85, 0.85, 0.85)),
    "yellow": ((0.8, 0.6, 0.02), (0.01, 0.01, 0.01)), "darkgrey": ((0.04, 0.04, 0.045), (0.7, 0.7, 0.7)),
    "wood": ((0.35, 0.18, 0.07), (0.02, 0.01, 0.005)), "navy": ((0.01, 0.015, 0.08), (0.8, 0.8, 0.8)),
}
#: Table cloths (linear RGB), and the print colours a layout may use.
CLOTHS = {
    "green": (0.02, 0.16, 0.05), "darkgreen": (0.01, 0.08, 0.025), "blue": (0.01, 0.05, 0.18),
    "red": (0.22, 0.015, 0.02), "burgundy": (0.09, 0.01, 0.02), "black": (0.012, 0.012, 0.014),
    "grey": (0.12, 0.12, 0.12), "tan": (0.3, 0.2, 0.1), "purple": (0.08, 0.02, 0.12),
}
PRINTS = ((0.8, 0.7, 0.1), (0.85, 0.85, 0.85), (0.7, 0.1, 0.05), (0.8, 0.5, 0.05), (0.05, 0.05, 0.05))


@dataclass(frozen=True)
class DieLook:
    """How one die is made: its size, body and pips, edges and finish."""

    material: str  # e.g. "casino-red-polished", written to the crops' csv
    size_m: float
    body_rgb: tuple[float, float, float]
    pip_rgb: tuple[float, float, float]
    translucent: bool
    absorption: float  # volume absorption density of a translucent body (per metre)
    roughness: float
    rounded: float  # edge radius as a share of the half edge
    pip_radius: float  # share of the half face
    pip_offset: float
    recessed: bool  # pips pressed into the face (opaque dice), not flush
    rotations: tuple[int, ...]


def die_look(rng: np.random.Generator, casino_share: float = 0.6) -> DieLook:
    """A random die: a translucent casino die (19 mm, flush pips, sharp edges) or an opaque one."""
    sanded = rng.random() < 0.25
    rotations = tuple(int(r) for r in rng.integers(0, 4, 6))
    if rng.random() < casino_share:
        names = list(CASINO_TINTS)
        weights = np.array([6.0 if n == "red" else 1.0 for n in names])
        name = names[int(rng.choice(len(names), p=weights / weights.sum()))]
        tint = np.array(CASINO_TINTS[name]) * rng.uniform(0.85, 1.1, 3)
        return DieLook(
            material=f"casino-{name}-{'sanded' if sanded else 'polished'}",
            size_m=float(rng.choice([0.019, 0.019, 0.019, 0.01905, 0.016])),
            body_rgb=tuple(float(c) for c in np.clip(tint, 0, 1)),
            pip_rgb=tuple(float(c) for c in rng.uniform(0.75, 0.9) * np.ones(3)),
            translucent=True,
            absorption=float(rng.uniform(30, 160)),
            roughness=float(rng.uniform(0.25, 0.45) if sanded else rng.uniform(0.0, 0.06)),
            rounded=float(rng.uniform(0.01, 0.06) if rng.random() < 0.85 else rng.uniform(0.1, 0.25)),
            pip_radius=float(rng.uniform(0.19, 0.25)),
            pip_offset=float(rng.uniform(0.5, 0.58)),
            recessed=False,
            rotations=rotations,
        )
    name = str(rng.choice(list(OPAQUE_DICE)))
    body, pip = OPAQUE_DICE[name]
    return DieLook(
        material=f"opaque-{name}-{'matte' if sanded else 'glossy'}",
        size_m=float(rng.uniform(0.012, 0.019)),
        body_rgb=tuple(float(c) for c in np.clip(np.array(body) * rng.uniform(0.8, 1.15, 3), 0, 1)),
        pip_rgb=tuple(float(c) for c in pip),
        translucent=False,
        absorption=0.0,
        roughness=float(rng.uniform(0.4, 0.7) if sanded else rng.uniform(0.1, 0.3)),
        rounded=float(rng.uniform(0.08, 0.35)),
        pip_radius=float(rng.uniform(0.15, 0.24)),
        pip_offset=float(rng.uniform(0.48, 0.6)),
        recessed=bool(rng.random() < 0.7),
        rotations=rotations,
    )


@dataclass(frozen=True)
class ClothLook:
    """The table's cloth and the layout printed on it."""

    name: str
    rgb: tuple[float, float, float]
    print_rgb: tuple[float, float, float]
    print_seed: int
    roughness: float


def cloth_look(rng: np.random.Generator, kind: str) -> ClothLook:
    names = list(CLOTHS)
    weights = np.array([8.0 if n in ("green", "darkgreen") else 1.5 if n in ("blue", "red", "grey") else 1.0
                        for n in names])
    name = names[int(rng.choice(len(names), p=weights / weights.sum()))]
    rgb = np.array(CLOTHS[name]) * rng.uniform(0.8, 1.25, 3)
    prints = list(PRINTS)
    print_rgb = prints[int(rng.integers(len(prints)))]
    return ClothLook(name, tuple(float(c) for c in rgb), tuple(float(c) for c in print_rgb),
                     int(rng.integers(2**31)), float(rng.uniform(0.7, 1.0)))


@dataclass(frozen=True)
class RailLook:
    """The rail around the table: the wall lined with rubber pyramids, the chip rail above it."""

    wall_height: float
    pyramid_pitch: float
    pyramid_depth: float
    rubber_rgb: tuple[float, float, float]
    chip_rail_rgb: tuple[float, float, float]
    chip_rail_roughness: float
    arm_rgb: tuple[float, float, float]
    corner: bool  # a side wall too, meeting the back wall


def rail_look(rng: np.random.Generator) -> RailLook:
    rubber = [(0.02, 0.02, 0.02), (0.05, 0.05, 0.05), (0.12, 0.1, 0.08), (0.03, 0.08, 0.03), (0.15, 0.02, 0.02)]
    wood = [(0.25, 0.1, 0.03), (0.12, 0.05, 0.02), (0.4, 0.25, 0.1), (0.05, 0.05, 0.05), (0.5, 0.45, 0.35)]
    arm = [(0.02, 0.015, 0.01), (0.08, 0.02, 0.01), (0.01, 0.01, 0.02), (0.15, 0.08, 0.04)]
    return RailLook(
        wall_height=float(rng.uniform(0.07, 0.12)),
        pyramid_pitch=float(rng.uniform(0.009, 0.02)),
        pyramid_depth=float(rng.uniform(0.004, 0.009)),
        rubber_rgb=rubber[int(rng.integers(len(rubber)))],
        chip_rail_rgb=wood[int(rng.integers(len(wood)))],
        chip_rail_roughness=float(rng.uniform(0.15, 0.6)),
        arm_rgb=arm[int(rng.integers(len(arm)))],
        corner=bool(rng.random() < 0.2),
    )


@dataclass(frozen=True)
class CageLook:
    """The hazard cage's lower half: the dish the dice land in and the wire around it."""

    dish_radius: float
    waist_radius: float
    waist_height: float
    wires: int
    wire_radius: float
    rings: int
    metal_rgb: tuple[float, float, float]
    metal_roughness: float
    dish_rgb: tuple[float, float, float]
    mesh: bool  # the top's wires crossed by a second layer
    grille_pitch: float  # spacing of the wires across the top


def cage_look(rng: np.random.Generator) -> CageLook:
    metals = [(0.9, 0.9, 0.9), (0.95, 0.75, 0.4), (0.6, 0.6, 0.62), (0.05, 0.05, 0.05)]
    dishes = [(0.02, 0.16, 0.05), (0.2, 0.02, 0.02), (0.01, 0.05, 0.18), (0.6, 0.6, 0.6), (0.3, 0.2, 0.1)]
    dish_radius = float(rng.uniform(0.12, 0.2))
    return CageLook(
        dish_radius=dish_radius,
        waist_radius=float(dish_radius * rng.uniform(0.25, 0.45)),
        waist_height=float(rng.uniform(0.06, 0.12)),
        wires=int(rng.integers(10, 28)),
        wire_radius=float(rng.uniform(0.0008, 0.0022)),
        rings=int(rng.integers(1, 4)),
        metal_rgb=metals[int(rng.integers(len(metals)))],
        metal_roughness=float(rng.uniform(0.05, 0.35)),
        dish_rgb=dishes[int(rng.integers(len(dishes)))],
        mesh=bool(rng.random() < 0.3),
        grille_pitch=float(rng.uniform(0.02, 0.045)),
    )


@dataclass(frozen=True)
class Lamp:
    """A ceiling lamp: a glowing disc facing down."""

    position: tuple[float, float, float]
    radius: float
    kelvin: float
    watts: float


def kelvin_to_rgb(kelvin: float) -> tuple[float, float, float]:
    """The colour of a black body at ``kelvin`` (1000-12000 K) as RGB scaled to a maximum of 1
    (Tanner Helland's fit of the CIE tables, good to a few percent for lamp colours)."""
    t = float(np.clip(kelvin, 1000, 40000)) / 100
    r = 255.0 if t <= 66 else 329.698727446 * (t - 60) ** -0.1332047592
    g = 99.4708025861 * np.log(t) - 161.1195681661 if t <= 66 else 288.1221695283 * (t - 60) ** -0.0755148492
    b = 255.0 if t >= 66 else 0.0 if t <= 19 else 138.5177312231 * np.log(t - 10) - 305.0447927307
    rgb = np.clip(np.array([r, g, b]), 0, 255) / 255
    return tuple(float(c) for c in rgb / rgb.max())


@dataclass(frozen=True)
class CameraLook:
    """How the camera is placed and what it does to the picture."""

    tilt_deg: float  # the axis' angle from straight down
    heading: float  # radians, the direction the camera looks from
    roll: float
    die_px: float  # how many pixels across a die should be at the aim point
    fov_deg: float
    aim_jitter: tuple[float, float]  # where the dice fall in the frame, shares of its size
    exposure: float
    view: str  # Blender's view transform
    denoise: bool


def camera_look(rng: np.random.Generator, kind: str, width: int) -> CameraLook:
    """Straight down in about a third of rail frames, oblique otherwise (side faces show)."""
    if kind == "cage":
        tilt = float(rng.uniform(0, 50))
    else:
        tilt = 0.0 if rng.random() < 0.3 else float(rng.uniform(5, 55))
    scale = width / 640
    die_px = float(np.exp(rng.uniform(np.log(22), np.log(62)))) * scale
    return CameraLook(
        tilt_deg=tilt,
        heading=float(rng.uniform(-np.pi, np.pi)),
        roll=float(rng.normal(0, 0.08)),
        die_px=die_px,
        fov_deg=float(rng.uniform(25, 50) if kind == "cage" else rng.uniform(40, 75)),
        aim_jitter=(float(rng.uniform(-0.2, 0.2)), float(rng.uniform(-0.2, 0.2))),
        exposure=float(rng.uniform(-0.8, 0.5)),
        view=str(rng.choice(["Standard", "AgX", "Filmic"], p=[0.5, 0.3, 0.2])),
        denoise=bool(rng.random() < 0.7),
    )


@dataclass(frozen=True)
class PhotoLook:
    """The camera model applied after rendering: white balance, blur, noise, vignetting, JPEG."""

    wb_gains: tuple[float, float, float]
    blur_sigma: float
    motion_px: float
    motion_angle: float
    noise_sigma: float  # read noise, share of full scale
    shot_noise: float  # photon noise gain
    vignette: float
    jpeg_quality: int


def photo_look(rng: np.random.Generator) -> PhotoLook:
    gains = np.exp(rng.normal(0, 0.07, 3))
    return PhotoLook(
        wb_gains=tuple(float(g) for g in gains / gains[1]),
        blur_sigma=float(rng.uniform(0, 1.2) if rng.random() < 0.6 else 0.0),
        motion_px=float(rng.uniform(0, 3) if rng.random() < 0.15 else 0.0),
        motion_angle=float(rng.uniform(0, np.pi)),
        noise_sigma=float(rng.uniform(0.002, 0.02)),
        shot_noise=float(rng.uniform(0.0, 0.02)),
        vignette=float(rng.uniform(0, 0.35)),
        jpeg_quality=int(rng.integers(55, 96)),
    )
