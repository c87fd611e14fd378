"""The floor's MQTT topics and what travels on them (pure: names and payloads, no I/O).

Why one module: the publisher at each table, the floor service and the broker's ACL
(docs/floor.md) must agree on every name; a table id becomes part of a topic, so it is
checked here once for the characters MQTT gives a meaning (``/``, ``+``, ``#``).

Topics (``<table>`` is the table id, ``<journal>`` the hash of the journal's first row):

- ``dicetable/table/<table>/row/<journal>``: every journal row, the line ``journal export`` prints (QoS 1).
- ``dicetable/table/<table>/status``: retained, what the table is doing (:func:`status_payload`).
- ``dicetable/table/<table>/online``: retained ``online`` (birth) or ``offline`` (last will, clean exit).
- ``dicetable/floor/ack/<table>``: retained, written by the floor only: the last row it holds
  (:class:`Ack`); with ``"resend": true`` it asks the table to send again from the row after it.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

ROOT = "dicetable"
ONLINE = "online"
OFFLINE = "offline"
#: What a table id may be: it is a topic level and a broker user name.
TABLE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
#: A journal is named by its first row's SHA-256 (hex).
JOURNAL_ID = re.compile(r"[0-9a-f]{64}")


class PayloadError(ValueError):
    """A message the floor or a table cannot take as what its topic says it is."""


def table_id_problem(value: Any) -> str | None:
    """Why ``value`` cannot be a table id, or None."""
    if not isinstance(value, str) or not TABLE_ID.fullmatch(value):
        return (f"must be 1 to 64 letters, digits, '-', '_' or '.', starting with a letter or digit "
                f"(it names the table's topics and its broker user; got {value!r})")
    return None


def row_topic(table: str, journal: str) -> str:
    return f"{ROOT}/table/{table}/row/{journal}"


def status_topic(table: str) -> str:
    return f"{ROOT}/table/{table}/status"


def online_topic(table: str) -> str:
    return f"{ROOT}/table/{table}/online"


def ack_topic(table: str) -> str:
    return f"{ROOT}/floor/ack/{table}"


#: The largest message the floor takes on each kind of a table's topic, in bytes. A journal row is
#: about 450 bytes (a read, with each die's box, about 1 KiB; a table's input line at most 64 KiB);
#: a status about 400; the online word 7. What is larger is refused unread, so that one table (or
#: whoever has its broker login) cannot fill the floor's memory, database or pages: a row with an
#: alert (``oversized``), a status or online word with an error in the log, once until one fits.
#: The broker's own limit (docs/floor.md, "The broker") stays above these.
MAX_BYTES = {"row": 256 * 1024, "status": 16 * 1024, "online": 64}


def size_limit(topic: str) -> int:
    """The largest message the floor takes on ``topic`` (:data:`MAX_BYTES`; any other topic: the largest)."""
    try:
        return MAX_BYTES[parse_table_topic(topic).kind]
    except PayloadError:
        return max(MAX_BYTES.values())


#: A table sends a status at least every minute; one not heard for this long (``dicetable floor
#: --silent-after``'s default), whose last word was not its clean stop, is silent.
SILENT_AFTER_S = 120

#: What the floor subscribes to.
FLOOR_SUBSCRIPTIONS = (f"{ROOT}/table/+/row/+", f"{ROOT}/table/+/status", f"{ROOT}/table/+/online")


@dataclass(frozen=True)
class TableTopic:
    """A topic a table publishes on, taken apart: its table, what it carries, and (rows) the journal."""

    table: str
    kind: str  # "row", "status" or "online"
    journal: str | None = None


def parse_table_topic(topic: str) -> TableTopic:
    """The parts of a table's topic; :class:`PayloadError` for any other."""
    parts = topic.split("/")
    if len(parts) == 5 and parts[:2] == [ROOT, "table"] and parts[3] == "row" and JOURNAL_ID.fullmatch(parts[4]):
        kind = "row"
    elif len(parts) == 4 and parts[:2] == [ROOT, "table"] and parts[3] in ("status", "online"):
        kind = parts[3]
    else:
        raise PayloadError(f"not a table's topic: {topic!r}")
    if table_id_problem(parts[2]):
        raise PayloadError(f"not a table id in {topic!r}")
    return TableTopic(parts[2], kind, parts[4] if kind == "row" else None)


@dataclass(frozen=True)
class Ack:
    """The floor's word to one table: it holds ``journal`` up to row ``seq`` (hash ``hash``);
    ``resend``: it saw a gap, send again from ``seq + 1``. ``seq`` 0 holds nothing of it yet."""

    journal: str
    seq: int
    hash: str | None = None
    resend: bool = False

    def payload(self) -> bytes:
        body: dict[str, Any] = {"journal": self.journal, "seq": self.seq, "hash": self.hash}
        if self.resend:
            body["resend"] = True
        return json.dumps(body, sort_keys=True, separators=(",", ":")).encode()

    @classmethod
    def parse(cls, payload: bytes) -> "Ack":
        try:
            body = _json(payload)
            journal, seq, digest = body["journal"], body["seq"], body.get("hash")
        except (ValueError, TypeError, KeyError, UnicodeDecodeError) as exc:
            raise PayloadError(f"not an acknowledgement: {exc}") from None
        if not (isinstance(journal, str) and JOURNAL_ID.fullmatch(journal) and isinstance(seq, int)
                and not isinstance(seq, bool) and seq >= 0 and (digest is None or isinstance(digest, str))):
            raise PayloadError("not an acknowledgement: journal, seq or hash of the wrong kind")
        return cls(journal, seq, digest, body.get("resend") is True)


def status_payload(status: dict[str, Any]) -> bytes:
    """A table's status as its retained message (JSON, keys sorted)."""
    return json.dumps(status, sort_keys=True, separators=(",", ":")).encode()


def _json(payload: bytes) -> Any:
    """The JSON of a message a table or the floor sent; ``ValueError`` also for one nested too
    deeply to read (a ``RecursionError`` would stop the thread reading it) and for ``NaN`` or
    ``Infinity``, which JSON does not have and the floor could not write back out."""
    def not_finite(word: str) -> Any:
        raise ValueError(f"{word} is not a JSON number")

    try:
        return json.loads(payload, parse_constant=not_finite, parse_float=_finite)
    except RecursionError:
        raise ValueError("nested too deeply") from None


def _finite(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"{text} is too large a number")
    return value


def parse_status(payload: bytes) -> dict[str, Any]:
    """A status message as a dict; :class:`PayloadError` when it is not one (nor JSON, nor finite)."""
    try:
        status = _json(payload)
    except (ValueError, UnicodeDecodeError) as exc:
        raise PayloadError(f"not a status: {exc}") from None
    if not isinstance(status, dict):
        raise PayloadError("not a status: not a JSON object")
    return status
