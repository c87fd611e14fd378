"""``dicetable journal verify|audit|export|recall N|frames|report|dice|archive``: audit a table's journal.

The journal is opened read-only, so an operator can run this beside the
live table. ``verify`` exits 1 when the chain is broken (and names the
row), and 2 when the file cannot be read here at all (which says nothing of
its rows); ``audit`` exits 1 when the rules engine alone, under the journal's
own rules, does not give back its settlements (and names the row),
``export`` writes JSON lines, ``recall N`` prints the last N rolls
with their reads and settlements for a dispute, ``frames`` writes the
``manifest.csv`` that makes the saved frames a labelled folder for
``dicetable bench`` (with ``--yolo DIR``, a folder labelled die by die, for
training as well), ``report`` prints the pit's numbers of a range of rows (win, handle, hold,
drop, per seat, overrides, shifts: :mod:`controller.pit`), the same the floor prints of its copy,
and ``dice`` the dice's honesty alone (exit 1 while the sequential test flags the dice). ``--file``
reads a journal file itself (an archive).

``archive --to DIR`` is the one action that writes: with the table stopped
(it refuses while a table holds the journal's lock), it moves the journal into
DIR as one verified file, so the next start begins a new journal (see
:func:`controller.journal.archive`).
"""
from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from controller.cli.argtypes import at_least, iso_time

if TYPE_CHECKING:
    from controller.journal import Journal

NAME = "journal"
HELP = ("audit the table's journal: verify the hash chain, export it, recall the last rolls, report the pit's "
        "numbers, check the dice, archive it")


#: The journal commands' location options: before the action or after it (``journal verify --config F``).
LOCATION = ("config", "state_dir", "file")


def _location(parser: argparse.ArgumentParser, default: object) -> None:
    """The options that say which journal to read, on ``parser`` (``default``: None on ``journal``
    itself, ``SUPPRESS`` on each action, so that one given after the action is taken and one not
    given there leaves what was given before it)."""
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--config", metavar="FILE", default=default,
                       help="the table's configuration (its table.state_dir)")
    where.add_argument("--state-dir", metavar="DIR", default=default,
                       help="the state directory holding journal.sqlite3 (default ./var)")
    where.add_argument("--file", metavar="FILE", default=default,
                       help="a journal file itself, such as an archive made by `journal archive` (not with archive)")


def configure(parser: argparse.ArgumentParser) -> None:
    _location(parser, None)
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    check = actions.add_parser("verify", help="check the hash chain; exit 1 and name the row if it is broken, "
                                              "2 if the file cannot be read")
    check.add_argument("--head", metavar="HASH",
                       help="a head an earlier verify printed, kept elsewhere: the journal must still hold that row "
                            "(rows cut off the end, or a journal put back from an older copy, fail)")
    actions.add_parser("audit", help="recompute every settlement with the rules engine alone, under the journal's "
                                     "own rules; exit 1 and name the first row that differs")
    export = actions.add_parser("export", help="every row as JSON lines")
    export.add_argument("--events", action="store_true", help="bare events only (the docs/events.md format)")
    export.add_argument("--inputs", action="store_true", help="input rows only (bets, buttons, reads)")
    export.add_argument("--game-events", action="store_true",
                        help="only what the rules engine saw (accepted bets, removals, settled rolls): "
                             "input for `dicetable replay`, to recompute every settlement")
    recall = actions.add_parser("recall", help="the last N rolls with their reads and settlements")
    recall.add_argument("n", type=at_least(1), metavar="N")
    recall.add_argument("--json", action="store_true", help="one JSON line per roll")
    frames = actions.add_parser(
        "frames", help="a manifest.csv for `dicetable bench`: each saved frame the dealer ruled on "
                       "(confirmed or entered by hand), labelled with the dice settled")
    frames.add_argument("--all", action="store_true",
                        help="also the rolls the camera settled at once (their label is the reader's own answer)")
    frames.add_argument("--yolo", metavar="DIR",
                        help="instead, copy those frames to DIR/images with a YOLO label per die in DIR/labels "
                             "(for `dicetable bench` and training), where the read's boxes tell which die is which")
    report = actions.add_parser("report", help="the pit's numbers of the journal's rows: rolls, decisions, handle, drop, "
                                                "win, hold, per seat, largest payouts, overrides, camera, shifts, dice")
    add_range(report)
    report.add_argument("--json", action="store_true", help="one JSON object (the same as `dicetable floor report`)")
    dice = actions.add_parser("dice", help="the dice's honesty alone: faces against their odds, chi-square and the "
                                           "sequential test over the journal, the last shift and the dice set; exit 1 "
                                           "while the sequential test flags the dice")
    dice.add_argument("--json", action="store_true", help="one JSON object")
    archive = actions.add_parser(
        "archive", help="with the table stopped: move its journal into DIR as one verified file "
                        "(journal-<first row's UTC time>-<last seq>.sqlite3), so the next start begins a new one")
    archive.add_argument("--to", required=True, metavar="DIR", help="the archive folder (made if missing)")
    archive.add_argument("--force", action="store_true",
                         help="archive even with bets on the layout or a roll under way, or (with --reason) rows the "
                              "floor has not acknowledged (they stay in the archive, not on the new table or the floor)")
    archive.add_argument("--reason", metavar="TEXT",
                         help="with --force: why; written into the next journal's first row, where the floor reads it "
                              "(needed past rows the floor has not acknowledged)")
    for action in actions.choices.values():  # the location may follow the action too
        _location(action, argparse.SUPPRESS)


