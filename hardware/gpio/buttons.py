"""The dealer's push-buttons: gpiozero input edges in, the table's typed ``ButtonEvent`` out.

Wiring assumed (see hardware/README.md): each button joins its BCM line to ground;
the Pi's internal pull-up holds the line high while the button is up.

Each button is a gpiozero ``DigitalInputDevice`` with the pull-up: a ``Button``
without the hold thread that ``Button`` keeps polling for its own long press,
since the long press here is ``ButtonLogic``'s. gpiozero reports every edge
(its ``bounce_time`` is left off: mock pins ignore it and it cannot reject a lone
spike). Each edge is stamped with the injected clock and fed to a ``ButtonLogic``
(stable-time debounce, then short/long press); ``MEANING`` in
``hardware.gpio.events`` turns presses into events. Events go to ``sink`` (a
callable, e.g. the controller's ``queue.put``) or, by default, to the thread-safe
queue ``events``.

Time moves in one of two ways. With the real clock, ``start()`` runs a thread that
sleeps until the next debounce or long-press deadline and then calls ``poll()``.
With a ``ManualClock`` (tests, the simulated dealer of ``make run``) nobody starts
the thread; whoever advances the clock calls ``poll()``, and every event is
delivered before ``poll()`` returns, so runs are exact and repeatable.

    >>> from gpiozero.pins.mock import MockFactory
    >>> from hardware.gpio.clock import ManualClock
    >>> factory, clock = MockFactory(), ManualClock()
    >>> buttons = DealerButtons(lock=5, confirm=6, void=13, next_shooter=26,
    ...                         clock=clock, pin_factory=factory)
    >>> factory.pin(13).drive_low(); _ = clock.advance(0.05); buttons.poll()
    >>> buttons.events.get_nowait()
    <ButtonEvent.VOID: 'void'>
    >>> buttons.close()
"""
from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable

from gpiozero import DigitalInputDevice
from gpiozero.pins import Factory

from messages.devices import ButtonEvent
from hardware.gpio.clock import Clock
from hardware.gpio.events import MEANING, DealerButton, has_long_meaning
from hardware.gpio.press_logic import ButtonLogic, Press

log = logging.getLogger(__name__)

Sink = Callable[[ButtonEvent], None]

#: The buttons whose every push moves the table one step, so a doubled push must count once
#: (``ButtonLogic``'s ``repeat_s``, ``press_logic.RepeatGuard``). LOCK is left out: in a hand
#: entry it steps the die's value, and quick pushes are meant there; a second LOCK at the table
#: is refused ("already locked") anyway.
GUARDED = (DealerButton.CONFIRM, DealerButton.VOID, DealerButton.NEXT_SHOOTER)


class DealerButtons:
    """The four buttons of the dealer's panel on the given BCM lines."""

    def __init__(
        self,
        *,
        lock: int,
        confirm: int,
        void: int,
        next_shooter: int,
        sink: Sink | None = None,
        debounce_s: float = 0.03,
        long_press_s: float = 1.5,
        double_press_s: float = 0.4,
        clock: Clock = time.monotonic,
        pin_factory: Factory | None = None,
    ) -> None:
        self.clock = clock
        self.debounce_s = debounce_s
        self.long_press_s = long_press_s
        self.double_press_s = double_press_s
        self.events: queue.Queue[ButtonEvent] = queue.Queue()
        self._sink: Sink = sink if sink is not None else self.events.put
        self._lock = threading.Lock()  # guards the logic
        self._delivery = threading.Lock()  # keeps events in order across threads
        self._wake = threading.Event()
        self._closed = False
        self._thread: threading.Thread | None = None
        self._pins = {
            DealerButton.LOCK: lock,
            DealerButton.CONFIRM: confirm,
            DealerButton.VOID: void,
            DealerButton.NEXT_SHOOTER: next_shooter,
        }
        self._buttons: dict[DealerButton, DigitalInputDevice] = {}
        self._logic: dict[DealerButton, ButtonLogic] = {}
        try:
            for name, pin in self._pins.items():
                device = DigitalInputDevice(pin, pull_up=True, bounce_time=None, pin_factory=pin_factory)
                self._logic[name] = ButtonLogic(
                    debounce_s, long_press_s, has_long_meaning(name), pressed=device.is_active,
                    repeat_s=double_press_s if name in GUARDED else 0.0,
                )
                device.when_activated = self._edge_handler(name, True)
                device.when_deactivated = self._edge_handler(name, False)
                self._buttons[name] = device
        except Exception:
            self.close()
            raise

    def pin_of(self, button: DealerButton) -> int:
        """The BCM line of ``button``."""
        return self._pins[button]

    def is_pressed(self, button: DealerButton) -> bool:
        """The debounced state of ``button``."""
        with self._lock:
            return self._logic[button].pressed

    def start(self) -> None:
        """Run the deadline thread (real clock only; with a ManualClock call ``poll`` instead)."""
        if self._thread is None and not self._closed:
            self._thread = threading.Thread(target=self._run, name="dealer-buttons", daemon=True)
            self._thread.start()

    def poll(self) -> None:
        """Bring every button's logic up to the clock's time and deliver what it recognised."""
        with self._delivery:
            with self._lock:
                now = self.clock()
                found = [event for name, logic in self._logic.items() for event in self._meaning(name, logic.poll(now))]
            self._deliver(found)

    def close(self) -> None:
        """Stop the thread and release the GPIO lines. Safe to call twice."""
        self._closed = True
        self._wake.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=1.0)
        for device in self._buttons.values():
            device.close()
        self._buttons.clear()

    def _edge_handler(self, name: DealerButton, pressed: bool) -> Callable[[], None]:
        def on_edge() -> None:
            with self._delivery:
                with self._lock:
                    found = self._meaning(name, self._logic[name].sample(self.clock(), pressed))
                self._deliver(found)
            self._wake.set()  # the deadline thread recomputes its next wake-up

        return on_edge

    def _meaning(self, name: DealerButton, presses: list[Press]) -> list[ButtonEvent]:
        """The events ``presses`` of button ``name`` mean. A hold let go too soon means ``UNCLEAR``
        (the table refuses it, and logs that), and is noted here with the hold time the dealer fell
        short of. A push of a guarded button too soon after its last one (``Press.REPEATED``) means
        nothing, and is noted here."""
        for press in presses:
            if press is Press.UNCLEAR:
                log.info("dealer button: %s held longer than a push and let go before %.1f s (a hold): unclear",
                            name.value, self.long_press_s)
            if press is Press.REPEATED:
                log.info("dealer button: %s pushed again within %.2f s: taken as the same push",
                         name.value, self.double_press_s)
        return [MEANING[(name, press)] for press in presses if (name, press) in MEANING]

    def _deliver(self, found: list[ButtonEvent]) -> None:
        for event in found:
            log.info("dealer button: %s", event.value)
            try:
                self._sink(event)
            except Exception:  # noqa: BLE001 - a faulty consumer must not stop the buttons
                log.exception("button event sink failed on %s", event.value)

    def _next_deadline(self) -> float | None:
        with self._lock:
            pending = [d for d in (logic.deadline for logic in self._logic.values()) if d is not None]
        return min(pending, default=None)

    def _run(self) -> None:
        while not self._closed:
            self._wake.clear()
            self.poll()
            deadline = self._next_deadline()
            timeout = None if deadline is None else max(0.0, deadline - self.clock())
            self._wake.wait(timeout)
