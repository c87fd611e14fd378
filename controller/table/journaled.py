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
replayed under other rules. A new journal's first row also names the table, its own id and the
journal before it (:mod:`controller.journal.identity`); a journal written before first rows did is
replayed as it always was.
"""
from __future__ import annotations

import json
import logging
import reprlib
from typing import Any, Callable, Iterator, Mapping

from controller.journal import EFFECT, INPUT, ORIGIN, Entry, Journal, JournalError, verify
from controller.journal.chain import INPUT_LEVELS, comparable_json, deeper_than, storable, unstorable
from controller.journal.handover import clear_handover, read_handover
from controller.journal.identity import identity_fields
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


#: How an input nested too deeply is copied: its first levels and items (200 characters are kept),
#: never a walk down all of it.
_BRIEF = reprlib.Repr()
_BRIEF.maxlevel, _BRIEF.maxdict, _BRIEF.maxlist, _BRIEF.maxstring, _BRIEF.maxother = 8, 20, 20, 200, 200


def _plain(data: Any) -> Any:
    return json.loads(json.dumps(data))


def _journalable(event: Any) -> dict[str, Any]:
    """The input as the journal can keep it. What JSON cannot hold (a value of another type, a
    number that is not finite, half of a UTF-16 pair), and an event nested deeper than
    :data:`~controller.journal.chain.INPUT_LEVELS`, goes in as a ``malformed`` input with a
    printable copy and the reason, which the table refuses: an input that cannot be journaled,
    logged and replayed wherever the stack stands must not stop the table."""
    if not isinstance(event, Mapping):
        return {"event": None, "raw": repr(event)}
    if deeper_than(dict(event)):
        return _malformed(event, f"an event nested too deeply (more than {INPUT_LEVELS} levels)",
                          _BRIEF.repr(dict(event)))
    problem = unstorable(dict(event))
    if problem is not None:
        return _malformed(event, f"an event that {problem}")
    return _plain(dict(event))


def _malformed(event: Mapping[str, Any], problem: str, text: str | None = None) -> dict[str, Any]:
    """The ``malformed`` input standing for ``event``, with why, still naming who sent it and how
    (the console's ``user`` and ``via``) when those can be kept: `journal recall` shows who made
    every console input, a malformed one too."""
    kept = {key: event[key] for key in SENDER if isinstance(event.get(key), str) and storable(event[key])}
    return {**flow.malformed_event(repr(dict(event)) if text is None else text, problem), **kept}


def _comparable(effect: dict[str, Any]) -> str:
    """An effect as recovery compares it: everything, except the wording of a refusal's reason
    (a clearer message in a newer version must not stop a table; what was refused, and under
    which rule, must still match)."""
    if effect.get("event") == "rejected":
        effect = {k: v for k, v in effect.items() if k != "reason"}
    return comparable_json(effect)


def table_header(game: str, config: TableConfig) -> dict[str, Any]:
    return {"event": "table", "game": game, "rules": _plain(config.to_dict())}


def fitting_rows(journal: Journal, game: str, config: TableConfig) -> int:
    """How many rows the journal holds, once its chain is intact, it holds the last row its writer
    committed, and its first row is the header of ``game`` under ``config`` (an empty journal: 0);
    otherwise :class:`JournalMismatch`, saying why and what to do. It writes nothing, so
    ``dicetable run --check`` asks it too; it reads the rows a page at a time."""
    report = verify(journal)
    if not report.ok:
        raise JournalMismatch(
            f"{journal.path}: the journal fails its check at row {report.broken_seq} ({report.reason}); "
            "the table will not replay an altered or shortened journal (see `dicetable journal verify`)"
        )
    if not report.rows:
        return 0
    first = _header(journal)
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
    return report.rows


def _header(journal: Journal) -> dict[str, Any]:
    """The event of the journal's first row (an empty dict for one that is not an object)."""
    first = journal.first_entry()
    return first.event if first is not None and isinstance(first.event, dict) else {}


def rounds(journal: Journal) -> Iterator[tuple[Entry, list[Entry], bool]]:
    """The journal's rows after its header as rounds: each input row, the effect rows that follow it,
    and whether it is the journal's last round. One row is read ahead, so a journal of any length
    is walked in the memory of one round; an effect row with no input before it is
    :class:`JournalMismatch`."""
    reading = journal.entries(since=1)
    try:
        ahead = next(reading, None)
        while ahead is not None:
            entry = ahead
            if entry.kind != INPUT:
                raise JournalMismatch(f"{journal.path}: row {entry.seq} is an effect with no input before it")
            effects: list[Entry] = []
            ahead = next(reading, None)
            while ahead is not None and ahead.kind == EFFECT:
                effects.append(ahead)
                ahead = next(reading, None)
            yield entry, effects, ahead is None
    finally:
        reading.close()


def replayed(journal: Journal) -> TableState:
    """The table a journal's rows leave, replayed under the journal's own header (the game and the
    rules it was started with) without writing anything: a look at a journal no table holds, such as
    ``journal archive`` takes before it moves one away. ``ValueError`` (``KeyError`` and the rules'
    ``ConfigError`` among them) when its header is none."""
    header = _header(journal)
    if header.get("event") != "table":
        raise ValueError("row 1 is not a table header")
    state = flow.new_table(header["game"], TableConfig.from_dict(header.get("rules", {})))
    for entry in journal.entries(since=1):
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


def _complete(journal: Journal, seq: int, effects: list[dict[str, Any]]) -> None:
    """Write the effects of input row ``seq``, which a stop cut off. An input journaled before numbers
    that are not finite were refused at the door may give effects that hold one, which journals no
    longer keep: the start is refused, naming the row, rather than write what is not JSON."""
    problems = [problem for problem in map(unstorable, effects) if problem]
    if problems:
        raise JournalMismatch(
            f"{journal.path}: the effects of row {seq}, cut off by the last stop, cannot be written: one "
            f"{problems[0]}, which a journal no longer keeps; archive this journal (`dicetable journal archive "
            "--to DIR`, with --force if bets are on the layout) and start a new one")
    journal.append_many(effects, EFFECT)


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
             progress: Callable[[int, int], None] | None = None, table_id: str | None = None) -> "JournaledTable":
        """Recover the table from its journal. A new journal starts with the table header, which names
        the table (``table_id``, its id on the floor), the journal's own id and the journal archived
        before it, as ``journal archive`` handed it over (:mod:`controller.journal.handover`).

        The rows are read a page at a time and replayed a round at a time (:func:`rounds`), so the
        memory a recovery takes does not grow with the journal. ``progress(done, total)`` is called
        every :data:`PROGRESS_EVERY` rows of a long replay (the service uses it to keep systemd's
        start timeout from expiring).
        """
        total = fitting_rows(journal, game, config)
        if not total:
            handover = read_handover(journal.path)
            journal.append(table_header(game, config) | identity_fields(
                table_id, handover.after if handover else None, handover.reason if handover else None), INPUT)
            if handover is not None:
                clear_handover(journal.path)
            return cls(journal, flow.new_table(game, config))
        state = flow.new_table(game, config)
        replayed = completed = 0
        next_report = PROGRESS_EVERY
        for entry, effects, last in rounds(journal):
            if progress is not None and entry.seq >= next_report:
                progress(entry.seq, total)
                next_report += PROGRESS_EVERY
            recorded = [_comparable(e.event) for e in effects]
            result = flow.step(state, entry.event)
            expected = [_comparable(_plain(e)) for e in result.effects]
            if recorded != expected:
                if not (last and not recorded):
                    raise JournalMismatch(
                        f"{journal.path}: the effects journaled after row {entry.seq} differ from what the "
                        "rules compute now; the journal or the program changed"
                    )
                _complete(journal, entry.seq, [_plain(e) for e in result.effects])
                completed = len(expected)
                log.warning("completed %d effect rows of input row %d cut off by a stop", completed, entry.seq)
            state = result.state
            replayed += 1
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
