"""What goes on which digit: the display's layout, from state to text rows.

Three MAX7219 modules of eight digits, one row each::

    row 0  result   3 4    7      the dice, the total at the right
    row 1  status   OPEn P  6     what the table is doing, the point or OFF
    row 2  recent    7.11. 4.12.  totals of the last four rolls, newest first

When the link is lost every row changes to a pattern that cannot be taken for
a result (``NO_LINK_ROWS``). Pure functions of a DisplayState; runs under
CPython and MicroPython.
"""

WIDTH = 8
ROWS = 3
RECENT_SHOWN = 4

NO_LINK_ROWS = ("--------", " no LInE", "--------")

_PHASE_WORDS = {
    "open": "OPEn",
    "locked": "LOCd",
    "rolling": "roLL",
    "confirm": "ConF",  # an unsure read waits: CONFIRM settles it
    "settled": "PAId",
    "void": "UOId",
    "closed": "CLSd",
    "manual": "HAnd",  # the dealer is entering the dice by hand: LOCK steps the die shown
    "enter": "Entr",  # the camera could not read the dice, or is lost: hold CONFIRM to enter them
    "refused": "-no-",  # for a moment after a press the table refused: nothing happened
    "fault": "Err ",  # a device failed (the cage motor did not start): VOID, then LOCK to retry
}


def _right(text, width):
    return " " * (width - len(text)) + text


def result_row(state):
    """The dice separated by blanks, the total right-aligned."""
    if not state.dice:
        return " " * WIDTH
    dice = " ".join(str(d) for d in state.dice)
    return dice + _right(str(state.total), WIDTH - len(dice))


def status_row(state):
    """Four characters of phase, four of point.

    The point reads ``P  6`` for craps; Bang's dealer's point reads ``d  8``
    (§4620.15 calls it the dealer's point); no point reads ``OFF``, except in
    Hazard, which has no point at all and leaves the field blank.
    """
    word = _PHASE_WORDS[state.phase]
    if state.game == "hazard" and state.phase == "rolling":
        word = "SPIn"  # the cage spins; nobody throws
    if state.point is None:
        point = "    " if state.game == "hazard" else " OFF"
    else:
        point = ("d" if state.game == "bang" else "P") + _right(str(state.point), 3)
    return word + point


def recent_row(state):
    """Totals of the last rolls, two digits each, a decimal point after each."""
    fields = []
    for roll in state.recent[:RECENT_SHOWN]:
        fields.append(_right(str(sum(roll)), 2) + ".")
    while len(fields) < RECENT_SHOWN:
        fields.append("  ")
    return "".join(fields)


def rows(state):
    """The three rows of text for a state, or the no-link pattern for None."""
    if state is None:
        return NO_LINK_ROWS
    return (result_row(state), status_row(state), recent_row(state))
