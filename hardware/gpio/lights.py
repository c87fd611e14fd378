"""The bet-lock lights: the lamps that tell players bets are closed.

Three lamps, each an active-high output (an LED strip through a MOSFET or a
ULN2803 channel, see hardware/README.md):

* ``no_more_bets``: "NO MORE BETS" for the whole table. Craps and Hazard use it
  alone; at Bang it is lit when both sections are locked.
* ``bang_inside`` / ``bang_outside``: Bang's two betting sections lock separately
  (§4620.15: outside bets only before the dealer's roll, inside bets again after it).

The controller sets the *desired* state (``LightsState``, one of the table's
messages in ``messages.devices``) derived from the game state; ``show``
writes every lamp every time, so calling it again after a restart redraws the
lamps exactly, and calling it twice changes nothing. Nothing here
knows the game flow.

    >>> from gpiozero.pins.mock import MockFactory
    >>> lights = BetLockLights(22, 23, 24, pin_factory=MockFactory())
    >>> lights.show(LightsState.bang(inside_locked=False, outside_locked=True))
    >>> lights.state.bang_outside
    True
    >>> lights.close()
"""
from __future__ import annotations

import logging
import threading
from dataclasses import fields

from gpiozero import LED
from gpiozero.pins import Factory

from messages.devices import LightsState
from hardware.gpio import safe_exit

log = logging.getLogger(__name__)


class BetLockLights:
    """The three lamps on BCM lines ``no_more_bets``, ``bang_inside`` and ``bang_outside``."""

    def __init__(
        self,
        no_more_bets: int,
        bang_inside: int,
        bang_outside: int,
        *,
        pin_factory: Factory | None = None,
    ) -> None:
        # Re-entrant: the SIGTERM handler of safe_exit may run in the main thread while
        # it is inside show(), and must still put the lamps out.
        self._lock = threading.RLock()
        self._state = LightsState()
        lamps: dict[str, LED] = {}
        try:
            for name, pin in (
                ("no_more_bets", no_more_bets),
                ("bang_inside", bang_inside),
                ("bang_outside", bang_outside),
            ):
                lamps[name] = LED(pin, active_high=True, initial_value=False, pin_factory=pin_factory)
        except Exception:
            for lamp in lamps.values():
                lamp.close()
            raise
        self._lamps: dict[str, LED] | None = lamps
        safe_exit.register(self)

    @property
    def state(self) -> LightsState:
        """The state last asked for with ``show``."""
        with self._lock:
            return self._state

    def show(self, state: LightsState) -> None:
        """Light exactly the lamps of ``state`` (writes every lamp, so it also repairs)."""
        with self._lock:
            if self._lamps is None:
                raise RuntimeError("the bet-lock lights are closed")
            for field in fields(state):
                self._lamps[field.name].value = getattr(state, field.name)
            self._state = state

    def safe_off(self) -> None:
        """All lamps off (at exit and on close)."""
        with self._lock:
            if self._lamps is None:
                return
            for lamp in self._lamps.values():
                try:
                    lamp.off()
                except Exception:  # noqa: BLE001 - switch the remaining lamps off regardless
                    log.exception("could not switch lamp %r off", lamp)
            self._state = LightsState()

    def close(self) -> None:
        """Lamps off and GPIO lines released. Safe to call twice."""
        self.safe_off()
        with self._lock:
            lamps, self._lamps = self._lamps, None
        for lamp in (lamps or {}).values():
            lamp.close()
