"""What every key of the configuration is when the file does not give it (:data:`DEFAULTS`).

With no file at all these are the whole configuration: the generated scenes as camera, mock pins,
the display stand-in on a pseudo-terminal and the state in ``./var`` -- the bench and ``make run``
setting. ``docs/example.toml`` shows and explains every key with these values.
"""
from __future__ import annotations

from typing import Any

from controller.rules import GAMES as RULES

GAMES = tuple(RULES)
PIN_FACTORIES = ("mock", "lgpio")
#: The ``source`` of a configuration that is no file: the embedded defaults.
DEMO_SOURCE = "<embedded defaults>"

DEFAULTS: dict[str, Any] = {
    "table": {
        # Which game this table deals; a demo run (no file) plays all three.
        "game": "craps",
        # Where the journal and the saved frames live (systemd: /var/lib/dicetable).
        "state_dir": "var",
        # "mock": simulated GPIO pins (bench, demo); "lgpio": the Raspberry Pi's header.
        "pin_factory": "mock",
    },
    "rules": {},
    "pins": {},
    "gpio": {},
    "camera": {
        "source": "generated",
        "path": "",
        "device": 0,
        "fps": 30,
        "width": 640,
        "height": 480,
        # A full-resolution frame beside the small one (width x height) for reading the dice, e.g.
        # 2028 x 1520 (HQ camera) or 2304 x 1296 (Camera Module 3); 0: none.
        "full_width": 0,
        "full_height": 0,
        # Keep the still frame of every roll (file name goes in the journal).
        "save_frames": True,
        # The reader's model folder (`dicetable learn` writes one), relative to this file;
        # empty: the bundled model.
        "model": "",
    },
    "display": {
        # A kind of hardware.display.KINDS ("serial"; "sim": the stand-in on a pseudo-terminal) or
        # "none"; a file that gives no kind gets what its port says (sections.display_kind).
        "kind": "sim",
        "port": "",
        "baud": 115200,
    },
    # Either `file = "calibration/calibration.toml"` (written by `dicetable calibrate`) or the keys
    # of its [calibration] table inline; empty: no calibration (the reader estimates the scale).
    "calibration": {},
    "hazard": {
        # How long the cage motor turns for one spin, in seconds.
        "spin_seconds": 3.0,
    },
    # The web console (controller/web/settings.py checks these): "" listens nowhere. large_payout:
    # a payout (a winning bet's paid less its stake, cents) from which the pit is alerted.
    "console": {"listen": "", "users": "users", "certificate": "", "key": "", "networks": [], "hosts": [],
                "trusted_proxies": [], "large_payout": 10000},
    # Empty broker: no floor. Otherwise every journal row goes to this MQTT broker as table_id
    # (controller/floor, docs/floor.md).
    "floor": {"broker": "", "table_id": "", "username": "", "password_file": "", "cafile": ""},
}
