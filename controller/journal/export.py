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
from typing import Iterator, Sequence

from controller.journal.store import EFFECT, INPUT, ORIGIN, Entry, Journal


def export_line(entry: Entry) -> str:
    """One row as ``journal export`` prints it: the text the floor receives and prints back."""
    return json.dumps(entry.to_json(), sort_keys=True, separators=(",", ":"))


def export_lines(journal: Journal, *, events_only: bool = False, inputs_only: bool = False) -> Iterator[str]:
    """One JSON text per row, in order."""
    for entry in journal.entries():
        if inputs_only and entry.kind != INPUT:
            continue
        yield json.dumps(entry.event, sort_keys=True, separators=(",", ":")) if events_only else export_line(entry)


GAME_INPUTS = ("bet", "remove", "next_shooter")


def game_events(entries: Sequence[Entry]) -> Iterator[tuple[int, dict]]:
    """The rules engine's events among a journal's ``entries`` (all of them, in order), each with
    its row: accepted game inputs (without :data:`ORIGIN`: where an input came from is not part of
    the game) and settled rolls (a roll's row is that of its ``roll`` effect). It takes the rows
    rather than the journal so that a caller reading them for more reads once."""
    for index, entry in enumerate(entries):
        name = entry.event.get("event")
        if entry.kind == INPUT and name in GAME_INPUTS:
            following = entries[index + 1] if index + 1 < len(entries) else None
            refused = following is not None and following.kind == EFFECT and following.event.get("event") == "rejected"
            if not refused:
                yield entry.seq, {key: value for key, value in entry.event.items() if key != ORIGIN}
        elif entry.kind == EFFECT and name == "roll":
            roll = {"event": "roll", "dice": entry.event["dice"]}
            if entry.event.get("by"):
                roll["by"] = entry.event["by"]
            yield entry.seq, roll


def game_event_lines(journal: Journal) -> Iterator[str]:
    """:func:`game_events` as JSON lines, the input of ``dicetable replay``."""
    for _, event in game_events(list(journal.entries())):
        yield json.dumps(event, sort_keys=True, separators=(",", ":"))
