"""The demo session of ``dicetable run`` with no configuration (what ``make run`` does).

A finite session of every game on the stand-ins, through the real code
paths: each game's table is put together by the same
:func:`~controller.assembly.assemble_table` as a configured one, on the
demo's settings and stand-ins. Seated players bet by simple strategies (``bet`` events); a simulated
dealer pushes the buttons on mock GPIO pins, so every press goes through the
real button code (debounce, long press, manual entry); the camera is a
generated scene filmed at 30 frames per second, through the real settle
detector and dice reader; the result goes to the display stand-in over the
real serial link on a pseudo-terminal; every event is journaled in
``var/<game>/``. The dealer looks at the dice as a dealer does: an unsure
read that is right is confirmed, anything else is entered by hand. The pit
runs a shift on each table: it opens it with a bank, sells each player chips,
has a fill countersigned by a second pit user, and closes it with the count
of the tray (docs/console.md, "The shift").

Printed: each roll, its read and status, how it was resolved, and the
settlements; at the end of each game the journal's chain check and each
seat's net result.

With a console (``dicetable run`` serves one on 127.0.0.1:8080 unless told
``--console off``) each game's table is attached to it while it is dealt, so
the dealer's, the pit's and the board's pages follow the demo. ``--keep-open``
plays one game's demo, then keeps that table and its console until
interrupted: a LOCK from the console (or the panel) throws generated dice in
front of the camera, as the demo's dealer does.
"""
from __future__ import annotations

import json
import queue
import random
import threading
from dataclasses import replace
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Mapping

from controller.assembly import AssembledTable, assemble_table
from controller.camera import ReadPipeline, generated_options
from controller.config import Config, HazardSettings
from controller.event_stream import stream_event
from controller.floor.broker import FloorLink
from controller.floor.publisher import DRAIN_S
from controller.journal import Journal, JournalError, verify
from controller.journal.paths import JOURNAL_FILE
from controller.jsonlines import open_lines, read_lines
from controller.main_loop import serve, take
from controller.players import Players
from controller.rules import GAMES as RULES
from messages.money import dollars
from controller.sdnotify import Notifier
from controller.table import JournaledTable, JournalMismatch, Phase, Step, TableState, expects_roll, lights_for
from controller.table_controller import TableController
from hardware.display import SimDisplay
from hardware.gpio import ManualClock, SimulatedDealer
from vision.sources import GeneratedSource

if TYPE_CHECKING:
    from controller.console.start import RunningConsole
    from controller.floor.broker import BrokerSettings
    from controller.web.serve import Listen

GAMES = tuple(RULES)
ROLLS = {"craps": 5, "hazard": 2, "bang": 4}
#: The demo's shift: the opening bank by chip denomination (cents: $1,750.00), each seated
#: player's buy-in, the fill, and the chips the tray is counted in at the close, largest first.
DEMO_BANK = {"2500": 40, "500": 100, "100": 200, "25": 200}
BUY_IN = 10_000
FILL = 50_000
COUNTED_IN = (10_000, 2500, 500, 100, 25, 5, 1)
DEMO_SPIN_S = 0.3
MAX_FRAMES_PER_ROLL = 300


def describe(effect: Mapping[str, Any]) -> str:
    number = f" {effect['number']}" if effect.get("number") is not None else ""
    name = f"{effect.get('bet', '')}{number}"
    if effect["event"] == "settle":
        return f"seat {effect['seat']} {name} {dollars(effect['amount'])}: {effect['result']}, paid {dollars(effect['paid'])}"
    if effect["event"] == "returned":
        return f"seat {effect['seat']} {name}: {dollars(effect['amount'])} returned"
    if effect["event"] == "rejected":
        return f"refused {effect.get('refused', '?')}{' ' + name if name.strip() else ''}: {effect['reason']}" + (
            f" ({effect['rule']})" if effect.get("rule") else "")
    return json.dumps(effect)


class Printer:
    """Prints what happens at the table, from the controller's steps."""

    def __init__(self, out: IO[str]):
        self.out = out
        self.net: dict[str, int] = {}

    def __call__(self, event: Mapping[str, Any], step: Step, before: TableState) -> None:
        for effect in step.effects:
            kind = effect["event"]
            if kind == "roll":
                by = f" ({effect['by']}'s roll)" if effect.get("by") else ""
                print(f"    roll {effect['dice']} = {sum(effect['dice'])}{by}, settled from {effect['source']}",
                      file=self.out)
            elif kind == "settle":
                self.net[effect["seat"]] = self.net.get(effect["seat"], 0) + effect["paid"] - effect["amount"]
                print(f"      {describe(effect)}", file=self.out)
            elif kind == "rejected":
                print(f"    {describe(effect)}", file=self.out)
            elif kind == "returned":
                print(f"      {describe(effect)}", file=self.out)


