"""A dealer's request as a table input: the event its body names, held to the fields
docs/events.md lists for it, before anything reaches the table.

Three outcomes (:func:`read_event`):

- the body is no JSON object naming one of the events its URL takes: :class:`NotAnInput`, a 422
  and nothing journaled (it never was an input of the table);
- it names the event but carries a field docs/events.md does not list for it, or a value longer
  than a field's value can be (:data:`MAX_VALUE`): :class:`Refused`, whose ``stand_in`` is the
  ``malformed`` input the table journals and refuses in its place, keeping the start of the body,
  its length and its SHA-256 (never the body whole: a refusal costs the journal a few hundred bytes,
  whatever was sent);
- otherwise the event, ``user`` and ``via`` left out (the console sets them, whatever was sent).
"""
from __future__ import annotations

import hashlib
import json
from typing import Any

from controller.table import malformed_event

#: The fields of each input the console takes, as docs/events.md lists them (besides ``event``).
FIELDS: dict[str, tuple[str, ...]] = {
    "bet": ("seat", "bet", "number", "amount", "on"),
    "remove": ("seat", "bet", "number", "on"),
    "lock": (),
    "confirm": (),
    "void": (),
    "manual": ("dice",),
    "next_shooter": ("seat",),
}
#: Fields of a request the console sets itself, whatever the browser sent.
OURS = ("user", "via")
#: The longest a field's value may be, written as JSON (three dice, a seat's name, an amount).
MAX_VALUE = 64


class NotAnInput(ValueError):
    """A body that is not one of the events its URL takes (never journaled)."""


class Refused(ValueError):
    """An event with a field it does not take: ``stand_in`` is journaled and refused in its place."""

    def __init__(self, problem: str, stand_in: dict[str, Any]):
        super().__init__(problem)
        self.stand_in = stand_in


def read_event(body: bytes, allowed: tuple[str, ...], path: str) -> dict[str, Any]:
    """The event of a request's ``body`` sent to ``path``, which takes the events ``allowed`` (the
    first is implied when the body names none and it is the only one)."""
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        data = None
    if not isinstance(data, dict):
        raise NotAnInput(f"{path} takes one JSON object, as in docs/events.md")
    name = data.get("event", allowed[0] if len(allowed) == 1 else None)
    if name is None and "event" not in data:
        raise NotAnInput(f"{path} names no event: send one of {', '.join(repr(a) for a in allowed)}")
    if name not in allowed:
        raise NotAnInput(f"{path} takes {' or '.join(repr(a) for a in allowed)} events, not {name!r}")
    fields = FIELDS[name]
    event = {key: value for key, value in data.items() if key not in OURS and key != "event"}
    problem = next((_unknown(key, name, fields) for key in event if key not in fields), None)
    if problem is None:
        problem = next((f"the value of {key} is {length} characters long as JSON, more than the {MAX_VALUE} "
                        f"a value of {name} may have" for key, value in event.items()
                        if (length := len(json.dumps(value))) > MAX_VALUE), None)
    if problem is not None:
        text = body.decode("utf-8", "backslashreplace")
        kept = {"bytes": len(body), "sha256": hashlib.sha256(body).hexdigest()} if len(text) > 200 else {}
        raise Refused(problem, malformed_event(text, problem, **kept))
    return {**event, "event": name}


def _unknown(key: str, name: str, fields: tuple[str, ...]) -> str:
    takes = f"takes {', '.join(fields)}" if fields else "takes no field"
    return f"{name} has no field {key[:40]!r} (docs/events.md: it {takes}, besides event)"
