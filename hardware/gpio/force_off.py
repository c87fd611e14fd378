"""Drive the motor and lamp lines low once the table program has ended, however it ended.

    ExecStopPost=-/opt/dicetable/.venv/bin/python -m hardware.gpio.force_off \
        /etc/dicetable/dicetable.toml

systemd runs ``ExecStopPost`` after every end of the service, including
SIGKILL, the OOM killer and its own watchdog's abort, when no code of the
table program could run. The kernel keeps a released line at its last level,
so a motor switched on by a killed program would keep turning; this claims
each output line of the configured ``[pins]`` map, drives it low and releases
it (the line then stays low). It reads the same pin map as the table, so
moving the motor to another pin needs no edit of the unit. It knows nothing
of the game: it only switches outputs off.
"""
from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from gpiozero import DigitalOutputDevice

from hardware.gpio.pinmap import PinMap, read_tables
from messages import ConfigError

OUTPUTS = ("cage_motor", "light_no_more_bets", "light_bang_inside", "light_bang_outside")


def force_off(pins: PinMap, pin_factory: Any = None) -> list[int]:
    """Drive every output line of ``pins`` low; returns the BCM numbers handled.

    A line that cannot be claimed is reported on stderr and the others are
    still switched off: one stuck lamp must not leave the motor running.
    """
    handled = []
    for name in OUTPUTS:
        bcm = getattr(pins, name)
        try:
            DigitalOutputDevice(bcm, initial_value=False, pin_factory=pin_factory).close()
        except Exception as error:  # noqa: BLE001 - keep switching the other lines off
            print(f"force_off: {name} (BCM {bcm}): {error}", file=sys.stderr)
            continue
        handled.append(bcm)
    return handled


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hardware.gpio.force_off", description=__doc__.splitlines()[0])
    parser.add_argument("config", nargs="?", type=Path, help="TOML configuration (default: the built-in pin map)")
    args = parser.parse_args(argv)
    try:
        pins = PinMap.from_dict(read_tables(args.config).get("pins", {}))
    except ConfigError as error:
        # Still switch the default lines off: a broken file must not keep the motor on.
        for line in str(error).splitlines():  # one line per wrong key
            print(f"force_off: {args.config}: {line}", file=sys.stderr)
        print("force_off: using the default pin map", file=sys.stderr)
        pins = PinMap()
    handled = force_off(pins)
    return 0 if len(handled) == len(OUTPUTS) else 1


if __name__ == "__main__":  # pragma: no cover - run by systemd's ExecStopPost
    sys.exit(main())
