"""Builds a scene in Blender (``bpy``) and renders it with Cycles on the CPU.

Only this module touches ``bpy``: it turns the looks, the dice's rest poses, the lamps and the
camera into objects and materials, renders one frame, and casts rays to measure how much of each
die is hidden. Each scene starts from Blender's empty factory settings, so nothing carries over
from the image before.
"""
from __future__ import annotations

import contextlib
import math
import os
import sys
from pathlib import Path

import numpy as np

import bpy  # noqa: E402  (the renderer's own environment only)
from mathutils import Matrix, Vector

from training.render.diemesh import die_mesh, pip_atlas
from training.render.geometry import PinholeCamera
from training.render.exposure import metered_ev
from training.render.layout import FUZZ_TILE_M, FUZZ_TILE_PX, fuzz_texture, layout_mask
from training.render.looks import CageLook, ClothLook, DieLook, Lamp, RailLook, kelvin_to_rgb


def reset() -> None:
    bpy.ops.wm.read_factory_settings(use_empty=True)


def _image(name: str, rgb_or_mask: np.ndarray, colour: bool = False) -> "bpy.types.Image":
    """A float image from an array whose first row is the image's top."""
    h, w = rgb_or_mask.shape[:2]
    img = bpy.data.images.new(name, w, h, alpha=True, float_buffer=True)
    rgba = np.empty((h, w, 4), np.float32)  # filled in place: the table's print is 2048 px square
    rgba[..., :3] = (rgb_or_mask if rgb_or_mask.ndim == 3 else rgb_or_mask[..., None])[::-1]
    rgba[..., 3] = 1.0
    # the colour space first: setting it afterwards regenerates the image blank
    img.colorspace_settings.name = "Non-Color" if not colour else "Linear Rec.709"
    img.pixels.foreach_set(rgba.ravel())
    img.update()
    img.pack()  # otherwise the renderer regenerates the blank image it was created as
    return img


def _material(name: str):
    mat = bpy.data.materials.new(name)
    mat.use_nodes = True
    nt = mat.node_tree
    bsdf = nt.nodes["Principled BSDF"]
    return mat, nt, bsdf


def _set(bsdf, **inputs) -> None:
    names = {"base": "Base Color", "rough": "Roughness", "metal": "Metallic", "ior": "IOR",
             "trans": "Transmission Weight", "coat": "Coat Weight", "coat_rough": "Coat Roughness",
             "sheen": "Sheen Weight", "spec": "Specular IOR Level"}
    for key, value in inputs.items():
        socket = bsdf.inputs[names[key]]
        socket.default_value = (*value, 1.0) if key == "base" else value


def _object(name: str, mesh, material=None):
    obj = bpy.data.objects.new(name, mesh)
    bpy.context.scene.collection.objects.link(obj)
    if material is not None:
        obj.data.materials.append(material)
    return obj


def _mesh(name: str, verts, faces, uvs=None):
    me = bpy.data.meshes.new(name)
    me.from_pydata([tuple(map(float, v)) for v in verts], [], [tuple(int(i) for i in f) for f in faces])
    if uvs is not None:
        layer = me.uv_layers.new(name="UV")
        layer.data.foreach_set("uv", np.asarray(uvs, dtype=np.float32).ravel())
    me.validate()
    return me


# --- dice -----------------------------------------------------------------------------------

