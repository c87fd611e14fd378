"""The table's journal: an append-only, hash-chained SQLite log of every event.

Why it exists: the table's state is never stored, only the events that made
it. Every input (a bet, a button press, a dice read) is committed here *before*
it takes effect, and the effects the pure code derives from it (the roll that
was settled, each settlement, each rejection) follow it. After a power cut the
state is the replay of this log, and the log is also the audit trail and the
dispute recall.

Data in: event dicts in the format of ``docs/events.md`` via
:meth:`Journal.append`. Data out: :class:`Entry` rows (:meth:`Journal.entries`),
:func:`verify` (is the hash chain intact, and where did it break),
:func:`export_lines` (JSON lines), :func:`recall` (the last N rolls with
their reads and settlements) and :func:`frame_labels` (the saved frames the
dealer ruled on, labelled with the dice settled, for ``dicetable bench``; and
:func:`boxed_frames`, the same die by die, for training). :func:`archive` moves
a stopped table's journal out of its state directory as one verified file, so
the next start begins a new one.

One process writes a journal (the running table, holding ``journal.lock``: a
second gets :class:`JournalBusy`); readers open it read-only beside it. A file
that cannot be read here at all is :class:`JournalUnreadable`, which says
nothing of its rows.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as state_dir, Journal.open(state_dir) as journal:
    ...     _ = journal.append({"event": "lock"})
    ...     [(entry.seq, entry.kind, entry.event) for entry in journal.entries()], verify(journal).ok
    ([(1, 'input', {'event': 'lock'})], True)
"""
from controller.journal.archiving import Archived, archive
from controller.journal.chain import GENESIS, entry_hash
from controller.journal.errors import JournalBusy, JournalError, JournalUnreadable
from controller.journal.export import export_line, export_lines, game_event_lines, game_events
from controller.journal.recall import FRAME_LABEL_COLUMNS, BoxedFrame, RolledRecord, boxed_frames, frame_labels, recall
from controller.journal.store import EFFECT, INPUT, ORIGIN, Entry, Journal
from controller.journal.verify import VerifyReport, verify

__all__ = [
    "Archived",
    "BoxedFrame",
    "EFFECT",
    "FRAME_LABEL_COLUMNS",
    "GENESIS",
    "INPUT",
    "Entry",
    "Journal",
    "JournalBusy",
    "JournalError",
    "JournalUnreadable",
    "ORIGIN",
    "RolledRecord",
    "VerifyReport",
    "archive",
    "boxed_frames",
    "entry_hash",
    "export_line",
    "export_lines",
    "frame_labels",
    "game_event_lines",
    "game_events",
    "recall",
    "verify",
]
