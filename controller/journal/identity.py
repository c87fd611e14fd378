"""Who a journal is: the table it belongs to, its own id, and the journal before it (pure).

Why in the first row: a journal is its own evidence. The first row of every new journal, the table
header, names the table (``table``: its id on the floor, None without a floor), the journal's own
id (``id``: 32 random hex digits, unique however alike two tables' first rows are) and the journal
it continues (``after``: that journal's first row's hash, its own id, and its last row's seq and
hash, signed with the table's key when it has one), as ``journal archive`` hands them over
(:mod:`controller.journal.handover`). The floor links each table's journals into one line by
``after``; a journal that names no predecessor, or one the floor's copy does not end at, does not
continue it. ``reason`` says why the journal before was archived with rows the floor never
acknowledged (``journal archive --force --reason``).

A journal written before journals named themselves has none of these keys: every field is None,
and it verifies, replays and publishes as it always did. Nothing here changes what the rules
engine replays (the header is no game event).

    >>> header = {"event": "table", "game": "craps", "rules": {}, "table": "craps-3", "id": "ab" * 16, "after": None}
    >>> table_of(header), identity_of({"event": "table", "game": "craps"}).table
    ('craps-3', None)
"""
from __future__ import annotations

import json
import re
import secrets
from dataclasses import dataclass
from typing import Any, Mapping

#: A journal's own id: 16 random bytes in hex.
OWN_ID = re.compile(r"[0-9a-f]{32}")
#: A row's hash (and so a journal's first row's hash): SHA-256 in hex.
HASH = re.compile(r"[0-9a-f]{64}")
#: The longest reason ``journal archive --force --reason`` writes into the next journal's first row.
MAX_REASON = 500


@dataclass(frozen=True)
class Predecessor:
    """The journal a new journal continues: its first row's hash (``journal``, what the floor and
    its topics call it), its own id (None for one written before journals had one), and its last
    row (``seq``, ``head``); ``key`` and ``sig`` are the table's public key and its signature of
    :func:`archived_material`, when the table has a key."""

    journal: str
    seq: int
    head: str
    id: str | None = None
    key: str | None = None
    sig: str | None = None

    def to_json(self) -> dict[str, Any]:
        found: dict[str, Any] = {"journal": self.journal, "id": self.id, "seq": self.seq, "head": self.head}
        if self.key is not None and self.sig is not None:
            found.update(key=self.key, sig=self.sig)
        return found

    @classmethod
    def from_json(cls, value: Any) -> "Predecessor | None":
        """The predecessor ``value`` names, or None when it is not one (of the wrong shape)."""
        if not isinstance(value, Mapping):
            return None
        journal, seq, head = value.get("journal"), value.get("seq"), value.get("head")
        own, key, sig = value.get("id"), value.get("key"), value.get("sig")
        if not (isinstance(journal, str) and HASH.fullmatch(journal) and isinstance(head, str) and HASH.fullmatch(head)
                and isinstance(seq, int) and not isinstance(seq, bool) and seq >= 1):
            return None
        return cls(journal, seq, head, own if isinstance(own, str) and OWN_ID.fullmatch(own) else None,
                   key if isinstance(key, str) else None, sig if isinstance(sig, str) else None)


@dataclass(frozen=True)
class Identity:
    """What a journal's first row says of it; every field None for a journal written before."""

    table: str | None
    id: str | None
    after: Predecessor | None
    reason: str | None


def identity_of(header: Mapping[str, Any] | None) -> Identity:
    """The identity the first row's event ``header`` names: what is missing or of the wrong kind is None."""
    header = header if isinstance(header, Mapping) else {}
    table, own, reason = header.get("table"), header.get("id"), header.get("reason")
    return Identity(table if isinstance(table, str) and table else None,
                    own if isinstance(own, str) and OWN_ID.fullmatch(own) else None,
                    Predecessor.from_json(header.get("after")),
                    reason if isinstance(reason, str) and reason else None)


def table_of(header: Mapping[str, Any] | None) -> str | None:
    """The table id a journal's first row (its event, ``header``) names; None for a table without a
    floor, or a journal written before first rows named their table."""
    return identity_of(header).table


def identity_fields(table: str | None, after: Predecessor | None, reason: str | None = None) -> dict[str, Any]:
    """The keys a new journal's header gets: its table, a new own id, its predecessor and, after a
    forced archive, the reason."""
    fields: dict[str, Any] = {"table": table, "id": secrets.token_hex(16),
                              "after": after.to_json() if after is not None else None}
    if reason:
        fields["reason"] = reason
    return fields


def archived_material(journal: str, seq: int, head: str) -> bytes:
    """What a table signs when its journal ``journal`` (first row's hash) is archived at row ``seq``
    (hash ``head``): the floor checks it with the table's key before it takes the next journal as
    that one's successor."""
    return json.dumps({"signed": "archived", "journal": journal, "seq": seq, "head": head},
                      sort_keys=True, separators=(",", ":")).encode()
