"""One table put together: :func:`assemble_table`, for the service, the demo and the tests alike.

From a checked configuration it opens, in this order, the journal and the table recovered from it,
the GPIO devices, the display, the camera, the floor's publisher and the console, and wires them
to the table's input queue and to each other; then it draws the lamps and the display from the
recovered state. Whatever fails to open, what did open is closed again, the last opened first,
as :meth:`AssembledTable.close` closes the table (the devices' close switches the motor and the
lamps off).

A caller that has a stand-in of its own passes it: a display opened once for several tables, a
camera it films itself, a console already serving, a clock for the buttons. What is passed is the
caller's to close; what the configuration opened, the assembly closes. The devices' health is read
here, in one place (:meth:`AssembledTable.problems`): it gates the watchdog, goes to the floor's
status and to the pit's page.
"""
from __future__ import annotations

import queue
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from controller.camera import Camera
from controller.config import Config
from controller.devices import button_event, cage_listener, open_configured_display, open_devices
from controller.journal import Journal
from controller.table import JournaledTable, dice_thrown, expects_roll, floor_status
from controller.table_controller import TableController
from hardware.display import Display
from hardware.gpio import GpioDevices

if TYPE_CHECKING:
    from controller.console.link import TableLink
    from controller.console.start import RunningConsole
    from controller.floor.publisher import FloorPublisher


@dataclass
class AssembledTable:
    """A table and everything that shows it, reads for it or watches it, put together by
    :func:`assemble_table`. ``inputs`` is its one input queue (:mod:`controller.main_loop`)."""

    config: Config
    inputs: queue.Queue[Any]
    journal: Journal
    table: JournaledTable
    devices: GpioDevices
    pin_factory: Any
    controller: TableController
    display: Display | None
    camera: Camera | None
    frames_dir: Path | None
    floor: FloorPublisher | None = None
    console: RunningConsole | None = None
    link: TableLink | None = None
    #: Whether the floor had every row when the table closed (None: no floor, or not closed yet).
    floor_drained: bool | None = None
    _closing: list[Callable[[], None]] = field(default_factory=list, repr=False)

    def problems(self) -> dict[str, str]:
        """Each device that fails now, and what is wrong with it (empty while all are healthy)."""
        found = {}
        if self.camera is not None and not self.camera.healthy():
            found["camera"] = self.camera.describe()
        if self.display is not None and not (health := self.display.health).ok:
            found["display"] = health.detail
        return found

    def health(self) -> dict[str, dict[str, Any]]:
        """The devices as the pit sees them: each one the table has, ok or what is wrong with it, and
        the floor's broker, reached or since when not (never a problem that stops the watchdog: a
        floor away costs the table nothing)."""
        problems = self.problems()
        found = {}
        if self.camera is not None:
            found["camera"] = {"ok": "camera" not in problems, "detail": self.camera.describe()}
        if self.display is not None:
            found["display"] = {"ok": "display" not in problems, "detail": problems.get("display", "answering")}
        if self.floor is not None:
            since = self.floor.unreached_since()
            found["floor"] = {"ok": since is None, "detail": f"not reached since {since}" if since else "reached"}
        return found

    def camera_lost(self) -> bool:
        """The camera is gone, not merely starting: the display asks the dealer for a hand entry."""
        return self.camera is not None and self.camera.lost()

    def close(self) -> None:
        """Close what the assembly opened, the last opened first (the console, the floor's publisher
        after sending what it can, the camera, the display, the devices, the journal). What the
        caller passed in is left open."""
        while self._closing:
            self._closing.pop()()

    def _close_floor(self) -> None:
        if self.floor is not None:  # what the floor has not acknowledged, for a while; the rest at the next start
            self.floor_drained = self.floor.close()


