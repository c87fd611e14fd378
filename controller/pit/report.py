"""The pit's numbers of a table, computed from its journal's rows alone (pure): :func:`report`.

Why from the rows: the journal already holds every bet, every settlement and every pit entry with
its user, and the floor holds the same rows; numbers kept beside them could disagree with them, or
be edited where the rows cannot. So the table's ``dicetable journal report`` and the floor's
``dicetable floor report`` run this same function over the same rows, and agree key for key. It
reads the rows as the table wrote them, with no clock, no configuration and no rules engine (the
floor imports neither the rules nor the table flow): an input counts when the row after it is not
its ``rejected`` effect (as :func:`controller.journal.export.game_events` reads them), a settlement
is what its ``settle`` row says was paid, a roll what its ``roll`` row says was settled.

What it counts, over a range of rows and for each shift in it (:class:`Numbers`):

- ``rolls`` (``roll`` effects), ``decisions`` (``settle`` effects: each bet decided), ``handle_cents``
  (the stakes of accepted bets), ``win_cents`` (the house's: ``amount - paid`` over the
  settlements), ``hold`` (win / handle; None without a handle), ``drop_cents`` (chips sold for cash:
  the accepted ``buy_in`` entries), and the same per seat;
- the largest payouts (a winning bet's ``paid - amount``), with the frame of the roll's read;
- ``overrides``: each hand entry (a roll entered by hand), correction (entered by hand with other
  dice than the camera read for that roll) and void (an accepted VOID), ``{kind, user, seq}`` with
  the frame in question;
- ``camera``: the reads by status, the rolls by how they were settled;
- ``faces``: each face's count by its place in the ``roll`` effect's ``dice``, over every roll
  whatever its source; and the dice's honesty (:mod:`controller.pit.honesty`) over the range, the
  last shift and the dice set in play.

A shift (:mod:`controller.pit.shift`) is read from its entries: opening bank, chips sold, fills and
credits countersigned, closing count, and the expected closing bank and its variance.

    >>> rows = [(1, "2026-12-01T18:00:00.000+00:00", "input", {"event": "table", "game": "craps", "table": "craps-3"}),
    ...         (2, "2026-12-01T18:00:01.000+00:00", "input", {"event": "bet", "seat": "A", "bet": "field", "amount": 500}),
    ...         (3, "2026-12-01T18:00:02.000+00:00", "effect", {"event": "roll", "game": "craps", "dice": [1, 2], "source": "read"}),
    ...         (4, "2026-12-01T18:00:02.000+00:00", "effect", {"event": "settle", "seat": "A", "bet": "field",
    ...                                                          "amount": 500, "result": "win", "paid": 1000})]
    >>> found = report(rows)
    >>> found["table"], found["rolls"], found["handle_cents"], found["win_cents"], found["hold"], found["faces"]
    ('craps-3', 1, 500, -500, -1.0, [[1, 0, 0, 0, 0, 0], [0, 1, 0, 0, 0, 0]])
"""
from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from controller.journal.identity import table_of
from controller.journal.store import EFFECT, INPUT, Entry
from controller.pit import shift as shifts
from controller.pit.events import PIT_EVENTS, BuyIn, Countersign, DiceSet, PitRefused, ShiftClose, ShiftOpen, Slip, \
    bank_json, bank_total, parse_pit_event, whole
from controller.pit.honesty import DiceWatch, is_face

#: A journal row as the report reads it: seq, time, kind (``input`` or ``effect``) and event.
Row = tuple[int, str, str, Mapping[str, Any]]
#: How many of the largest payouts a report lists.
LARGEST = 5
READ_STATUSES = ("ok", "uncertain", "no_read")
ROLL_SOURCES = ("read", "confirm", "manual")
OVERRIDES = ("hand_entry", "correction", "void")


def rows_of_entries(entries: Iterable[Entry]) -> Iterator[Row]:
    """A journal's :class:`~controller.journal.store.Entry` rows as the report reads them."""
    for entry in entries:
        yield entry.seq, entry.ts, entry.kind, entry.event