def die_material(look: DieLook, index: int):
    """Translucent casino plastic (a glossy surface over an absorbing body, white paint flush in the
    pips) or an opaque die with painted, maybe recessed, pips."""
    mat, nt, bsdf = _material(f"die{index}")
    tex = nt.nodes.new("ShaderNodeTexImage")
    tex.image = _image(f"pips{index}", pip_atlas(192, look.pip_radius, look.pip_offset, 0.6, look.rotations))
    tex.interpolation = "Linear"
    tex.extension = "EXTEND"
    mask = tex.outputs["Color"]
    mix = nt.nodes.new("ShaderNodeMix")
    mix.data_type = "RGBA"
    mix.inputs["A"].default_value = (*look.body_rgb, 1.0)
    mix.inputs["B"].default_value = (*look.pip_rgb, 1.0)
    nt.links.new(mask, mix.inputs["Factor"])
    nt.links.new(mix.outputs["Result"], bsdf.inputs["Base Color"])
    rough = nt.nodes.new("ShaderNodeMapRange")
    rough.inputs["To Min"].default_value = look.roughness
    rough.inputs["To Max"].default_value = max(look.roughness, 0.45)
    nt.links.new(mask, rough.inputs["Value"])
    nt.links.new(rough.outputs["Result"], bsdf.inputs["Roughness"])
    if look.translucent:
        light_tint = tuple(0.3 + 0.7 * c for c in look.body_rgb)
        mix.inputs["A"].default_value = (*light_tint, 1.0)
        inv = nt.nodes.new("ShaderNodeMath")
        inv.operation = "SUBTRACT"
        inv.inputs[0].default_value = 1.0
        nt.links.new(mask, inv.inputs[1])
        nt.links.new(inv.outputs[0], bsdf.inputs["Transmission Weight"])
        _set(bsdf, ior=1.49, coat=1.0, coat_rough=min(look.roughness, 0.3))
        bsdf.inputs["Coat IOR"].default_value = 1.49
        # Shadow rays pass the surface tinted, so light reaches the body and the felt under the die
        # as it would through clear plastic, without the noise of caustics.
        path = nt.nodes.new("ShaderNodeLightPath")
        clear = nt.nodes.new("ShaderNodeBsdfTransparent")
        clear.inputs["Color"].default_value = (*light_tint, 1.0)
        through = nt.nodes.new("ShaderNodeMixShader")
        out = nt.nodes["Material Output"]
        nt.links.new(path.outputs["Is Shadow Ray"], through.inputs["Fac"])
        nt.links.new(bsdf.outputs["BSDF"], through.inputs[1])
        nt.links.new(clear.outputs["BSDF"], through.inputs[2])
        nt.links.new(through.outputs["Shader"], out.inputs["Surface"])
        absorb = nt.nodes.new("ShaderNodeVolumeAbsorption")
        absorb.inputs["Color"].default_value = (*look.body_rgb, 1.0)
        absorb.inputs["Density"].default_value = look.absorption
        nt.links.new(absorb.outputs[0], nt.nodes["Material Output"].inputs["Volume"])
    else:
        _set(bsdf, ior=1.5, coat=0.3 if look.roughness < 0.3 else 0.0, coat_rough=0.1)
        if look.recessed:
            bump = nt.nodes.new("ShaderNodeBump")
            bump.invert = True
            bump.inputs["Strength"].default_value = 0.6
            bump.inputs["Distance"].default_value = 0.0008
            nt.links.new(mask, bump.inputs["Height"])
            nt.links.new(bump.outputs["Normal"], bsdf.inputs["Normal"])
    return mat


def add_die(look: DieLook, index: int, centre, rotation: np.ndarray):
    data = die_mesh(look.size_m / 2, look.rounded)
    me = _mesh(f"die{index}", data.vertices, data.quads, data.uvs.reshape(-1, 2))
    me.shade_smooth()
    loop_normals = data.normals[data.quads.ravel()]
    me.normals_split_custom_set([tuple(map(float, n)) for n in loop_normals])
    obj = _object(f"die{index}", me, die_material(look, index))
    move(obj, centre, rotation)
    obj.pass_index = index + 1
    return obj


def move(obj, centre, rotation: np.ndarray) -> None:
    """Put ``obj`` at ``centre`` turned by ``rotation`` (its frame to the world's, 3x3)."""
    m = Matrix([list(map(float, r)) for r in rotation]).to_4x4()
    m.translation = Vector(tuple(map(float, centre)))
    obj.matrix_world = m


def set_dice(objects, poses, away=(0.0, 0.0, -5.0)) -> None:
    """Move the dice ``objects`` to ``poses`` (each with ``centre`` and ``rotation``) for a render,
    or with ``poses`` None take them out of it (hidden, under the table at ``away``)."""
    for i, obj in enumerate(objects):
        if poses is None:
            move(obj, away, np.eye(3))
        else:
            move(obj, poses[i].centre, poses[i].rotation)
        obj.hide_render = poses is None
    bpy.context.view_layer.update()


# --- table ----------------------------------------------------------------------------------