def assemble_table(config: Config, inputs: queue.Queue[Any] | None = None, *,
                   display: Display | None = None, camera: Camera | None = None,
                   console: RunningConsole | None = None, clock: Any = None,
                   progress: Callable[[int, int], None] | None = None) -> AssembledTable:
    """The table ``config`` describes, recovered from its journal, with its devices open and drawn.

    ``inputs``: the table's one input queue (a new one when None), where the buttons, the camera
    and the cage put what they have. ``display``, ``camera``, ``console``: a stand-in to use
    instead of opening what the configuration names (left open by :meth:`AssembledTable.close`).
    ``clock``: the buttons' clock (the demo's dealer pushes them on a manual one).
    ``progress(done, total)`` is told as the journal is replayed.

    Raises what recovery raises (``JournalMismatch``, ``JournalError``), ``GpioUnavailable``, and
    what opening a device raises, having closed what it had opened.
    """
    inputs = inputs if inputs is not None else queue.Queue()
    journal = Journal.open(config.state_dir)
    closing: list[Callable[[], None]] = [journal.close]
    try:
        table = JournaledTable.open(journal, config.game, config.rules, progress=progress,
                                    table_id=config.floor.table_id if config.floor is not None else None)
        devices, pin_factory = open_devices(config, lambda b: inputs.put(button_event(b)), clock=clock,
                                            on_motor_stop=cage_listener(inputs.put))
        closing.append(devices.close)  # motor stopped, lamps off, lines released
        if display is None and (display := open_configured_display(config)) is not None:
            closing.append(display.close)
        controller = TableController(table, devices, display, config.hazard.spin_seconds)
        controller.redraw()
        if camera is None and config.camera.source != "none":
            camera = _start_camera(config, inputs, controller)
            closing.append(camera.close)
        if camera is not None:
            seen = camera
            controller.listeners.append(
                lambda event, step, before: seen.expect_roll(thrown=dice_thrown(before, step.state))
                if expects_roll(before, step.state) else None)
        frames_dir = config.state_dir / "frames" if config.camera.save_frames else None
        assembled = AssembledTable(config, inputs, journal, table, devices, pin_factory, controller, display, camera,
                                   frames_dir, _closing=closing)
        _start_floor(assembled)
        _attach_console(assembled, console)
        return assembled
    except BaseException:
        while closing:
            closing.pop()()
        raise


def _start_camera(config: Config, inputs: queue.Queue[Any], controller: TableController) -> Camera:
    """The configured camera, reading rolls onto ``inputs``; recovered mid-roll, it is armed for the
    dice that may have landed meanwhile, unless those in view are ones the dealer voided (the
    rethrow then comes with motion)."""
    from controller.camera import start_camera

    state = controller.state
    return start_camera(config, inputs.put, roll_under_way=expects_roll(None, state), at_rest=not state.voided,
                        thrown=dice_thrown(None, state))


def _start_floor(assembled: AssembledTable) -> None:
    """The floor's publisher, after recovery, so the journal's first row is there to name it."""
    link = assembled.config.floor
    if link is None:
        return
    from controller.floor.publisher import FloorPublisher

    floor = FloorPublisher(assembled.config.state_dir, link.table_id, link.broker,
                           status=lambda: floor_status(assembled.controller.state, assembled.problems())).start()
    assembled.floor = floor
    assembled._closing.append(assembled._close_floor)
    assembled.controller.listeners.append(lambda event, step, before: floor.wake())


def _attach_console(assembled: AssembledTable, console: RunningConsole | None) -> None:
    """The table served on ``console``, or on the console ``[console] listen`` names (started here)."""
    if console is None and assembled.config.console.listen is not None:
        from controller.console.start import start_configured

        if (console := start_configured(assembled.config.console)) is not None:
            assembled._closing.append(console.stop)
    if console is None:
        return
    link = console.attach(assembled.controller, assembled.inputs, frames_dir=assembled.frames_dir,
                          health=assembled.health, large_payout=assembled.config.pit.large_payout)
    assembled.console, assembled.link = console, link
    assembled._closing.append(lambda: console.detach(link))
