"""The journal: durable settings, hash chain, tamper detection, the journal command."""
from __future__ import annotations

import json
import sqlite3

import pytest

from controller.cli import main
from controller.journal import EFFECT, Journal, JournalError, VerifyReport, export_lines, recall, verify


def _fill(journal: Journal) -> None:
    journal.append({"event": "bet", "seat": "A", "bet": "pass", "amount": 500})
    journal.append({"event": "lock"})
    journal.append({"event": "read", "status": "uncertain", "dice": [5, 6], "confidence": 0.61, "frame": "roll-000001.png"})
    journal.append({"event": "confirm"})
    journal.append_many(
        [
            {"event": "roll", "game": "craps", "dice": [5, 6], "source": "confirm"},
            {"event": "settle", "seat": "A", "bet": "pass", "amount": 500, "result": "win", "paid": 1000},
        ],
        EFFECT,
    )
    journal.append({"event": "lock"})
    journal.append({"event": "manual", "dice": [1, 1]})
    journal.append_many([{"event": "roll", "game": "craps", "dice": [1, 1], "source": "manual"}], EFFECT)


@pytest.fixture
def journal(tmp_path):
    with Journal.open(tmp_path) as j:
        _fill(j)
        yield j


def _tamper(path, sql, *params):
    """Edit the file behind the journal's back, as an attacker would (dropping the guards first)."""
    db = sqlite3.connect(path)
    db.executescript("DROP TRIGGER journal_no_update; DROP TRIGGER journal_no_delete;")
    db.execute(sql, params)
    db.commit()
    db.close()


def test_durability_settings(journal):
    """A rollback journal: a commit is in journal.sqlite3 itself once it returns (no -wal to lose)."""
    assert journal._db.execute("PRAGMA journal_mode").fetchone()[0] == "truncate"
    assert journal._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    assert journal.path.read_bytes()[18:20] == b"\x01\x01"  # the file's header: not WAL


def test_intact_chain_verifies_and_survives_reopen(journal, tmp_path):
    report = verify(journal)
    assert report.ok and report.rows == len(journal) == 9
    journal.close()
    with Journal.open(tmp_path) as again:
        again.append({"event": "lock"})
        assert verify(again).ok and len(again) == 10


def test_rows_cannot_be_updated_or_deleted_through_sqlite(journal):
    with pytest.raises(sqlite3.DatabaseError):
        journal._db.execute("UPDATE journal SET event = '{}' WHERE seq = 1")
    with pytest.raises(sqlite3.DatabaseError):
        journal._db.execute("DELETE FROM journal WHERE seq = 1")


def test_edited_row_is_named(journal):
    edited = json.dumps({"event": "settle", "seat": "A", "bet": "pass", "amount": 500, "result": "win", "paid": 9000})
    _tamper(journal.path, "UPDATE journal SET event = ? WHERE seq = 6", edited)
    report = verify(journal)
    assert not report.ok and report.broken_seq == 6 and report.rows == 5
    assert "changed" in report.reason


def test_deleted_row_is_named(journal):
    _tamper(journal.path, "DELETE FROM journal WHERE seq = 3")
    report = verify(journal)
    assert not report.ok and report.broken_seq == 4 and "missing" in report.reason


def test_row_rehashed_without_its_successor_is_caught(journal):
    """Recomputing the edited row's own hash is not enough: its successor still points at the old one."""
    from controller.journal.chain import entry_hash

    seq, ts, kind, text, prev, _ = next(r for r in journal.raw_rows() if r[0] == 2)
    forged = json.dumps({"event": "void"})
    _tamper(journal.path, "UPDATE journal SET event = ?, hash = ? WHERE seq = 2", forged, entry_hash(prev, seq, ts, kind, forged))
    report = verify(journal)
    assert not report.ok and report.broken_seq == 3 and "chain" in report.reason


def test_export_lines_are_json_in_order(journal):
    rows = [json.loads(line) for line in export_lines(journal)]
    assert [r["seq"] for r in rows] == list(range(1, 10))
    assert rows[0]["event"] == {"event": "bet", "seat": "A", "bet": "pass", "amount": 500}
    events = [json.loads(line) for line in export_lines(journal, events_only=True, inputs_only=True)]
    assert [e["event"] for e in events] == ["bet", "lock", "read", "confirm", "lock", "manual"]


