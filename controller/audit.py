"""Recompute a journal's settlements with the rules engine alone, and compare them.

Why: the table's own recovery (:mod:`controller.table.journaled`) replays the
journal through the same table code that wrote it. An auditor wants a second
opinion that shares as little as possible with that code: only the pure rules
engine, fed only the game events the table accepted (bets, removals, shooter
changes and the dice it settled), under the rules the journal was started with
(its first row), not under today's configuration file, which may have changed
since. Every ``settle`` and ``returned`` row of the journal must then come out
again, in the same order and to the cent, and nothing more.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator

from controller.journal import EFFECT, INPUT, Entry, Journal, game_events
from controller.journal.chain import comparable_json
from controller.rules import BetRejected, TableConfig, apply, new_game, parse_event
from messages import ConfigError

SETTLEMENT_EVENTS = ("settle", "returned")
"""The journal's effects that move money, which the audit recomputes."""


@dataclass(frozen=True)
class AuditReport:
    """``ok`` when the rules engine gives back exactly the journal's settlements.

    Otherwise ``row`` is the first journal row where they part, ``reason`` says how, and
    ``journal`` / ``recomputed`` hold the two settlements that differ (one may be None)."""

    ok: bool
    game: str | None
    rolls: int
    settlements: int
    returned: int
    row: int | None = None
    reason: str | None = None
    journal: dict[str, Any] | None = None
    recomputed: dict[str, Any] | None = None
    pending: int | None = None
    """The journal's last row, when it is a game input whose outcome is not journaled yet (a bet's
    refusal, a removal's return)."""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"ok": self.ok, "game": self.game, "rolls": self.rolls,
                               "settlements": self.settlements, "returned": self.returned}
        if self.pending is not None:
            out["pending"] = self.pending
        if not self.ok:
            out.update(row=self.row, reason=self.reason, journal=self.journal, recomputed=self.recomputed)
        return out


def audit(journal: Journal) -> AuditReport:
    """Replay ``journal``'s game events under its own rules and compare every settlement.

    The journal is read as it goes (twice side by side: its game events, and the settlements it
    recorded), so a journal of any length is audited in the memory of a few rows. A journal that
    does not hold the last row its writer committed (:meth:`Journal.cut_short`) is refused: its
    settlements would compare equal up to where it was cut, and say nothing of the rows lost."""
    first, last = journal.first_entry(), journal.last_entry()
    header = first.event if first is not None and isinstance(first.event, dict) else {}
    game = header.get("game")
    short = journal.cut_short()
    if short is not None:
        return AuditReport(False, game, 0, 0, 0, row=(last.seq + 1) if last else 1, reason=short)
    if header.get("event") != "table":
        return AuditReport(False, None, 0, 0, 0, row=1, reason="row 1 is not a table header: no game or rules to replay under")
    if not isinstance(game, str):
        return AuditReport(False, None, 0, 0, 0, row=1, reason=f"the table header cannot be replayed: unknown game {game!r}")
    try:
        state = new_game(game, TableConfig.from_dict(header.get("rules", {})))
    except (ConfigError, ValueError) as exc:
        return AuditReport(False, game, 0, 0, 0, row=1, reason=f"the table header cannot be replayed: {exc}")
    recorded_rows = journal.entries()
    recorded = ((e.seq, e.event) for e in recorded_rows if e.kind == EFFECT and e.event.get("event") in SETTLEMENT_EVENTS)
    game_rows = journal.entries()
    try:
        return _compare(game, state, game_events(game_rows), recorded, last)
    finally:
        game_rows.close()
        recorded_rows.close()


def _compare(game: str, state: Any, events: Iterator[tuple[int, dict[str, Any]]],
             recorded: Iterator[tuple[int, dict[str, Any]]], last: Entry | None) -> AuditReport:
    """Apply ``events`` to ``state`` and compare each settlement with the next of ``recorded``."""
    rolls = settlements = returned = 0
    # An input written last may still lack its effects (written in the next transaction); a roll's
    # settlements are written with it, so a trailing roll is never pending.
    last_input = last.seq if last is not None and last.kind == INPUT else None

    def fail(row: int | None, reason: str, journal_side: dict | None = None, ours: dict | None = None) -> AuditReport:
        return AuditReport(False, game, rolls, settlements, returned, row, reason, journal_side, ours)

    for seq, event in events:
        try:
            step = apply(state, parse_event(event))
        except BetRejected as no:
            if seq == last_input:
                # Written, but its refusal not yet: a live table between its two commits, or one
                # stopped there (its restart completes it). Nothing after it can differ.
                return AuditReport(True, game, rolls, settlements, returned, pending=seq)
            return fail(seq, f"the rules engine refuses row {seq}, which the table accepted: {no.reason}")
        state = step.state
        if event.get("event") == "roll":
            rolls += 1
        for effect in step.effects:
            ours = effect.to_json()
            theirs = next(recorded, None)
            if theirs is None and seq == last_input:
                # A bet taken down as the journal's last row, its return not written yet (as above).
                return AuditReport(True, game, rolls, settlements, returned, pending=seq)
            if theirs is None:
                return fail(seq, f"row {seq} settles a bet the journal never settled", None, ours)
            if comparable_json(theirs[1]) != comparable_json(ours):
                return fail(theirs[0], f"row {theirs[0]} differs from what the rules engine computes", theirs[1], ours)
            if ours["event"] == "settle":
                settlements += 1
            else:
                returned += 1
    extra = next(recorded, None)
    if extra is not None:
        return fail(extra[0], f"row {extra[0]} settles a bet the rules engine does not", extra[1], None)
    return AuditReport(True, game, rolls, settlements, returned)