def add_cloth(look: ClothLook, size: float = 2.0, centre=(0.0, 0.0), print_density: float = 1.0):
    """The felt: the cloth colour, the layout's ink, and a fuzz in its surface (colour and bump from
    a small tiled texture: a procedural noise evaluated three times per shading point for the bump
    cost about a fifth of a frame's sampling)."""
    h = size / 2
    cx, cy = centre
    me = _mesh("felt", [(cx - h, cy - h, 0), (cx + h, cy - h, 0), (cx + h, cy + h, 0), (cx - h, cy + h, 0)],
               [(0, 1, 2, 3)], [(0, 0), (1, 0), (1, 1), (0, 1)])
    mat, nt, bsdf = _material("felt")
    tex = nt.nodes.new("ShaderNodeTexImage")
    tex.image = _image("layout", layout_mask(look.print_seed, 2048, size, print_density))
    tex.interpolation = "Linear"
    mix = nt.nodes.new("ShaderNodeMix")
    mix.data_type = "RGBA"
    mix.inputs["A"].default_value = (*look.rgb, 1.0)
    mix.inputs["B"].default_value = (*look.print_rgb, 1.0)
    nt.links.new(tex.outputs["Color"], mix.inputs["Factor"])
    coords = nt.nodes.new("ShaderNodeTexCoord")
    repeat = nt.nodes.new("ShaderNodeMapping")
    repeat.inputs["Scale"].default_value = (size / FUZZ_TILE_M, size / FUZZ_TILE_M, 1.0)
    nt.links.new(coords.outputs["UV"], repeat.inputs["Vector"])
    fuzz = nt.nodes.new("ShaderNodeTexImage")
    fuzz.image = _image("fuzz", fuzz_texture(look.print_seed, FUZZ_TILE_PX))
    fuzz.interpolation = "Linear"
    fuzz.extension = "REPEAT"
    nt.links.new(repeat.outputs["Vector"], fuzz.inputs["Vector"])
    shade = nt.nodes.new("ShaderNodeMix")
    shade.data_type = "RGBA"
    shade.blend_type = "MULTIPLY"
    shade.inputs["Factor"].default_value = 0.35
    nt.links.new(mix.outputs["Result"], shade.inputs["A"])
    nt.links.new(fuzz.outputs["Color"], shade.inputs["B"])
    nt.links.new(shade.outputs["Result"], bsdf.inputs["Base Color"])
    bump = nt.nodes.new("ShaderNodeBump")
    bump.inputs["Strength"].default_value = 0.25
    bump.inputs["Distance"].default_value = 0.0003
    nt.links.new(fuzz.outputs["Color"], bump.inputs["Height"])
    nt.links.new(bump.outputs["Normal"], bsdf.inputs["Normal"])
    _set(bsdf, rough=look.roughness, sheen=0.6, spec=0.2)
    return _object("felt", me, mat)


def _plain(name: str, rgb, rough: float, metal: float = 0.0):
    mat, _, bsdf = _material(name)
    _set(bsdf, base=rgb, rough=rough, metal=metal)
    return mat


def _box(name: str, lo, hi, mat):
    x0, y0, z0 = lo
    x1, y1, z1 = hi
    verts = [(x0, y0, z0), (x1, y0, z0), (x1, y1, z0), (x0, y1, z0), (x0, y0, z1), (x1, y0, z1), (x1, y1, z1),
             (x0, y1, z1)]
    faces = [(0, 3, 2, 1), (4, 5, 6, 7), (0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6), (3, 0, 4, 7)]
    return _object(name, _mesh(name, verts, faces), mat)


def _pyramid_wall(name: str, width: float, height: float, pitch: float, depth: float, mat):
    """Rubber pyramids on the wall's face: the plane y = 0, tips pointing to -y, x from -width/2."""
    nx, nz = max(1, int(width / pitch)), max(1, int(height / pitch))
    verts, faces = [], []
    for i in range(nx):
        for k in range(nz):
            x0, z0 = -width / 2 + i * pitch, k * pitch
            b = len(verts)
            verts += [(x0, 0, z0), (x0 + pitch, 0, z0), (x0 + pitch, 0, z0 + pitch), (x0, 0, z0 + pitch),
                      (x0 + pitch / 2, -depth, z0 + pitch / 2)]
            faces += [(b, b + 1, b + 4), (b + 1, b + 2, b + 4), (b + 2, b + 3, b + 4), (b + 3, b, b + 4)]
    return _object(name, _mesh(name, verts, faces), mat)


