"""Build every GPIO device of the table from the configuration, in one call.

    devices = build_devices(PinMap.from_dict(cfg.get("pins", {})),
                            GpioSettings.from_dict(cfg.get("gpio", {})),
                            sink=controller_queue.put)

On a Pi, ``pin_factory=None`` lets gpiozero pick its default (lgpio). For the
demo and tests pass a ``MockFactory`` and a ``ManualClock``: then no thread runs
the buttons' deadlines, and ``SimulatedDealer`` (or the test) calls ``poll``.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from gpiozero.pins import Factory

from hardware.gpio.buttons import DealerButtons, Sink
from hardware.gpio.clock import Clock
from hardware.gpio.lights import BetLockLights
from hardware.gpio.motor import CageMotor, MotorStatus
from hardware.gpio.pinmap import GpioSettings, PinMap


@dataclass
class GpioDevices:
    """The table's GPIO devices; ``close`` switches everything off and frees the lines."""

    motor: CageMotor
    lights: BetLockLights
    buttons: DealerButtons

    def close(self) -> None:
        self.motor.close()
        self.lights.close()
        self.buttons.close()


def build_devices(
    pins: PinMap | None = None,
    settings: GpioSettings | None = None,
    *,
    pin_factory: Factory | None = None,
    sink: Sink | None = None,
    clock: Clock | None = None,
    on_motor_stop: Callable[[MotorStatus], None] | None = None,
) -> GpioDevices:
    """Build motor, lights and buttons on ``pins`` with ``settings`` (defaults when None).

    With ``clock=None`` the buttons use ``time.monotonic`` and their deadline
    thread is started; with a clock given (a ``ManualClock``) it is not, and the
    caller calls ``devices.buttons.poll()`` after advancing the clock.
    """
    pins = pins or PinMap()
    settings = settings or GpioSettings()
    built: list[CageMotor | BetLockLights | DealerButtons] = []
    try:
        motor = CageMotor(
            pins.cage_motor,
            max_run_s=settings.cage_max_run_s,
            pin_factory=pin_factory,
            on_stop=on_motor_stop,
        )
        built.append(motor)
        lights = BetLockLights(
            pins.light_no_more_bets,
            pins.light_bang_inside,
            pins.light_bang_outside,
            pin_factory=pin_factory,
        )
        built.append(lights)
        buttons = DealerButtons(
            lock=pins.button_lock,
            confirm=pins.button_confirm,
            void=pins.button_void,
            next_shooter=pins.button_next_shooter,
            sink=sink,
            debounce_s=settings.debounce_s,
            long_press_s=settings.long_press_s,
            double_press_s=settings.double_press_s,
            clock=clock or time.monotonic,
            pin_factory=pin_factory,
        )
    except Exception:
        for device in built:
            device.close()
        raise
    if clock is None:
        buttons.start()
    return GpioDevices(motor=motor, lights=lights, buttons=buttons)
