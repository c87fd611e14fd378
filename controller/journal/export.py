"""The journal as JSON lines, for auditors and for ``dicetable replay``.

Full rows carry their hashes so an export can be checked against the live
journal later; ``events_only`` gives the bare events, one per line, in the
format of ``docs/events.md``.
"""
from __future__ import annotations

import json
from typing import Iterator

from controller.journal.store import INPUT, Journal


def export_lines(journal: Journal, *, events_only: bool = False, inputs_only: bool = False) -> Iterator[str]:
    """One JSON text per row, in order."""
    for entry in journal.entries():
        if inputs_only and entry.kind != INPUT:
            continue
        payload = entry.event if events_only else entry.to_json()
        yield json.dumps(payload, sort_keys=True, separators=(",", ":"))
