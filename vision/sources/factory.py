"""``open_source(spec)``: one configuration value names any camera or stand-in.

Strings (as typed on a command line or in TOML)::

    picamera2            picamera2:1           the Pi camera (number 0 / 1)
    usb:0  or  0         /dev/video0           a USB camera through OpenCV
    video:PATH  or an existing video file      a recorded video
    folder:PATH  or an existing directory      a folder of recorded images
    generated            generated:seed=3,game=hazard,size=320x240,realtime=1

or a table, e.g. ``{"type": "folder", "path": "rec/", "loop": true}``; any
other key of the table is passed to the source (``size``, ``fps``, ``seed``,
``game``, ``loop``, ``realtime``, ``settle_s``...). Live cameras
(``picamera2``, ``usb``) are wrapped in a :class:`RetryingSource` unless
``retry`` is false, so a camera missing at start is retried, not fatal.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Mapping

from vision.sources.base import FrameSource
from vision.sources.folder import FolderSource
from vision.sources.generated import GeneratedSource
from vision.sources.opencv import OpenCVSource
from vision.sources.retry import Backoff, RetryingSource

KINDS = ("picamera2", "usb", "video", "folder", "generated")
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
    if kind == "picamera2":
        return {"type": "picamera2", "camera_num": int(rest or 0)}
    if kind == "usb":
        return {"type": "usb", "target": int(rest or 0)}
    if kind in ("video", "folder") and rest:
        return {"type": kind, "path": rest}
    if kind == "generated":
        out: dict[str, Any] = {"type": "generated"}
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


def _scalar(text: str) -> Any:
    width, x, height = text.partition("x")
    if x and width.isdigit() and height.isdigit():
        return (int(width), int(height))  # a frame size, 640x480
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            pass
    return {"true": True, "false": False}.get(text.lower(), text)


def open_source(spec: str | Mapping[str, Any], retry: bool | None = None, **overrides: Any) -> FrameSource:
    """Open the source ``spec`` names (see the module docstring). Options in ``overrides`` win.

    Files and folders that do not exist raise
    :class:`~vision.sources.base.SourceUnavailable` at once; live cameras are
    retried in the background of ``read()`` when ``retry`` (the default for them).
    """
    opts = parse_spec(spec)
    opts.update(overrides)
    kind = opts.pop("type")
    if "size" in opts and opts["size"] is not None:
        opts["size"] = tuple(int(v) for v in opts["size"])
    backoff = Backoff(**opts.pop("backoff")) if isinstance(opts.get("backoff"), Mapping) else Backoff()
    opener: Callable[[], FrameSource]
    if kind == "generated":
        return GeneratedSource(**opts)
    if kind == "folder":
        return FolderSource(opts.pop("path"), **opts)
    if kind == "video":
        return OpenCVSource(opts.pop("path"), **opts)
    if kind == "usb":
        target = opts.pop("target", 0)
        opener = lambda: OpenCVSource(target, **opts)  # noqa: E731
        name = f"usb:{target}"
    else:
        from vision.sources.picamera import Picamera2Source  # itself imports picamera2 only when opening

        opener = lambda: Picamera2Source(**opts)  # noqa: E731
        name = f"picamera2:{opts.get('camera_num', 0)}"
    if retry is False:
        return opener()
    return RetryingSource(opener, name=name, backoff=backoff)
