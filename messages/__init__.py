"""What the layers of the table say to one another, at the bottom of the layers so that every
layer may import it and it imports none of them.

- :class:`ButtonEvent`, :class:`LightsState` (:mod:`messages.devices`) -- what the dealer's buttons
  send the table and what the table has the bet-lock lamps show.
- :class:`ConfigError` (:mod:`messages.problems`) -- what every layer's check of its settings says
  is wrong, one ``FILE: section.key: what is wrong`` a problem.
- :func:`messages.money.dollars` -- an amount in cents as every message and report writes it for
  people (the pit's reports, which may not import the rules engine, write it so too).

The LED display's message, ``DisplayState``, is in ``firmware/messages.py``: the display's
microcontroller runs that file, so it cannot live here.
"""
from messages.devices import ButtonEvent, LightsState
from messages.problems import ConfigError

__all__ = ["ButtonEvent", "ConfigError", "LightsState"]