def set_aside(path: Path, reason: str) -> Path:
    """Rename a journal the demo cannot continue, with the mark of its last row, and hand it over to
    the next journal as ``journal archive`` does (signed with the table's key when it has one);
    returns its new name. A demo journal is a whole file (a rollback journal), so the rename keeps
    every row."""
    from datetime import datetime, timezone

    from controller.floor.signing import table_key
    from controller.journal.archiving import predecessor
    from controller.journal.handover import Handover, write_handover
    from controller.journal.mark import mark_path

    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S")
    target = path.with_name(f"{path.stem}-{stamp}.set-aside{path.suffix}")
    path.rename(target)
    if mark_path(path).exists():
        mark_path(path).rename(mark_path(target))
    target.with_suffix(".reason.txt").write_text(reason + "\n")
    with Journal(target, readonly=True) as journal:
        report = verify(journal, against_mark=False)
    if report.ok and report.rows:
        key = table_key(path.parent, make=False)
        write_handover(path, Handover(predecessor(target, report.rows, report.head, key.sign if key else None)))
    return target


class FilmedCamera:
    """The demo's camera: generated scenes into which the demo throws the dice itself, filmed frame
    by frame through the read pipeline (:meth:`film`) rather than by a camera thread, so that a demo
    with the same seed reads the same rolls."""

    def __init__(self, source: GeneratedSource, pipeline: ReadPipeline):
        self.source = source
        self.pipeline = pipeline

    def expect_roll(self, at_rest: bool = False, thrown: bool = True) -> None:
        self.pipeline.arm()

    def healthy(self) -> bool:
        return self.source.health.ok

    def lost(self) -> bool:
        return False

    def describe(self) -> str:
        return f"generated scenes: {self.source.health.state.value}"

    def close(self) -> None:
        self.source.close()

    def film(self, values: list[int]) -> dict[str, Any] | None:
        """Throw ``values`` in front of the camera; the read event of the still frame (None if none came)."""
        self.source.throw(values)
        found = None
        for _ in range(MAX_FRAMES_PER_ROLL):
            if not self.source.pending:
                break
            event = self.pipeline.feed(self.source.read())
            if event is not None and found is None:
                found = event
        return found


