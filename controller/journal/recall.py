"""The settled rolls with the read behind each: for a dispute, and as labelled frames.

Why: a player disputes a payout; the operator needs, in one place, the dice
that were settled, what the camera saw (status, per-roll confidence, the
saved frame's file name), how the dealer resolved it (settled at once,
confirmed, or entered by hand) and every settlement of that roll
(:func:`recall`). And every roll the dealer ruled on labels a frame the
camera could not settle alone, for ``dicetable bench`` (:func:`frame_labels`)
and, die by die where the read's boxes allow, for training (:func:`boxed_frames`).

It reads the table events of ``docs/events.md``: a ``read`` input row, the
dealer's ``confirm`` / ``manual`` input, then the ``roll`` effect row and
the ``settle`` effect rows that follow it.
"""
from __future__ import annotations

import json
from collections import Counter, deque
from dataclasses import dataclass, field
from typing import Any, Iterator, TypeGuard

from controller.journal.chain import GENESIS
from controller.journal.store import INPUT, Entry, Journal
from controller.journal.verify import row_fault


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
    actions: list[dict[str, Any]] = field(default_factory=list)
    by: str | None = None
    """Bang: whose roll it was (``dealer`` or ``shooter``)."""
    faults: list[str] = field(default_factory=list)
    """Why rows told here (the read, the roll, its settlements) fail the hash chain: changed after
    they were written, or not written by the table. Empty when they hold."""
    """The inputs a person made from the console since the roll before (bets, removals, presses),
    each the journaled event with its ``seq`` and ``accepted``: who did what before these dice."""

    def to_json(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "ts": self.ts,
            "game": self.game,
            "dice": self.dice,
            "source": self.source,
            "read": self.read,
            "settlements": self.settlements,
            "actions": self.actions,
            **({"by": self.by} if self.by else {}),
            "faults": self.faults,
        }


def recall(journal: Journal, n: int, since: int = 0) -> list[RolledRecord]:
    """The last ``n`` rolls, oldest first (``n`` <= 0 gives none), of the rows after ``since``."""
    if n <= 0:
        return []
    return list(deque(rolls(journal, since), maxlen=n))


def rolls(journal: Journal, since: int = 0) -> Iterator[RolledRecord]:
    """Every settled roll, oldest first, with the camera's read of those dice and its settlements.

    The read is the last one the table accepted before the roll was settled, also when the dealer
    overruled it by hand; but not a read the table refused (it came at the wrong moment) nor one the
    dealer voided (the dice were thrown again): its frame shows other dice. ``since`` skips the rows
    up to that seq (the console reads only a journal's tail for its last rolls). Each record names
    the rows told in it that fail the hash chain (:attr:`RolledRecord.faults`): a dispute must not
    rest on a row that was changed.
    """
    last_read: dict[str, Any] | None = None
    read_fault: str | None = None  # what is wrong with the row of last_read
    held: Entry | None = None  # the last input row, until what follows it says whether it was accepted
    held_fault: str | None = None
    refused = False
    entering = False  # a hand entry with the buttons is under way: its VOID cancels the entry, not the read
    current: RolledRecord | None = None
    actions: list[dict[str, Any]] = []

    def accept_held() -> None:
        nonlocal last_read, read_fault, held, entering
        if held is not None and isinstance(held.event.get("user"), str):
            actions.append({**held.event, "seq": held.seq, "accepted": not refused})
        if held is not None and not refused:
            name = held.event.get("event")
            if name == "read":
                last_read = {k: v for k, v in held.event.items() if k != "event"} | {"seq": held.seq}
                read_fault = held_fault
            elif name == "manual" and held.event.get("dice") is None:
                entering = True
            elif name == "void":
                if not entering:
                    last_read = None
                entering = False
        held = None

    for entry, fault in _checked(journal, since):
        name = entry.event.get("event")
        if entry.kind == INPUT:
            if current is not None:  # its settlements are all in: they follow the roll, before the next input
                yield current
            accept_held()
            held, held_fault, refused, current = entry, fault, False, None
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
                actions=actions,
                by=entry.event.get("by"),
                faults=[f for f in (read_fault if last_read is not None else None, fault) if f],
            )
            last_read, actions = None, []
        elif current is not None and name == "settle":
            current.settlements.append(entry.event)
            if fault:
                current.faults.append(fault)
    if current is not None:
        yield current


def _checked(journal: Journal, since: int = 0) -> Iterator[tuple[Entry, str | None]]:
    """Every row of ``journal`` after ``since`` with what is wrong with it in the hash chain (None
    when it holds): a row is checked against the one before it as stored, so an edited row is named
    and the rows after it are not."""
    expected, prev = since + 1, GENESIS
    if since > 0:  # the chain goes on from the row the reading starts after
        before = journal.entries(since - 1)
        row = next(before, None)
        before.close()
        prev = row.hash if row is not None else GENESIS
    for seq, ts, kind, text, prev_hash, digest in journal.raw_rows(since):
        fault = row_fault(expected, prev, seq, ts, kind, text, prev_hash, digest)
        try:
            event = json.loads(text)
        except ValueError:
            event = {}
        yield Entry(seq, ts, kind, event if isinstance(event, dict) else {}, prev_hash, digest), fault and fault[1]
        expected, prev = seq + 1, digest


#: Rolls whose dice a person settled: the dealer confirmed the camera's unsure read or entered the dice.
RULED_BY_THE_DEALER = ("confirm", "manual")
#: The columns of :func:`frame_labels`' rows: those of ``dicetable bench``'s manifest, then what the camera said.
FRAME_LABEL_COLUMNS = ("image", "values", "source", "read_status", "read_dice")


