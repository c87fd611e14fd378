"""`dicetable display-sim`: the LED display's firmware on a pseudo-terminal.

Prints the port to give the controller (``[display] port`` with ``kind =
"serial"`` in the configuration, or ``DisplayLink(port)``), then answers on it with the real
firmware logic and draws the digits in the terminal, redrawn in place. Line
faults can be injected to watch the link cope.
"""
from __future__ import annotations

import argparse

NAME = "display-sim"
HELP = "stand-in LED display: runs the firmware on a pseudo-terminal and draws the digits"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--port", metavar="PATH", help="path of the symlink to create for the port (default: a temporary one)")
    parser.add_argument("--link-timeout", type=float, default=3.0, metavar="S", help="seconds of silence before 'no link' (default 3)")
    parser.add_argument("--corrupt", type=float, default=0.0, metavar="RATE", help="fraction of bytes to damage on the wire")
    parser.add_argument("--drop", type=float, default=0.0, metavar="RATE", help="fraction of frames to lose")
    parser.add_argument("--duplicate", type=float, default=0.0, metavar="RATE", help="fraction of frames to send twice")
    parser.add_argument("--seed", type=int, default=None, help="seed of the injected faults")
    parser.add_argument("--duration", type=float, default=None, metavar="S", help="stop after S seconds (default: until Ctrl-C)")
    parser.add_argument("--plain", action="store_true", help="print each new picture instead of redrawing in place")


def run(args: argparse.Namespace) -> int:
    import sys
    import time

    from hardware.display.standin import LineFaults, StandIn

    try:
        faults = LineFaults(args.corrupt, args.drop, args.duplicate, args.seed)
    except ValueError as exc:
        print(f"display-sim: {exc}", file=sys.stderr)
        return 2
    stand_in = StandIn(port=args.port, link_timeout_ms=int(args.link_timeout * 1000), faults=faults)
    try:
        stand_in.start()
    except OSError as exc:
        print(f"display-sim: cannot create the port {stand_in.port}: {exc}", file=sys.stderr)
        return 1
    out = sys.stdout
    print(f"display stand-in listening on {stand_in.slave_path()}", file=out)
    print(f"port for the controller: {stand_in.port}", file=out, flush=True)
    in_place = out.isatty() and not args.plain
    drawn_lines = 0
    last = None
    deadline = None if args.duration is None else time.monotonic() + args.duration
    try:
        while deadline is None or time.monotonic() < deadline:
            screen = stand_in.screen()
            device = stand_in.app.device
            status = "linked" if screen.linked else "NO LINK"
            picture = _labelled(screen.drawing) + f"\n[{status}]"
            if in_place:  # counters change every heartbeat: only worth it in place
                picture += f" frames ok {device.frames_ok}, bad {device.bad_frames}"
            if picture != last:
                if in_place and drawn_lines:
                    out.write(f"\x1b[{drawn_lines}F")
                lines = picture.split("\n")
                out.write("".join(line + ("\x1b[K" if in_place else "") + "\n" for line in lines))
                out.flush()
                drawn_lines = len(lines)
                last = picture
            time.sleep(0.05)
    except KeyboardInterrupt:
        pass
    finally:
        stand_in.stop()
    return 0


_ROW_NAMES = ("result", "status", "recent")


def _labelled(drawing: str) -> str:
    """Name each module's row beside its middle line."""
    lines = drawing.split("\n")
    for index, name in enumerate(_ROW_NAMES):
        if 3 * index + 1 < len(lines):
            lines[3 * index + 1] += "  " + name
    return "\n".join(lines)
