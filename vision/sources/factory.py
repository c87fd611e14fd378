"""``open_source(spec)``: one configuration value names any camera or stand-in.

Strings (as typed on a command line or in TOML)::

    picamera2            picamera2:1           the Pi camera (number 0 / 1)
    usb:0  or  0         /dev/video0           a USB camera through OpenCV
    video:PATH  or an existing video file      a recorded video
    folder:PATH  or an existing directory      a folder of recorded images
    generated            generated:seed=3,game=hazard,size=320x240,realtime=1

(``scenes`` and ``opencv:...`` are read too: the configuration's earlier spellings.)

or a table, e.g. ``{"type": "folder", "path": "rec/", "loop": true}``; any
other key of the table is passed to the source (``size``, ``fps``, ``seed``,
``game``, ``loop``, ``realtime``, ``settle_s``...). Live cameras
(``picamera2``, ``usb``) are wrapped in a :class:`RetryingSource` unless
``retry`` is false, so a camera missing at start is retried, not fatal.
"""
from __future__ import annotations

import inspect
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping

from vision.model import frame_size
from vision.sources.base import FrameSource
from vision.sources.folder import FolderSource
from vision.sources.generated import GeneratedSource
from vision.sources.opencv import OpenCVSource
from vision.sources.retry import Backoff, RetryingSource



@dataclass(frozen=True)
class Recording:
    """What the ``path`` of a source replaying a recording names: a folder of images or a video file
    (``names`` and ``noun`` as messages say it: "must name the folder of images", "no such folder")."""

    names: str
    noun: str
    folder: bool


def _picamera2() -> type[FrameSource]:
    from vision.sources.picamera import Picamera2Source  # itself imports picamera2 only when opening

    return Picamera2Source


@dataclass(frozen=True)
class SourceKind:
    """One kind of source: the class that reads it, whether it is a camera filming now (``live``:
    retried while it is missing) and what its ``path`` names when it replays a ``recording``."""

    source_class: Callable[[], type[FrameSource]]
    live: bool = False
    recording: Recording | None = None


#: Every kind of source, by the name a spec and the configuration's ``[camera] source`` give it.
KINDS: Mapping[str, SourceKind] = {
    "picamera2": SourceKind(_picamera2, live=True),
    "usb": SourceKind(lambda: OpenCVSource, live=True),
    "video": SourceKind(lambda: OpenCVSource, recording=Recording("the video file", "video file", folder=False)),
    "folder": SourceKind(lambda: FolderSource, recording=Recording("the folder of images", "folder", folder=True)),
    "generated": SourceKind(lambda: GeneratedSource),
}
#: Also read, as the configuration's ``[camera] source`` once spelt sources: ``scenes[:...]`` is
#: ``generated[:...]``, ``opencv[:N]`` a USB camera (a number or a ``/dev`` path), ``opencv:PATH`` a video.
OLD_SPELLINGS = ("scenes", "opencv")
_VIDEO_SUFFIXES = {".mp4", ".avi", ".mkv", ".mov", ".h264", ".mjpeg", ".webm"}


def parse_spec(spec: str | Mapping[str, Any]) -> dict[str, Any]:
    """The spec as a dict with ``type`` and the source's options; ``ValueError`` if it names nothing."""
    if isinstance(spec, Mapping):
        out = dict(spec)
        kind = out.pop("type", None) or out.pop("kind", None)
        if kind not in KINDS:
            raise ValueError(f"camera source: unknown type {kind!r}; expected one of {', '.join(KINDS)}")
        out["type"] = kind
        return out
    text = str(spec).strip()
    if not text:
        raise ValueError("camera source: empty specification")
    kind, _, rest = text.partition(":")
    if kind == "scenes":
        kind = "generated"
    elif kind == "opencv":
        if rest.startswith("/dev/"):
            return {"type": "usb", "target": rest}
        kind = "usb" if not rest or rest.isdigit() else "video"
    if kind == "picamera2":
        return {"type": "picamera2", "camera_num": _camera_number(text, rest)}
    if kind == "usb":
        return {"type": "usb", "target": _camera_number(text, rest)}
    if kind in ("video", "folder") and rest:
        return {"type": kind, "path": rest}
    if kind == "generated":
        out = {"type": "generated"}
        for item in filter(None, rest.split(",")):
            key, eq, value = item.partition("=")
            if not eq:
                raise ValueError(f"camera source: expected key=value in {item!r}")
            out[key.strip()] = _scalar(value.strip())
        return out
    if text.isdigit():
        return {"type": "usb", "target": int(text)}
    if text.startswith("/dev/") or "://" in text:
        return {"type": "usb", "target": text}
    path = Path(text)
    if path.is_dir():
        return {"type": "folder", "path": text}
    if path.is_file() or path.suffix.lower() in _VIDEO_SUFFIXES:
        return {"type": "video", "path": text}
    raise ValueError(
        f"camera source {text!r}: not a folder or file here, and not one of "
        "picamera2[:N], usb:N, video:PATH, folder:PATH, generated[:key=value,...]"
    )


