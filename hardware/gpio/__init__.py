"""GPIO devices of the dice table: the hazard cage motor, the bet-lock lights, the dealer's buttons.

Every device takes ``pin_factory`` (gpiozero's lgpio on a Pi, ``MockFactory`` on a
laptop and in tests). Pure logic (debounce, long press, manual dice entry) lives
in its own modules with no pins and no clock. Nothing here knows the game rules:
the controller sends desired states (lights, spins) and receives ``ButtonEvent``,
both of them the table's messages (``messages.devices``).
Wiring, bill of materials and crash safety: hardware/README.md.
"""
from hardware.gpio.buttons import DealerButtons
from hardware.gpio.clock import Clock, ManualClock
from hardware.gpio.devices import GpioDevices, build_devices
from hardware.gpio.events import DealerButton
from hardware.gpio.lights import BetLockLights
from hardware.gpio.motor import CageBusy, CageMotor, MotorStatus, StopReason
from hardware.gpio.pinmap import GpioSettings, PinMap
from hardware.gpio.safe_exit import exit_on_signals
from hardware.gpio.simulated_dealer import ScriptError, SimulatedDealer

__all__ = [
    "BetLockLights",
    "CageBusy",
    "CageMotor",
    "Clock",
    "DealerButton",
    "DealerButtons",
    "GpioDevices",
    "GpioSettings",
    "ManualClock",
    "MotorStatus",
    "PinMap",
    "ScriptError",
    "SimulatedDealer",
    "StopReason",
    "exit_on_signals",
    "build_devices",
]
