"""The table with its journal: write the input, step, write the effects.

Why this order: an input is committed before anything happens because of
it, so a power cut can lose at most an input that never took effect; the
effects follow in one transaction. Recovery replays every input through the
same pure :func:`controller.table.flow.step`, checks that the journaled
effects are exactly what the code computes (so a roll is never settled
twice nor differently), and completes the effects of a last input whose
effects the cut prevented from being written (so nothing settled is lost).

The chain is verified before the replay: an altered journal is refused, not
replayed. The first row of a journal says which game and which rules it holds
(``{"event": "table", "game": ..., "rules": {...}}``); a journal is never
replayed under other rules.
"""
from __future__ import annotations

import json
import logging
from typing import Any, Callable, Mapping

from controller.journal import EFFECT, INPUT, ORIGIN, Entry, Journal, JournalError, verify
from controller.journal.chain import canonical_json, storable
from controller.rules import TableConfig
from controller.table import flow
from controller.table.flow import Step, TableState

log = logging.getLogger(__name__)

PROGRESS_EVERY = 5000
"""Rows between two progress reports of a replay."""
SENDER = ("user", ORIGIN)
"""The fields of an input that say who sent it (a console user) and how."""


class JournalMismatch(JournalError):
    """The journal does not fit this table (other game or rules) or disagrees with the code."""


def _plain(data: Any) -> Any:
    return json.loads(json.dumps(data))


def _journalable(event: Any) -> dict[str, Any]:
    """The input as the journal can keep it. What JSON cannot hold (a value of another type, half
    of a UTF-16 pair) goes in as a ``malformed`` input with a printable copy, which the table
    refuses: an input that cannot be journaled must not stop the table."""
    if not isinstance(event, Mapping):
        return {"event": None, "raw": repr(event)}
    try:
        journaled = _plain(dict(event))
    except (TypeError, ValueError, RecursionError):
        return _malformed(event)
    return journaled if storable(journaled) else _malformed(event)


def _malformed(event: Mapping[str, Any]) -> dict[str, Any]:
    """The ``malformed`` input standing for ``event``, still naming who sent it and how (the
    console's ``user`` and ``via``) when those can be kept: `journal recall` shows who made
    every console input, a malformed one too."""
    kept = {key: event[key] for key in SENDER if isinstance(event.get(key), str) and storable(event[key])}
    return {**flow.malformed_event(repr(dict(event))), **kept}


def _comparable(effect: dict[str, Any]) -> str:
    """An effect as recovery compares it: everything, except the wording of a refusal's reason
    (a clearer message in a newer version must not stop a table; what was refused, and under
    which rule, must still match)."""
    if effect.get("event") == "rejected":
        effect = {k: v for k, v in effect.items() if k != "reason"}
    return canonical_json(effect)


def table_header(game: str, config: TableConfig) -> dict[str, Any]:
    return {"event": "table", "game": game, "rules": _plain(config.to_dict())}


def fitting_entries(journal: Journal, game: str, config: TableConfig) -> list[Entry]:
    """The journal's rows, once its chain is intact and its first row is the header of ``game``
    under ``config`` (an empty journal: no rows); otherwise :class:`JournalMismatch`, saying why
    and what to do. It writes nothing, so ``dicetable run --check`` asks it too."""
    report = verify(journal)
    if not report.ok:
        raise JournalMismatch(
            f"{journal.path}: the hash chain is broken at row {report.broken_seq} ({report.reason}); "
            "the table will not replay an altered journal (see `dicetable journal verify`)"
        )
    entries = list(journal.entries())
    if not entries:
        return entries
    first = entries[0].event
    if first.get("event") != "table":
        raise JournalMismatch(f"{journal.path}: row 1 is not a table header")
    if first.get("game") != game:
        raise JournalMismatch(
            f"{journal.path} holds a {first.get('game')} table, not {game}; "
            "use another state directory, or archive this journal (`dicetable journal archive --to DIR`), "
            "to change the game"
        )
    configured = table_header(game, config)["rules"]
    if first.get("rules") != configured:
        differ = ", ".join(_differing_keys(first.get("rules"), configured))
        raise JournalMismatch(
            f"{journal.path} was started under other rules (limits or layout options: {differ}); "
            "archive it (`dicetable journal archive --to DIR`) to start a table under the new ones"
        )
    return entries


