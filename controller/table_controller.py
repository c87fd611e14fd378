"""One table's state and the devices that show it: :class:`TableController`.

Every input goes through :meth:`TableController.submit`: journaled, stepped, then the outputs are
redrawn from the state just journaled (lamps, cage motor, display), and the listeners are told.
The main loop (:mod:`controller.main_loop`) is the one caller at a running table; the demo and
the tests call it directly.
"""
from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from controller.table import JournaledTable, Phase, Step, TableState, display_state, lights_for, motor_should_spin
from hardware.display import Display, DisplayState
from hardware.gpio import GpioDevices
from messages import ButtonEvent

log = logging.getLogger(__name__)

#: How long the display says ``-no-`` after a dealer's press the table refused.
REFUSED_SHOWN_S = 1.5
#: The table events a dealer's button makes: a refusal of one of these is shown on the display
#: (a refused bet from the event stream is the players' business, not the dealer's).
DEALER_PRESSES = frozenset(press.value for press in ButtonEvent)

StepListener = Callable[[Mapping[str, Any], Step, TableState], None]


@dataclass
class TableController:
    """One table: the journaled state and the devices that show it.

    ``display`` may be None (``[display] kind = "none"``); ``listeners`` are told of
    every step (the demo prints from there). ``camera_lost`` (set by the main loop,
    :meth:`set_camera_lost`) changes what the display asks of the dealer. A refused
    press shows ``-no-`` for :data:`REFUSED_SHOWN_S` by ``clock``; the main loop calls
    :meth:`expire_notices` to take it down. ``motor_failed`` is true while the cage
    should turn but its motor would not start.
    """

    table: JournaledTable
    devices: GpioDevices
    display: Display | None
    spin_seconds: float
    listeners: list[StepListener] = field(default_factory=list)
    camera_lost: bool = False
    clock: Callable[[], float] = time.monotonic
    motor_failed: bool = field(default=False, init=False)
    _refused_until: float | None = field(default=None, init=False)

    @property
    def state(self) -> TableState:
        return self.table.state

    def redraw(self, before: TableState | None = None) -> None:
        """Draw lamps and display from the state; start the cage on entering ``spinning``.

        Called with ``before=None`` after a start, it also restarts a spin the
        stop interrupted (the dice were never read, so spinning again is safe).
        """
        state = self.table.state
        # Each output on its own: a lamp, display or motor fault is logged and the table goes on (the
        # state is journaled; the next redraw repairs lamps and display), so no input can wedge the
        # table. The motor goes first, so that the display can say when it did not start.
        self._drive_motor(before, state)
        try:
            self.devices.lights.show(lights_for(state))
        except Exception:  # noqa: BLE001
            log.exception("could not set the bet-lock lamps")
        if self.display is not None:
            try:
                self.display.show(self.display_view())
            except Exception:  # noqa: BLE001
                log.exception("could not draw the display for %s", state.phase.value)

    def _drive_motor(self, before: TableState | None, state: TableState) -> None:
        """The cage turns only while the table is spinning (VOID or a ``spin_done`` stops it). A motor
        that will not start is noted (``motor_failed``, shown as ``Err``): nothing retries it by itself,
        the dealer does (VOID, then LOCK)."""
        if state.phase is not Phase.SPINNING:
            self.motor_failed = False
            if self.devices.motor.status.running:
                try:
                    self.devices.motor.stop()
                except Exception:  # noqa: BLE001
                    log.exception("could not stop the cage motor")
        if motor_should_spin(before, state) and not self.devices.motor.status.running:
            try:
                self.devices.motor.spin(self.spin_seconds)
                self.motor_failed = False
            except Exception:  # noqa: BLE001
                self.motor_failed = True
                log.exception("could not start the cage motor; VOID, then LOCK again to retry")

    def set_camera_lost(self, lost: bool) -> None:
        """The camera was lost or came back: redraw, so the display asks for a hand entry or not."""
        if lost != self.camera_lost:
            self.camera_lost = lost
            self.redraw(self.table.state)  # the same state before and after: only the outputs change

    def display_view(self) -> DisplayState:
        """The picture the display is given now: the state's, with what the table has to tell the dealer."""
        return display_state(self.table.state, self.camera_lost, refused=self._refused_until is not None,
                             motor_failed=self.motor_failed)

    def notice_left(self) -> float | None:
        """Seconds until the ``-no-`` of a refused press is due to come down, or None when none is up."""
        return None if self._refused_until is None else max(0.0, self._refused_until - self.clock())

    def expire_notices(self) -> None:
        """Take the ``-no-`` of a refused press down once it has been up for :data:`REFUSED_SHOWN_S`."""
        if self._refused_until is not None and self.clock() >= self._refused_until:
            self._refused_until = None
            self.redraw(self.table.state)

    def submit(self, event: Mapping[str, Any]) -> Step:
        """Journal ``event``, step the table, then redraw (the outputs follow the journal); a dealer's
        press the table refused also puts ``-no-`` up, and any accepted input takes it down."""
        before = self.table.state
        result = self.table.submit(event)
        if result.accepted:
            self._refused_until = None
        elif _is_dealer_press(event):
            self._refused_until = self.clock() + REFUSED_SHOWN_S
        self.redraw(before)
        for listener in self.listeners:
            listener(event, result, before)
        return result



def _is_dealer_press(event: Any) -> bool:
    """Whether ``event`` is one a dealer's button makes (any input may arrive: a name that is a list
    or an object is not one, and must not raise after the journal has taken it)."""
    name = event.get("event") if isinstance(event, Mapping) else None
    return isinstance(name, str) and name in DEALER_PRESSES

