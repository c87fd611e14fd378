"""Table sets (``python -m training.render tableset``): one table fixed for the whole set (``table.py``),
frames of its empty table, and one frame per throw of its dice.

The camera is set up once: the first empty frame is metered (``exposure.py``, the table's offset
added) and that exposure, kept in ``table.json``, is given to every frame of the set. A set
stopped halfway goes on with the same command: the throws whose line is in ``meta.jsonl`` and
the empty frames on disk are skipped, and the exposure is read back from ``table.json``.
"""
from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from training.render.photo import apply_camera, jpeg_bytes
from training.render.records import TableFolder, image_record
from training.render.table import draw_table, empty_name, empty_seed, table_facts, throw_name
from training.render.version import CODE_VERSION

#: What must match between a folder's ``table.json`` and the command going on with it.
IDENTITY = ("kind", "size", "table_seed", "code", "samples")


class TableMismatch(ValueError):
    """The folder holds another table, or one made by other code or samples."""


def table_identity(kind: str, size: tuple[int, int], table_seed: int, samples: int) -> dict:
    return {"kind": kind, "size": list(size), "table_seed": table_seed, "code": CODE_VERSION, "samples": samples}


def check_folder(folder: TableFolder, identity: dict) -> None:
    """Refuse to go on with a folder whose table is not this one: a set is one table, made by one code."""
    known = folder.table()
    if known is None:
        return
    differ = [f"{k} {known.get(k)!r} there, {identity[k]!r} here" for k in IDENTITY if known.get(k) != identity[k]]
    if differ:
        raise TableMismatch(f"{folder.root} holds another table set ({'; '.join(differ)}): render into a new "
                            "folder, or with the code that made it (its export under the cache)")


def render_tableset(out: Path, table_seed: int, kind: str, size: tuple[int, int], count: int, empty: int,
                    samples: int, threads: int) -> Iterator[tuple[int, int, str, float]]:
    """Render the table of ``table_seed``: ``empty`` frames of the empty table and throws 0 ..
    ``count - 1`` into ``out``, skipping those done; yields (number done, empty + count, name,
    seconds) after each."""
    table = draw_table(table_seed, kind, size)
    folder = TableFolder(out)
    identity = table_identity(kind, size, table_seed, samples)
    check_folder(folder, identity)
    empties = [e for e in range(empty) if not folder.empty_done(empty_name(e))]
    throws = [i for i in range(count) if not folder.done(throw_name(kind, size, table_seed, i))]
    known = folder.table()
    if known is not None and not empties and not throws:
        return
    from training.render.tablescene import TableScene  # Blender: only when rendering

    total = empty + count
    scene = TableScene(table, samples, threads)
    photo = table.photo

    def finish(bgr: np.ndarray, seed: int) -> bytes:
        return jpeg_bytes(apply_camera(bgr, photo, np.random.default_rng([seed, 8])), photo.jpeg_quality)

    if known is None:  # set the camera up: meter the empty table once
        start = time.monotonic()
        bgr, ev = scene.empty(0)
        folder.write_table({**table_facts(table), **identity, "exposure_ev": ev})
        if 0 in empties:
            folder.add_empty(empty_name(0), finish(bgr, empty_seed(table_seed, 0)))
            empties.remove(0)
            yield 1, total, f"empty/{empty_name(0)}", time.monotonic() - start
    else:
        ev = float(known["exposure_ev"])
    for e in empties:
        start = time.monotonic()
        bgr, _ = scene.empty(e, ev)
        folder.add_empty(empty_name(e), finish(bgr, empty_seed(table_seed, e)))
        yield e + 1, total, f"empty/{empty_name(e)}", time.monotonic() - start
    for i in throws:
        start = time.monotonic()
        name = throw_name(kind, size, table_seed, i)
        thrown = scene.throw(i, ev)
        record = image_record(
            name, kind, size, thrown.seed, thrown.dice, poses=thrown.poses, code=CODE_VERSION, scenario=thrown.scenario,
            material=table.die.material, cloth=table.cloth.name,
            camera_tilt_deg=round(table.camera.look_from_vertical_deg(), 1),
            lamps_k=[round(lamp.kelvin) for lamp in table.lamps], samples=samples, exposure_ev=round(ev, 2),
            exposure_offset_ev=round(table.mount.exposure_offset, 2), view=table.mount.view,
            jpeg_quality=photo.jpeg_quality, table_seed=table_seed, throw=i)
        folder.add(record, finish(thrown.bgr, thrown.seed))
        yield empty + i + 1, total, name, time.monotonic() - start