def replayed(entries: list[Entry]) -> TableState:
    """The table a journal's rows leave, replayed under the journal's own header (the game and the
    rules it was started with) without writing anything: a look at a journal no table holds, such as
    ``journal archive`` takes before it moves one away."""
    header = entries[0].event
    state = flow.new_table(header["game"], TableConfig.from_dict(header.get("rules", {})))
    for entry in entries[1:]:
        if entry.kind == INPUT:
            state = flow.step(state, entry.event).state
    return state


def _differing_keys(journaled: Any, configured: Any, prefix: str = "") -> list[str]:
    """The dotted keys of the rules whose values differ between the journal's header and the
    configuration (``limits.place.6``): "other rules" alone sent the operator through every key."""
    if isinstance(journaled, dict) and isinstance(configured, dict):
        return [key for name in sorted(set(journaled) | set(configured), key=str)
                if journaled.get(name) != configured.get(name)
                for key in _differing_keys(journaled.get(name), configured.get(name), f"{prefix}{name}.")]
    return [prefix.rstrip(".") or "rules"]


class JournaledTable:
    """One table: its state, always equal to the replay of its journal."""

    def __init__(self, journal: Journal, state: TableState, *, replayed: int = 0, completed: int = 0):
        self.journal = journal
        self.state = state
        self.replayed = replayed
        """How many inputs the recovery replayed."""
        self.completed = completed
        """How many effect rows the recovery had to write for an input cut off by a crash."""
        self.last_rows: tuple[Entry, ...] = ()
        """The journal rows the last :meth:`submit` wrote: its input row, then its effect rows."""

    @classmethod
    def open(cls, journal: Journal, game: str, config: TableConfig,
             progress: Callable[[int, int], None] | None = None) -> "JournaledTable":
        """Recover the table from its journal (a new journal starts with the table header).

        ``progress(done, total)`` is called every :data:`PROGRESS_EVERY` rows of a long replay
        (the service uses it to keep systemd's start timeout from expiring).
        """
        entries = fitting_entries(journal, game, config)
        if not entries:
            journal.append(table_header(game, config), INPUT)
            return cls(journal, flow.new_table(game, config))
        state = flow.new_table(game, config)
        index, replayed, completed = 1, 0, 0
        next_report = PROGRESS_EVERY
        while index < len(entries):
            if progress is not None and index >= next_report:
                progress(index, len(entries))
                next_report += PROGRESS_EVERY
            entry = entries[index]
            if entry.kind != INPUT:
                raise JournalMismatch(f"{journal.path}: row {entry.seq} is an effect with no input before it")
            end = index + 1
            while end < len(entries) and entries[end].kind == EFFECT:
                end += 1
            recorded = [_comparable(e.event) for e in entries[index + 1 : end]]
            result = flow.step(state, entry.event)
            expected = [_comparable(_plain(e)) for e in result.effects]
            if recorded != expected:
                if end == len(entries) and not recorded:
                    journal.append_many([_plain(e) for e in result.effects], EFFECT)
                    completed = len(expected)
                    log.warning("completed %d effect rows of input row %d cut off by a stop", completed, entry.seq)
                else:
                    raise JournalMismatch(
                        f"{journal.path}: the effects journaled after row {entry.seq} differ from what the "
                        "rules compute now; the journal or the program changed"
                    )
            state = result.state
            replayed += 1
            index = end
        return cls(journal, state, replayed=replayed, completed=completed)

    def submit(self, event: Mapping[str, Any]) -> Step:
        """Journal ``event``, apply it, journal its effects; a refusal changes nothing but the journal."""
        # What is applied is exactly what was journaled, so the replay applies the same thing.
        journaled = _journalable(event)
        rows = [self.journal.append(journaled, INPUT)]
        result = flow.step(self.state, journaled)
        if result.effects:
            rows += self.journal.append_many([_plain(e) for e in result.effects], EFFECT)
        self.state = result.state
        self.last_rows = tuple(rows)
        if not result.accepted:
            log.warning("refused %s: %s", journaled, result.effects[0].get("reason"))
        return result
