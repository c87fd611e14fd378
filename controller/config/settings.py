"""A checked configuration as typed values: :class:`Config` and one frozen settings object a section.

Made only by :func:`controller.config.validate`, after every key was checked, so a value here is
one the table can use. ``[table]``'s keys are the :class:`Config`'s own fields (``game``,
``state_dir``, ``pin_factory``); ``[rules]``, ``[pins]``, ``[gpio]``, ``[console]`` and ``[floor]``
are the settings objects of the layers that use them (``TableConfig``, ``PinMap``,
``GpioSettings``, ``WebSettings``, ``FloorLink``), ``[calibration]`` the reader's ``Calibration``;
``[console] large_payout`` is the pit's (:class:`PitSettings`), the rest of ``[console]`` the web layer's.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from controller.floor.broker import FloorLink
    from controller.rules import TableConfig
    from controller.web.settings import WebSettings
    from hardware.gpio import GpioSettings, PinMap
    from vision.model import Calibration


@dataclass(frozen=True)
class CameraSettings:
    """``[camera]``: the source (a kind of ``vision.sources.factory.KINDS``, or ``none``), the
    recording it replays (``path``, absolute) or the USB camera (``device``), the frame asked of
    it, and the reader's model folder (``model``, absolute; empty: the bundled one)."""

    source: str = "generated"
    path: str = ""
    device: int | str = 0
    fps: int = 30
    width: int = 640
    height: int = 480
    full_width: int = 0
    full_height: int = 0
    save_frames: bool = True
    model: str = ""

    @property
    def size(self) -> tuple[int, int]:
        return self.width, self.height

    @property
    def full_size(self) -> tuple[int, int] | None:
        """The full-resolution frame read beside the small one, or None."""
        return (self.full_width, self.full_height) if self.full_width else None

    @property
    def live(self) -> bool:
        """Whether the source is a camera filming the table now (the Pi's, a USB one), rather than
        generated scenes, a recording or none."""
        from vision.sources.factory import KINDS

        return self.source in KINDS and KINDS[self.source].live


@dataclass(frozen=True)
class DisplaySettings:
    """``[display]``: the kind of display (a kind of ``hardware.display.KINDS``, or ``none``), the
    serial port of one wired to a port, and the link's speed."""

    kind: str = "sim"
    port: str = ""
    baud: int = 115200


@dataclass(frozen=True)
class HazardSettings:
    """``[hazard]``: how long the cage motor turns for one spin."""

    spin_seconds: float = 3.0


@dataclass(frozen=True)
class PitSettings:
    """What the pit is alerted of (``[console] large_payout``): a winning bet's payout (``paid`` less
    the stake, cents) from this much on. Overrides (hand entries, voids, corrections) always are."""

    large_payout: int = 10_000


@dataclass(frozen=True)
class Config:
    """A validated configuration. ``source`` is the file it came from (for messages)."""

    source: str
    game: str
    state_dir: Path
    pin_factory: str
    rules: TableConfig
    pins: PinMap
    gpio: GpioSettings
    camera: CameraSettings
    display: DisplaySettings
    calibration: Calibration
    #: The empty table as the calibration pictured it (a BGR array), or None.
    empty_image: Any
    hazard: HazardSettings
    console: WebSettings
    #: ``[floor]``: the table's id and broker, or None.
    floor: FloorLink | None = None
    #: ``[console] large_payout``: what the pit's page raises an alert for.
    pit: PitSettings = PitSettings()