def test_recall_keeps_the_read_the_dealer_overruled(tmp_path):
    with Journal.open(tmp_path) as j:
        j.append({"event": "lock"})
        j.append({"event": "read", "status": "uncertain", "dice": [2, 2], "confidence": 0.5, "frame": "a.jpg"})
        j.append({"event": "manual", "dice": [2, 3]})
        j.append_many([{"event": "roll", "game": "craps", "dice": [2, 3], "source": "manual"}], EFFECT)
        (record,) = recall(j, 3)
        assert record.source == "manual" and record.read["dice"] == [2, 2] and record.read["frame"] == "a.jpg"


def _roll(j, dice, source):
    j.append_many([{"event": "roll", "game": "craps", "dice": dice, "source": source}], EFFECT)


def _read(frame, status="uncertain"):
    return {"event": "read", "status": status, "dice": [2, 2], "confidence": 0.5, "frame": frame}


def test_recall_does_not_pair_a_roll_with_a_read_voided_or_refused(tmp_path):
    """Their frames show other dice: a voided throw, or a read that came while betting was open."""
    with Journal.open(tmp_path) as j:
        j.append(_read("refused.jpg"))
        j.append_many([{"event": "rejected", "refused": "read", "reason": "no roll expected", "rule": None}], EFFECT)
        j.append({"event": "lock"})
        j.append({"event": "manual", "dice": [1, 2]})  # camera lost: entered by hand
        _roll(j, [1, 2], "manual")
        j.append({"event": "lock"})
        j.append(_read("voided.jpg"))
        j.append({"event": "void"})  # thrown again
        j.append({"event": "manual", "dice": [3, 4]})
        _roll(j, [3, 4], "manual")
        j.append({"event": "lock"})
        j.append(_read("kept.jpg"))
        j.append({"event": "manual"})  # a hand entry with the buttons ...
        j.append({"event": "void"})  # ... cancelled: back to the waiting read
        j.append({"event": "confirm"})
        _roll(j, [2, 2], "confirm")
        first, second, third = recall(j, 5)
    assert first.read is None and second.read is None
    assert third.read["frame"] == "kept.jpg"


