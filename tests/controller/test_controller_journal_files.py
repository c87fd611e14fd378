"""The journal's files: one writer at a time, a file that is whole after a stop or a restart,
`journal archive`, and reading a journal where SQLite cannot write beside it."""
from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from controller.cli import main
from controller.journal import Journal, JournalBusy, JournalError, JournalUnreadable, verify
from controller.journal import INPUT, archiving, store
from controller.journal.lock import ARCHIVE, WriterLock
from controller.journal.paths import JOURNAL_FILE

#: A table that dies by SIGKILL (a power cut, the watchdog) after committing rows.
CRASH = """
import os, signal, sys
from controller.journal import Journal
journal = Journal.open(sys.argv[1])
for n in range(int(sys.argv[2])):
    journal.append({"event": "lock", "n": n})
os.kill(os.getpid(), signal.SIGKILL)
"""

#: The same, as an earlier version wrote its journal: in WAL mode, whose committed rows wait in the
#: -wal until a checkpoint, with no mark of the last row.
LEGACY_CRASH = """
import os, signal, sqlite3, sys
from pathlib import Path
from controller.journal import GENESIS, Journal, entry_hash
from controller.journal.chain import canonical_json
Journal.open(sys.argv[1]).close()  # the schema
db = sqlite3.connect(Path(sys.argv[1]) / "journal.sqlite3", isolation_level=None)
db.execute("PRAGMA journal_mode=WAL")
db.execute("PRAGMA synchronous=FULL")
prev = GENESIS
for seq in range(1, int(sys.argv[2]) + 1):
    text, ts = canonical_json({"event": "lock", "n": seq - 1}), "2026-11-01T10:00:00.000+00:00"
    digest = entry_hash(prev, seq, ts, "input", text)
    db.execute("INSERT INTO journal VALUES (?, ?, ?, ?, ?, ?)", (seq, ts, "input", text, prev, digest))
    prev = digest
os.kill(os.getpid(), signal.SIGKILL)
"""

#: A table that holds its journal open until its standard input closes.
HOLD = """
import sys
from controller.journal import Journal
journal = Journal.open(sys.argv[1])
print("open", flush=True)
sys.stdin.read()
"""

ARCHIVE_NAME = re.compile(r"journal-\d{4}-\d\d-\d\dT\d{6}Z-(\d+)\.sqlite3")


#: A table killed in the middle of a commit, its pages already going to the file (a small cache):
#: the -journal beside it holds what the commit overwrote, to be undone at the next open.
CUT_COMMIT = """
import os, signal, sys
from controller.journal import Journal
journal = Journal.open(sys.argv[1])
for n in range(3):
    journal.append({"event": "lock", "n": n})
journal._db.execute("PRAGMA cache_size = 1")
rows, clock = [0], journal._clock
def clock_then_die():
    rows[0] += 1
    if rows[0] == 3000:
        os.kill(os.getpid(), signal.SIGKILL)
    return clock()
journal._clock = clock_then_die
journal.append_many([{"event": "void", "pad": "x" * 200}] * 4000)
"""


def _crash(state_dir: Path, rows: int) -> None:
    subprocess.run([sys.executable, "-c", CRASH, str(state_dir), str(rows)], timeout=30)


def _legacy_crash(state_dir: Path, rows: int) -> None:
    subprocess.run([sys.executable, "-c", LEGACY_CRASH, str(state_dir), str(rows)], timeout=30)
    assert (state_dir / "journal.sqlite3-wal").stat().st_size > 0  # the rows wait in the log


def _rows_in_the_file_alone(journal_file: Path) -> int:
    """What a plain copy of ``journal.sqlite3`` keeps: the file without its -wal."""
    copy = journal_file.parent.parent / f"alone-{journal_file.parent.name}.sqlite3"
    shutil.copyfile(journal_file, copy)
    db = sqlite3.connect(copy)
    try:
        return db.execute("SELECT COUNT(*) FROM journal").fetchone()[0]
    except sqlite3.OperationalError:  # not even the table: it was in the log too
        return 0
    finally:
        db.close()
        copy.unlink()


def _files(folder: Path) -> set[str]:
    return {p.name for p in folder.iterdir()} if folder.exists() else set()


# --- one writer -----------------------------------------------------------------------------------------------


