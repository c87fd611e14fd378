"""Cameras and their stand-ins behind one interface: :class:`FrameSource`.

``open_source(spec)`` opens any of them from one configuration value; see
:mod:`vision.sources.factory`.
"""
from vision.sources.base import (
    BrokenFrame,
    EndOfStream,
    Frame,
    FrameSource,
    HealthState,
    SourceError,
    SourceHealth,
    SourceUnavailable,
    check_image,
)
from vision.sources.factory import open_source, parse_spec
from vision.sources.folder import FolderSource
from vision.sources.generated import GeneratedSource
from vision.sources.opencv import OpenCVSource
from vision.sources.recording import Recorder
from vision.sources.retry import Backoff, RetryingSource

__all__ = [
    "Backoff", "BrokenFrame", "EndOfStream", "Frame", "FrameSource", "FolderSource", "GeneratedSource",
    "HealthState", "OpenCVSource", "Recorder", "RetryingSource", "SourceError", "SourceHealth", "SourceUnavailable",
    "check_image", "open_source", "parse_spec",
]
