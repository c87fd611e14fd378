"""The event stream (``dicetable run --events FILE``): table inputs as JSON lines, read in a thread
of its own onto the table's input queue.

- :func:`read_events` -- the reader, holding back while the table is behind.
- :func:`stream_event` -- one line as a table input (a line that is no event a ``malformed`` one).
- :func:`streamed_inputs` -- how many of a journal's inputs came from a stream (what ``--resume`` skips).
"""
from __future__ import annotations

import queue
from typing import Any, Mapping

from controller.journal import INPUT, ORIGIN, Journal
from controller.jsonlines import Line, read_lines
from controller.table import malformed_event

#: Every input read from ``--events`` carries ``"via": "stream"`` (:data:`ORIGIN`) into the journal,
#: so that ``--resume`` skips exactly the lines already taken: the table's other inputs (the buttons,
#: the camera, the hazard cage's motor saying ``spin_done``) are journaled too, and counting them as
#: lines skipped lines never played.
STREAM = "stream"


def streamed_inputs(journal: Journal) -> int:
    """How many of ``journal``'s inputs came from an event stream (what ``--resume`` skips)."""
    return sum(1 for entry in journal.entries()
               if entry.kind == INPUT and entry.event.get(ORIGIN) == STREAM)


#: How many inputs may wait on the table's queue before the reader of an event stream reads on: the
#: table commits each input to disk, the reader parses far faster, and without a bound a file of a
#: million lines waited whole in memory (about 1 KiB a line).
STREAM_AHEAD = 256


def read_events(stream: Any, inputs: "queue.Queue[Mapping[str, Any] | None]", *, skip: int = 0,
                end_with_none: bool = False, ahead: int = STREAM_AHEAD) -> int:
    """Put each line of ``stream`` (:func:`controller.jsonlines.read_lines`) on ``inputs``, marked as
    from :data:`STREAM` (after skipping ``skip`` of them); returns how many. It waits while ``ahead``
    inputs wait on ``inputs`` (the other inputs, buttons and camera, never wait for room).

    A line that is not an event is still an input: it goes in as ``{"event": "malformed", ...}``
    (:func:`stream_event`), so the journal records it and the table refuses it with the reason,
    and nothing is lost; the lines after it are read as usual.
    """
    count = 0
    for line in read_lines(stream):
        count += 1
        if count <= skip:
            continue
        with inputs.not_full:  # notified by every get()
            inputs.not_full.wait_for(lambda: inputs._qsize() < ahead)
        inputs.put({**stream_event(line), ORIGIN: STREAM})
    if end_with_none:
        inputs.put(None)
    return count


def stream_event(line: Line) -> dict[str, Any]:
    """A line of an event stream as a table input: its event, or a ``malformed`` one that keeps what
    the refusal keeps of the line (a printable start; the length and SHA-256 of one too long) and why."""
    if line.event is not None:
        return line.event
    refusal = line.refusal
    assert refusal is not None
    return malformed_event(refusal.text, refusal.reason, **{k: v for k, v in refusal.fields().items() if k != "line"})