def add_range(parser: argparse.ArgumentParser) -> None:
    """``--since`` and ``--until``: the rows of a report, by their time (both included)."""
    parser.add_argument("--since", type=iso_time, metavar="ISO",
                        help="from this time (ISO 8601, such as 2026-12-01T18:00Z; UTC without a zone)")
    parser.add_argument("--until", type=iso_time, metavar="ISO", help="up to this time (default: the last row)")


def print_report(rows, args: argparse.Namespace) -> None:
    """The report of ``rows`` in ``args``' range: one JSON object with ``--json``, else lines a
    person reads (``journal report`` and ``floor report`` alike)."""
    from controller.jsonlines import json_line
    from controller.pit import report
    from controller.pit.text import report_lines

    found = report(rows, args.since, args.until)
    if args.json:
        print(json_line(found))
    else:
        for line in report_lines(found):
            print(_printable(line))


def _state_dir(args: argparse.Namespace):
    """The state directory to read: with ``--config``, only the file's ``table.state_dir`` is read,
    so a mistake elsewhere in it (the file being mended) does not hide the journal."""
    from controller.config import ConfigError, load_state_dir, unusable_path

    given = [f"--{name.replace('_', '-')}" for name in LOCATION if getattr(args, name)]
    if len(given) > 1:
        raise ConfigError(given[1], "give only one of --config, --state-dir and --file", source=given[0])
    if args.file:
        return Path(args.file).parent
    if not args.config and not args.state_dir:
        return Path("var")  # the default of --state-dir, where `dicetable run` keeps its journals
    if args.state_dir:
        problem = unusable_path(Path(args.state_dir))
        if problem:
            raise ConfigError(args.state_dir, problem, source="--state-dir")
        return args.state_dir
    return load_state_dir(args.config)


def _archive(args: argparse.Namespace) -> int:
    """``archive --to DIR``: one JSON line (where, and what ``verify`` says of the copy), exit 0; every
    refusal (a table running, no journal, the archive's name taken, a copy that does not verify) exits 2
    with the reason, the journal left as it was."""
    from controller.config import ConfigError
    from controller.journal import JournalError, archive
    from controller.jsonlines import json_line

    from controller.floor.signing import SigningError, table_key

    if args.file:
        print("dicetable journal archive: give the table's --state-dir or --config, not --file", file=sys.stderr)
        return 2
    reason = (args.reason or "").strip()
    if args.reason is not None and (not args.force or not reason):
        print("dicetable journal archive: --reason TEXT: only with --force, and not empty", file=sys.stderr)
        return 2
    try:
        state_dir = _state_dir(args)
        unfinished = None if args.force else _unfinished_business(state_dir)
        unsent = _unsent_to_floor(Path(state_dir), bool(args.config) and _names_a_broker(args.config))
        if unsent and not (args.force and reason):
            print(f"dicetable journal archive: {unsent}; they would never reach it: start the table until the floor "
                  "has them (or --force --reason TEXT: they stay in the archive only, and the floor reads why)",
                  file=sys.stderr)
            return 2
        if unfinished:
            print(f"dicetable journal archive: {unfinished}; the next start would begin a fresh table without "
                  "them: settle or take them down first (or --force: they stay in the archive only)", file=sys.stderr)
            return 2
        key = table_key(state_dir, make=False)
        done = archive(state_dir, args.to, reason=reason or None, sign=key.sign if key is not None else None)
    except (ConfigError, JournalError, SigningError) as exc:
        print(f"dicetable journal archive: {exc}", file=sys.stderr)
        return 2
    print(json_line(done.to_json()))
    if not done.report.ok:
        print(f"dicetable journal archive: archived as it is, but its chain is broken at row {done.report.broken_seq} "
              f"({done.report.reason}): keep {done.path} as the evidence", file=sys.stderr)
    return 0


