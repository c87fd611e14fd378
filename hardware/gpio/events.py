"""The dealer's four buttons and the table's ``ButtonEvent`` each press of each means.

Four physical buttons, six events (``ButtonEvent`` is one of the table's messages,
``messages.devices``): CONFIRM held for the long-press time means
MANUAL ("I will enter the dice by hand") instead of CONFIRM, and CONFIRM let go
between a push and a hold means UNCLEAR, which the table refuses: the journal
keeps that the dealer pressed, and the display says ``-no-``. The events say
which button meant what, nothing about the game: the controller decides whether
an event is allowed at that moment (and refuses it otherwise). During manual
entry the controller reads the same events through ``ManualEntry``
(``controller.table.manual_entry``): LOCK steps the die, CONFIRM accepts it, VOID
cancels.
"""
from __future__ import annotations

from enum import StrEnum

from messages.devices import ButtonEvent
from hardware.gpio.press_logic import Press


class DealerButton(StrEnum):
    """The physical push-buttons on the dealer's panel (their names in the pin map: ``button_<value>``)."""

    LOCK = "lock"
    CONFIRM = "confirm"
    VOID = "void"
    NEXT_SHOOTER = "next_shooter"


#: What each press of each button means. A button absent from the LONG column
#: has no long meaning, so it acts the moment it is pushed.
MEANING: dict[tuple[DealerButton, Press], ButtonEvent] = {
    (DealerButton.LOCK, Press.SHORT): ButtonEvent.LOCK,
    (DealerButton.CONFIRM, Press.SHORT): ButtonEvent.CONFIRM,
    (DealerButton.CONFIRM, Press.LONG): ButtonEvent.MANUAL,
    (DealerButton.CONFIRM, Press.UNCLEAR): ButtonEvent.UNCLEAR,
    (DealerButton.VOID, Press.SHORT): ButtonEvent.VOID,
    (DealerButton.NEXT_SHOOTER, Press.SHORT): ButtonEvent.NEXT_SHOOTER,
}


def has_long_meaning(button: DealerButton) -> bool:
    """Whether holding ``button`` means something else than pushing it."""
    return (button, Press.LONG) in MEANING
