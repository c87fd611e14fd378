"""What ``journal archive`` leaves for the next journal: ``journal.next`` beside the journal.

Why a file: the journal that follows an archive is begun by the next start of the table, after
the archived one has left the state directory, and its first row must name it
(:mod:`controller.journal.identity`). ``archive`` writes the file (synced) before it removes the
journal; the first start that begins a new journal writes what it says into the header and then
removes it. A handover left beside a journal that goes on (a power cut after the handover was
written, before the journal went) names a row that journal has passed: the floor takes a journal
that follows it as not continuing its line, which is the truth.
"""
from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path

from controller.journal.identity import MAX_REASON, Predecessor
from controller.journal.paths import sync_folder

log = logging.getLogger(__name__)

HANDOVER_FILE = "journal.next"


@dataclass(frozen=True)
class Handover:
    """The journal archived last (``after``) and, after ``archive --force --reason``, why."""

    after: Predecessor
    reason: str | None = None


def handover_path(journal_path: Path) -> Path:
    """The handover beside the journal ``journal_path``."""
    return journal_path.with_name(HANDOVER_FILE)


def write_handover(journal_path: Path, handover: Handover) -> None:
    """Leave ``handover`` beside ``journal_path`` in one rename, on disk before this returns."""
    path = handover_path(journal_path)
    partial = path.with_name(f".{HANDOVER_FILE}.part")
    body = {"after": handover.after.to_json(), "reason": (handover.reason or "")[:MAX_REASON] or None}
    with open(partial, "w", encoding="utf-8") as out:
        out.write(json.dumps(body, sort_keys=True) + "\n")
        out.flush()
        os.fsync(out.fileno())
    os.replace(partial, path)
    sync_folder(path.parent)


def read_handover(journal_path: Path) -> Handover | None:
    """The handover beside ``journal_path``; None when there is none, or it cannot be read (logged:
    the new journal then names no predecessor, and the floor says it does not continue its line)."""
    path = handover_path(journal_path)
    try:
        body = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        log.warning("cannot read %s (%s): the new journal names no journal before it", path, exc)
        return None
    after = Predecessor.from_json(body.get("after") if isinstance(body, dict) else None)
    if after is None:
        log.warning("%s names no journal: the new journal names no journal before it", path)
        return None
    reason = body.get("reason")
    return Handover(after, reason if isinstance(reason, str) and reason else None)


def clear_handover(journal_path: Path) -> None:
    """Remove the handover once a new journal's header holds it."""
    try:
        handover_path(journal_path).unlink(missing_ok=True)
    except OSError as exc:  # it names a journal the new one has already named: harmless if left
        log.warning("cannot remove %s: %s", handover_path(journal_path), exc)