def _names_a_broker(config: str) -> bool:
    """Whether the configuration ``config`` names a floor (``[floor] broker``)."""
    from controller.config import load_floor_broker

    return bool(load_floor_broker(config))


def _unsent_to_floor(state_dir: Path, publishes: bool) -> str | None:
    """What of the journal the floor has not acknowledged (docs/floor.md), or None. ``publishes``:
    the configuration names a floor, so a table with no cursor yet has had no row acknowledged."""
    from controller.floor.cursor import unacknowledged

    left = unacknowledged(state_dir, publishes=publishes)
    if left is None:
        return None
    acked, rows = left
    return f"the floor has acknowledged {acked} of the journal's {rows} rows"


def _unfinished_business(state_dir) -> str | None:
    """What archiving the journal of ``state_dir`` would drop from the table: bets on the layout, a
    roll under way, or an open shift (the journal replayed under its own rules, writing nothing). None when the
    layout is clear, or when the journal cannot be replayed (a damaged one is archived as evidence)."""
    from controller import rules
    from controller.journal import Journal
    from messages.money import dollars
    from controller.table import Phase
    from controller.table.journaled import replayed

    try:
        with Journal.open(state_dir, readonly=True) as journal:
            state = replayed(journal)
    except Exception:  # noqa: BLE001 - damaged, foreign or made by hand: a journal that cannot be replayed
        return None    # must never keep itself from being archived; archive() says what it can of it
    found = []
    if state.phase is not Phase.BETTING:
        found.append(f"a roll is under way ({state.phase.value})")
    if state.shift is not None and state.shift.open:
        found.append("a shift is open (the next journal would begin without it: close it with its count)")
    on_layout = rules.open_bets(state.rules)
    if on_layout:
        found.append(f"{len(on_layout)} bet{'s' if len(on_layout) != 1 else ''} on the layout "
                     f"({dollars(rules.staked(state.rules))})")
    return " and ".join(found) or None


def _suggest_demo_journals(state_dir) -> None:
    """The demo keeps one journal per game under the state directory: name them."""
    from pathlib import Path

    from controller.journal.paths import JOURNAL_FILE

    try:
        found = sorted(p.parent for p in Path(state_dir).glob(f"*/{JOURNAL_FILE}"))
    except OSError:  # a folder that cannot be listed: nothing to suggest
        return
    if found:
        print("  journals found below it: " + ", ".join(f"--state-dir {p}" for p in found), file=sys.stderr)


def _print_recall(records) -> None:
    """Each roll as lines of words; what came from outside (a user's name, a frame's name, an edited
    row) is printed with its control and bidirectional characters escaped (:func:`_printable`)."""
    def say(text: str) -> None:
        print(_printable(text))

    for r in records:
        read = r.read
        if read:
            frame = f"frame {read['frame']}" if read.get("frame") else "no frame saved"
            model = f" model {read['model']}" if read.get("model") else ""
            seen = f"read {read.get('status')} {read.get('dice')} confidence {read.get('confidence')} {frame}{model}"
        else:
            seen = "no camera read"
        say(f"#{r.seq} {r.ts} {r.game or ''} dice {r.dice} by {r.source}; {seen}")
        for fault in r.faults:
            say(f"    NOT AS WRITTEN: {fault} (see `dicetable journal verify`)")
        for action in r.actions:
            say(f"    by {action['user']} (console): {_action_text(action)}")
        for s in r.settlements:
            number = f" {s['number']}" if s.get("number") is not None else ""
            say(f"    seat {s.get('seat')} {s.get('bet')}{number} {_money(s.get('amount'))} {s.get('result')} "
                f"paid {_money(s.get('paid'))}")
        if not r.settlements:
            say("    (no settlements)")


