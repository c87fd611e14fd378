"""A dealer made of code, pushing the buttons on mock pins for the demo and the tests.

It drives the mock GPIO lines (``drive_low`` = button pushed, the buttons being
wired to ground) so every press goes through the real path: the gpiozero input device,
debounce, long-press logic, event mapping, the controller's sink. With a
``ManualClock`` on the buttons it advances that clock and polls, so a scripted
session takes no wall-clock time and always yields the same events; with the real
clock it sleeps.

A script is a list of steps (strings, as they could come from a demo file):

* ``"lock"``, ``"confirm"``, ``"void"``, ``"next_shooter"``: a short press
* ``"hold confirm"``: a long press (CONFIRM held gives MANUAL)
* ``"bouncy void"``: a short press whose contacts bounce first
* ``"manual 3 5"``: enter dice 3 and 5 by hand (hold CONFIRM, step with LOCK,
  accept each die with CONFIRM), as described in ``controller.table.manual_entry``
* ``"wait 0.5"``: let 0.5 s pass with nothing pressed
"""
from __future__ import annotations

import time
from collections.abc import Iterable, Sequence

from gpiozero.pins.mock import MockFactory

from hardware.gpio.buttons import DealerButtons
from hardware.gpio.clock import ManualClock
from hardware.gpio.events import DealerButton

BOUNCE_EDGES = 4  # contact bounces before a press settles
BOUNCE_GAP_S = 0.002


class ScriptError(ValueError):
    """A step of a simulated dealer's script that means nothing."""


class SimulatedDealer:
    """Presses ``buttons`` through the mock pins of ``factory``."""

    def __init__(self, buttons: DealerButtons, factory: MockFactory) -> None:
        self._buttons = buttons
        self._factory = factory
        # A short press and the pause after it each outlast the debounce time, and the press ends
        # within half the hold time, where a push of CONFIRM must end (the settings leave room:
        # long_press_s is at least 4 x debounce_s, so 0.4 of it is 1.6 debounce times or more).
        self.press_s = min(max(0.1, 2 * buttons.debounce_s), 0.4 * buttons.long_press_s)
        # Two pushes of one button are spaced past the double-press hold-off, or the second would
        # count as part of the first (as a real dealer's double tap does).
        self.gap_s = max(self.press_s, buttons.double_press_s)

    def press(self, button: DealerButton | str, *, hold_s: float | None = None, bounce: bool = False) -> None:
        """Push ``button`` for ``hold_s`` (a short press by default), then let go and wait a moment."""
        pin = self._factory.pin(self._buttons.pin_of(DealerButton(button)))
        if bounce:
            for _ in range(BOUNCE_EDGES):
                pin.drive_low()
                self._wait(BOUNCE_GAP_S)
                pin.drive_high()
                self._wait(BOUNCE_GAP_S)
        pin.drive_low()
        self._wait(self.press_s if hold_s is None else hold_s)
        pin.drive_high()
        self._wait(self.gap_s)

    def long_press(self, button: DealerButton | str = DealerButton.CONFIRM) -> None:
        """Hold ``button`` past the long-press time."""
        self.press(button, hold_s=self._buttons.long_press_s + self.press_s)

    def enter_dice(self, values: Sequence[int], suggestion: Sequence[int] | None = None) -> None:
        """Enter ``values`` by hand: hold CONFIRM, then for each die step with LOCK and accept with CONFIRM.

        ``suggestion`` is where the controller starts each die (its ``ManualEntry``);
        the dealer only needs to know it to count the steps.
        """
        for value in values:
            if value not in range(1, 7):
                raise ScriptError(f"a die shows 1..6, not {value}")
        self.long_press(DealerButton.CONFIRM)
        for index, value in enumerate(values):
            start = suggestion[index] if suggestion else 1
            for _ in range((value - start) % 6):
                self.press(DealerButton.LOCK)
            self.press(DealerButton.CONFIRM)

    def wait(self, seconds: float) -> None:
        """Let ``seconds`` pass with no button pushed."""
        self._wait(seconds)

    def run(self, script: Iterable[str]) -> None:
        """Play every step of ``script`` (see the module docstring for the steps)."""
        for step in script:
            self.step(step)

    def step(self, step: str) -> None:
        """Play one step of a script."""
        words = step.split()
        known = (
            len(words) == 1
            or (words[0] in ("hold", "bouncy", "wait") and len(words) == 2)
            or (words[0] == "manual" and len(words) > 1)
        )
        if not known:
            raise ScriptError(f"unknown step {step!r}")
        try:
            if len(words) == 1:
                self.press(words[0])
            elif words[0] == "hold":
                self.long_press(words[1])
            elif words[0] == "bouncy":
                self.press(words[1], bounce=True)
            elif words[0] == "manual":
                self.enter_dice([int(word) for word in words[1:]])
            else:
                self.wait(float(words[1]))
        except ValueError as error:
            raise ScriptError(f"bad step {step!r}: {error}") from None

    def _wait(self, seconds: float) -> None:
        clock = self._buttons.clock
        if isinstance(clock, ManualClock):
            clock.advance(seconds)
        else:
            time.sleep(seconds)
        self._buttons.poll()