class DemoTable:
    """One game of the demo: the table assembled as a configured one is, on the demo's settings and
    stand-ins (the game's own state folder, a short spin, the display shared by every game, the
    filmed camera, buttons on a manual clock pressed by a simulated dealer), with seated players."""

    def __init__(self, config: Config, game: str, display: SimDisplay, seed: int, out: IO[str],
                 floor: BrokerSettings | None = None, console: RunningConsole | None = None):
        self.game = game
        self.out = out
        self.rng = random.Random(seed)
        self.display = display
        # Each game is a table of its own, on the floor too: demo-craps, demo-hazard, demo-bang.
        settings = replace(config, game=game, state_dir=config.state_dir / game, hazard=HazardSettings(DEMO_SPIN_S),
                           floor=FloorLink(f"demo-{game}", floor) if floor else None)
        frames = settings.state_dir / "frames" if config.camera.save_frames else None
        self.camera = FilmedCamera(
            GeneratedSource(seed=seed, **generated_options(game), fps=config.camera.fps, size=config.camera.size,
                            rest_s=0.4),
            ReadPipeline(game, frames, fps=config.camera.fps, spin_s=config.hazard.spin_seconds))
        self.set_aside: Path | None = None
        try:
            self.assembled = self._assemble(settings, console)
        except JournalMismatch as exc:
            # A demo journal left by an older version (other rules, other payouts): keep it, start anew.
            # A real table never does this; `dicetable run --config` stops with the reason instead.
            self.set_aside = set_aside(settings.state_dir / JOURNAL_FILE, str(exc))
            self.assembled = self._assemble(settings, console)
        except BaseException:
            self.camera.close()
            raise
        self.dealer = SimulatedDealer(self.assembled.devices.buttons, self.assembled.pin_factory)
        self.printer = Printer(out)
        self.controller.listeners.append(self.printer)
        self.players = Players.seated(game, config.rules.seats, seed)

    def _assemble(self, settings: Config, console: RunningConsole | None) -> AssembledTable:
        return assemble_table(settings, display=self.display, camera=self.camera, console=console, clock=ManualClock())

    @property
    def controller(self) -> TableController:
        return self.assembled.controller

    @property
    def inputs(self) -> queue.Queue[Any]:
        return self.assembled.inputs

    @property
    def journal(self) -> Journal:
        return self.assembled.journal

    @property
    def table(self) -> JournaledTable:
        return self.assembled.table

    @property
    def state(self) -> TableState:
        return self.table.state

    def close(self) -> None:
        self.assembled.close()
        self.camera.close()
        if self.assembled.floor_drained is True:
            print(f"  floor: every row acknowledged as demo-{self.game}", file=self.out)
        elif self.assembled.floor_drained is False:
            print(f"  floor: not every row acknowledged as demo-{self.game} within "
                  f"{DRAIN_S:g} s; the rest goes at the next start", file=self.out)

    def drain(self, wait_s: float = 0.0) -> None:
        """Apply every input waiting on the queue (waiting up to ``wait_s`` for the first)."""
        while True:
            try:
                event = self.inputs.get(timeout=wait_s) if wait_s else self.inputs.get_nowait()
            except queue.Empty:
                return
            wait_s = 0.0
            take(self.controller, event)

    def press(self, *buttons: str) -> None:
        for button in buttons:
            self.dealer.press(button)
        self.drain()

    def settle_leftovers(self) -> None:
        """A journal continued from an earlier run may stop mid-roll: bring the table back to betting."""
        if self.state.phase is Phase.SPINNING:
            self.drain(wait_s=DEMO_SPIN_S + 2)
        for _ in range(4):
            if self.state.phase is Phase.BETTING:
                return
            self.press("void")

    def open_shift(self) -> None:
        """The pit opens a shift (one left open by an earlier run goes on) and sells each seated
        player chips, as a pit user does from the pit's page."""
        shift = self.state.shift
        if shift is None or not shift.open:
            self.controller.submit({"event": "shift_open", "bank": DEMO_BANK, "user": "pit"})
        for seat in self.players.seats:
            self.controller.submit({"event": "buy_in", "seat": seat, "amount": BUY_IN, "user": "pit"})
        print(f"  pit: shift open, bank {dollars(sum(int(d) * n for d, n in DEMO_BANK.items()))}; chips sold: "
              + ", ".join(f"{seat} {dollars(BUY_IN)}" for seat in self.players.seats), file=self.out)

    def close_shift(self) -> None:
        """A fill entered by one pit user and countersigned by the other, then the shift closed with
        the tray counted: exactly what the journal says it should hold."""
        from controller.pit import report, rows_of_entries

        slip = f"F-{len(self.journal) + 1}"
        self.controller.submit({"event": "fill", "slip": slip, "amount": FILL, "user": "pit"})
        self.controller.submit({"event": "countersign", "slip": slip, "user": "pit2"})
        shift = report(rows_of_entries(self.journal.entries()))["shifts"][-1]
        left, counted = shift["expected_cents"], {}
        for chip in COUNTED_IN:
            if left >= chip:
                counted[str(chip)], left = left // chip, left % chip
        self.controller.submit({"event": "shift_close", "bank": counted or {"25": 0}, "user": "pit"})
        closed = report(rows_of_entries(self.journal.entries()))["shifts"][-1]
        hold = f"{closed['hold'] * 100:.1f} %" if closed["hold"] is not None else "-"
        print(f"  pit: fill {slip} {dollars(FILL)} by pit, countersigned by pit2; shift closed: counted "
              f"{dollars(closed['closing_cents'] or 0)}, expected {dollars(closed['expected_cents'])}, win "
              f"{dollars(closed['win_cents'])}, hold {hold}", file=self.out)

    def play_roll(self, number: int, extra_bets: list[dict[str, Any]]) -> None:
        state = self.state
        who = f"shooter {state.rules.shooter}" if hasattr(state.rules, "shooter") else "dealer's cage"
        point = getattr(state.rules, "point", None) or getattr(state.rules, "dealer_point", None)
        roller = f", {state.rules.roller}'s roll" if self.game == "bang" else ""
        where = "" if self.game == "hazard" else f", point {point or 'OFF'}"
        print(f"  {self.game} roll {number}: {who}{roller}{where}", file=self.out)
        placed = []
        for bet in extra_bets + self.players.bets(state):
            if self.controller.submit(bet).accepted and bet.get("event") == "bet":
                number_text = f" {bet['number']}" if bet.get("number") is not None else ""
                placed.append(f"{bet['seat']} {bet['bet']}{number_text} {dollars(bet['amount'])}")
        if placed:
            print(f"    bets: {', '.join(placed)}", file=self.out)
        self.press("lock")
        lamps = lights_for(self.state)
        print(f"    bets locked (lamps: {', '.join(k for k, v in vars(lamps).items() if v) or 'none'})", file=self.out)
        if self.state.phase is Phase.SPINNING:
            self.drain(wait_s=DEMO_SPIN_S + 2)  # the cage motor's own timer stops it: spin_done
        values = [self.rng.randint(1, 6) for _ in range(self.state.dice_count)]
        read = self.camera.film(values)
        if read is None:
            read = {"event": "read", "status": "no_read", "dice": [], "confidence": 0.0, "frame": None,
                    "reason": "no still frame within the roll's frames"}
        print(f"    camera: {read['status']} {read['dice']} confidence {read['confidence']:.2f}"
              f"{' in ' + str(read.get('ms')) + ' ms' if read.get('ms') is not None else ''}"
              f"{' (' + read['reason'] + ')' if read.get('reason') else ''}; frame {read['frame']}", file=self.out)
        self.controller.submit(read)
        if self.state.phase is Phase.PENDING:
            pending = self.state.pending
            assert pending is not None  # the pending phase holds the read it waits on
            if pending.confirmable(self.state.dice_count) and sorted(pending.dice) == sorted(values):
                print("    dealer: the read is right -> CONFIRM", file=self.out)
                self.press("confirm")
            else:
                print(f"    dealer: the dice show {values} -> enters them by hand (hold CONFIRM)", file=self.out)
                suggestion = pending.dice if len(pending.dice) == len(values) else None
                self.dealer.enter_dice(values, suggestion)
                self.drain()

    def keep_open(self) -> None:
        """Serve this table until interrupted: every input on the queue (the console's, the panel's),
        and for each roll the table waits for, generated dice thrown in front of the camera."""
        throws: queue.Queue[list[int] | None] = queue.Queue()
        rng = random.Random(self.rng.random())

        def throw_when_due(event: Any, step: Step, before: TableState) -> None:
            if expects_roll(before, step.state):
                throws.put([rng.randint(1, 6) for _ in range(step.state.dice_count)])

        def thrower() -> None:
            while (values := throws.get()) is not None:
                read = self.camera.film(values)
                self.inputs.put(read or {"event": "read", "status": "no_read", "dice": [], "confidence": 0.0,
                                         "frame": None, "reason": "no still frame within the roll's frames"})

        self.controller.listeners.append(throw_when_due)
        worker = threading.Thread(target=thrower, name="demo-camera", daemon=True)
        worker.start()
        try:
            serve(self.controller, self.inputs, stop=threading.Event(), problems=dict, notifier=Notifier(""), tick=0.5)
        finally:
            throws.put(None)
            worker.join(timeout=5)

    def show_display(self) -> None:
        expected = self.controller.display_view()
        acked = self.display.wait_shown(expected, timeout=3.0)
        # Each row of the digits in its brackets: three rows of eight run together read as one word.
        screen = " ".join(f"[{row}]" for row in self.display.screen().rows)
        verdict = "acknowledged" if acked is not None else "NOT acknowledged"
        print(f"    display {verdict}: {expected.phase} dice {list(expected.dice)} point {expected.point or 'OFF'}"
              + (f" | {screen}" if screen else ""), file=self.out)