def test_a_second_writer_is_refused_naming_the_first_and_readers_still_read(tmp_path):
    with Journal.open(tmp_path) as first:
        first.append({"event": "lock"})
        with pytest.raises(JournalBusy, match=f"another table is running on {tmp_path} \\(pid {os.getpid()}\\)"):
            Journal.open(tmp_path)
        with Journal.open(tmp_path, readonly=True) as reader:
            assert len(reader) == 1
        first.append({"event": "void"})  # the refusal took nothing from the writer
    with Journal.open(tmp_path) as second:  # released on close
        assert verify(second).ok and len(second) == 2


def test_a_table_is_refused_while_its_journal_is_being_archived(tmp_path):
    lock = WriterLock(tmp_path / JOURNAL_FILE, ARCHIVE)
    try:
        with pytest.raises(JournalBusy, match=f"the journal in {tmp_path} is being archived \\(pid {os.getpid()}\\)"):
            Journal.open(tmp_path)
    finally:
        lock.release()
    Journal.open(tmp_path).close()


def test_the_lock_holds_across_processes_and_dies_with_its_holder(tmp_path):
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(tmp_path)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "open\n"
        with pytest.raises(JournalBusy, match=f"pid {holder.pid}"):
            Journal.open(tmp_path)
    finally:
        holder.kill()  # SIGKILL: no close(), no cleanup; the kernel drops the lock
        holder.wait(timeout=10)
        holder.stdout.close()
        holder.stdin.close()
    with Journal.open(tmp_path) as journal:
        journal.append({"event": "lock"})


def test_a_second_table_on_one_state_dir_stops_with_the_reason(tmp_path, capsys):
    with Journal.open(tmp_path):
        assert main(["run", "--events", os.devnull, "--exit-at-end", "--state-dir", str(tmp_path)]) == 3
    err = capsys.readouterr().err
    assert f"dicetable run: another table is running on {tmp_path} (pid {os.getpid()})" in err
    with Journal.open(tmp_path, readonly=True) as journal:
        assert len(journal) == 0  # the refused table wrote nothing


# --- the file is whole after a stop and after a restart ------------------------------------------------------


def test_after_a_clean_stop_the_file_alone_holds_every_row_even_with_a_reader_open(tmp_path):
    """SQLite folds the log in on its own only when the last connection closes; a `journal` command
    running at the stop must not leave the rows in the -wal."""
    writer = Journal.open(tmp_path)
    writer.append({"event": "lock"})
    with Journal.open(tmp_path, readonly=True) as reader:
        assert len(reader) == 1  # the reader has the log open now
        writer.append_many([{"event": "void"}] * 3)
        writer.close()
        assert _rows_in_the_file_alone(tmp_path / "journal.sqlite3") == 4
        assert len(reader) == 4


def test_after_a_crash_the_file_alone_holds_every_committed_row(tmp_path, capsys):
    """A rollback journal: deleting the files beside journal.sqlite3 after a SIGKILL, or copying the
    file alone, loses no committed row (with WAL the last rows were in the -wal, and were lost)."""
    _crash(tmp_path / "state", 40)
    assert not (tmp_path / "state" / "journal.sqlite3-wal").exists()
    assert _rows_in_the_file_alone(tmp_path / "state" / "journal.sqlite3") == 40
    (tmp_path / "copy").mkdir()
    shutil.copyfile(tmp_path / "state" / "journal.sqlite3", tmp_path / "copy" / "journal.sqlite3")
    for name in ("journal.sqlite3-journal", "journal.sqlite3-wal", "journal.sqlite3-shm"):
        (tmp_path / "state" / name).unlink(missing_ok=True)
    for where in ("state", "copy"):
        assert main(["journal", "--state-dir", str(tmp_path / where), "verify"]) == 0
        assert json.loads(capsys.readouterr().out)["rows"] == 40


def test_a_reader_after_a_commit_cut_short_undoes_it_and_reads_the_committed_rows(tmp_path, capsys):
    """A read-only connection may not undo a commit a stop cut short, and so read nothing at all
    until the table started again; a reader that may write there undoes it, as the start would."""
    subprocess.run([sys.executable, "-c", CUT_COMMIT, str(tmp_path)], timeout=60)
    assert (tmp_path / "journal.sqlite3-journal").stat().st_size > 0
    assert main(["journal", "--state-dir", str(tmp_path), "verify"]) == 0
    assert json.loads(capsys.readouterr().out)["rows"] == 3
    with Journal.open(tmp_path) as journal:
        journal.append({"event": "void"})
        assert verify(journal).ok and len(journal) == 4