#: Characters that reorder what a terminal shows (Unicode's bidirectional controls): a name holding
#: U+202E shows the text after it backwards, so a recall could be made to read another payout.
BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def _printable(text: str) -> str:
    """``text`` with each control character (a terminal's escape sequences, a line break) and each
    bidirectional control written as its escape (``\\x1b``, ``\\u202e``), so what a recall shows
    is what the journal holds."""
    import unicodedata

    def shown(char: str) -> str:
        if char in BIDI or unicodedata.category(char) == "Cc":
            return f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}"
        return char

    return "".join(map(shown, text))


def _money(cents: object) -> str:
    """A settlement's amount as the other commands write money; what a row holds that is not a
    whole number of cents (an edited row) is shown as it is."""
    from messages.money import dollars

    return dollars(cents) if isinstance(cents, int) and not isinstance(cents, bool) else repr(cents)


def _action_text(action) -> str:
    """A console input as ``recall`` prints it: ``bet A place 6 $6.00``, ``lock``, ``refused void``."""
    name = str(action.get("event"))
    words = [name]
    if name in ("bet", "remove"):
        words += [str(action.get("seat")), str(action.get("bet"))]
        if action.get("number") is not None:
            words.append(str(action["number"]))
        if action.get("on"):
            words.append(f"on {action['on']}")
        if isinstance(action.get("amount"), int) and not isinstance(action["amount"], bool):
            words.append(_money(action["amount"]))
    elif name == "manual" and action.get("dice") is not None:
        words.append(str(action["dice"]))
    elif name == "next_shooter" and action.get("seat"):
        words.append(str(action["seat"]))
    text = " ".join(words)
    return text if action.get("accepted", True) else f"refused {text}"


def _write_yolo(journal, frames_dir: Path, out: Path, dealer_only: bool) -> int:
    """Copy each frame :func:`boxed_frames` labels into ``out/images`` with its YOLO label in
    ``out/labels`` (class = face - 1); say how many frames were labelled and why the others were not.

    A frame the bench could not load from there (a name without an image suffix, or one whose label
    would be taken for the folder's class names) is left out, or it would spoil the whole folder."""
    import shutil

    from controller.journal import boxed_frames, frame_labels
    from vision.benchtool.labels import (CLASS_NAME_FILES, IMAGE_SUFFIXES, LabelError, boxed_die, write_class_names,
                                         yolo_line)

    ruled = sum(1 for _ in frame_labels(journal, dealer_only=dealer_only))
    written = missing = 0
    try:
        (out / "images").mkdir(parents=True, exist_ok=True)
        (out / "labels").mkdir(exist_ok=True)
        write_class_names(out / "labels")
        for boxed in boxed_frames(journal, dealer_only=dealer_only):
            name = Path(boxed.frame)
            label = f"{name.stem}.txt"
            source = frames_dir / boxed.frame
            if name.suffix.lower() not in IMAGE_SUFFIXES or label in CLASS_NAME_FILES or not source.is_file():
                missing += 1
                continue
            shutil.copyfile(source, out / "images" / boxed.frame)
            width, height = boxed.size
            (out / "labels" / label).write_text(
                "".join(yolo_line(boxed_die(face, box, width, height)) + "\n" for box, face in boxed.dice))
            written += 1
    except (OSError, LabelError) as exc:
        print(f"dicetable journal frames: {exc}", file=sys.stderr)
        return 2
    unlabelled = ruled - written - missing
    print(f"{_frames(written)} labelled die by die in {out}"
          + (f"; {_frames(missing)} not in {frames_dir} as images" if missing else "")
          + (f"; {unlabelled} of the {ruled} rolls could not be labelled die by die (a read without boxes, "
             "or a hand entry that does not say which die was which)" if unlabelled else ""))
    return 0


