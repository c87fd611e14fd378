"""No bare NaN or Infinity in the journal or its export: refused at the door, and a journal that
holds them from before still comes back."""
from __future__ import annotations

import json
import sqlite3

import pytest

from controller.audit import audit
from controller.cli import main
from controller.journal import EFFECT, GENESIS, INPUT, Journal, entry_hash, verify
from controller.journal.chain import comparable_json
from controller.rules import TableConfig
from controller.table import JournaledTable, JournalMismatch
from controller.table.journaled import table_header

CONFIG = TableConfig()
PASS = {"event": "bet", "seat": "A", "bet": "pass", "amount": 500}


def _strict(text: str):
    def refuse(constant):
        raise AssertionError(f"bare {constant} in {text!r}")

    return json.loads(text, parse_constant=refuse)


@pytest.mark.parametrize("number", [float("nan"), float("inf"), float("-inf")])
def test_an_input_holding_a_number_that_is_not_finite_is_journaled_as_malformed(tmp_path, number):
    with Journal.open(tmp_path) as journal:
        table = JournaledTable.open(journal, "craps", CONFIG)
        table.submit({"event": "lock"})
        refused = table.submit({"event": "read", "status": "ok", "dice": [3, 4], "confidence": number})
        assert not refused.accepted and "not finite" in refused.effects[0]["reason"]
        assert table.submit({"event": "void"}).accepted
    with Journal.open(tmp_path, readonly=True) as journal:
        stored = [text for _, _, _, text, _, _ in journal.raw_rows()]
    for text in stored:
        _strict(text)


def _journal_written_before_the_refusal(state_dir, events):
    """A craps journal whose rows hold NaN, as the table wrote them before non-finite numbers were
    refused at the door: each input followed by the effects the table computed then."""
    from controller.table import flow

    state_dir.mkdir()
    Journal.open(state_dir).close()  # the schema
    db = sqlite3.connect(state_dir / "journal.sqlite3", isolation_level=None)
    state = flow.new_table("craps", CONFIG)
    rows = [(INPUT, table_header("craps", CONFIG))]
    for event in events:
        result = flow.step(state, event)
        state = result.state
        rows += [(INPUT, event), *((EFFECT, e) for e in result.effects)]
    prev = GENESIS
    for seq, (kind, event) in enumerate(rows, 1):
        text, ts = comparable_json(event), "2026-11-01T10:00:00.000+00:00"
        digest = entry_hash(prev, seq, ts, kind, text)
        db.execute("INSERT INTO journal VALUES (?, ?, ?, ?, ?, ?)", (seq, ts, kind, text, prev, digest))
        prev = digest
    db.close()
    return state


OLD_SESSION = [PASS, {"event": "lock"},
               {"event": "read", "status": "uncertain", "dice": [3, 4], "confidence": float("nan")},
               {"event": "bet", "seat": "B", "bet": "field", "amount": float("inf")},
               {"event": "read", "status": "ok", "dice": [3, 4], "confidence": 0.99}]


def test_a_journal_holding_nan_from_before_is_replayed_audited_and_exported_as_json(tmp_path, capsys):
    state = _journal_written_before_the_refusal(tmp_path / "state", OLD_SESSION)
    with Journal.open(tmp_path / "state") as journal:
        assert verify(journal).ok
        table = JournaledTable.open(journal, "craps", CONFIG)
        assert table.state == state and table.state.rolls == 1
        assert table.submit(PASS).accepted  # the table goes on, and what it adds is JSON
        assert audit(journal).ok
    for argv in (["export"], ["export", "--events"], ["export", "--game-events"], ["recall", "3", "--json"]):
        assert main(["journal", "--state-dir", str(tmp_path / "state"), *argv]) == 0
        out = capsys.readouterr().out
        for line in out.splitlines():
            _strict(line)
    assert main(["journal", "--state-dir", str(tmp_path / "state"), "export", "--events"]) == 0
    assert '"confidence":"NaN"' in capsys.readouterr().out


def test_effects_that_cannot_be_written_now_stop_the_start_and_point_to_the_archive(tmp_path):
    """The last input of an old journal, its effects cut off by a stop, refused with a NaN in it."""
    _journal_written_before_the_refusal(tmp_path / "state", OLD_SESSION[:2])
    db = sqlite3.connect(tmp_path / "state" / "journal.sqlite3", isolation_level=None)
    (seq, prev), = db.execute("SELECT seq, hash FROM journal ORDER BY seq DESC LIMIT 1")
    text, ts = comparable_json(OLD_SESSION[2]), "2026-11-01T10:00:01.000+00:00"
    db.execute("INSERT INTO journal VALUES (?, ?, ?, ?, ?, ?)",
               (seq + 1, ts, INPUT, text, prev, entry_hash(prev, seq + 1, ts, INPUT, text)))
    db.close()
    with Journal.open(tmp_path / "state") as journal:
        with pytest.raises(JournalMismatch, match=r"not finite.*journal archive"):
            JournaledTable.open(journal, "craps", CONFIG)
