"""The running table: the journaled game flow wired to lamps, cage motor, display and inputs.

Why one loop: every input -- a dealer's button, a dice read, the cage
stopping, a bet from the event stream -- is put on one queue by whatever
thread produced it, and one thread takes them off in order, journals each,
steps the table and then redraws the outputs. So the journal's order is the
order things took effect, and outputs are always drawn from the state that
was just journaled.

- :class:`TableController` -- one table: ``submit(event)`` and ``redraw()``.
- :class:`Submission` / :func:`take` -- an input someone waits on (the console's), answered once
  the table has stepped it.
- :func:`display_state` -- the table's view as the LED display's picture (:func:`display_phase`: its status word).
- :func:`serve` -- the main loop: inputs until stopped, watchdog pings while the
  camera and the display are healthy.
- :func:`open_devices` / :func:`open_configured_display` -- the GPIO devices and the display
  ``[display] kind`` names (``hardware.display.open_display``).
"""
from __future__ import annotations

import logging
import queue
import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Union

from controller.config import LGPIO_INSTALL, Config
from controller.journal import INPUT, ORIGIN, Journal
from controller.jsonlines import Line, read_lines
from controller.sdnotify import Notifier
from controller.table import (JournaledTable, Phase, Step, TableState, lights_for, malformed_event,
                              motor_should_spin, view_for)
from hardware.display import Display, DisplayState, open_display
from hardware.gpio import GpioDevices, build_devices
from messages import ButtonEvent

log = logging.getLogger(__name__)

#: How long the display says ``-no-`` after a dealer's press the table refused.
REFUSED_SHOWN_S = 1.5
#: The table events a dealer's button makes: a refusal of one of these is shown on the display
#: (a refused bet from the event stream is the players' business, not the dealer's).
DEALER_PRESSES = frozenset(press.value for press in ButtonEvent)

_PHASE_ON_DISPLAY = {
    Phase.BETTING: "open",
    Phase.LOCKED: "locked",
    Phase.SPINNING: "rolling",
    Phase.MANUAL: "manual",
}


def display_phase(state: TableState, camera_lost: bool = False, *, refused: bool = False,
                  motor_failed: bool = False) -> str:
    """The display's word for what the table waits for (``DisplayState.phase``).

    The dealer has only the buttons and this word, so it tells apart what the buttons do: a waiting
    read shows ``confirm`` (``ConF``) only when CONFIRM would settle it (``PendingRead.confirmable``,
    the test ``_confirm`` makes), otherwise ``enter`` (``Entr``: hold CONFIRM to enter the dice by
    hand, or VOID); a hand entry shows ``manual`` (``HAnd``), where LOCK steps the die shown. Bets
    locked with the camera lost show ``enter`` too: no read will come, and a hand entry is the way on.

    ``void`` (``UOId``) says the dealer's VOID was the last thing done: the read was voided and the
    bets stay locked for the rethrow (Hazard: until LOCK turns the cage again; ``locked`` would look
    like the camera still reading), or the lock was voided and betting is open again with no roll
    since (``settled`` would show the last roll as the voided throw's).

    Two words answer the dealer rather than the state: ``refused`` (``-no-``), for a moment after a
    press the table refused, which otherwise changes nothing to be seen; and ``fault`` (``Err``)
    while the cage should turn but its motor did not start (VOID, then LOCK, tries again).
    """
    if refused:
        return "refused"
    if state.phase is Phase.SPINNING and motor_failed:
        return "fault"
    if state.phase is Phase.LOCKED and camera_lost:
        return "enter"
    if (state.phase is Phase.LOCKED and state.voided) or (state.phase is Phase.BETTING and state.unlocked_by_void):
        return "void"  # bets locked for the rethrow of a voided read (Hazard: LOCK turns the cage), or reopened
    if state.phase is Phase.PENDING:
        pending = state.pending
        return "confirm" if pending is not None and pending.confirmable(state.dice_count) else "enter"
    if state.phase is Phase.BETTING and state.rolls:
        return "settled"  # the last roll's result stays up, marked final, until the next lock
    return _PHASE_ON_DISPLAY[state.phase]


def display_state(state: TableState, camera_lost: bool = False, *, refused: bool = False,
                  motor_failed: bool = False) -> DisplayState:
    """What the LED display shows for ``state`` (a pure function: redraw = call again); the
    flags are :func:`display_phase`'s."""
    view = view_for(state)
    phase = display_phase(state, camera_lost, refused=refused, motor_failed=motor_failed)
    return DisplayState(
        game=state.game,
        phase=phase,
        dice=view.dice,
        point=view.point,
        recent=view.history[1:] if view.dice and view.dice == state.last_roll and state.phase is Phase.BETTING
        else view.history,  # the last roll is on the result row: not again among the recent ones
        roll_id=state.rolls % 0x10000,
    )


