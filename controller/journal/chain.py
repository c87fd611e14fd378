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


def canonical_json(event: dict[str, Any] | list[Any]) -> str:
    """One spelling per event (or stored row), so the same event always hashes the same."""
    return json.dumps(event, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def storable(event: Any) -> bool:
    """Whether the journal can keep ``event`` as it is: JSON can spell it (no value of another
    type, no nesting too deep) and that spelling is UTF-8 (no half of a UTF-16 pair)."""
    try:
        canonical_json(event).encode("utf-8")
    except (TypeError, ValueError, UnicodeError, RecursionError):
        return False
    return True


def entry_hash(prev_hash: str, seq: int, ts: str, kind: str, event_json: str) -> str:
    """SHA-256 (hex) of one row, chained to its predecessor's hash."""
    material = "\n".join((prev_hash, str(seq), ts, kind, event_json)).encode("utf-8")
    return hashlib.sha256(material).hexdigest()