def _labelled_read(roll: RolledRecord, dealer_only: bool) -> dict[str, Any] | None:
    """The read whose saved frame ``roll`` labels, or None: no frame, dice that never came to rest
    (the frame may show them moving), or (``dealer_only``) a roll the camera settled alone."""
    read = roll.read or {}
    if not read.get("frame") or read.get("at_rest") is False:
        return None
    if dealer_only and roll.source not in RULED_BY_THE_DEALER:
        return None
    return read


def frame_labels(journal: Journal, dealer_only: bool = True) -> Iterator[dict[str, str]]:
    """A labelled frame for each roll settled from a saved frame: the frame's file name and the dice
    settled, as a row of ``dicetable bench``'s ``manifest.csv``.

    Why: every roll the dealer rules on (``confirm``, ``manual``) labels the frame the camera could
    not settle alone, which is just what the reader needs to be measured on at this table (training
    also needs each die's box: :func:`boxed_frames`). Rolls settled at once from the camera's own
    ``ok`` read label nothing new (the label would be the reader's answer), so they are left out
    unless ``dealer_only`` is False. The frame of a roll that never came to rest (``at_rest: false``)
    may show the dice moving and labels nothing. The frames the dealer ruled on include the reader's
    right refusals (dice touching or cocked): the bench counts those as rolls not ``ok``, which is
    the truth.
    """
    for roll in rolls(journal):
        read = _labelled_read(roll, dealer_only)
        if read is None:
            continue
        yield {
            "image": str(read["frame"]),
            "values": " ".join(str(d) for d in roll.dice),
            "source": roll.source,
            "read_status": str(read.get("status", "")),
            "read_dice": " ".join(str(d) for d in read.get("dice") or []),
        }


Box = tuple[int, int, int, int]


@dataclass(frozen=True)
class BoxedFrame:
    """A saved frame labelled die by die: each die's box ``(x, y, w, h)`` in pixels of a frame of
    ``size`` (width, height), with its face."""

    frame: str
    size: tuple[int, int]
    dice: tuple[tuple[Box, int], ...]


def faces_of_boxes(read_values: list[int], settled: list[int]) -> list[int] | None:
    """The face under each of the read's dice, given the dice the table settled; None when that
    cannot be told.

    The dealer rules on the dice, not on which die is which: a hand entry gives values in the order
    the dealer entered them, not the read's. So a box keeps the read's value when the settled dice
    are the read's, and when they are the read's with one value changed that stood only once in
    the read, that box takes the new value. A change to a value the read saw twice is ambiguous,
    and more than one change is left unlabelled too (a few such could be told, as [1, 1] settled
    [2, 2], but the rule stays simple): no label rather than a wrong one.
    """
    if len(read_values) != len(settled):
        return None
    gone = Counter(read_values) - Counter(settled)
    if not gone:
        return list(read_values)
    came = Counter(settled) - Counter(read_values)
    if sum(gone.values()) != 1:
        return None
    (wrong,), (right,) = gone, came
    if read_values.count(wrong) != 1:
        return None
    return [right if value == wrong else value for value in read_values]


def boxed_frames(journal: Journal, dealer_only: bool = True) -> Iterator[BoxedFrame]:
    """The frames :func:`frame_labels` labels, die by die where the read kept its boxes and the
    faces can be told (:func:`faces_of_boxes`): training data from normal play.

    A read journaled before reads kept their boxes labels nothing here; nor does one whose boxes
    do not fit its frame, or whose frame name is not a plain file name (the journal holds whatever
    the event stream sent as well as the camera's reads, and a label must not be made of that).
    """
    for roll in rolls(journal):
        read = _labelled_read(roll, dealer_only)
        if read is None or not _boxed_read(read):
            continue
        faces = faces_of_boxes(read["dice"], roll.dice)
        if faces is None:
            continue
        width, height = read["size"]
        yield BoxedFrame(read["frame"], (width, height),
                         tuple((tuple(box), face) for box, face in zip(read["boxes"], faces, strict=True)))


#: The largest frame side taken from a read (px): far beyond any camera, small enough for floats.
MAX_FRAME_SIDE = 65535


def _boxed_read(read: dict[str, Any]) -> bool:
    """Whether ``read`` names its frame plainly and gives a box inside the frame for each of its dice."""
    frame, values, boxes, size = read.get("frame"), read.get("dice"), read.get("boxes"), read.get("size")
    if not (isinstance(frame, str) and _plain_name(frame) and _ints(values, 1, 6) and _ints(size, 1, MAX_FRAME_SIDE, 2)
            and isinstance(boxes, list) and len(boxes) == len(values)):
        return False
    width, height = size
    return all(_ints(box, 0, MAX_FRAME_SIDE, 4) and box[2] >= 1 and box[3] >= 1
               and box[0] + box[2] <= width and box[1] + box[3] <= height for box in boxes)


def _plain_name(name: str) -> bool:
    """A file name with no folder in it: a frame is looked for in the frames folder, never elsewhere."""
    return bool(name) and name not in (".", "..") and "/" not in name and "\\" not in name and "\0" not in name


def _ints(values: Any, low: int, high: int, count: int | None = None) -> TypeGuard[list[int]]:
    """``values`` is a list of ints in low..high (of ``count`` of them, when given)."""
    if not isinstance(values, list) or (count is not None and len(values) != count):
        return False
    return all(isinstance(v, int) and not isinstance(v, bool) and low <= v <= high for v in values)