def add_rail(look: RailLook, wall_y: float, side_x: float, rng: np.random.Generator) -> None:
    """The back wall lined with pyramids (their tips at ``wall_y``), the chip rail on top and the
    padded arm rest; for a corner, a side wall with its tips at ``side_x`` facing the dice (at a
    positive ``side_x`` it faces -x, at a negative one +x: the caller puts it on the side away
    from the camera, which must never look through it)."""
    rubber = _plain("rubber", look.rubber_rgb, 0.55)
    base_y = wall_y + look.pyramid_depth
    side_turn = -math.pi / 2 if side_x > 0 else math.pi / 2
    side_at = side_x + math.copysign(look.pyramid_depth, side_x)
    for name, turn, offset in (("back", 0.0, (0.0, base_y)), ("side", side_turn, (side_at, 0))):
        if name == "side" and not look.corner:
            continue
        wall = _pyramid_wall(f"pyramids_{name}", 2.0, look.wall_height, look.pyramid_pitch, look.pyramid_depth, rubber)
        wall.rotation_euler = (0, 0, turn)
        wall.location = (offset[0], offset[1], 0)
    top = look.wall_height
    wood = _plain("chiprail", look.chip_rail_rgb, look.chip_rail_roughness)
    _box("rail_top", (-1.0, base_y, 0), (1.0, base_y + 0.03, top + 0.012), wood)
    _box("groove_floor", (-1.0, base_y + 0.03, top - 0.01), (1.0, base_y + 0.1, top - 0.005), wood)
    _box("groove_back", (-1.0, base_y + 0.1, 0), (1.0, base_y + 0.115, top + 0.012), wood)
    arm_mat, _, arm_bsdf = _material("arm")
    _set(arm_bsdf, base=look.arm_rgb, rough=0.35, coat=0.4)
    bpy.ops.mesh.primitive_cylinder_add(radius=0.045, depth=2.0, location=(0, base_y + 0.16, top + 0.03),
                                        rotation=(0, math.pi / 2, 0), vertices=48)
    arm = bpy.context.active_object
    arm.data.materials.append(arm_mat)
    arm.data.shade_smooth()
    chip_colours = [(0.6, 0.02, 0.02), (0.02, 0.25, 0.05), (0.01, 0.01, 0.01), (0.02, 0.05, 0.4), (0.8, 0.8, 0.8),
                    (0.5, 0.05, 0.4)]
    x = -0.5
    while x < 0.5:  # stacks of chips lying in the groove
        x += rng.uniform(0.02, 0.25)
        if rng.random() < 0.5:
            continue
        n = int(rng.integers(2, 20))
        col = chip_colours[int(rng.integers(len(chip_colours)))]
        bpy.ops.mesh.primitive_cylinder_add(radius=0.0195, depth=0.0033 * n, vertices=32,
                                            location=(x + 0.0017 * n, base_y + 0.065, top + 0.015),
                                            rotation=(0, math.pi / 2, 0))
        chips = bpy.context.active_object
        chips.data.materials.append(_plain(f"chip{x:.3f}", col, 0.4))
        x += 0.0033 * n


