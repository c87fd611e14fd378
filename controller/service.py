"""``dicetable run --config FILE``: one configured table, until it is stopped.

The real devices on a Pi (lgpio pins, the Pi camera, the serial display),
or any mix of stand-ins the configuration names, put together by
:func:`controller.assembly.assemble_table`. Startup order matters:
configuration (already validated), journal, recovery by replay, devices,
redraw of lamps and display from the recovered state, *then* READY=1 to
systemd, then inputs. On any exit -- end of the event stream, SIGTERM,
an exception -- the motor and lamps are switched off (``finally`` here, and
``hardware.gpio.safe_exit`` for signals and interpreter exit).
"""
from __future__ import annotations

import logging
import sys
import threading
from typing import IO, Any

from controller.assembly import assemble_table
from controller.config import Config, rules_warnings
from controller.event_stream import read_events, streamed_inputs
from controller.jsonlines import json_line
from controller.main_loop import serve
from controller.sdnotify import Notifier
from hardware.gpio import exit_on_signals

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

    def replaying(done: int, total: int) -> None:
        # A long journal takes a while to replay: ask systemd for more start time as it goes.
        notifier.notify(EXTEND_TIMEOUT_USEC="30000000", STATUS=f"replaying the journal: row {done} of {total}")

    for warning in rules_warnings(config):
        log.warning("%s", warning)
    assembled = None
    try:
        assembled = assemble_table(config, progress=replaying)
        table = assembled.table
        print(f"{config.game} table from {config.state_dir}: replayed {table.replayed} inputs"
              + (f", completed {table.completed} effects cut off by the last stop" if table.completed else ""),
              file=sys.stderr, flush=True)
        assembled.controller.listeners.append(_Echo(out))
        if events is not None:
            skip = streamed_inputs(assembled.journal) if resume else 0
            threading.Thread(target=read_events, args=(events, assembled.inputs),
                             kwargs={"skip": skip, "end_with_none": exit_at_end}, name="event-stream",
                             daemon=True).start()
        notifier.ready(f"{config.game} table ready")
        serve(assembled.controller, assembled.inputs, stop=stop or threading.Event(), problems=assembled.problems,
              notifier=notifier, camera_lost=assembled.camera_lost)
        return 0
    finally:
        notifier.stopping()
        if assembled is not None:
            assembled.close()  # the floor sends what it has not, for up to 10 s; the motor and lamps go off


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
