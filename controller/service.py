"""``dicetable run --config FILE``: one configured table, until it is stopped.

The real devices on a Pi (lgpio pins, the Pi camera, the serial display),
or any mix of stand-ins the configuration names. Startup order matters:
configuration (already validated), journal, recovery by replay, devices,
redraw of lamps and display from the recovered state, *then* READY=1 to
systemd, then inputs. On any exit -- end of the event stream, SIGTERM,
an exception -- the motor and lamps are switched off (``finally`` here, and
``hardware.gpio.safe_exit`` for signals and interpreter exit).
"""
from __future__ import annotations

import logging
import queue
import sys
import threading
from typing import IO, TYPE_CHECKING, Any

from controller.devices import button_event, cage_listener, open_configured_display, open_devices
from controller.event_stream import read_events, streamed_inputs
from controller.main_loop import serve
from controller.table_controller import TableController
from controller.config import Config, rules_warnings
from controller.journal import Journal
from controller.jsonlines import json_line
from controller.sdnotify import Notifier
from controller.table import JournaledTable, dice_thrown, expects_roll, floor_status
from hardware.gpio import exit_on_signals

if TYPE_CHECKING:
    from controller.floor.publisher import FloorPublisher

log = logging.getLogger(__name__)


def run_table(config: Config, *, events: IO[str] | None = None, resume: bool = False,
              exit_at_end: bool = False, out: IO[str] | None = None, stop: threading.Event | None = None) -> int:
    """Run the configured table until ``stop`` is set, a signal ends it, or (``exit_at_end``) the
    event stream is played; returns the exit status. ``out`` (standard output by default, looked up
    at the call) gets every effect as a JSON line and nothing else, so it can be piped into another
    program; the start line goes to standard error with the log."""
    out = out or sys.stdout
    notifier = Notifier()
    if threading.current_thread() is threading.main_thread():
        exit_on_signals()
    inputs: queue.Queue = queue.Queue()

    def replaying(done: int, total: int) -> None:
        # A long journal takes a while to replay: ask systemd for more start time as it goes.
        notifier.notify(EXTEND_TIMEOUT_USEC="30000000", STATUS=f"replaying the journal: row {done} of {total}")

    for warning in rules_warnings(config):
        log.warning("%s", warning)
    journal = Journal.open(config.state_dir)
    devices = display = camera = console = None
    floor: FloorPublisher | None = None
    try:  # whatever fails to open, what did open is closed: the motor and lamps first
        table = JournaledTable.open(journal, config.game, config.rules, progress=replaying)
        print(f"{config.game} table from {config.state_dir}: replayed {table.replayed} inputs"
              + (f", completed {table.completed} effects cut off by the last stop" if table.completed else ""),
              file=sys.stderr, flush=True)
        devices, _ = open_devices(config, sink=lambda b: inputs.put(button_event(b)),
                                  on_motor_stop=cage_listener(inputs.put))
        display = open_configured_display(config)
        controller = TableController(table, devices, display, config.hazard.spin_seconds)
        controller.listeners.append(_Echo(out))
        controller.redraw()
        if config.camera.source != "none":
            from controller.camera import start_camera

            # Recovered mid-roll: the dice may have landed meanwhile, unless those in view are ones
            # the dealer voided (the rethrow then comes with motion).
            camera = start_camera(config, inputs.put, roll_under_way=expects_roll(None, controller.state),
                                  at_rest=not controller.state.voided, thrown=dice_thrown(None, controller.state))
            controller.listeners.append(
                lambda event, step, before: camera.expect_roll(thrown=dice_thrown(before, step.state))
                if expects_roll(before, step.state) else None)
        stop = stop or threading.Event()
        if events is not None:
            skip = streamed_inputs(journal) if resume else 0
            threading.Thread(target=read_events, args=(events, inputs), kwargs={"skip": skip, "end_with_none": exit_at_end},
                             name="event-stream", daemon=True).start()

        def problems() -> dict[str, str]:
            found = {}
            if camera is not None and not camera.healthy():
                found["camera"] = camera.describe()
            if display is not None and not (health := display.health).ok:
                found["display"] = health.detail
            return found

        if config.floor is not None:  # after recovery, so the journal's first row is there to name it
            from controller.floor.publisher import FloorPublisher

            floor = FloorPublisher(config.state_dir, config.floor.table_id, config.floor.broker,
                                   status=lambda: floor_status(controller.state, problems())).start()
            controller.listeners.append(lambda event, step, before: floor.wake() if floor else None)
        if config.console is not None and config.console.listen is not None:
            from controller.console.start import start_configured

            console = start_configured(config.console)
            if console is not None:
                frames = config.state_dir / "frames" if config.camera.save_frames else None
                console.attach(controller, inputs, frames_dir=frames, health=lambda: _health(camera, display, problems()))
        notifier.ready(f"{config.game} table ready")
        serve(controller, inputs, stop=stop, problems=problems, notifier=notifier,
              camera_lost=lambda: camera is not None and camera.lost())
        return 0
    finally:
        notifier.stopping()
        if console is not None:
            console.stop()
        if floor is not None:
            floor.close()  # what the floor has not acknowledged, for up to 10 s; the rest at the next start
        if camera is not None:
            camera.close()
        if devices is not None:
            devices.close()  # motor stopped, lamps off, lines released
        if display is not None:
            display.close()
        journal.close()


def _health(camera: Any, display: Any, problems: dict[str, str]) -> dict[str, dict[str, Any]]:
    """The devices as the pit sees them: each configured one, ok or what is wrong with it."""
    found = {}
    if camera is not None:
        found["camera"] = {"ok": "camera" not in problems, "detail": camera.describe()}
    if display is not None:
        found["display"] = {"ok": "display" not in problems, "detail": problems.get("display", "answering")}
    return found


class _Echo:
    """Prints every effect as a JSON line; a closed output silences it but never stops the table."""

    def __init__(self, out: IO[str]):
        self.out: IO[str] | None = out

    def __call__(self, event: Any, step: Any, before: Any) -> None:
        if self.out is None:
            return
        try:
            for effect in step.effects:
                print(json_line(effect), file=self.out, flush=True)
        except (OSError, ValueError):
            log.warning("standard output is gone; effects are no longer echoed (the journal has them)")
            self.out = None