def rows_of_lines(lines: Iterable[str]) -> Iterator[Row]:
    """Rows as ``journal export`` prints them (and the floor keeps them), as the report reads them."""
    for line in lines:
        row = json.loads(line)
        yield row["seq"], row["ts"], row["kind"], row["event"]


def parse_time(text: str) -> datetime:
    """An ISO 8601 time (``2026-12-01T18:00``, ``...Z``, ``...+01:00``); one without a zone is UTC,
    as the journal's times are. ``ValueError`` for anything else."""
    when = datetime.fromisoformat(text.strip())
    return when if when.tzinfo is not None else when.replace(tzinfo=timezone.utc)


def ratio(part: int, whole: int) -> float | None:
    """``part / whole`` rounded to six places; None (never NaN) when ``whole`` is 0."""
    return round(part / whole, 6) if whole else None


class Numbers:
    """The counts of one span of rows: a report's range, or one shift."""

    def __init__(self, since: int | None = None, large_payout: int | None = None):
        self.rows = 0
        self.rolls = 0
        self.decisions = 0
        self.handle = 0
        self.win = 0
        self.drop = 0
        self.seats: dict[str, dict[str, int]] = {}
        self.payouts: list[dict[str, Any]] = []
        self.large: list[dict[str, Any]] = []
        self.large_payout = large_payout
        self.overrides: list[dict[str, Any]] = []
        self.reads = dict.fromkeys(READ_STATUSES, 0)
        self.settled_by = dict.fromkeys(ROLL_SOURCES, 0)
        self.dice = DiceWatch(since)

    def _seat(self, seat: Any) -> dict[str, int]:
        return self.seats.setdefault(str(seat), {"handle_cents": 0, "win_cents": 0, "drop_cents": 0})

    def bet(self, seat: Any, amount: int) -> None:
        self.handle += amount
        self._seat(seat)["handle_cents"] += amount

    def buy_in(self, seat: str | None, amount: int) -> None:
        self.drop += amount
        if seat is not None:
            self._seat(seat)["drop_cents"] += amount

    def read(self, status: Any) -> None:
        if status in self.reads:
            self.reads[status] += 1

    def roll(self, seq: int, ts: str, dice: Any, source: Any) -> None:
        self.rolls += 1
        if source in self.settled_by:
            self.settled_by[source] += 1
        if isinstance(dice, list):
            self.dice.add(dice, seq)

    def settle(self, seq: int, ts: str, event: Mapping[str, Any], frame: Any) -> None:
        amount, paid = event.get("amount"), event.get("paid")
        if not (whole(amount) and whole(paid)):
            return  # a row no table writes (an edited one): the chain check names it
        self.decisions += 1
        self.win += amount - paid
        self._seat(event.get("seat"))["win_cents"] += amount - paid
        if event.get("result") != "win" or paid <= amount:
            return
        payout = {"seq": seq, "ts": ts, "seat": event.get("seat"), "bet": event.get("bet"),
                  "number": event.get("number"), "amount": amount, "paid": paid, "payout_cents": paid - amount,
                  "frame": frame}
        self.payouts.append(payout)
        self.payouts.sort(key=lambda p: (-p["payout_cents"], p["seq"]))
        del self.payouts[LARGEST:]
        if self.large_payout is not None and paid - amount >= self.large_payout:
            self.large.append(payout)

    def override(self, kind: str, user: Any, seq: int, ts: str, frame: Any) -> None:
        self.overrides.append({"kind": kind, "user": user if isinstance(user, str) else None, "seq": seq, "ts": ts,
                               "frame": frame if isinstance(frame, str) else None})

    def to_json(self) -> dict[str, Any]:
        return {
            "rows": self.rows,
            "rolls": self.rolls,
            "decisions": self.decisions,
            "handle_cents": self.handle,
            "drop_cents": self.drop,
            "win_cents": self.win,
            "hold": ratio(self.win, self.handle),
            "per_seat": {seat: {**numbers, "hold": ratio(numbers["win_cents"], numbers["handle_cents"])}
                         for seat, numbers in sorted(self.seats.items())},
            "largest_payouts": list(self.payouts),
            "overrides": list(self.overrides),
            "camera": {"reads": dict(self.reads), "settled_by": dict(self.settled_by),
                       "read_rate": ratio(self.settled_by["read"], self.rolls)},
            "faces": [list(counts) for counts in self.dice.by_place],
        }


