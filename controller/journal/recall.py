"""The last N rolls with the read behind each and the settlements it caused.

Why: a player disputes a payout; the operator needs, in one place, the dice
that were settled, what the camera saw (status, per-roll confidence, the
saved frame's file name), how the dealer resolved it (settled at once,
confirmed, or entered by hand) and every settlement of that roll.

It reads the table events of ``docs/events.md``: a ``read`` input row, the
dealer's ``confirm`` / ``manual`` input, then the ``roll`` effect row and
the ``settle`` effect rows that follow it.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

from controller.journal.store import EFFECT, INPUT, Journal


@dataclass
class RolledRecord:
    """One settled roll, as the journal tells it."""

    seq: int
    ts: str
    dice: list[int]
    source: str
    game: str | None
    read: dict[str, Any] | None
    settlements: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "ts": self.ts,
            "game": self.game,
            "dice": self.dice,
            "source": self.source,
            "read": self.read,
            "settlements": self.settlements,
        }


def recall(journal: Journal, n: int) -> list[RolledRecord]:
    """The last ``n`` rolls, oldest first (``n`` <= 0 gives none)."""
    if n <= 0:
        return []
    records: deque[RolledRecord] = deque(maxlen=n)
    last_read: dict[str, Any] | None = None
    current: RolledRecord | None = None
    for entry in journal.entries():
        name = entry.event.get("event")
        if entry.kind == INPUT:
            current = None
            if name == "read":
                last_read = {k: v for k, v in entry.event.items() if k != "event"} | {"seq": entry.seq}
            continue
        if entry.kind == EFFECT and name == "roll":
            # The camera's last read of this roll, also when the dealer overruled it by hand.
            read = last_read
            current = RolledRecord(
                seq=entry.seq,
                ts=entry.ts,
                dice=list(entry.event.get("dice", [])),
                source=str(entry.event.get("source", "")),
                game=entry.event.get("game"),
                read=read,
            )
            records.append(current)
            last_read = None
        elif current is not None and name == "settle":
            current.settlements.append(entry.event)
    return list(records)
