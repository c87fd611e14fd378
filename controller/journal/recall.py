"""The settled rolls with the read behind each: for a dispute, and as labelled frames.

Why: a player disputes a payout; the operator needs, in one place, the dice
that were settled, what the camera saw (status, per-roll confidence, the
saved frame's file name), how the dealer resolved it (settled at once,
confirmed, or entered by hand) and every settlement of that roll
(:func:`recall`). And every roll the dealer ruled on labels a frame the
camera could not settle alone, for ``dicetable bench`` (:func:`frame_labels`).

It reads the table events of ``docs/events.md``: a ``read`` input row, the
dealer's ``confirm`` / ``manual`` input, then the ``roll`` effect row and
the ``settle`` effect rows that follow it.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any, Iterator

from controller.journal.store import INPUT, Journal


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
    return list(deque(rolls(journal), maxlen=n))


def rolls(journal: Journal) -> Iterator[RolledRecord]:
    """Every settled roll, oldest first, with the camera's read of those dice and its settlements.

    The read is the last one the table accepted before the roll was settled, also when the dealer
    overruled it by hand; but not a read the table refused (it came at the wrong moment) nor one the
    dealer voided (the dice were thrown again): its frame shows other dice.
    """
    last_read: dict[str, Any] | None = None
    held: Any = None  # the last input row, until what follows it says whether it was accepted
    refused = False
    entering = False  # a hand entry with the buttons is under way: its VOID cancels the entry, not the read
    current: RolledRecord | None = None

    def accept_held() -> None:
        nonlocal last_read, held, entering
        if held is not None and not refused:
            name = held.event.get("event")
            if name == "read":
                last_read = {k: v for k, v in held.event.items() if k != "event"} | {"seq": held.seq}
            elif name == "manual" and held.event.get("dice") is None:
                entering = True
            elif name == "void":
                if not entering:
                    last_read = None
                entering = False
        held = None

    for entry in journal.entries():
        name = entry.event.get("event")
        if entry.kind == INPUT:
            if current is not None:  # its settlements are all in: they follow the roll, before the next input
                yield current
            accept_held()
            held, refused, current = entry, False, None
        elif name == "rejected":
            refused = True
        elif name == "roll":
            accept_held()
            entering = False
            current = RolledRecord(
                seq=entry.seq,
                ts=entry.ts,
                dice=list(entry.event.get("dice", [])),
                source=str(entry.event.get("source", "")),
                game=entry.event.get("game"),
                read=last_read,
            )
            last_read = None
        elif current is not None and name == "settle":
            current.settlements.append(entry.event)
    if current is not None:
        yield current


#: Rolls whose dice a person settled: the dealer confirmed the camera's unsure read or entered the dice.
RULED_BY_THE_DEALER = ("confirm", "manual")
#: The columns of :func:`frame_labels`' rows: those of ``dicetable bench``'s manifest, then what the camera said.
FRAME_LABEL_COLUMNS = ("image", "values", "source", "read_status", "read_dice")


def frame_labels(journal: Journal, dealer_only: bool = True) -> Iterator[dict[str, str]]:
    """A labelled frame for each roll settled from a saved frame: the frame's file name and the dice
    settled, as a row of ``dicetable bench``'s ``manifest.csv``.

    Why: every roll the dealer rules on (``confirm``, ``manual``) labels the frame the camera could
    not settle alone, which is just what the reader needs to be measured on at this table (training
    would also need each die's box, which the journal does not keep). Rolls settled at once from the camera's own ``ok`` read label nothing new (the label
    would be the reader's answer), so they are left out unless ``dealer_only`` is False. The frame
    of a roll that never came to rest (``at_rest: false``) may show the dice moving and labels
    nothing. The frames the dealer ruled on include the reader's right refusals (dice touching or
    cocked): the bench counts those as rolls not ``ok``, which is the truth.
    """
    for roll in rolls(journal):
        read = roll.read or {}
        frame = read.get("frame")
        if not frame or read.get("at_rest") is False or (dealer_only and roll.source not in RULED_BY_THE_DEALER):
            continue  # no frame, or one of dice still moving (they never came to rest): no label
        yield {
            "image": str(frame),
            "values": " ".join(str(d) for d in roll.dice),
            "source": roll.source,
            "read_status": str(read.get("status", "")),
            "read_dice": " ".join(str(d) for d in read.get("dice") or []),
        }