@dataclass
class ShiftSpan:
    """One shift as the rows tell it: where it opened and closed, its entries and its numbers."""

    opened: dict[str, Any]
    shift: shifts.Shift
    numbers: Numbers
    closed: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        shift = self.shift
        expected = shift.expected(self.numbers.win)
        closing = bank_total(shift.closing) if shift.closing is not None else None
        return {
            "opened": self.opened,
            "closed": self.closed,
            "opening_cents": bank_total(shift.opening),
            "opening": bank_json(shift.opening),
            "fills_cents": shift.fills,
            "credits_cents": shift.credits,
            "slips": [{"kind": s.kind, "slip": s.slip, "amount": s.amount, "user": s.user,
                       "countersigned_by": s.countersigned_by} for s in shift.slips],
            "expected_cents": expected,
            "closing_cents": closing,
            "closing": bank_json(shift.closing) if shift.closing is not None else None,
            "variance_cents": None if closing is None else closing - expected,
            **self.numbers.to_json(),
            "dice": self.numbers.dice.to_json(),
        }


class Tally:
    """The report's reading of rows, one at a time in the journal's order (:meth:`add`), so that a
    watcher (the pit's page, the floor's) keeps it up to date as rows come; :meth:`to_json` at any
    moment is the report of the rows so far. ``large_payout`` (cents): also list every payout of
    at least that much (the pit's alerts)."""

    def __init__(self, *, large_payout: int | None = None):
        self.large_payout = large_payout
        self.header: Mapping[str, Any] | None = None
        self.first: tuple[int, str] | None = None
        self.last: tuple[int, str] | None = None
        self.numbers = Numbers(large_payout=large_payout)
        self.shifts: list[ShiftSpan] = []
        self.dice_set: DiceWatch | None = None
        self._held: Row | None = None
        self._cause: Row | None = None
        self._read: tuple[Any, Any] | None = None
        self._entry = False
        self._roll_frame: Any = None

    @property
    def waiting(self) -> bool:
        """Whether the last row read is an input whose verdict is still to come (the row after it)."""
        return self._held is not None

    @property
    def shift(self) -> ShiftSpan | None:
        """The last shift opened (open, or closed if none opened since)."""
        return self.shifts[-1] if self.shifts else None

    def _spans(self) -> list[Numbers]:
        """The spans a row counts in: the range, and the shift while it is open."""
        shift = self.shift
        return [self.numbers, shift.numbers] if shift is not None and shift.shift.open else [self.numbers]

    def add(self, row: Row) -> None:
        """The next row of the journal."""
        seq, ts, kind, event = row
        self.judge(row)
        if seq == 1 and event.get("event") == "table":
            self.header = event
        self.first = self.first or (seq, ts)
        self.last = (seq, ts)
        for numbers in self._spans():
            numbers.rows += 1
        if kind == INPUT:
            self._held = row
        elif kind == EFFECT:
            self._effect(row)

    def judge(self, after: Row | None) -> None:
        """The input held for its verdict counts unless ``after`` (the row that follows it, None at
        the end of the rows) is its refusal."""
        held, self._held = self._held, None
        if held is None:
            return
        self._cause = held
        if after is not None and after[2] == EFFECT and after[3].get("event") == "rejected":
            return
        self._accepted(held)

    def _accepted(self, row: Row) -> None:
        seq, ts, _, event = row
        name = event.get("event")
        if name == "bet" and whole(event.get("amount")):
            for numbers in self._spans():
                numbers.bet(event.get("seat"), event["amount"])
        elif name == "read":
            for numbers in self._spans():
                numbers.read(event.get("status"))
            self._read = (event.get("dice"), event.get("frame"))
        elif name == "manual" and event.get("dice") is None:
            self._entry = True  # entered with the buttons; a VOID then cancels the entry, not the read
        elif name == "void":
            for numbers in self._spans():
                numbers.override("void", event.get("user"), seq, ts, self._read[1] if self._read else None)
            if self._entry:
                self._entry = False
            else:
                self._read = None
        elif name in PIT_EVENTS:
            self._pit(row)

    def _pit(self, row: Row) -> None:
        seq, ts, _, event = row
        try:
            entry = parse_pit_event(event)
        except PitRefused:
            return  # accepted by no table: an edited row, which the chain check names
        user = entry.user
        if isinstance(entry, DiceSet):
            self.dice_set = DiceWatch(seq, entry.name)
            return
        if isinstance(entry, BuyIn):
            for numbers in self._spans():
                numbers.buy_in(entry.seat, entry.amount)
        span = self.shift
        try:
            after = shifts.apply(span.shift if span is not None else None, entry)
        except PitRefused:
            return  # a shift opened before the rows read (a range that begins within it)
        assert after is not None  # only a dice set leaves no shift, and it returned above
        if isinstance(entry, ShiftOpen):
            self.shifts.append(ShiftSpan({"seq": seq, "ts": ts, "by": user}, after,
                                         Numbers(seq, large_payout=self.large_payout)))
            return
        assert span is not None
        span.shift = after
        if isinstance(entry, ShiftClose):
            span.closed = {"seq": seq, "ts": ts, "by": user}
        elif not isinstance(entry, (BuyIn, Slip, Countersign)):
            raise AssertionError(f"no reading of {entry!r}")

    def _effect(self, row: Row) -> None:
        seq, ts, _, event = row
        name = event.get("event")
        if name == "roll":
            dice, source = event.get("dice"), event.get("source")
            frame = self._read[1] if self._read else None
            if source == "manual":
                seen = self._read[0] if self._read else None
                corrected = (isinstance(seen, list) and isinstance(dice, list) and len(seen) == len(dice)
                             and all(map(is_face, seen)) and sorted(seen) != sorted(dice))
                user = self._cause[3].get("user") if self._cause is not None else None
                for numbers in self._spans():
                    numbers.override("correction" if corrected else "hand_entry", user, seq, ts, frame)
            for numbers in self._spans():
                numbers.roll(seq, ts, dice, source)
            if self.dice_set is not None and isinstance(dice, list):
                self.dice_set.add(dice, seq)
            self._read, self._entry, self._roll_frame = None, False, frame
        elif name == "settle":
            for numbers in self._spans():
                numbers.settle(seq, ts, event, self._roll_frame)

    def to_json(self, *, since: str | None = None, until: str | None = None) -> dict[str, Any]:
        """The report of the rows added so far (the range ``since`` and ``until`` say, by default
        the first and the last row's times)."""
        found = self.numbers.to_json()
        honesty = self.numbers.dice.to_json()
        shift = self.shift
        return {
            "table": table_of(self.header),
            "game": self.header.get("game") if self.header is not None else None,
            "since": since or (self.first[1] if self.first else None),
            "until": until or (self.last[1] if self.last else None),
            "first_seq": self.first[0] if self.first else None,
            "last_seq": self.last[0] if self.last else None,
            **found,
            "dice_p_value": honesty["p_value"],
            "dice": {"range": honesty,
                     "shift": shift.numbers.dice.to_json() if shift is not None else None,
                     "set": self.dice_set.to_json() if self.dice_set is not None else None},
            "shifts": [span.to_json() for span in self.shifts],
        }


def report(rows: Iterable[Row], since: datetime | None = None, until: datetime | None = None) -> dict[str, Any]:
    """The report of ``rows`` (a journal's, in order, from its first) whose time lies within
    ``since`` and ``until`` (both included; by default the first and the last row). The table is
    the one the journal's first row names, wherever the range begins."""
    tally = Tally()
    for row in rows:
        if since is None and until is None:
            tally.add(row)
            continue
        when = parse_time(row[1])
        if until is not None and when > until:
            tally.judge(row)
            break
        if since is not None and when < since:
            if row[0] == 1:
                tally.header = row[3]
            continue
        tally.add(row)
    else:
        tally.judge(None)
    return tally.to_json(since=since.isoformat() if since else None, until=until.isoformat() if until else None)