def test_a_commit_cut_short_where_this_user_may_not_write_is_named(tmp_path, monkeypatch, capsys):
    subprocess.run([sys.executable, "-c", CUT_COMMIT, str(tmp_path)], timeout=60)
    _folder_not_writable(monkeypatch, tmp_path)
    assert main(["journal", "--state-dir", str(tmp_path), "verify"]) == 2
    assert "a commit cut short by a stop waits in journal.sqlite3-journal" in capsys.readouterr().err


def test_the_first_start_folds_a_log_an_earlier_version_left_and_leaves_wal_mode(tmp_path):
    _legacy_crash(tmp_path, 25)
    assert _rows_in_the_file_alone(tmp_path / "journal.sqlite3") == 0
    with Journal.open(tmp_path) as journal:
        assert _rows_in_the_file_alone(tmp_path / "journal.sqlite3") == 25
        assert not (tmp_path / "journal.sqlite3-wal").exists()
        assert verify(journal).ok
        journal.append({"event": "void"})
    assert _rows_in_the_file_alone(tmp_path / "journal.sqlite3") == 26


def test_a_log_whose_file_was_moved_away_is_not_discarded_by_a_new_journal(tmp_path, capsys):
    """`mv journal.sqlite3` of an earlier version's journal after a crash leaves the rows in the -wal; a
    new journal created beside it would make SQLite drop them."""
    _legacy_crash(tmp_path, 5)
    (tmp_path / "journal.sqlite3").rename(tmp_path / "moved.sqlite3")
    size = (tmp_path / "journal.sqlite3-wal").stat().st_size
    with pytest.raises(JournalError, match="journal.sqlite3-wal beside it holds rows of one whose file was moved"):
        Journal.open(tmp_path)
    assert not (tmp_path / "journal.sqlite3").exists()
    assert (tmp_path / "journal.sqlite3-wal").stat().st_size == size
    assert main(["journal", "--state-dir", str(tmp_path), "verify"]) == 2
    assert "put journal.sqlite3 back" in capsys.readouterr().err
    (tmp_path / "moved.sqlite3").rename(tmp_path / "journal.sqlite3")
    with Journal.open(tmp_path) as journal:  # put back, nothing was lost
        assert len(journal) == 5 and verify(journal).ok


# --- journal archive ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("crash", [_crash, _legacy_crash], ids=["rollback-journal", "earlier-wal-journal"])
def test_archive_after_a_crash_keeps_every_row(tmp_path, capsys, crash):
    """Archiving after a crash keeps every row in one file, and the next start begins a new journal."""
    state, shelf = tmp_path / "state", tmp_path / "archive"
    crash(state, 30)
    assert main(["journal", "--state-dir", str(state), "verify"]) == 0
    before = json.loads(capsys.readouterr().out)

    assert main(["journal", "--state-dir", str(state), "archive", "--to", str(shelf)]) == 0
    done = json.loads(capsys.readouterr().out)
    path = Path(done.pop("archived"))
    assert done == before and before["rows"] == 30
    assert path.parent == shelf and ARCHIVE_NAME.fullmatch(path.name).group(1) == "30"
    # journal.sqlite3, its mark and SQLite's files are gone; the handover names it to the next journal
    assert _files(state) == {"journal.lock", "journal.next"}

    assert _rows_in_the_file_alone(path) == 30  # self-contained: no log beside it
    assert main(["journal", "--file", str(path), "verify"]) == 0
    assert json.loads(capsys.readouterr().out) == before
    assert _files(shelf) == {path.name}  # reading it created no -wal or -shm

    with Journal.open(state) as journal:
        assert len(journal) == 0


def test_archive_refuses_while_a_table_runs_and_changes_nothing(tmp_path, capsys):
    with Journal.open(tmp_path / "state") as journal:
        journal.append({"event": "lock"})
        assert main(["journal", "--state-dir", str(tmp_path / "state"), "archive", "--to", str(tmp_path / "a")]) == 2
        journal.append({"event": "void"})
    err = capsys.readouterr().err
    assert f"a table is running on {tmp_path / 'state'} (pid {os.getpid()}); stop it first, then archive" in err
    assert not (tmp_path / "a").exists()
    with Journal.open(tmp_path / "state", readonly=True) as journal:
        assert len(journal) == 2