def floor_status(state: TableState, problems: Mapping[str, str]) -> dict[str, Any]:
    """What the table's retained status topic on the floor says (``controller.floor``): the game,
    the phase, the point, the last roll, the rolls so far, and the camera's and display's health
    (``problems``: each failing device and what is wrong with it)."""
    view = view_for(state)
    return {"game": state.game, "phase": state.phase.value, "point": view.point, "last_roll": list(state.last_roll),
            "rolls": state.rolls, "shooter": view.shooter,
            "camera": problems.get("camera", "ok"), "display": problems.get("display", "ok")}


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


@dataclass(frozen=True)
class Stepped:
    """A console request's outcome: the table's step and the journal rows it wrote (the input first)."""

    step: Step
    rows: tuple[Any, ...]


@dataclass(frozen=True)
class Submission:
    """An input someone waits on (a request from the console), put on the input queue like any other.

    The table takes it in its turn and sets ``reply`` to the :class:`Stepped`. A requester that
    gave up waiting cancels ``reply`` first; the table then skips the input without journaling it,
    so a request answered "not taken" never takes effect later."""

    event: Mapping[str, Any]
    reply: Future[Stepped]


Input = Union[Mapping[str, Any], Submission]


def take(controller: TableController, item: Input) -> None:
    """Step one item of the input queue: an event, or a :class:`Submission` whose requester is told."""
    if not isinstance(item, Submission):
        controller.submit(item)
        return
    if not item.reply.set_running_or_notify_cancel():
        return  # the requester stopped waiting before the table took it: never journaled, never applied
    try:
        step = controller.submit(item.event)
    except BaseException as exc:  # the journal failed: the requester hears it, the table stops as before
        item.reply.set_exception(exc)
        raise
    item.reply.set_result(Stepped(step, controller.table.last_rows))


def _is_dealer_press(event: Any) -> bool:
    """Whether ``event`` is one a dealer's button makes (any input may arrive: a name that is a list
    or an object is not one, and must not raise after the journal has taken it)."""
    name = event.get("event") if isinstance(event, Mapping) else None
    return isinstance(name, str) and name in DEALER_PRESSES


class GpioUnavailable(RuntimeError):
    """The configured pin factory cannot drive this machine's GPIO (no lgpio module, no GPIO chip, no
    permission): an installation problem to fix, which a restart does not."""


def open_devices(config: Config, sink: Callable[[Any], None], *, clock: Any = None,
                 on_motor_stop: Callable[[Any], None] | None = None) -> tuple[GpioDevices, Any]:
    """The GPIO devices; returns them and the pin factory (a ``MockFactory`` for ``mock``)."""
    if config.pin_factory == "mock":
        from gpiozero.pins.mock import MockFactory

        factory: Any = MockFactory()
    else:
        factory = _lgpio_factory()
    devices = build_devices(config.pins, config.gpio, pin_factory=factory, sink=sink, clock=clock,
                            on_motor_stop=on_motor_stop)
    return devices, factory


def _lgpio_factory() -> Any:
    """gpiozero's lgpio pin factory, or ``GpioUnavailable`` saying what to install or check."""
    try:
        from gpiozero.pins.lgpio import LGPIOFactory  # only on a Pi
    except ImportError as exc:
        raise GpioUnavailable(f'pin_factory = "lgpio": {exc}; {LGPIO_INSTALL}') from None
    try:
        return LGPIOFactory()
    except Exception as exc:  # noqa: BLE001 - lgpio raises its own error type for a missing chip or permission
        raise GpioUnavailable(f'pin_factory = "lgpio": cannot open the GPIO chip ({exc}); is this a Raspberry Pi, '
                              "and is the service's user in the gpio group?") from None


def open_configured_display(config: Config) -> Display | None:
    """The display ``[display]`` names, opened; None for ``kind = "none"``."""
    settings = config.display
    if settings["kind"] == "none":
        return None
    return open_display(settings["kind"], port=settings["port"], baud=settings["baud"])


def cage_listener(sink: Callable[[dict[str, Any]], None]) -> Callable[[Any], None]:
    """The motor's ``on_stop``: a spin that ran its time becomes ``spin_done``; a stop asked for
    (the dealer's VOID, shutting down) does not."""
    from hardware.gpio import StopReason

    def on_stop(status: Any) -> None:
        if status.stop_reason in (StopReason.FINISHED, StopReason.MAX_RUN):
            sink({"event": "spin_done"})

    return on_stop