def _extra_bets(path: str, default_game: str) -> dict[str, list[dict[str, Any]]]:
    """The ``--bets`` events by game (a line's ``"game"``, else ``default_game``). Read once for
    every game: standard input can be read only once. ``ValueError`` names a line whose game is
    not one, rather than drop its bet without a word."""
    bets: dict[str, list[dict[str, Any]]] = {game: [] for game in GAMES}
    with open_lines(path) as stream:
        for line in read_lines(stream):
            event = stream_event(line)
            game = event.pop("game", default_game)
            if not isinstance(game, str) or game not in bets:
                raise ValueError(f"--bets line {line.number}: \"game\" must be one of {', '.join(GAMES)}, got {game!r}")
            bets[game].append(event)
    return bets


def run_demo(config: Config, *, rolls: int | None = None, seed: int = 7, state_dir: str | None = None,
             bets_file: str | None = None, out: IO[str] | None = None, floor: BrokerSettings | None = None,
             console: Listen | None = None, games: tuple[str, ...] = GAMES, keep_open: bool = False) -> int:
    """Play ``games`` on the stand-ins; 0 when every game ran and every journal verifies.

    ``floor``: each game's journal goes to that broker as table ``demo-<game>``. ``console``: serve
    the console there while the demo plays (its address and the demo's logins go to standard
    error). ``keep_open``: after the last game's demo, keep its table and console until
    interrupted (Ctrl-C ends it with 0).

    A journal that cannot be written (a full disk) stops that game where it is, with the reason on
    standard error, and the demo goes on to the next (exit status 1): nothing takes effect that the
    journal did not take, and nothing ends in a traceback."""
    import sys

    out = out or sys.stdout
    if state_dir:
        config = replace(config, state_dir=Path(state_dir))
    try:
        extra_bets = _extra_bets(bets_file, config.game) if bets_file else {}
    except ValueError as exc:
        print(f"dicetable run: {exc}", file=sys.stderr)
        return 2
    running: RunningConsole | None = None
    if console is not None:
        from controller.console.start import start_demo

        running = start_demo(console)
    display = SimDisplay.open()
    status = 0
    try:
        for index, game in enumerate(games):
            try:
                demo = DemoTable(config, game, display, seed + GAMES.index(game), out, floor, running)
            except (JournalError, OSError) as exc:  # a full disk, a state folder that cannot be made
                print(f"dicetable run: {game}: {_reason(exc)}", file=sys.stderr)
                status = 1
                continue
            try:
                if not _play(demo, rolls, extra_bets.get(game, []), config.state_dir / game, out):
                    status = 1
                if keep_open and index == len(games) - 1:
                    where = f" at {running.url}" if running is not None else " (no console)"
                    print(f"keeping the {game} table open{where}: LOCK throws the dice; Ctrl-C to stop",
                          file=sys.stderr)
                    try:
                        demo.keep_open()
                    except KeyboardInterrupt:
                        print(f"\n{game} table closed", file=sys.stderr)
            except JournalError as exc:
                print(f"dicetable run: {game}: {exc}; this game stops here (its journal holds what was "
                      "settled before)", file=sys.stderr)
                status = 1
            finally:
                demo.close()
    finally:
        display.close()
        if running is not None:
            running.stop()
    return status