def test_archive_refuses_without_a_journal_or_given_a_file(tmp_path, capsys):
    assert main(["journal", "--state-dir", str(tmp_path), "archive", "--to", str(tmp_path / "a")]) == 2
    assert f"no journal at {tmp_path / 'journal.sqlite3'}" in capsys.readouterr().err
    Journal.open(tmp_path).close()
    assert main(["journal", "--file", str(tmp_path / "journal.sqlite3"), "archive", "--to", str(tmp_path / "a")]) == 2
    assert "give the table's --state-dir or --config, not --file" in capsys.readouterr().err
    assert not (tmp_path / "a").exists()


def test_archive_never_overwrites_an_archive(tmp_path, capsys):
    with Journal.open(tmp_path / "state") as journal:
        first = journal.append({"event": "lock"})
    name = f"journal-{archiving._stamp(first.ts)}-1.sqlite3"
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / name).write_text("an earlier archive")
    assert main(["journal", "--state-dir", str(tmp_path / "state"), "archive", "--to", str(tmp_path / "a")]) == 2
    assert "exists already and holds other rows (an archive is never overwritten); nothing was archived" in \
        capsys.readouterr().err
    assert (tmp_path / "a" / name).read_text() == "an earlier archive"
    with Journal.open(tmp_path / "state", readonly=True) as journal:
        assert len(journal) == 1


def test_archive_keeps_the_journal_when_the_copy_does_not_verify(tmp_path, capsys, monkeypatch):
    real_copy = archiving._copy

    def copy_that_differs(original: Journal, target: Path) -> None:
        real_copy(original, target)
        db = sqlite3.connect(target)
        db.executescript("DROP TRIGGER journal_no_update; UPDATE journal SET event = '{}' WHERE seq = 2;")
        db.close()

    monkeypatch.setattr(archiving, "_copy", copy_that_differs)
    _crash(tmp_path / "state", 4)
    assert main(["journal", "--state-dir", str(tmp_path / "state"), "archive", "--to", str(tmp_path / "a")]) == 2
    assert "does not hold the rows of" in capsys.readouterr().err
    assert _files(tmp_path / "a") == set()  # no half-made archive
    with Journal.open(tmp_path / "state", readonly=True) as journal:
        assert len(journal) == 4 and verify(journal).ok


def test_an_edited_journal_is_archived_as_it_is_and_the_report_says_so(tmp_path, capsys):
    """A table refuses to replay an edited journal; archiving it keeps the evidence and frees the table."""
    with Journal.open(tmp_path / "state") as journal:
        for n in range(3):
            journal.append({"event": "lock", "n": n})
    db = sqlite3.connect(tmp_path / "state" / "journal.sqlite3")
    db.executescript("""DROP TRIGGER journal_no_update; UPDATE journal SET event = '{"event":"void"}' WHERE seq = 2;""")
    db.close()
    assert main(["journal", "--state-dir", str(tmp_path / "state"), "archive", "--to", str(tmp_path / "a")]) == 0
    out, err = capsys.readouterr()
    done = json.loads(out)
    assert done["ok"] is False and done["broken_seq"] == 2 and done["triggers"] is False
    assert "chain is broken at row 2" in err
    assert main(["journal", "--file", done["archived"], "verify"]) == 1


# --- reading where SQLite cannot write ------------------------------------------------------------------------


def _shm_cannot_be_made(folder: Path) -> None:
    """SQLite can create no journal.sqlite3-shm here, as in a folder on read-only media."""
    (folder / "journal.sqlite3-shm").symlink_to(folder / "gone" / "shm")


def _folder_not_writable(monkeypatch, folder: Path) -> None:
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: not (str(p) == str(folder) and mode & os.W_OK)
                        and real_access(p, mode))


def test_a_journal_in_a_folder_this_user_cannot_write_is_read_as_it_is(tmp_path, monkeypatch, capsys):
    """No writer can be at work where no rows wait in a -wal, so the file alone is the journal."""
    with Journal.open(tmp_path) as journal:
        journal.append_many([{"event": "lock"}, {"event": "void"}])
        head = verify(journal).head
    _shm_cannot_be_made(tmp_path)
    _folder_not_writable(monkeypatch, tmp_path)
    assert main(["journal", "--state-dir", str(tmp_path), "verify"]) == 0
    assert json.loads(capsys.readouterr().out) == {"ok": True, "rows": 2, "head": head}


