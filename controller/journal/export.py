"""The journal as JSON lines, for auditors and for ``dicetable replay``.

Full rows carry their hashes so an export can be checked against the live
journal later; ``events_only`` gives the bare events, one per line, in the
format of ``docs/events.md``; :func:`game_event_lines` gives only what the
rules engine saw (accepted bets, removals, shooter changes and the rolls
that were settled), so ``dicetable replay`` can recompute every settlement
independently of the table controller.
"""
from __future__ import annotations

import json
import math
from typing import Any, Iterable, Iterator

from controller.journal.store import EFFECT, INPUT, ORIGIN, Entry, Journal


def export_lines(journal: Journal, *, events_only: bool = False, inputs_only: bool = False) -> Iterator[str]:
    """One JSON text per row, in order."""
    for entry in journal.entries():
        if inputs_only and entry.kind != INPUT:
            continue
        yield exported(entry.event) if events_only else export_line(entry)


def export_line(entry: Entry) -> str:
    """One row as ``journal export`` prints it: the text the floor receives and prints back."""
    return exported(entry.to_json())


def exported(value: Any) -> str:
    """``value`` as a line of an export: compact, keys sorted, ASCII, and JSON throughout."""
    return json.dumps(named_non_finite(value), sort_keys=True, separators=(",", ":"), allow_nan=False)


def named_non_finite(value: Any) -> Any:
    """``value`` with each number that is not finite as a string naming it (``"NaN"``,
    ``"Infinity"``, ``"-Infinity"``): JSON has no such numbers, and a journal written before they
    were refused at the door may hold them. Only such a journal's rows change."""
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, dict):
        return {key: named_non_finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [named_non_finite(item) for item in value]
    return value


GAME_INPUTS = ("bet", "remove", "next_shooter")


def game_events(entries: Iterable[Entry]) -> Iterator[tuple[int, dict]]:
    """The rules engine's events among a journal's ``entries`` (all of them, in order), each with
    its row: accepted game inputs (without :data:`ORIGIN`: where an input came from is not part of
    the game) and settled rolls (a roll's row is that of its ``roll`` effect). A game input is held
    until the row after it says whether it was refused; nothing more is held, so a journal of any
    length is read in the memory of one row."""
    held: tuple[int, dict] | None = None
    for entry in entries:
        if held is not None:
            if not (entry.kind == EFFECT and entry.event.get("event") == "rejected"):
                yield held
            held = None
        name = entry.event.get("event")
        if entry.kind == INPUT and name in GAME_INPUTS:
            held = (entry.seq, {key: value for key, value in entry.event.items() if key != ORIGIN})
        elif entry.kind == EFFECT and name == "roll":
            roll = {"event": "roll", "dice": entry.event["dice"]}
            if entry.event.get("by"):
                roll["by"] = entry.event["by"]
            yield entry.seq, roll
    if held is not None:
        yield held


def game_event_lines(journal: Journal) -> Iterator[str]:
    """:func:`game_events` as JSON lines, the input of ``dicetable replay``."""
    for _, event in game_events(journal.entries()):
        yield exported(event)