def kind_spelt(name: str, has_path: bool) -> str:
    """A ``[camera] source`` as :data:`KINDS` spell it, an earlier spelling (:data:`OLD_SPELLINGS`)
    read as what it meant; ``has_path``: the configuration names a recording."""
    if name == "scenes":
        return "generated"
    if name == "opencv":
        return "video" if has_path else "usb"
    return name


def _camera_number(spec: str, rest: str) -> int:
    """The camera number after ``picamera2:`` or ``usb:`` (0 if none); ``ValueError`` naming the spec otherwise."""
    if not rest:
        return 0
    if not rest.isdigit():
        raise ValueError(f"camera source {spec!r}: expected a camera number after the colon, e.g. usb:0")
    return int(rest)


def _scalar(text: str) -> Any:
    size = frame_size(text)
    if size is not None:
        return size
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            pass
    return {"true": True, "false": False}.get(text.lower(), text)


def open_source(spec: str | Mapping[str, Any], retry: bool | None = None, **overrides: Any) -> FrameSource:
    """Open the source ``spec`` names (see the module docstring). Options in ``overrides`` win.

    An option the source does not take, or a value it cannot use, is a ``ValueError``
    naming it, at once for every kind. Files and folders that do not exist raise
    :class:`~vision.sources.base.SourceUnavailable` at once; live cameras are
    retried in the background of ``read()`` when ``retry`` (the default for them).
    """
    opts = parse_spec(spec)
    opts.update(overrides)
    kind = opts.pop("type")
    backoff = _backoff(opts.pop("backoff", None))
    if kind == "usb":
        opts.setdefault("target", 0)
    _check_options(kind, opts)
    for key in ("size", "full_size"):
        if opts.get(key) is not None:
            opts[key] = tuple(opts[key])
    if kind == "video":
        opts["target"] = opts.pop("path")  # OpenCV opens a camera and a video file alike
    source_class = KINDS[kind].source_class()
    if not KINDS[kind].live:
        return source_class(**opts)
    opener = lambda: source_class(**opts)  # noqa: E731
    if retry is False:
        return opener()
    number = opts["target"] if "target" in opts else opts.get("camera_num", 0)
    return RetryingSource(opener, name=f"{kind}:{number}", backoff=backoff)


def _check_options(kind: str, opts: Mapping[str, Any]) -> None:
    """``ValueError`` naming the option if ``opts`` has one the source does not take, or a value it cannot use.

    Checked here, before anything is opened: a typo would otherwise surface as a ``TypeError``
    deep in a constructor or, for a live camera, be retried for ever as "camera lost".
    """
    params = {
        "path" if kind == "video" and name == "target" else name: param  # a video's target is its path
        for name, param in inspect.signature(KINDS[kind].source_class()).parameters.items()
        if name != "clock"  # a test's hook, not an option
    }
    for key, value in opts.items():
        if key not in params:
            raise ValueError(f"camera source {kind}: unknown option {key!r} (known: {', '.join(params)})")
        problem = _value_problem(key, value, params[key].default)
        if problem:
            raise ValueError(f"camera source {kind}: {key}={value!r}: {problem}")
    missing = [name for name, param in params.items() if param.default is inspect.Parameter.empty and name not in opts]
    if missing:
        raise ValueError(f"camera source {kind}: missing option {', '.join(map(repr, missing))}")


def _value_problem(key: str, value: Any, default: Any) -> str | None:
    """Why ``value`` cannot be option ``key`` (whose default is ``default``), or None if it can."""
    if value is None and default is None:
        return None
    if key in ("size", "full_size"):
        ok = (isinstance(value, (tuple, list)) and len(value) == 2
              and all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in value))
        return None if ok else "expected width x height in whole pixels above 0, e.g. 640x480"
    is_number = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if key == "fps":
        return None if is_number and value > 0 else "expected a number of frames per second above 0"
    if isinstance(default, bool):  # 1 and 0 as well: ``generated:realtime=1`` is how a command line says it
        return None if value in (True, False) and isinstance(value, int) else "expected true or false (or 1 or 0)"
    if isinstance(default, int):
        return None if isinstance(value, int) and not isinstance(value, bool) else "expected a whole number"
    if isinstance(default, float):
        return None if is_number and value >= 0 else "expected a number of 0 or more"
    return None


def _backoff(table: Any) -> Backoff:
    """The reconnection delays of a ``backoff`` table (``initial``, ``factor``, ``maximum``)."""
    if table is None:
        return Backoff()
    if not isinstance(table, Mapping) or set(table) - {"initial", "factor", "maximum"}:
        raise ValueError(f"camera source: backoff={table!r}: expected a table of initial, factor and maximum")
    return Backoff(**table)
