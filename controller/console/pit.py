"""What the pit's page shows of the shift: its numbers, the dice's honesty and the pit's alerts,
read from the journal's rows by :class:`controller.pit.Tally` (``GET /api/shift``).

Why a tally of the rows and not counters of its own: the pit's numbers are the journal's
(:mod:`controller.pit.report` says why), the same ``dicetable journal report`` and the floor
compute; the console reads the journal once when it attaches to a table, then each step's rows as
the table writes them.

The alerts are derived, never stored or acknowledged (there is no approval step): every override
(a hand entry, a void, a correction of the camera's dice) and every payout of at least
``[console] large_payout`` since the shift opened (or, with none open, since the last one closed),
each with the frame of its roll; a sequential test that flags the dice of the shift or of the set
in play; and the last shift's closing variance.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from controller.journal import Entry
from controller.pit import Tally, rows_of_entries
from controller.pit.text import KINDS, dollars

#: The alerts of each kind shown, newest first.
SHOWN_ALERTS = 20


class PitWatch:
    """The shift and the dice of one table, kept up to date row by row (in the console's loop)."""

    def __init__(self, entries: Iterable[Entry], large_payout: int):
        self.tally = Tally(large_payout=large_payout)
        self.large_payout = large_payout
        self.add(entries)

    def add(self, entries: Iterable[Entry]) -> None:
        """The rows the table wrote since, in order, ending with a step's last row: so the last
        input's verdict is in (a refusal is the row right after it), and it counts now."""
        for row in rows_of_entries(entries):
            self.tally.add(row)
        self.tally.judge(None)

    def to_json(self) -> dict[str, Any]:
        """``GET /api/shift``: the last shift's report (None before the first), the dice's honesty
        over the shift and the set in play, the pit's alerts newest first, and the threshold."""
        tally = self.tally
        span = tally.shift
        shift = span.to_json() if span is not None else None
        dice = {"shift": shift["dice"] if shift is not None else None,
                "set": tally.dice_set.to_json() if tally.dice_set is not None else None}
        return {"shift": shift, "dice": dice, "alerts": self.alerts(shift, dice), "large_payout": self.large_payout}

    def alerts(self, shift: dict[str, Any] | None, dice: dict[str, Any]) -> list[dict[str, Any]]:
        """What the pit must look at, worst first: the dice flagged, a variance, then the overrides
        and the large payouts since the shift began, newest first."""
        found = []
        for scope, name in (("shift", "this shift's"), ("set", "the dice set's")):
            alarm = (dice[scope] or {}).get("alarm")
            if alarm:
                found.append({"level": "alarm", "kind": "dice", "seq": alarm["seq"], "frame": None,
                              "text": f"{name} dice: face {alarm['face']} comes up too often (row {alarm['seq']}, "
                                      f"after {alarm['rolls']} rolls): the dice or the camera look biased"})
        if shift is not None and shift["variance_cents"]:
            found.append({"level": "alarm", "kind": "variance", "seq": shift["closed"]["seq"], "frame": None,
                          "text": f"the shift closed with a variance of {dollars(shift['variance_cents'])}: counted "
                                  f"{dollars(shift['closing_cents'])}, expected {dollars(shift['expected_cents'])}"})
        since = self._since()
        numbers = self.tally.numbers
        events = [{"level": "warning", "kind": o["kind"], "seq": o["seq"], "frame": o["frame"], "ts": o["ts"],
                   "text": f"{KINDS[o['kind']]} by {o['user'] or 'the panel'} (row {o['seq']})"}
                  for o in numbers.overrides[-SHOWN_ALERTS:] if o["seq"] > since]
        events += [{"level": "warning", "kind": "payout", "seq": p["seq"], "frame": p["frame"], "ts": p["ts"],
                    "text": f"seat {p['seat']} {p['bet']}{'' if p['number'] is None else ' ' + str(p['number'])} paid "
                            f"{dollars(p['paid'])} on {dollars(p['amount'])} (row {p['seq']})"}
                   for p in numbers.large[-SHOWN_ALERTS:] if p["seq"] > since]
        return found + sorted(events, key=lambda a: -a["seq"])[:SHOWN_ALERTS]

    def _since(self) -> int:
        """The row after which overrides and payouts are the pit's now: the open shift's opening, or
        the last shift's close (0 before any shift)."""
        span = self.tally.shift
        if span is None:
            return 0
        return int(span.closed["seq"] if span.closed is not None else span.opened["seq"])