def add_cage(look: CageLook, upper: bool = True) -> float:
    """The cage's dish (cloth in a metal rim) and its wires: bars from the rim in to a waist and out
    again to a top ring closed by wires across it (the camera looks down through them); without
    ``upper``, only the half below the waist. Returns the height of the cage's top."""
    r, rw, hw = look.dish_radius, look.waist_radius, look.waist_height
    dish_mat = _plain("dish", look.dish_rgb, 0.9)
    seg = 64
    verts = [(0, 0, 0)] + [(r * math.cos(2 * math.pi * k / seg), r * math.sin(2 * math.pi * k / seg), 0) for k in range(seg)]
    faces = [(0, 1 + k, 1 + (k + 1) % seg) for k in range(seg)]
    _object("dish", _mesh("dish", verts, faces), dish_mat)
    metal = _plain("metal", look.metal_rgb, look.metal_roughness, 1.0)
    ring_verts, ring_faces = [], []
    for k in range(seg):  # the sloping rim the dice may lean on
        a = 2 * math.pi * k / seg
        ring_verts += [(r * math.cos(a), r * math.sin(a), 0), ((r + 0.025) * math.cos(a), (r + 0.025) * math.sin(a), 0.022)]
    for k in range(seg):
        j = (k + 1) % seg
        ring_faces.append((2 * k, 2 * j, 2 * j + 1, 2 * k + 1))
    rim = _object("rim", _mesh("rim", ring_verts, ring_faces), metal)
    rim.data.shade_smooth()
    top = 2 * hw
    rr = r + 0.025

    def bar(p0, p1) -> None:
        p0, p1 = np.array(p0), np.array(p1)
        d = p1 - p0
        length = float(np.linalg.norm(d))
        bpy.ops.mesh.primitive_cylinder_add(radius=look.wire_radius, depth=length, vertices=8,
                                            location=tuple(map(float, (p0 + p1) / 2)))
        obj = bpy.context.active_object
        obj.rotation_mode = "QUATERNION"
        obj.rotation_quaternion = Vector((0, 0, 1)).rotation_difference(Vector(tuple(map(float, d / length))))
        obj.data.materials.append(metal)
        obj.data.shade_smooth()

    for k in range(look.wires):
        a = 2 * math.pi * (k + 0.5) / look.wires
        c, s = math.cos(a), math.sin(a)
        bar((rr * c, rr * s, 0.022), (rw * c, rw * s, hw))
        if upper:
            bar((rw * c, rw * s, hw), (rr * c, rr * s, top))
    for z in np.linspace(0.022, top if upper else hw, look.rings + 2):
        rad = rr - (rr - rw) * (1 - abs(z - hw) / hw)
        bpy.ops.mesh.primitive_torus_add(major_radius=float(rad), minor_radius=look.wire_radius * 1.6,
                                         location=(0, 0, float(z)), major_segments=96, minor_segments=8)
        torus = bpy.context.active_object
        torus.data.materials.append(metal)
    if not upper:
        return hw
    # the top: parallel wires across the ring, crossed by a second layer when the cage has a mesh
    pitch = look.grille_pitch
    for layer in (0, 1) if look.mesh else (0,):
        for x in np.arange(-rr + pitch / 2, rr, pitch):
            half = math.sqrt(max(rr * rr - x * x, 0))
            if half > 0.005:
                a, b = ((x, -half), (x, half)) if layer == 0 else ((-half, x), (half, x))
                z = top + 0.003 * (layer + 1)
                bar((a[0], a[1], z), (b[0], b[1], z))
    return top


# --- light and camera -----------------------------------------------------------------------

def add_lamps(lamps: list[Lamp], ambient: float, ambient_rgb) -> None:
    world = bpy.data.worlds.new("room")
    world.use_nodes = True
    bg = world.node_tree.nodes["Background"]
    bg.inputs["Color"].default_value = (*ambient_rgb, 1.0)
    bg.inputs["Strength"].default_value = ambient
    bpy.context.scene.world = world
    for i, lamp in enumerate(lamps):
        light = bpy.data.lights.new(f"lamp{i}", "AREA")
        light.shape = "DISK"
        light.size = 2 * lamp.radius
        light.energy = lamp.watts
        light.color = kelvin_to_rgb(lamp.kelvin)
        obj = bpy.data.objects.new(f"lamp{i}", light)
        obj.location = lamp.position
        bpy.context.scene.collection.objects.link(obj)
        # a ceiling fitting: a disc that glows, seen in reflections, facing down (area lights face -z)


def add_camera(cam: PinholeCamera) -> None:
    data = bpy.data.cameras.new("camera")
    data.sensor_fit = "HORIZONTAL"
    data.sensor_width = 36.0
    data.lens = cam.focal_px / cam.width * 36.0
    data.clip_start = 0.01
    data.clip_end = 20.0
    obj = bpy.data.objects.new("camera", data)
    m = Matrix([list(map(float, r)) for r in cam.rotation]).to_4x4()
    m.translation = Vector(tuple(map(float, cam.position)))
    obj.matrix_world = m
    bpy.context.scene.collection.objects.link(obj)
    bpy.context.scene.camera = obj


