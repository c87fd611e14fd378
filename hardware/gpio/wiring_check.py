"""Bench check of the GPIO wiring, for the installer: each lamp in turn, one short spin, then the buttons.

    sudo -u dicetable /opt/dicetable/.venv/bin/python -m hardware.gpio.wiring_check \
        /etc/dicetable/dicetable.toml

It reads only the ``[pins]`` and ``[gpio]`` tables of the configuration (the
same checks as the table controller), lights each lamp for a moment and names
it, spins the cage for ``--spin`` seconds (bounded by ``cage_max_run_s`` as
always), then prints every button event for ``--listen`` seconds: push each
button, and hold CONFIRM, and check the names printed. ``--mock`` runs it on
mock pins, to try it on a laptop. Stop the table service first: two programs
cannot hold the same GPIO lines.
"""
from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from gpiozero.exc import GPIOZeroError

from hardware.gpio.devices import build_devices
from hardware.gpio.pinmap import GpioSettings, PinMap, read_tables
from hardware.gpio.safe_exit import exit_on_signals
from messages import ButtonEvent, ConfigError, LightsState

LAMPS = (
    ("no_more_bets", "light_no_more_bets", LightsState(no_more_bets=True)),
    ("bang_inside", "light_bang_inside", LightsState(bang_inside=True)),
    ("bang_outside", "light_bang_outside", LightsState(bang_outside=True)),
)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m hardware.gpio.wiring_check", description=__doc__.splitlines()[0]
    )
    parser.add_argument(
        "config", nargs="?", type=Path, help="TOML configuration (default: the built-in pin map)"
    )
    parser.add_argument("--lamp", type=float, default=1.0, help="seconds each lamp is lit (default 1)")
    parser.add_argument("--spin", type=float, default=1.0, help="seconds of cage spin (default 1)")
    parser.add_argument(
        "--listen", type=float, default=30.0, help="seconds to print button events (default 30)"
    )
    parser.add_argument("--mock", action="store_true", help="mock pins instead of the Pi's header")
    return parser


def _load(path: Path | None) -> tuple[PinMap, GpioSettings]:
    """The file's pin map and timings; one error naming every wrong key of both tables."""
    data = read_tables(path)
    problems: list[tuple[str, str]] = []
    try:
        pins = PinMap.from_dict(data.get("pins", {}))
    except ConfigError as error:
        problems += error.problems
    try:
        settings = GpioSettings.from_dict(data.get("gpio", {}))
    except ConfigError as error:
        problems += error.problems
    if problems:
        raise ConfigError.of(problems)
    return pins, settings


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        pins, settings = _load(args.config)
    except ConfigError as error:
        for line in str(error).splitlines():  # one line per wrong key
            print(f"{args.config}: {line}", file=sys.stderr)
        return 2
    factory = None
    if args.mock:
        from gpiozero.pins.mock import MockFactory

        factory = MockFactory()

    def heard(event: ButtonEvent) -> None:
        print(f"button event: {event.value}", flush=True)

    try:
        devices = build_devices(pins, settings, pin_factory=factory, sink=heard)
    except GPIOZeroError as error:  # no GPIO header here, or its lines are taken: name it, no traceback
        print(f"wiring_check: cannot use the GPIO pins: {error} (is the table service stopped? "
              "off the Pi, add --mock)", file=sys.stderr)
        return 2
    try:
        for name, key, state in LAMPS:
            print(f"lamp {name} on (BCM {getattr(pins, key)})", flush=True)
            devices.lights.show(state)
            time.sleep(args.lamp)
        devices.lights.show(LightsState())
        print(f"cage motor on (BCM {pins.cage_motor}) for {args.spin} s", flush=True)
        devices.motor.spin(args.spin)
        devices.motor.wait_stopped()
        status = devices.motor.status
        print(f"cage motor stopped: {status.stop_reason.value if status.stop_reason else '?'}", flush=True)
        print(
            f"push each button now (CONFIRM held {settings.long_press_s} s = manual); {args.listen} s",
            flush=True,
        )
        time.sleep(args.listen)
    finally:
        devices.close()
    return 0


if __name__ == "__main__":
    # Ended by `kill` or a closed terminal during its spin, the check must not leave the cage
    # running (Ctrl-C already ends through the `finally` that closes the devices).
    exit_on_signals()
    raise SystemExit(main())