def _reason(exc: Exception) -> str:
    """What went wrong, without a traceback: the journal's message, or the system's with the file."""
    if isinstance(exc, OSError):
        return f"{exc.strerror or exc}" + (f": {exc.filename}" if exc.filename else "")
    return str(exc)


def _play(demo: DemoTable, rolls: int | None, extra: list[dict[str, Any]], state_dir: Path, out: IO[str]) -> bool:
    """One game of the demo, printed as it goes; whether its journal verifies at the end."""
    game = demo.game
    print(f"\n== {game}: journal {demo.journal.path} (replayed {demo.table.replayed} earlier inputs)", file=out)
    if demo.set_aside:
        print(f"  (the earlier demo journal does not fit this version; kept as {demo.set_aside})", file=out)
    demo.settle_leftovers()
    demo.open_shift()
    for number in range(1, (rolls or ROLLS[game]) + 1):
        demo.play_roll(number, extra if number == 1 else [])
        demo.show_display()
    if game == "craps":
        print("  a press at the wrong moment:", file=out)
        demo.press("confirm")
        demo.show_display()  # -no- for a moment: nothing happened
        print(f"  the shooter passes the dice (NEXT SHOOTER, point {demo.state.rules.point or 'OFF'}):", file=out)
        before = demo.state.rules.shooter
        demo.press("next_shooter")
        if demo.state.rules.shooter != before:
            print(f"    shooter {before} -> {demo.state.rules.shooter}", file=out)
    demo.close_shift()
    report = verify(demo.journal)
    nets = ", ".join(f"{seat} {'+' if c >= 0 else ''}{dollars(c)}" for seat, c in sorted(demo.printer.net.items()))
    print(f"  {game} done: {demo.state.rolls} rolls on this table so far; this session: {nets or 'no bets settled'}",
          file=out)
    print(f"  journal: {report.rows} rows, chain {'intact' if report.ok else 'BROKEN at row ' + str(report.broken_seq)}"
          f" (dicetable journal --state-dir {state_dir} recall 3)", file=out)
    return report.ok