def render(path: Path, cam: PinholeCamera, samples: int, seed: int, denoise: bool, threads: int, view: str,
           exposure_offset: float, ground_rgb: tuple[float, float, float], ev: float | None = None) -> float:
    """Render the scene to ``path`` (8-bit PNG) and return the exposure it was given, in stops.

    Cycles writes linear light (OpenEXR); the exposure is metered on it (``exposure.py``: the
    scene's key at a mid tone, a white die on the ground of ``ground_rgb`` not blown out, moved by
    ``exposure_offset``) and Blender's view transform is then applied with that exposure when the
    PNG is saved, as a camera exposes for the scene. With ``ev`` the picture gets that exposure
    instead, unmetered (a table set's, metered once on its empty table)."""
    scene = bpy.context.scene
    scene.render.engine = "CYCLES"
    cycles = scene.cycles
    cycles.device = "CPU"
    cycles.samples = samples
    cycles.use_adaptive_sampling = False
    # Two to five lamps and the room: the light tree's bookkeeping cost more (a fifth of the
    # sampling time) than its better choice of lamp saved (6% less noise at the same samples).
    cycles.use_light_tree = False
    cycles.seed = seed % (2**31)
    cycles.use_denoising = denoise
    if denoise:
        cycles.denoiser = "OPENIMAGEDENOISE"
        # The albedo and normal passes are left as they are: prefiltering them ("ACCURATE") runs
        # the network twice more and took three quarters of the denoiser's time at 640x480.
        cycles.denoising_prefilter = "FAST"
        cycles.denoising_quality = "BALANCED"
    cycles.max_bounces = 10
    cycles.diffuse_bounces = 2
    cycles.glossy_bounces = 4
    cycles.transmission_bounces = 10
    cycles.transparent_max_bounces = 4
    cycles.volume_bounces = 0
    cycles.caustics_reflective = False
    cycles.caustics_refractive = False
    cycles.blur_glossy = 1.0
    cycles.sample_clamp_indirect = 10.0
    scene.render.threads_mode = "FIXED"
    scene.render.threads = threads
    scene.render.resolution_x = cam.width
    scene.render.resolution_y = cam.height
    scene.render.resolution_percentage = 100
    scene.view_settings.view_transform = view
    scene.view_settings.exposure = 0.0
    settings = scene.render.image_settings
    settings.file_format = "OPEN_EXR"
    settings.color_depth = "32"
    settings.exr_codec = "NONE"
    linear_path = path.with_suffix(".exr")
    scene.render.filepath = str(linear_path)
    with _quiet():
        bpy.ops.render.render(write_still=True)
    linear = bpy.data.images.load(str(linear_path))
    pixels = np.empty(cam.width * cam.height * 4, np.float32)
    linear.pixels.foreach_get(pixels)
    if ev is None:
        ev = metered_ev(pixels.reshape(cam.height, cam.width, 4)[::-1, :, :3], exposure_offset, ground_rgb)
    scene.view_settings.exposure = ev
    settings.file_format = "PNG"
    settings.color_depth = "8"
    linear.save_render(str(path), scene=scene)
    bpy.data.images.remove(linear)
    return ev


@contextlib.contextmanager
def _quiet():
    """Blender prints a line per tile and sample on the process' standard output: send it away,
    so a batch's own progress stays readable."""
    sys.stdout.flush()
    saved = os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 1)
        yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        os.close(devnull)


def visible_share(obj, cam: PinholeCamera, hull_px: np.ndarray, rng: np.random.Generator, rays: int = 300,
                  window: tuple[float, float, float, float] | None = None) -> float:
    """The share of the die's outline in the frame (or in ``window``, ``(x0, y0, x1, y1)`` pixels:
    a crop) whose ray from the camera meets the die first: rays through random points of its
    projected outline (``hull_px``, the projected corners)."""
    import cv2

    hull = cv2.convexHull(hull_px.astype(np.float32)).reshape(-1, 2)
    x0, y0 = hull.min(axis=0)
    x1, y1 = hull.max(axis=0)
    depsgraph = bpy.context.evaluated_depsgraph_get()
    scene = bpy.context.scene
    left, top, right, bottom = window or (0.0, 0.0, float(cam.width), float(cam.height))
    hits = inside = 0
    tries = 0
    while inside < rays and tries < rays * 20:
        tries += 1
        px, py = rng.uniform(x0, x1), rng.uniform(y0, y1)
        if cv2.pointPolygonTest(hull, (float(px), float(py)), False) < 0:
            continue
        inside += 1
        if not (left <= px < right and top <= py < bottom):
            continue  # cut by the frame's (or the crop's) edge: hidden
        origin = Vector(tuple(map(float, cam.position)))
        ok, _, _, _, hit_obj, _ = scene.ray_cast(depsgraph, origin, Vector(tuple(map(float, cam.ray(px, py)))))
        if ok and hit_obj is not None and hit_obj.name == obj.name:
            hits += 1
    return hits / inside if inside else 0.0
