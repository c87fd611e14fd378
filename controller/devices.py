"""The table's devices opened from its configuration: the GPIO devices (buttons, lamps, cage motor)
on the configured pin factory, and the display ``[display] kind`` names.

- :func:`open_devices` -- the GPIO devices and their pin factory (``GpioUnavailable`` off a Pi).
- :func:`open_configured_display` -- the display, or None for ``kind = "none"``.
- :func:`button_event`, :func:`cage_listener` -- what a button press and a finished spin put on the
  table's input queue.
"""
from __future__ import annotations

from typing import Any, Callable

from controller.config import LGPIO_INSTALL, Config
from hardware.display import Display, open_display
from hardware.gpio import GpioDevices, build_devices

class GpioUnavailable(RuntimeError):
    """The configured pin factory cannot drive this machine's GPIO (no lgpio module, no GPIO chip, no
    permission): an installation problem to fix, which a restart does not."""


def open_devices(config: Config, sink: Callable[[Any], None], *, clock: Any = None,
                 on_motor_stop: Callable[[Any], None] | None = None) -> tuple[GpioDevices, Any]:
    """The GPIO devices; returns them and the pin factory (a ``MockFactory`` for ``mock``)."""
    if config.pin_factory == "mock":
        from gpiozero.pins.mock import MockFactory

        factory: Any = MockFactory()
    else:
        factory = _lgpio_factory()
    devices = build_devices(config.pins, config.gpio, pin_factory=factory, sink=sink, clock=clock,
                            on_motor_stop=on_motor_stop)
    return devices, factory


def _lgpio_factory() -> Any:
    """gpiozero's lgpio pin factory, or ``GpioUnavailable`` saying what to install or check."""
    try:
        from gpiozero.pins.lgpio import LGPIOFactory  # only on a Pi
    except ImportError as exc:
        raise GpioUnavailable(f'pin_factory = "lgpio": {exc}; {LGPIO_INSTALL}') from None
    try:
        return LGPIOFactory()
    except Exception as exc:  # noqa: BLE001 - lgpio raises its own error type for a missing chip or permission
        raise GpioUnavailable(f'pin_factory = "lgpio": cannot open the GPIO chip ({exc}); is this a Raspberry Pi, '
                              "and is the service's user in the gpio group?") from None


def open_configured_display(config: Config) -> Display | None:
    """The display ``[display]`` names, opened; None for ``kind = "none"``."""
    settings = config.display
    if settings.kind == "none":
        return None
    return open_display(settings.kind, port=settings.port, baud=settings.baud)


def cage_listener(sink: Callable[[dict[str, Any]], None]) -> Callable[[Any], None]:
    """The motor's ``on_stop``: a spin that ran its time becomes ``spin_done``; a stop asked for
    (the dealer's VOID, shutting down) does not."""
    from hardware.gpio import StopReason

    def on_stop(status: Any) -> None:
        if status.stop_reason in (StopReason.FINISHED, StopReason.MAX_RUN):
            sink({"event": "spin_done"})

    return on_stop


def button_event(button: Any) -> dict[str, Any]:
    """A ``ButtonEvent`` as the table event it means (``{"event": "lock"}``...)."""
    return {"event": str(getattr(button, "value", button))}