def button_event(button: Any) -> dict[str, Any]:
    """A ``ButtonEvent`` as the table event it means (``{"event": "lock"}``...)."""
    return {"event": str(getattr(button, "value", button))}


def serve(
    controller: TableController,
    inputs: "queue.Queue[Input | None]",
    *,
    stop: threading.Event,
    problems: Callable[[], dict[str, str]],
    notifier: Notifier,
    tick: float = 1.0,
    camera_lost: Callable[[], bool] = lambda: False,
) -> None:
    """Take inputs off the queue until ``stop`` is set (or a ``None`` arrives).

    Between inputs, at least every ``tick`` seconds, it pings systemd's
    watchdog -- but only while ``problems()`` is empty (camera delivering,
    display link answering): a table that cannot see or show the dice should be
    restarted, not kept alive. ``problems()`` maps each failing device to what is
    wrong with it; that goes to systemd's status line and, when the set of failing
    devices changes, to the log, so the operator reading ``journalctl`` learns which
    device stopped the pings (once, not at every retry whose wording differs).
    ``camera_lost()`` tells the table when the camera is gone (not merely starting), so the
    display can ask the dealer for a hand entry.
    """
    interval = notifier.watchdog_interval()
    tick = min(tick, interval) if interval else tick
    last_status, failing = "", set[str]()
    while not stop.is_set():
        left = controller.notice_left()
        try:
            event = inputs.get(timeout=tick if left is None else min(tick, left))
        except queue.Empty:
            event = None
        else:
            if event is None:
                break
            take(controller, event)
        controller.expire_notices()
        found = problems()
        controller.set_camera_lost(camera_lost())
        said = "; ".join(f"{device} {what}" for device, what in found.items())
        if not found:
            notifier.watchdog()
        if set(found) != failing:
            if found:
                log.warning("not pinging the watchdog: %s", said)
            else:
                log.warning("camera and display healthy again: pinging the watchdog")
            failing = set(found)
        status = f"{controller.state.game}: {controller.state.phase.value}, {controller.state.rolls} rolls" + (
            ", the cage motor did not start" if controller.motor_failed else "") + (
            f" ({said}: not pinging the watchdog)" if found else "")
        if status != last_status:
            notifier.status(status)
            last_status = status


#: Every input read from ``--events`` carries ``"via": "stream"`` (:data:`ORIGIN`) into the journal,
#: so that ``--resume`` skips exactly the lines already taken: the table's other inputs (the buttons,
#: the camera, the hazard cage's motor saying ``spin_done``) are journaled too, and counting them as
#: lines skipped lines never played.
STREAM = "stream"


def streamed_inputs(journal: Journal) -> int:
    """How many of ``journal``'s inputs came from an event stream (what ``--resume`` skips)."""
    return sum(1 for entry in journal.entries()
               if entry.kind == INPUT and entry.event.get(ORIGIN) == STREAM)


#: How many inputs may wait on the table's queue before the reader of an event stream reads on: the
#: table commits each input to disk, the reader parses far faster, and without a bound a file of a
#: million lines waited whole in memory (about 1 KiB a line).
STREAM_AHEAD = 256


def read_events(stream: Any, inputs: "queue.Queue[Mapping[str, Any] | None]", *, skip: int = 0,
                end_with_none: bool = False, ahead: int = STREAM_AHEAD) -> int:
    """Put each line of ``stream`` (:func:`controller.jsonlines.read_lines`) on ``inputs``, marked as
    from :data:`STREAM` (after skipping ``skip`` of them); returns how many. It waits while ``ahead``
    inputs wait on ``inputs`` (the other inputs, buttons and camera, never wait for room).

    A line that is not an event is still an input: it goes in as ``{"event": "malformed", ...}``
    (:func:`stream_event`), so the journal records it and the table refuses it with the reason,
    and nothing is lost; the lines after it are read as usual.
    """
    count = 0
    for line in read_lines(stream):
        count += 1
        if count <= skip:
            continue
        with inputs.not_full:  # notified by every get()
            inputs.not_full.wait_for(lambda: inputs._qsize() < ahead)
        inputs.put({**stream_event(line), ORIGIN: STREAM})
    if end_with_none:
        inputs.put(None)
    return count


def stream_event(line: Line) -> dict[str, Any]:
    """A line of an event stream as a table input: its event, or a ``malformed`` one that keeps what
    the refusal keeps of the line (a printable start; the length and SHA-256 of one too long) and why."""
    if line.event is not None:
        return line.event
    refusal = line.refusal
    assert refusal is not None
    return malformed_event(refusal.text, refusal.reason, **{k: v for k, v in refusal.fields().items() if k != "line"})
