"""The hash chain: each journal row carries the SHA-256 of the row before it.

Why: an edited row no longer hashes to what its successor recorded, and a
deleted row leaves a gap in the sequence and a successor whose ``prev_hash``
names a row that is not there. The hash covers everything a row says (its
number, time, kind and event) so no field can be changed unnoticed.
"""
from __future__ import annotations

import hashlib
import json
from typing import Any

GENESIS = "0" * 64
"""The ``prev_hash`` of the first row: there is no row before it."""


def canonical_json(event: Any) -> str:
    """One spelling per event, so the same event always hashes the same: JSON itself, with no
    ``NaN`` or ``Infinity`` (which JSON does not have): ``ValueError`` for those."""
    return json.dumps(event, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def comparable_json(event: Any) -> str:
    """The canonical spelling for comparing two events, also events that hold ``NaN`` or
    ``Infinity``: a journal written before those were refused at the door keeps them, and its
    replay must still compare them with what the code computes."""
    return json.dumps(event, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def unstorable(event: Any) -> str | None:
    """Why the journal cannot keep ``event`` as it is, or None when it can: JSON must spell it (no
    value of another type, no number that is not finite, no nesting too deep) and that spelling
    must be UTF-8 (no half of a UTF-16 pair)."""
    try:
        canonical_json(event).encode("utf-8")
    except TypeError as exc:
        return f"holds a value JSON cannot spell ({exc})"
    except RecursionError:
        return "nested too deeply"
    except UnicodeError:
        return "holds half of a UTF-16 pair (a lone surrogate), which is no character"
    except ValueError as exc:
        if "Out of range float" in str(exc):
            return "holds a number that is not finite (NaN or infinity), which JSON does not have"
        return f"cannot be spelt as JSON ({exc})"
    return None


def storable(event: Any) -> bool:
    """Whether the journal can keep ``event`` as it is (:func:`unstorable` says why not)."""
    return unstorable(event) is None


def entry_hash(prev_hash: str, seq: int, ts: str, kind: str, event_json: str) -> str:
    """SHA-256 (hex) of one row, chained to its predecessor's hash."""
    material = "\n".join((prev_hash, str(seq), ts, kind, event_json)).encode("utf-8")
    return hashlib.sha256(material).hexdigest()