def test_the_frames_the_dealer_ruled_on_become_a_labelled_folder_for_the_bench(tmp_path, capsys):
    """Every confirm or hand entry labels the frame the camera could not settle alone."""
    import cv2
    import numpy as np

    from vision.benchtool.labels import load_folder

    with Journal.open(tmp_path) as j:
        j.append({"event": "lock"})
        j.append(_read("unsure.jpg"))
        j.append({"event": "confirm"})
        _roll(j, [2, 2], "confirm")
        j.append({"event": "lock"})
        j.append({"event": "read", "status": "no_read", "dice": [], "confidence": 0.0, "frame": "blind.jpg"})
        j.append({"event": "manual", "dice": [6, 1]})
        _roll(j, [6, 1], "manual")
        j.append({"event": "lock"})
        j.append({"event": "read", "status": "no_read", "dice": [], "confidence": 0.0, "frame": "moving.jpg",
                  "reason": "dice did not settle: no rest 10 s after the dice started moving", "at_rest": False})
        j.append({"event": "manual", "dice": [4, 4]})  # that frame may show the dice moving: no label
        _roll(j, [4, 4], "manual")
        j.append({"event": "lock"})
        j.append({"event": "read", "status": "ok", "dice": [3, 5], "confidence": 0.99, "frame": "sure.jpg"})
        _roll(j, [3, 5], "read")
    assert main(["journal", "--state-dir", str(tmp_path), "frames"]) == 0
    manifest = capsys.readouterr().out
    assert manifest.splitlines() == ["image,values,source,read_status,read_dice",
                                     "unsure.jpg,2 2,confirm,uncertain,2 2", "blind.jpg,6 1,manual,no_read,"]
    frames = tmp_path / "frames"
    frames.mkdir()
    for name in ("unsure.jpg", "blind.jpg", "sure.jpg"):
        cv2.imwrite(str(frames / name), np.zeros((8, 8, 3), np.uint8))
    (frames / "manifest.csv").write_text(manifest)
    assert {i.path.name: i.values for i in load_folder(frames)} == {"unsure.jpg": (2, 2), "blind.jpg": (1, 6)}
    assert main(["journal", "--state-dir", str(tmp_path), "frames", "--all"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "sure.jpg,3 5,read,ok,3 5"


@pytest.mark.parametrize(
    "read, settled, faces",
    [
        ([3, 5], [3, 5], [3, 5]),  # confirmed, or settled at once
        ([3, 5], [5, 3], [3, 5]),  # entered by hand in another order: the same dice
        ([3, 5], [6, 3], [3, 6]),  # one die corrected: the 5 was a 6
        ([2, 4, 4], [4, 4, 3], [3, 4, 4]),  # Hazard: the 2 was a 3
        ([2, 4, 4], [2, 4, 5], None),  # which 4 was the 5?
        ([3, 5], [6, 2], None),  # both changed: which die is which?
        ([3, 5], [3, 5, 1], None),  # another count
        ([], [1, 2], None),  # nothing read
    ],
)
def test_faces_of_boxes_label_a_die_only_where_the_settled_dice_say_which_it_is(read, settled, faces):
    from controller.journal.recall import faces_of_boxes

    assert faces_of_boxes(read, settled) == faces


def test_frames_with_boxes_become_a_yolo_folder_for_training_and_the_bench(tmp_path, capsys):
    import cv2
    import numpy as np

    from vision.benchtool.labels import load_folder

    def read(frame, dice, boxes, status="uncertain", size=(64, 48)):
        return {"event": "read", "status": status, "dice": dice, "confidence": 0.5, "frame": frame,
                "boxes": boxes, "size": list(size)}

    with Journal.open(tmp_path / "state") as j:
        j.append({"event": "lock"})
        j.append(read("confirmed.jpg", [2, 5], [[4, 8, 10, 10], [40, 20, 12, 12]]))
        j.append({"event": "confirm"})
        _roll(j, [2, 5], "confirm")
        j.append({"event": "lock"})
        j.append(read("corrected.jpg", [3, 3, 6], [[0, 0, 8, 8], [20, 0, 8, 8], [40, 0, 8, 8]]))
        j.append({"event": "manual", "dice": [5, 3, 3]})  # the 6 was a 5, entered in another order
        _roll(j, [5, 3, 3], "manual")
        j.append({"event": "lock"})
        j.append(read("ambiguous.jpg", [3, 3], [[0, 0, 8, 8], [20, 0, 8, 8]]))
        j.append({"event": "manual", "dice": [3, 4]})  # which 3 was the 4?
        _roll(j, [3, 4], "manual")
        j.append({"event": "lock"})
        j.append(read("../escape.jpg", [1, 2], [[0, 0, 8, 8], [20, 0, 8, 8]]))  # not a plain file name
        j.append({"event": "confirm"})
        _roll(j, [1, 2], "confirm")
        j.append({"event": "lock"})
        j.append(_read("old.jpg"))  # journaled before reads kept their boxes
        j.append({"event": "confirm"})
        _roll(j, [2, 2], "confirm")
        j.append({"event": "lock"})
        j.append(read("pruned.jpg", [4, 4], [[0, 0, 8, 8], [20, 0, 8, 8]]))
        j.append({"event": "confirm"})
        _roll(j, [4, 4], "confirm")
    frames = tmp_path / "state" / "frames"
    frames.mkdir()
    for name in ("confirmed.jpg", "corrected.jpg", "ambiguous.jpg", "old.jpg"):
        cv2.imwrite(str(frames / name), np.zeros((48, 64, 3), np.uint8))
    (tmp_path / "escape.jpg").write_bytes(b"not a frame of this table")
    out = tmp_path / "train"
    assert main(["journal", "--state-dir", str(tmp_path / "state"), "frames", "--yolo", str(out)]) == 0
    said = capsys.readouterr().out
    assert said.startswith(f"2 frames labelled die by die in {out}; 1 frame not in {frames} as images; "
                           "3 of the 6 rolls could not be labelled die by die")
    assert sorted(p.name for p in (out / "images").iterdir()) == ["confirmed.jpg", "corrected.jpg"]
    assert (out / "labels" / "confirmed.txt").read_text().splitlines() == [
        "1 0.140625 0.270833 0.156250 0.208333", "4 0.718750 0.541667 0.187500 0.250000"]
    items = {i.path.name: [(d.value, round(d.cx * 64)) for d in i.dice] for i in load_folder(out)}
    assert items == {"confirmed.jpg": [(2, 9), (5, 46)], "corrected.jpg": [(3, 4), (3, 24), (5, 44)]}
    # the folder names its own classes, so a names file in a folder above cannot change them
    assert (out / "labels" / "classes.txt").read_text().split() == ["1", "2", "3", "4", "5", "6"]
    (tmp_path / "classes.txt").write_text("6\n5\n4\n3\n2\n1\n")
    assert {i.path.name: i.values for i in load_folder(out)} == {"confirmed.jpg": (2, 5), "corrected.jpg": (3, 3, 5)}


@pytest.mark.parametrize(
    "change",
    [
        {"boxes": [[4, 8, 10, 10], [60, 40, 30, 30]]},  # a box past the frame's edge
        {"boxes": [[4, 8, 10, 10], [10**30, 0, 8, 8]]},
        {"boxes": [[4, 8, 10, 10], [40, 20, 0, 12]]},  # a box of no width
        {"boxes": [[4, 8, 10, 10], [True, 20, 12, 12]]},
        {"boxes": [[4, 8, 10, 10], [40.0, 20, 12, 12]]},
        {"boxes": [[4, 8, 10, 10]]},  # fewer boxes than dice
        {"boxes": {"a": 1}},
        {"size": [0, 48]},
        {"size": [10**400, 48]},
        {"size": [64]},
        {"size": None},
        {"frame": ""},
        {"frame": ".."},
        {"frame": "sub/a.jpg"},
        {"frame": "sub\\a.jpg"},
        {"frame": "a\0.jpg"},
        {"frame": 7},
        {"dice": [2, 7]},
    ],
)
def test_a_read_whose_boxes_do_not_fit_its_frame_labels_nothing(tmp_path, change):
    from controller.journal import boxed_frames

    read = {"event": "read", "status": "uncertain", "dice": [2, 5], "confidence": 0.5, "frame": "a.jpg",
            "boxes": [[4, 8, 10, 10], [40, 20, 12, 12]], "size": [64, 48]}
    with Journal.open(tmp_path) as j:
        for event in (read, read | change):
            j.append({"event": "lock"})
            j.append(event)
            j.append({"event": "confirm"})
            _roll(j, [2, 5], "confirm")
        labelled = list(boxed_frames(j))
    assert [b.dice for b in labelled] == [(((4, 8, 10, 10), 2), ((40, 20, 12, 12), 5))]  # the first only


def test_a_yolo_folder_leaves_out_frames_the_bench_could_not_load(tmp_path, capsys):
    """A frame whose label would read as the folder's class names, or that is no image, would spoil
    or be lost from the folder."""
    import cv2
    import numpy as np

    from vision.benchtool.labels import load_folder

    with Journal.open(tmp_path / "state") as j:
        for name in ("classes.jpg", "notes.txt", "good.png"):
            j.append({"event": "lock"})
            j.append({"event": "read", "status": "uncertain", "dice": [2, 5], "confidence": 0.5, "frame": name,
                      "boxes": [[4, 8, 10, 10], [40, 20, 12, 12]], "size": [64, 48]})
            j.append({"event": "confirm"})
            _roll(j, [2, 5], "confirm")
    frames = tmp_path / "state" / "frames"
    frames.mkdir()
    for name in ("classes.jpg", "good.png"):
        cv2.imwrite(str(frames / name), np.zeros((48, 64, 3), np.uint8))
    (frames / "notes.txt").write_text("not a picture")
    out = tmp_path / "train"
    assert main(["journal", "--state-dir", str(tmp_path / "state"), "frames", "--yolo", str(out)]) == 0
    assert capsys.readouterr().out.startswith(f"1 frame labelled die by die in {out}; 2 frames not in")
    assert [i.path.name for i in load_folder(out)] == ["good.png"]


def test_recall_gives_reads_and_settlements(journal):
    first, second = recall(journal, 5)
    assert first.dice == [5, 6] and first.source == "confirm"
    assert first.read["confidence"] == 0.61 and first.read["frame"] == "roll-000001.png"
    assert first.settlements[0]["paid"] == 1000
    assert second.dice == [1, 1] and second.read is None and second.settlements == []
    assert [r.dice for r in recall(journal, 1)] == [[1, 1]]
    assert recall(journal, 0) == []


def test_unwritable_journal_is_a_clear_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(JournalError, match="cannot open the journal"):
        Journal.open(blocker / "state")


def test_a_state_dir_of_another_user_is_named_not_just_unable_to_open(tmp_path, monkeypatch):
    """SQLite's "unable to open database file" alone sends the operator hunting; the folder
    this user cannot write is the answer (the service runs as its own user)."""
    import os

    from controller.journal.paths import unwritable

    state = tmp_path / "state"
    state.mkdir()
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: str(p) != str(state) and real_access(p, mode))
    assert unwritable(state / "new" / "journal.sqlite3") == state  # the first folder that exists
    monkeypatch.setattr(sqlite3, "connect", lambda *a, **k: (_ for _ in ()).throw(
        sqlite3.OperationalError("unable to open database file")))
    with pytest.raises(JournalError, match=f"unable to open database file \\({state} is not writable by this user\\)"):
        Journal.open(state)


def test_a_journal_file_or_folder_of_another_user_is_named(tmp_path, monkeypatch):
    import os

    from controller.journal.paths import unwritable

    with Journal.open(tmp_path):
        pass
    path = tmp_path / "journal.sqlite3"
    assert unwritable(path) is None
    real_access = os.access
    for denied in (path, tmp_path):
        monkeypatch.setattr(os, "access", lambda p, mode, denied=denied: str(p) != str(denied) and real_access(p, mode))
        assert unwritable(path) == denied


def test_journal_command(journal, tmp_path, capsys):
    journal.close()
    assert main(["journal", "--state-dir", str(tmp_path), "verify"]) == 0
    assert json.loads(capsys.readouterr().out)["ok"] is True

    assert main(["journal", "--state-dir", str(tmp_path), "export", "--events"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 9 and json.loads(lines[2])["frame"] == "roll-000001.png"

    assert main(["journal", "--state-dir", str(tmp_path), "recall", "2"]) == 0
    out = capsys.readouterr().out
    assert "dice [5, 6] by confirm" in out and "confidence 0.61" in out and "$5.00 win paid $10.00" in out and "frame roll-000001.png" in out

    assert main(["journal", "--state-dir", str(tmp_path), "recall", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["dice"] == [1, 1]

    _tamper(journal.path, "DELETE FROM journal WHERE seq = 7")
    assert main(["journal", "--state-dir", str(tmp_path), "verify"]) == 1
    assert json.loads(capsys.readouterr().out)["broken_seq"] == 8


def test_recall_says_so_when_a_read_kept_no_frame(tmp_path, capsys):
    """Frames are not saved when the disk is short or saving is off: "frame None" told the
    operator nothing."""
    with Journal.open(tmp_path) as j:
        j.append({"event": "lock"})
        j.append({"event": "read", "status": "ok", "dice": [2, 2], "confidence": 0.99, "frame": None})
        j.append_many([{"event": "roll", "game": "craps", "dice": [2, 2], "source": "read"}], EFFECT)
    assert main(["journal", "--state-dir", str(tmp_path), "recall", "1"]) == 0
    out = capsys.readouterr().out
    assert "confidence 0.99 no frame saved" in out and "None" not in out


def test_recall_names_the_model_that_made_the_read(tmp_path, capsys):
    with Journal.open(tmp_path) as j:
        j.append({"event": "lock"})
        j.append({"event": "read", "status": "ok", "dice": [3, 4], "confidence": 0.97, "frame": "f.jpg",
                  "model": "0123456789abcdef"})
        j.append_many([{"event": "roll", "game": "craps", "dice": [3, 4], "source": "read"}], EFFECT)
    assert main(["journal", "--state-dir", str(tmp_path), "recall", "1"]) == 0
    assert "frame f.jpg model 0123456789abcdef" in capsys.readouterr().out
    assert main(["journal", "--state-dir", str(tmp_path), "recall", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["read"]["model"] == "0123456789abcdef"


def test_journal_command_without_journal(tmp_path, capsys):
    assert main(["journal", "--state-dir", str(tmp_path / "none"), "verify"]) == 2
    assert "no journal" in capsys.readouterr().err


def test_game_events_export_replays_to_the_journaled_settlements(tmp_path, capsys):
    """An auditor recomputes every settlement with `dicetable replay`, independently of the table code."""
    import random

    from controller.players import Players
    from controller.rules import TableConfig
    from controller.table import JournaledTable

    for game in ("craps", "bang"):
        folder = tmp_path / game
        rng = random.Random(5)
        with Journal.open(folder) as j:
            table = JournaledTable.open(j, game, TableConfig())
            players = Players.seated(game, TableConfig().seats, 5)
            for _ in range(30):
                for bet in players.bets(table.state):
                    table.submit(bet)
                table.submit({"event": "bet", "seat": "A", "bet": "field", "amount": 100, "via": "stream"})  # ok
                table.submit({"event": "lock"})
                table.submit({"event": "bet", "seat": "A", "bet": "field", "amount": 100})  # refused: locked
                table.submit({"event": "manual", "dice": [rng.randint(1, 6), rng.randint(1, 6)]})
            settled = [e.event for e in j.entries() if e.event["event"] == "settle"]
        assert main(["journal", "--state-dir", str(folder), "export", "--game-events"]) == 0
        events = tmp_path / f"{game}.jsonl"
        events.write_text(capsys.readouterr().out)
        assert '"via"' not in events.read_text()  # where an input came from is no part of the game
        assert main(["replay", "--game", game, str(events)]) == 0
        replayed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
        assert [r for r in replayed if r["event"] == "settle"] == settled and settled
        assert not [r for r in replayed if r["event"] == "rejected"]


def test_journal_command_points_at_the_demo_journals(tmp_path, capsys):
    with Journal.open(tmp_path / "craps") as j:
        j.append({"event": "lock"})
    assert main(["journal", "--state-dir", str(tmp_path), "verify"]) == 2
    assert f"--state-dir {tmp_path / 'craps'}" in capsys.readouterr().err


@pytest.mark.parametrize("n", ["0", "-3"])
def test_recall_refuses_a_count_under_one_rather_than_print_nothing(n, tmp_path, capsys):
    with pytest.raises(SystemExit) as done:
        main(["journal", "--state-dir", str(tmp_path), "recall", n])
    assert done.value.code == 2
    assert "must be at least 1" in capsys.readouterr().err


@pytest.mark.parametrize("keep", [0, 0.5])  # an empty file; one cut off halfway (a copy that stopped short)
def test_every_journal_command_names_a_damaged_file(tmp_path, capsys, keep):
    """Every journal command names a damaged journal file, without a traceback."""
    with Journal.open(tmp_path) as j:
        for _ in range(60):
            _fill(j)
    path = tmp_path / "journal.sqlite3"
    data = path.read_bytes()
    path.write_bytes(data[: int(len(data) * keep)])
    assert main(["journal", "--state-dir", str(tmp_path), "verify"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is False and "cannot read the journal" in report["reason"]
    assert ("malformed" if keep else "no such table: journal") in report["reason"]  # SQLite's own reason
    for action in (["export"], ["recall", "3"], ["frames"]):
        assert main(["journal", "--state-dir", str(tmp_path), *action]) == 2
        assert "cannot read the journal" in capsys.readouterr().err


def _triggers(path) -> set[str]:
    db = sqlite3.connect(path)
    try:
        return {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")}
    finally:
        db.close()


def test_a_dropped_trigger_is_reported_by_verify_and_never_restored(tmp_path, capsys):
    """The missing trigger is the trace of someone who meant to edit: a start leaves it missing (and the
    file as it was), and `verify` names it without failing a journal whose rows are intact."""
    with Journal.open(tmp_path) as j:
        _fill(j)
    assert main(["journal", "--state-dir", str(tmp_path), "verify"]) == 0
    intact = json.loads(capsys.readouterr().out)
    assert set(intact) == {"ok", "rows", "head"}

    path = tmp_path / "journal.sqlite3"
    db = sqlite3.connect(path)
    db.execute("DROP TRIGGER journal_no_update")
    db.close()
    before = path.read_bytes()
    Journal.open(tmp_path).close()  # a table started and stopped
    assert path.read_bytes() == before and _triggers(path) == {"journal_no_delete"}
    with Journal.open(tmp_path, readonly=True) as j:
        assert verify(j) == VerifyReport(True, 9, head=intact["head"], triggers=False)

    assert main(["journal", "--state-dir", str(tmp_path), "verify"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out) == {**intact, "triggers": False}
    assert "triggers refusing UPDATE and DELETE" in err and "dropped or altered" in err


def test_a_refused_start_writes_nothing_to_an_edited_journal(tmp_path):
    from controller.rules import TableConfig
    from controller.table import JournaledTable, JournalMismatch

    with Journal.open(tmp_path) as j:
        _fill(j)
    path = tmp_path / "journal.sqlite3"
    _tamper(path, "UPDATE journal SET event = ? WHERE seq = 6", json.dumps({"event": "settle", "paid": 9000}))
    before = path.read_bytes()
    with Journal.open(tmp_path) as j:
        with pytest.raises(JournalMismatch, match="fails its check at row 6"):
            JournaledTable.open(j, "craps", TableConfig())
    assert path.read_bytes() == before and _triggers(path) == set()


def test_a_trigger_replaced_by_one_that_guards_nothing_is_reported(journal):
    db = sqlite3.connect(journal.path)
    db.executescript("DROP TRIGGER journal_no_delete; "
                     "CREATE TRIGGER journal_no_delete BEFORE DELETE ON journal BEGIN SELECT 1; END;")
    db.close()
    report = verify(journal)
    assert report.ok and not report.triggers


def test_frames_of_a_journal_that_fails_part_way_print_no_manifest(tmp_path, capsys, monkeypatch):
    """The header came out before the failure: `> manifest.csv` then held a file that looked whole."""
    from controller import journal as journal_package
    from controller.cli import main

    def failing(journal, dealer_only=True):
        yield {"image": "a.jpg", "values": "3 4"}
        raise journal_package.JournalError("cannot read the journal: disk I/O error")

    with Journal.open(tmp_path) as journal:
        journal.append({"event": "lock"})
    monkeypatch.setattr(journal_package, "frame_labels", failing)
    assert main(["journal", "--state-dir", str(tmp_path), "frames"]) == 2
    assert capsys.readouterr().out == ""


def test_verify_checks_a_head_kept_elsewhere(tmp_path, capsys):
    """The chain cannot show rows cut off its end; a head kept from an earlier verify can."""
    from controller.cli import main

    with Journal.open(tmp_path) as journal:
        for n in range(3):
            journal.append({"event": "bet", "seat": "A", "bet": "pass", "amount": 500 + n})
    assert main(["journal", "--state-dir", str(tmp_path), "verify"]) == 0
    kept = json.loads(capsys.readouterr().out)["head"]
    with Journal.open(tmp_path) as journal:
        journal.append({"event": "lock"})  # the journal grew since: the kept head is still in it
    assert main(["journal", "--state-dir", str(tmp_path), "verify", "--head", kept]) == 0
    assert json.loads(capsys.readouterr().out)["kept_head_row"] == 3
    assert main(["journal", "--state-dir", str(tmp_path), "verify", "--head", f" {kept.upper()}\n"]) == 0  # pasted
    capsys.readouterr()
    assert main(["journal", "--state-dir", str(tmp_path), "verify", "--head", "0" * 64]) == 1
    said = capsys.readouterr()
    assert json.loads(said.out)["kept_head_row"] is None and "does not hold the kept head" in said.err


@pytest.mark.parametrize("readonly", [True, False])
def test_a_folder_in_the_journals_place_is_named(tmp_path, readonly):
    (tmp_path / "journal.sqlite3").mkdir()
    with pytest.raises(JournalError, match="journal.sqlite3 is a folder, not a journal file"):
        Journal.open(tmp_path, readonly=readonly)