def test_a_journal_that_cannot_be_read_here_is_an_error_not_a_broken_chain(tmp_path, monkeypatch, capsys):
    _legacy_crash(tmp_path, 1)  # a WAL journal: SQLite reads it only with its -shm
    (tmp_path / "journal.sqlite3-shm").unlink()
    _shm_cannot_be_made(tmp_path)  # in a folder SQLite may write, for another reason
    with pytest.raises(JournalUnreadable, match="unable to open database file"):
        Journal.open(tmp_path, readonly=True)
    assert main(["journal", "--state-dir", str(tmp_path), "verify"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "cannot read the journal" in err and "unable to open database file" in err

    class Unreadable:  # a read that fails midway (the medium): no verdict on the rows
        path = tmp_path / "journal.sqlite3"

        def raw_rows(self):
            raise JournalUnreadable(f"cannot read the journal {self.path}: disk I/O error")

    with pytest.raises(JournalUnreadable, match="disk I/O error"):
        verify(Unreadable())


def test_rows_still_in_the_log_of_a_folder_this_user_cannot_write_are_named(tmp_path, monkeypatch, capsys):
    _legacy_crash(tmp_path, 3)
    (tmp_path / "journal.sqlite3-shm").unlink()
    _shm_cannot_be_made(tmp_path)
    _folder_not_writable(monkeypatch, tmp_path)
    assert main(["journal", "--state-dir", str(tmp_path), "verify"]) == 2
    assert "the last rows are still in journal.sqlite3-wal" in capsys.readouterr().err


def _read_only_mount_works(folder: Path) -> bool:
    probe = subprocess.run(["unshare", "-rm", "sh", "-c", f"mount --bind {folder} {folder} && "
                            f"mount -o remount,bind,ro {folder}"], capture_output=True)
    return probe.returncode == 0


@pytest.mark.skipif(shutil.which("unshare") is None, reason="needs unshare(1) for a read-only mount")
def test_copies_on_read_only_media_verify_without_writing(tmp_path):
    """On read-only media a copied journal and an archive both verify, and nothing is written."""
    media = tmp_path / "media"
    with Journal.open(tmp_path / "state") as journal:
        journal.append_many([{"event": "lock"}, {"event": "void"}])
    (media / "copied").mkdir(parents=True)
    shutil.copyfile(tmp_path / "state" / "journal.sqlite3", media / "copied" / "journal.sqlite3")  # WAL mode
    assert main(["journal", "--state-dir", str(tmp_path / "state"), "archive", "--to", str(media / "shelf")]) == 0
    if not _read_only_mount_works(media):
        pytest.skip("no user namespace for a read-only mount here")
    (archived,) = (media / "shelf").iterdir()
    command = f"{sys.executable} -m controller.cli journal"
    script = (f"mount --bind {media} {media} && mount -o remount,bind,ro {media} && "
              f"{command} --state-dir {media / 'copied'} verify && {command} --file {archived} verify")
    done = subprocess.run(["unshare", "-rm", "sh", "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert [json.loads(line)["rows"] for line in done.stdout.splitlines()] == [2, 2]
    assert _files(media / "copied") == {"journal.sqlite3"}


# --- corner cases: damaged, cut short, locked, unreadable -----------------------------------------------------


def test_a_damaged_journal_is_archived_as_the_evidence_it_is(tmp_path, capfd):
    """A journal damaged by a failing card (its chain broken) is archived as the evidence it is, with a
    warning to keep it, and nothing is left to fail on a closed file ("Exception ignored")."""
    state = tmp_path / "state"
    with Journal.open(state) as journal:
        for n in range(400):
            journal.append({"event": "bet", "seat": "A", "bet": "field", "amount": 100 + n})
    data = bytearray((state / "journal.sqlite3").read_bytes())
    middle = len(data) // 2
    data[middle:middle + 300] = b"\xff" * 300
    (state / "journal.sqlite3").write_bytes(bytes(data))
    with Journal.open(state, readonly=True) as journal:
        assert not verify(journal).ok
    assert main(["journal", "--state-dir", str(state), "archive", "--to", str(tmp_path / "a")]) == 0
    out, err = capfd.readouterr()
    done = json.loads(out)
    assert done["ok"] is False and "keep" in err and "Exception ignored" not in err
    assert not (state / "journal.sqlite3").exists()
    with Journal(Path(done["archived"]), readonly=True) as copy:
        assert verify(copy).broken_seq == done["broken_seq"]


def test_an_archive_is_named_only_once_it_is_whole(tmp_path, capsys, monkeypatch):
    """A copy cut short by a power cut never bears an archive's name, so the next try takes it."""
    _crash(tmp_path / "state", 4)
    real_copy = archiving._copy

    def cut_short(original: Journal, target: Path) -> None:
        real_copy(original, target)
        raise KeyboardInterrupt  # the power goes mid-archive

    monkeypatch.setattr(archiving, "_copy", cut_short)
    with pytest.raises(KeyboardInterrupt):
        archiving.archive(tmp_path / "state", tmp_path / "a")
    assert not any(name.endswith(".sqlite3") for name in _files(tmp_path / "a"))
    (tmp_path / "a" / ".journal-x.sqlite3.part").write_text("left by a power cut")  # not ours to block on
    monkeypatch.undo()
    assert main(["journal", "--state-dir", str(tmp_path / "state"), "archive", "--to", str(tmp_path / "a")]) == 0
    archived = Path(json.loads(capsys.readouterr().out)["archived"])
    assert archived.parent == tmp_path / "a" and not archived.name.startswith(".")
    assert not any(name.endswith(".part") and name != ".journal-x.sqlite3.part" for name in _files(tmp_path / "a"))


def test_a_folder_this_user_may_not_enter_is_a_reason_not_a_traceback(tmp_path, monkeypatch):
    def refused(self):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(Path, "is_dir", refused)
    with pytest.raises(JournalUnreadable, match="Permission denied"):
        Journal.open(tmp_path, readonly=True)


def test_a_lock_made_by_root_is_handed_to_the_state_folders_owner(tmp_path):
    """The journal.lock that `sudo dicetable journal archive` makes belongs to the state folder's owner,
    so the service can open it."""
    if os.geteuid() != 0:
        pytest.skip("needs root to make a lock as root")
    state = tmp_path / "state"
    state.mkdir()
    os.chown(state, 4321, 4321)
    lock = WriterLock(state / "journal.sqlite3", ARCHIVE)
    try:
        owner = (state / "journal.lock").stat()
        assert (owner.st_uid, owner.st_gid) == (4321, 4321)
    finally:
        lock.release()


def test_a_reader_in_the_middle_of_a_long_read_does_not_keep_the_table_from_committing(tmp_path):
    """With a rollback journal a read holds the file against commits while it lasts: readers read a
    page at a time, so a long export beside the running table never makes a commit wait for it."""
    writer = Journal.open(tmp_path)
    writer.append_many([{"event": "lock", "n": n} for n in range(3 * store.PAGE_ROWS)], INPUT)
    writer._db.execute("PRAGMA busy_timeout = 50")
    with Journal.open(tmp_path, readonly=True) as reader:
        reading = reader.entries()
        next(reading)  # a long export, part way
        writer.append({"event": "void"})  # a commit does not wait for the reader
        assert sum(1 for _ in reading) == 3 * store.PAGE_ROWS  # and the reader reads on, up to the new row
    writer.close()


def test_archive_refuses_while_bets_are_on_the_layout_unless_forced(tmp_path, capsys):
    """The next start is a fresh table, so a pass bet on a point would be archived away: archive
    refuses it unless forced."""
    from controller.rules import TableConfig
    from controller.table import JournaledTable

    with Journal.open(tmp_path / "state") as journal:
        table = JournaledTable.open(journal, "craps", TableConfig())
        for event in ({"event": "bet", "seat": "A", "bet": "pass", "amount": 500}, {"event": "lock"},
                      {"event": "manual", "dice": [4, 4]}):
            assert table.submit(event).accepted
    assert main(["journal", "--state-dir", str(tmp_path / "state"), "archive", "--to", str(tmp_path / "a")]) == 2
    assert "1 bet on the layout ($5.00)" in capsys.readouterr().err
    assert (tmp_path / "state" / "journal.sqlite3").exists() and _files(tmp_path / "a") == set()
    assert main(["journal", "--state-dir", str(tmp_path / "state"), "archive", "--to", str(tmp_path / "a"),
                 "--force"]) == 0
    assert not (tmp_path / "state" / "journal.sqlite3").exists()


def test_an_archive_cut_short_is_finished_by_the_next_try(tmp_path, capsys, monkeypatch):
    """An archive cut between its naming and the removal of the original is finished by the next try,
    which leaves one archive and no original behind."""
    _crash(tmp_path / "state", 5)
    real_unlink = Path.unlink

    def keep_the_original(self, missing_ok=False):
        if self.parent == tmp_path / "state":
            raise KeyboardInterrupt  # cut before the original's files went
        return real_unlink(self, missing_ok=missing_ok)

    monkeypatch.setattr(Path, "unlink", keep_the_original)
    with pytest.raises(KeyboardInterrupt):
        archiving.archive(tmp_path / "state", tmp_path / "a")
    monkeypatch.undo()
    named = [n for n in _files(tmp_path / "a") if n.startswith("journal-")]
    assert len(named) == 1 and (tmp_path / "state" / "journal.sqlite3").exists()
    assert main(["journal", "--state-dir", str(tmp_path / "state"), "archive", "--to", str(tmp_path / "a")]) == 0
    assert json.loads(capsys.readouterr().out)["rows"] == 5
    assert _files(tmp_path / "a") == set(named) and not (tmp_path / "state" / "journal.sqlite3").exists()


def test_an_archive_on_a_stick_without_links_is_named_by_a_rename(tmp_path, capsys, monkeypatch):
    """FAT and exFAT have no hard links (link() says EPERM): an archive there is named by a rename."""
    import errno

    def no_links(src, dst):
        raise OSError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(archiving.os, "link", no_links)
    _crash(tmp_path / "state", 3)
    assert main(["journal", "--state-dir", str(tmp_path / "state"), "archive", "--to", str(tmp_path / "a")]) == 0
    archived = Path(json.loads(capsys.readouterr().out)["archived"])
    assert _files(tmp_path / "a") == {archived.name}


def test_a_journal_that_cannot_be_replayed_is_archived_all_the_same(tmp_path, capsys):
    """A journal whose row 1 is a JSON array (its chain intact) cannot be replayed to look for open
    bets, and is archived all the same, without a traceback."""
    with Journal.open(tmp_path / "state") as journal:
        journal.append([1, 2, 3])  # type: ignore[arg-type]
        journal.append({"event": "lock"})
    assert main(["journal", "--state-dir", str(tmp_path / "state"), "archive", "--to", str(tmp_path / "a")]) == 0
    assert json.loads(capsys.readouterr().out)["rows"] == 2


def test_a_new_journal_is_in_its_folder_on_disk_before_its_first_row(tmp_path, monkeypatch):
    """SQLite syncs the file at every commit but never the folder's entry for a file it creates: a
    power cut could lose a new journal whole, rows and all, with no mark left to say so."""
    synced: list[tuple[str, bool]] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        path = os.readlink(f"/proc/self/fd/{fd}")
        synced.append((path, os.path.isdir(path) and (Path(path) / JOURNAL_FILE).exists()))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    state = tmp_path / "state"
    with Journal.open(state) as journal:
        folder_synced = (str(state), True) in synced
        journal.append({"event": "lock"})
    assert folder_synced


def test_archive_removes_the_mark_on_disk_before_the_journal(tmp_path, monkeypatch):
    """Removals reach the disk in any order unless the folder is synced between them: a power cut
    could keep the mark and lose the journal, and the next start would refuse an archived table."""
    state = tmp_path / "state"
    with Journal.open(state) as journal:
        journal.append({"event": "lock"})
    steps: list[str] = []
    real_unlink, real_sync = Path.unlink, archiving.sync_folder

    def unlink(path: Path, missing_ok: bool = False) -> None:
        if path.parent == state and path.exists():
            steps.append(path.name)
        real_unlink(path, missing_ok=missing_ok)

    def sync_folder(folder: Path) -> None:
        steps.append(f"sync {folder.name}")
        real_sync(folder)

    monkeypatch.setattr(Path, "unlink", unlink)
    monkeypatch.setattr(archiving, "sync_folder", sync_folder)
    archiving.archive(state, tmp_path / "shelf")
    assert steps.index("journal.committed") < steps.index("sync state") < steps.index(JOURNAL_FILE)