def _dice(journal: Journal, as_json: bool) -> int:
    """``dice``: the honesty check over the whole journal, the last shift and the dice set in play;
    exit 1 while the sequential test flags the dice of the shift or the set."""
    from controller.jsonlines import json_line
    from controller.pit import report, rows_of_entries
    from controller.pit.text import dice_lines

    found = report(rows_of_entries(journal.entries()))
    dice = {"table": found["table"], "game": found["game"], **found["dice"]}
    if as_json:
        print(json_line(dice))
    else:
        for line in dice_lines(found["dice"]):
            print(_printable(line))
    flagged = [scope for scope in ("shift", "set") if (dice[scope] or {}).get("alarm")]
    return 1 if flagged else 0


def _frames(n: int) -> str:
    return f"{n} frame" if n == 1 else f"{n} frames"


def run(args: argparse.Namespace) -> int:
    from controller.config import ConfigError
    from controller.journal import Journal, JournalError
    from controller.journal.paths import JOURNAL_FILE

    if args.action == "archive":
        return _archive(args)
    try:
        state_dir = _state_dir(args)
        journal = Journal(args.file or Path(state_dir) / JOURNAL_FILE, readonly=True)
    except (ConfigError, JournalError) as exc:
        print(f"dicetable journal: {exc}", file=sys.stderr)
        if isinstance(exc, JournalError) and not args.file:
            _suggest_demo_journals(state_dir)
        return 2
    try:
        return _act(args, journal, state_dir)
    except JournalError as exc:  # damaged past its first rows, or unreadable here: say why, never a traceback
        print(f"dicetable journal: {exc}", file=sys.stderr)
        return 2


def _act(args: argparse.Namespace, journal: Journal, state_dir: Path) -> int:
    """The action asked for, on the open ``journal``."""
    from controller.journal import FRAME_LABEL_COLUMNS, export_lines, frame_labels, game_event_lines, recall, verify
    from controller.journal.export import named_non_finite
    from controller.jsonlines import json_line

    with journal:
        if args.action == "verify":
            report = verify(journal)
            out = report.to_json()
            lost_head = False
            if args.head and report.ok:
                out["kept_head_row"] = journal.row_of(args.head.strip().lower())  # as pasted from a note
                lost_head = out["kept_head_row"] is None
            print(json_line(out))
            if not report.triggers:
                print(f"dicetable journal: the triggers refusing UPDATE and DELETE of {journal.path} were dropped "
                      "or altered: someone changed the file's schema", file=sys.stderr)
            if lost_head:
                print(f"dicetable journal: {journal.path} does not hold the kept head {args.head}: rows were cut off "
                      "its end, or it is another (an older copy put back, a new journal)", file=sys.stderr)
                return 1
            return 0 if report.ok else 1
        if args.action == "audit":
            from controller.audit import audit

            audited = audit(journal)
            print(json_line(audited.to_json()))
            return 0 if audited.ok else 1
        if args.action == "export":
            lines = game_event_lines(journal) if args.game_events else export_lines(
                journal, events_only=args.events, inputs_only=args.inputs)
            for line in lines:
                print(line)
            return 0
        if args.action == "report":
            from controller.pit import rows_of_entries

            print_report(rows_of_entries(journal.entries()), args)
            return 0
        if args.action == "dice":
            return _dice(journal, args.json)
        if args.action == "frames" and args.yolo:
            return _write_yolo(journal, Path(state_dir) / "frames", Path(args.yolo), dealer_only=not args.all)
        if args.action == "frames":
            # All read before any is written: a journal that fails part way must not leave a
            # manifest that looks whole (a header, some of the rows).
            rows = list(frame_labels(journal, dealer_only=not args.all))
            writer = csv.DictWriter(sys.stdout, fieldnames=FRAME_LABEL_COLUMNS, lineterminator="\n")
            writer.writeheader()
            writer.writerows(rows)
            return 0
        records = recall(journal, args.n)
        if args.json:
            for r in records:
                print(json_line(named_non_finite(r.to_json())))
        else:
            _print_recall(records)
        return 0
