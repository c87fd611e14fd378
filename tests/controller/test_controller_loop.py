"""The whole loop on the stand-ins: bets, buttons on mock pins, camera, reader, journal, lamps, motor, display."""
from __future__ import annotations

import io
import re
import json
import queue
import socket
import threading
from dataclasses import replace

import pytest
from gpiozero.pins.mock import MockFactory

from controller import table_controller
from controller.devices import cage_listener
from controller.main_loop import serve
from controller.config import load
from controller.demo import run_demo
from controller.journal import Journal, recall, verify
from controller.rules import TableConfig
from controller.sdnotify import Notifier
from controller.service import run_table
from controller.table import JournaledTable, Phase, display_state
from controller.table_controller import TableController
from hardware.display import DisplayLink, start_standin
from hardware.gpio import GpioSettings, ManualClock, PinMap, SimulatedDealer, build_devices


def test_demo_plays_every_game_end_to_end(tmp_path):
    bets = tmp_path / "bets.jsonl"
    bets.write_text('{"event": "bet", "seat": "H", "bet": "any_craps", "amount": 200}\n'
                    'not a bet\n'
                    '{"event": "bet", "game": "hazard", "seat": "H", "bet": "any_raffle", "amount": 100}\n')
    out = io.StringIO()
    assert run_demo(load(None), rolls=1, seed=3, state_dir=str(tmp_path), bets_file=str(bets), out=out) == 0
    text = out.getvalue()
    assert "seat H any_craps $2.00" in text and "seat H any_raffle $1.00" in text
    assert "refused malformed" in text
    for game in ("craps", "hazard", "bang"):
        assert f"== {game}" in text
        with Journal.open(tmp_path / game, readonly=True) as journal:
            assert verify(journal).ok
            (roll,) = recall(journal, 5)
            assert len(roll.dice) == (3 if game == "hazard" else 2)
            read = roll.read or next(e.event for e in journal.entries() if e.event["event"] == "read")
            assert (tmp_path / game / "frames" / read["frame"]).exists()  # the still frame was kept
    assert text.count("display acknowledged") == 4 and "NOT acknowledged" not in text
    assert "display acknowledged: refused" in text and "[-no-" in text  # the wrong press, as the digits show it
    shown = next(line for line in text.splitlines() if "display acknowledged: settled" in line)
    assert re.search(r"\| \[[^]]{8}\] \[[^]]{8}\] \[[^]]{8}\]$", shown), shown  # three rows, each apart
    assert "camera:" in text and "paid $" in text
    assert "refused confirm: nothing to confirm" in text


def test_the_demo_on_a_full_disk_says_so_and_ends_without_a_traceback(tmp_path, monkeypatch, capsys):
    """Frames failed to save (as they should), then the journal's refusal ended in a traceback."""
    import controller.camera
    from controller.cli import main
    from controller.journal import JournalError, store

    monkeypatch.setattr(controller.camera.cv2, "imwrite", lambda *args, **kwargs: False)  # no room for frames
    append_many, commits = store.Journal.append_many, [0]

    def disk_full(self, events, kind=store.EFFECT):
        commits[0] += 1
        if commits[0] > 12:  # part way through the first game, and every game after
            raise JournalError(f"cannot write to the journal {self.path}: database or disk is full")
        return append_many(self, events, kind)

    monkeypatch.setattr(store.Journal, "append_many", disk_full)
    assert main(["run", "--rolls", "2", "--state-dir", str(tmp_path)]) == 1
    out, err = capsys.readouterr()
    assert err.count("database or disk is full") == 3 and "Traceback" not in err
    assert "dicetable run: craps: cannot write to the journal" in err and "this game stops here" in err
    with Journal.open(tmp_path / "craps", readonly=True) as journal:
        assert verify(journal).ok and len(journal) > 1


@pytest.fixture
def rig(tmp_path):
    """A craps-and-hazard-capable controller on mock pins with the display stand-in on a pty."""
    factory, pins = MockFactory(), PinMap()
    inputs: queue.Queue = queue.Queue()
    devices = build_devices(pins, pin_factory=factory, sink=lambda b: inputs.put({"event": b.value}),
                            clock=ManualClock(), on_motor_stop=cage_listener(inputs.put))
    standin = start_standin()
    link = DisplayLink(standin.port).start()
    journal = Journal.open(tmp_path)
    yield factory, pins, devices, link, standin, journal, inputs
    devices.close()
    link.stop()
    standin.stop()
    journal.close()
    factory.reset()


def test_lamps_motor_and_display_follow_the_journaled_state(rig):
    factory, pins, devices, link, standin, journal, inputs = rig
    controller = TableController(JournaledTable.open(journal, "hazard", TableConfig()), devices, link, spin_seconds=0.05)
    controller.redraw()
    lamp, motor = factory.pin(pins.light_no_more_bets), factory.pin(pins.cage_motor)
    controller.submit({"event": "bet", "seat": "A", "bet": "low", "amount": 500})
    assert lamp.state is False
    controller.submit({"event": "lock"})
    assert controller.state.phase is Phase.SPINNING and lamp.state is True and motor.state is True
    assert inputs.get(timeout=2) == {"event": "spin_done"}  # the motor's own timer stopped it
    controller.submit({"event": "spin_done"})
    assert motor.state is False
    result = controller.submit({"event": "read", "status": "ok", "dice": [1, 2, 4], "confidence": 0.99, "frame": None})
    assert result.effects[1]["result"] == "win" and lamp.state is False
    assert link.wait_acked(display_state(controller.state), timeout=3) is not None
    shown = standin.wait_for(lambda s: s.state is not None and s.state.dice == (1, 2, 4), timeout=3)
    assert shown is not None and shown.state.phase == "settled"


def test_the_display_tells_the_dealer_which_button_the_table_waits_for(rig):
    factory, pins, devices, link, standin, journal, inputs = rig
    controller = TableController(JournaledTable.open(journal, "craps", TableConfig()), devices, link, spin_seconds=0.05)
    words = []
    for event in ({"event": "lock"},
                  {"event": "read", "status": "no_read", "dice": [], "confidence": 0.0, "frame": None},
                  {"event": "manual"},
                  {"event": "void"},  # the hand entry cancelled: the read waits again
                  {"event": "read", "status": "uncertain", "dice": [3, 4], "confidence": 0.5, "frame": None}):
        assert controller.submit(event).accepted
        assert link.wait_acked(display_state(controller.state), timeout=3) is not None
        words.append(standin.screen().rows[1][:4])  # as the stand-in reads the segments back (O as 0)
    assert words == ["L0Cd", "Entr", "HAnd", "Entr", "ConF"]


def test_void_stops_the_cage_and_unlocks(rig):
    factory, pins, devices, link, standin, journal, inputs = rig
    controller = TableController(JournaledTable.open(journal, "hazard", TableConfig()), devices, link, spin_seconds=30)
    controller.submit({"event": "lock"})
    assert factory.pin(pins.cage_motor).state is True
    controller.submit({"event": "void"})
    assert controller.state.phase is Phase.BETTING
    assert factory.pin(pins.cage_motor).state is False and factory.pin(pins.light_no_more_bets).state is False
    assert inputs.empty()  # a stop by the dealer is no spin_done


def test_a_hand_entry_stops_the_cage_and_its_cancel_turns_it_again(rig):
    factory, pins, devices, link, standin, journal, inputs = rig
    controller = TableController(JournaledTable.open(journal, "hazard", TableConfig()), devices, link, spin_seconds=30)
    controller.submit({"event": "lock"})
    motor = factory.pin(pins.cage_motor)
    assert motor.state is True
    controller.submit({"event": "manual"})
    assert controller.state.phase is Phase.MANUAL and motor.state is False
    controller.submit({"event": "void"})
    assert controller.state.phase is Phase.SPINNING and motor.state is True
    assert inputs.empty()  # stops asked for by the table are no spin_done


def test_recovered_table_redraws_and_respins(rig, tmp_path):
    factory, pins, devices, link, standin, journal, inputs = rig
    table = JournaledTable.open(journal, "hazard", TableConfig())
    table.submit({"event": "lock"})  # then the power went: the cage never finished its spin
    controller = TableController(JournaledTable.open(journal, "hazard", TableConfig()), devices, link, spin_seconds=0.05)
    controller.redraw()
    assert factory.pin(pins.cage_motor).state is True and factory.pin(pins.light_no_more_bets).state is True
    assert inputs.get(timeout=2) == {"event": "spin_done"}
    assert link.wait_acked(display_state(controller.state), timeout=3) is not None


def test_wrong_moment_button_press_is_journaled_and_changes_nothing(rig):
    factory, pins, devices, link, standin, journal, inputs = rig
    controller = TableController(JournaledTable.open(journal, "craps", TableConfig()), devices, link, spin_seconds=0.05)
    before = controller.state
    result = controller.submit({"event": "confirm"})
    assert not result.accepted and controller.state == before
    rows = [e.event for e in journal.entries()]
    assert rows[-2] == {"event": "confirm"} and rows[-1]["event"] == "rejected"


def test_service_runs_a_scripted_session_and_shows_it(tmp_path, monkeypatch):
    config_file = tmp_path / "table.toml"
    config_file.write_text('[table]\ngame = "craps"\nstate_dir = "state"\n[camera]\nsource = "none"\n')
    events = [
        {"event": "bet", "seat": "A", "bet": "field", "amount": 500},
        {"event": "lock"},
        {"event": "read", "status": "ok", "dice": [6, 6], "confidence": 0.98, "frame": None},
        {"event": "bet", "seat": "A", "bet": "field", "amount": 500},
    ]
    out = io.StringIO()
    stream = io.StringIO("".join(json.dumps(e) + "\n" for e in events) + "{oops\n")
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.bind(str(tmp_path / "notify"))
    notify.settimeout(0)
    monkeypatch.setenv("NOTIFY_SOCKET", str(tmp_path / "notify"))
    assert run_table(load(config_file), events=stream, exit_at_end=True, out=out) == 0
    told = []
    while True:
        try:
            told.append(notify.recv(4096).decode())
        except BlockingIOError:
            break
    notify.close()
    assert told[0].startswith("READY=1") and told[-1] == "STOPPING=1"
    lines = out.getvalue().splitlines()  # the effects, and only they
    assert json.loads(lines[0])["dice"] == [6, 6] and json.loads(lines[1])["paid"] == 1000
    assert json.loads(lines[2])["refused"] == "malformed" and len(lines) == 3
    with Journal.open(tmp_path / "state", readonly=True) as journal:
        assert verify(journal).ok and len(list(journal.entries())) == 1 + 5 + 3


@pytest.mark.parametrize("fails", ["journal", "display"])
def test_a_failed_start_closes_what_it_opened(tmp_path, monkeypatch, fails):
    """A journal of other rules, or a display port that is not there: the start stops, and the
    GPIO lines and the journal it had already opened are released, not left to the interpreter."""
    import controller.assembly as assembly
    from controller.journal import JournalError

    config_file = tmp_path / "table.toml"
    config_file.write_text('[table]\nstate_dir = "state"\n[camera]\nsource = "none"\n')
    closed = []
    real_open_devices = assembly.open_devices

    def open_devices(*args, **kwargs):
        devices, rest = real_open_devices(*args, **kwargs)
        real_close = devices.close
        monkeypatch.setattr(devices, "close", lambda: closed.append("devices") or real_close())
        return devices, rest

    def broken_display(config):
        raise OSError("no such port /dev/ttyACM9")

    real_journal_close = Journal.close
    monkeypatch.setattr(Journal, "close", lambda self: closed.append("journal") or real_journal_close(self))
    monkeypatch.setattr(assembly, "open_devices", open_devices)
    monkeypatch.setattr(assembly, "open_configured_display", broken_display)
    if fails == "journal":
        monkeypatch.setattr(assembly.JournaledTable, "open", classmethod(
            lambda cls, *a, **k: (_ for _ in ()).throw(JournalError("started under other rules"))))
    config = load(config_file)
    config = replace(config, display=replace(config.display, kind="serial", port="/dev/ttyACM9"))
    with pytest.raises(JournalError if fails == "journal" else OSError):
        run_table(config, events=io.StringIO(""), exit_at_end=True, out=io.StringIO())
    assert closed == (["journal"] if fails == "journal" else ["devices", "journal"])


def test_an_assembled_table_closes_what_it_opened_and_leaves_what_it_was_given(tmp_path):
    """The service and the demo both put their table together with assemble_table: the one from
    the configuration alone, the other with stand-ins of its own, which stay open for it."""
    from controller.assembly import assemble_table
    from hardware.display import HealthState, SimDisplay

    config = replace(load(None), state_dir=tmp_path)
    display = SimDisplay.open()
    try:
        given = assemble_table(replace(config, camera=replace(config.camera, source="none")), display=display)
        assert given.display is display and given.camera is None and given.config.game == "craps"
        given.controller.submit({"event": "lock"})
        assert display.wait_shown(given.controller.display_view(), timeout=3) is not None
        assert given.problems() == {} and given.health() == {"display": {"ok": True, "detail": "answering"}}
        given.close()
        assert display.health.ok  # the caller's display, still open
    finally:
        display.close()
    assert display.health.state is HealthState.CLOSED

    opened = assemble_table(replace(config, display=replace(config.display, kind="none")))
    try:
        assert opened.display is None and opened.camera is not None and opened.journal.path.parent == tmp_path
        assert opened.table.replayed == 1  # the lock above
    finally:
        opened.close()
    assert not opened.camera.healthy()  # the camera it opened is closed


@pytest.mark.parametrize("double_press_s, settled", [(0.4, None), (0.0, [4, 1])])
def test_a_double_tap_of_confirm_in_a_hand_entry_accepts_one_die_not_the_roll(tmp_path, double_press_s, settled):
    """The dealer set die 1 to 4 and tapped CONFIRM twice: with no hold-off the second tap took
    die 2 at its starting value and paid the roll; with it, die 2 waits for the dealer."""
    factory, pins, inputs = MockFactory(), PinMap(), queue.Queue()
    devices = build_devices(pins, GpioSettings(double_press_s=double_press_s), pin_factory=factory,
                            sink=lambda b: inputs.put({"event": b.value}), clock=ManualClock())
    buttons = devices.buttons
    journal = Journal.open(tmp_path)
    controller = TableController(JournaledTable.open(journal, "craps", TableConfig()), devices, None, spin_seconds=0.05)
    for event in ({"event": "bet", "seat": "A", "bet": "any7", "amount": 500}, {"event": "lock"},
                  {"event": "read", "status": "no_read", "dice": [], "confidence": 0.0, "frame": None}):
        controller.submit(event)
    dealer = SimulatedDealer(buttons, factory)
    dealer.long_press("confirm")
    for _ in range(3):
        dealer.press("lock")
    confirm = factory.pin(pins.button_confirm)
    for _ in range(2):  # a double tap: two 60 ms pushes, 100 ms apart
        confirm.drive_low()
        buttons.clock.advance(0.06)
        buttons.poll()
        confirm.drive_high()
        buttons.clock.advance(0.1)
        buttons.poll()
    while not inputs.empty():
        controller.submit(inputs.get_nowait())
    rolls = [e.event["dice"] for e in journal.entries() if e.event["event"] == "roll"]
    if settled is None:
        assert rolls == [] and controller.state.phase is Phase.MANUAL
        assert controller.state.entry.values == (4, 1)  # die 1 accepted, die 2 shown for the dealer to set
    else:
        assert rolls == [settled]
    devices.close()
    journal.close()
    factory.reset()


class ShownStates:
    """Stands in for the display link: keeps every state it is asked to show."""

    def __init__(self) -> None:
        self.shown: list = []

    def show(self, state) -> None:
        self.shown.append(state)


def test_a_lost_camera_has_the_display_ask_for_a_hand_entry(rig):
    """With the camera lost, the display asks for a hand entry once bets are locked."""
    factory, pins, devices, link, standin, journal, inputs = rig
    display = ShownStates()
    controller = TableController(JournaledTable.open(journal, "craps", TableConfig()), devices, display,
                                 spin_seconds=0.05)
    controller.submit({"event": "lock"})
    assert display.shown[-1].phase == "locked"
    controller.set_camera_lost(True)  # no read will come: the dealer enters the dice by hand
    assert display.shown[-1].phase == "enter"
    controller.set_camera_lost(True)
    assert len(display.shown) == 2  # no redraw when nothing changed
    controller.set_camera_lost(False)
    assert display.shown[-1].phase == "locked"
    controller.submit({"event": "void"})
    controller.set_camera_lost(True)
    assert display.shown[-1].phase == "void"  # betting reopened by VOID: nothing to enter


def test_a_refused_press_says_no_for_a_moment_and_a_refused_bet_does_not(rig):
    factory, pins, devices, link, standin, journal, inputs = rig
    display, clock = ShownStates(), ManualClock(100.0)
    controller = TableController(JournaledTable.open(journal, "craps", TableConfig()), devices, display,
                                 spin_seconds=0.05, clock=clock)
    controller.submit({"event": "bet", "seat": "A", "bet": "pass", "amount": 10**9})  # over the limit
    assert display.shown[-1].phase == "open" and controller.notice_left() is None  # the players' business
    controller.submit({"event": "confirm"})  # nothing to confirm
    assert display.shown[-1].phase == "refused" and controller.notice_left() == table_controller.REFUSED_SHOWN_S == 1.5
    clock.advance(table_controller.REFUSED_SHOWN_S - 0.1)
    controller.expire_notices()
    assert display.shown[-1].phase == "refused"
    clock.advance(0.2)
    assert controller.notice_left() == 0.0  # overdue: no negative wait for the main loop's queue
    controller.expire_notices()
    assert display.shown[-1].phase == "open" and controller.notice_left() is None
    shown = len(display.shown)
    controller.expire_notices()
    assert len(display.shown) == shown  # nothing up, nothing redrawn
    controller.submit({"event": "void"})  # nothing to void: -no- again ...
    assert display.shown[-1].phase == "refused"
    controller.submit({"event": "lock"})  # ... and the next press that does something takes it down
    assert display.shown[-1].phase == "locked" and controller.notice_left() is None
    controller.submit({"event": "unclear"})  # CONFIRM let go between a push and a hold
    assert display.shown[-1].phase == "refused"
    controller.submit({"event": "read", "status": "no_read", "dice": [], "confidence": 0.0, "frame": None})
    controller.submit({"event": "manual"})  # a hand entry: HAnd, and -no- over it for a refused press
    assert display.shown[-1].phase == "manual"
    controller.submit({"event": "next_shooter"})
    assert display.shown[-1].phase == "refused" and display.shown[-1].dice == (1,)
    for odd in ({"event": ["lock"]}, {"event": {"name": "lock"}}, ["lock"]):  # any input may arrive
        assert not controller.submit(odd).accepted


def test_the_main_loop_takes_the_no_down_on_time_between_ticks(rig, monkeypatch):
    factory, pins, devices, link, standin, journal, inputs = rig
    monkeypatch.setattr(table_controller, "REFUSED_SHOWN_S", 0.2)
    display = ShownStates()
    controller = TableController(JournaledTable.open(journal, "craps", TableConfig()), devices, display,
                                 spin_seconds=0.05)
    # The loop runs here (the journal belongs to this thread); it ends 2 s on, at the None.
    inputs.put({"event": "confirm"})
    ending = threading.Timer(2.0, inputs.put, [None])
    ending.start()
    serve(controller, inputs, stop=threading.Event(), problems=dict, notifier=Notifier(""), tick=30.0)
    ending.join()
    assert [s.phase for s in display.shown] == ["refused", "open"]  # down after 0.2 s, not at the 30 s tick


def test_a_cage_motor_that_will_not_start_shows_err_until_void(rig, monkeypatch):
    factory, pins, devices, link, standin, journal, inputs = rig
    display = ShownStates()
    controller = TableController(JournaledTable.open(journal, "hazard", TableConfig()), devices, display,
                                 spin_seconds=30)

    def broken(seconds):
        raise RuntimeError("GPIO busy")

    monkeypatch.setattr(devices.motor, "spin", broken)
    controller.submit({"event": "lock"})
    assert controller.state.phase is Phase.SPINNING and display.shown[-1].phase == "fault"
    controller.submit({"event": "void"})
    assert display.shown[-1].phase == "void" and not controller.motor_failed
    monkeypatch.undo()  # the motor mended: LOCK spins it, and the display says so
    controller.submit({"event": "lock"})
    assert display.shown[-1].phase == "rolling" and factory.pin(pins.cage_motor).state is True

    def stuck() -> None:
        raise RuntimeError("GPIO busy")

    monkeypatch.setattr(devices.motor, "stop", stuck)
    controller.submit({"event": "void"})  # a motor that will not stop: logged, the outputs still drawn
    assert controller.state.phase is Phase.BETTING and display.shown[-1].phase == "void"
    assert factory.pin(pins.light_no_more_bets).state is False
    monkeypatch.undo()
    devices.motor.stop()


def test_watchdog_is_pinged_only_while_healthy(tmp_path, monkeypatch, rig, caplog):
    factory, pins, devices, link, standin, journal, inputs = rig
    controller = TableController(JournaledTable.open(journal, "craps", TableConfig()), devices, None, spin_seconds=0.05)
    path = tmp_path / "notify.sock"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    server.bind(str(path))
    server.settimeout(2)
    health = {"problems": {"camera": "lost: no camera on /dev/video0"}}
    stop = threading.Event()
    loop = threading.Thread(target=serve, args=(controller, inputs),
                            kwargs={"stop": stop, "problems": lambda: health["problems"], "notifier": Notifier(str(path)),
                                    "tick": 0.02, "camera_lost": lambda: "camera" in health["problems"]})
    loop.start()
    try:
        first = server.recv(4096).decode()
        assert "WATCHDOG" not in first  # unhealthy: status only, naming the device
        assert "camera lost: no camera on /dev/video0: not pinging" in first
        health["problems"] = {"camera": "lost: no camera on /dev/video0, try 2"}  # new wording, same device
        assert "try 2" in server.recv(4096).decode()
        assert controller.camera_lost  # the loop told the table, so the display can say so
        health["problems"] = {}
        messages = [server.recv(4096).decode() for _ in range(3)]
        assert "WATCHDOG=1" in messages
        warnings = [r.getMessage() for r in caplog.records if "watchdog" in r.getMessage()]
        assert warnings == ["not pinging the watchdog: camera lost: no camera on /dev/video0",
                            "camera and display healthy again: pinging the watchdog"]  # once each, not every tick
    finally:
        stop.set()
        loop.join(timeout=2)
        server.close()


def test_service_with_the_generated_camera_reads_a_roll_after_the_lock(tmp_path):
    config_file = tmp_path / "table.toml"
    config_file.write_text('[table]\nstate_dir = "state"\n[camera]\nsource = "scenes"\n[display]\nport = "none"\n')
    stream = io.StringIO('{"event": "bet", "seat": "A", "bet": "field", "amount": 500}\n{"event": "lock"}\n')
    stop = threading.Event()
    out = io.StringIO()
    runner = threading.Thread(target=run_table, args=(load(config_file),), kwargs={"events": stream, "out": out, "stop": stop})
    runner.start()
    try:
        deadline = 60
        read = None
        import time

        started = time.monotonic()
        while read is None and time.monotonic() - started < deadline:
            time.sleep(0.2)
            if (tmp_path / "state" / "journal.sqlite3").exists():
                with Journal.open(tmp_path / "state", readonly=True) as journal:
                    read = next((e.event for e in journal.entries() if e.event["event"] == "read"), None)
    finally:
        stop.set()
        runner.join(timeout=10)
    assert read is not None, "the camera thread never handed a read to the table"
    assert read["frame"] and (tmp_path / "state" / "frames" / read["frame"]).exists()
    assert not runner.is_alive()


def test_a_restart_mid_roll_reads_the_dice_lying_there(tmp_path):
    """A service restarted mid-roll with the generated camera reads the dice lying there, for the
    dealer: the demo's camera lays the dice a restart finds, and knows its empty felt, as a
    calibrated table does."""
    import time

    from controller.camera import AT_REST_REASON

    config_file = tmp_path / "table.toml"
    config_file.write_text('[table]\nstate_dir = "state"\n[camera]\nsource = "scenes"\n[display]\nport = "none"\n')
    config = load(config_file)
    with Journal.open(config.state_dir) as journal:
        JournaledTable.open(journal, config.game, config.rules).submit({"event": "lock"})
    stop = threading.Event()
    runner = threading.Thread(target=run_table, args=(config,), kwargs={"events": io.StringIO(""), "out": io.StringIO(), "stop": stop})
    runner.start()
    reads: list = []
    try:
        started = time.monotonic()
        while not reads and time.monotonic() - started < 60:
            time.sleep(0.2)
            with Journal.open(config.state_dir, readonly=True) as journal:
                reads = [e.event for e in journal.entries() if e.event["event"] == "read"]
        time.sleep(2.5)  # the hand takes the dice: no second read
    finally:
        stop.set()
        runner.join(timeout=10)
    with Journal.open(config.state_dir, readonly=True) as journal:
        reads = [e.event for e in journal.entries() if e.event["event"] == "read"]
        table = JournaledTable.open(journal, config.game, config.rules)
    assert len(reads) == 1 and reads[0]["status"] == "uncertain" and reads[0]["reason"].startswith(AT_REST_REASON)
    assert table.state.phase is Phase.PENDING


def test_a_service_restarted_mid_roll_asks_the_camera_for_dice_already_at_rest(tmp_path, monkeypatch):
    """The dice may have landed while the service was down: no motion will come to hand them out."""
    config_file = tmp_path / "table.toml"
    config_file.write_text('[table]\nstate_dir = "state"\n[camera]\nsource = "scenes"\n[display]\nport = "none"\n')
    config = load(config_file)
    asked = []

    class Camera:
        def expect_roll(self, at_rest=False, thrown=True):
            asked.append((at_rest, thrown))

        def healthy(self):
            return True

        def lost(self):
            return False

        def close(self):
            pass

    def start_camera(config, sink, *, roll_under_way=False, at_rest=False, thrown=True):
        if roll_under_way:  # armed before the camera's first frame
            asked.append((at_rest, thrown))
        return Camera()

    monkeypatch.setattr("controller.camera.start_camera", start_camera)
    assert run_table(config, events=io.StringIO(""), exit_at_end=True, out=io.StringIO()) == 0
    assert asked == []  # betting open: no roll expected
    with Journal.open(config.state_dir) as journal:
        JournaledTable.open(journal, config.game, config.rules).submit({"event": "lock"})
    assert run_table(config, events=io.StringIO(""), exit_at_end=True, out=io.StringIO()) == 0
    assert asked == [(True, True)]
    with Journal.open(config.state_dir) as journal:  # and in a hand entry begun before the read came
        JournaledTable.open(journal, config.game, config.rules).submit({"event": "manual"})
    assert run_table(config, events=io.StringIO(""), exit_at_end=True, out=io.StringIO()) == 0
    assert asked == [(True, True)] * 2
    with Journal.open(config.state_dir) as journal:  # but not the dice whose read the dealer voided
        table = JournaledTable.open(journal, config.game, config.rules)
        for event in ({"event": "void"}, {"event": "read", "status": "uncertain", "dice": [2, 2], "confidence": 0.5}, {"event": "void"}):
            assert table.submit(event).accepted
    assert run_table(config, events=io.StringIO(""), exit_at_end=True, out=io.StringIO()) == 0
    assert asked == [(True, True)] * 2 + [(False, True)]  # the shooter throws again


def test_demo_sets_aside_a_journal_of_other_rules(tmp_path):
    from controller.demo import DemoTable

    with Journal.open(tmp_path / "craps") as journal:
        JournaledTable.open(journal, "craps", TableConfig(max_bet=1000))  # an older demo under other limits
    from dataclasses import replace

    from hardware.display import SimDisplay

    display = SimDisplay.open()
    try:
        demo = DemoTable(replace(load(None), state_dir=tmp_path), "craps", display, 1, io.StringIO())
        try:
            assert demo.set_aside is not None and demo.set_aside.exists()
            assert "other rules" in demo.set_aside.with_suffix(".reason.txt").read_text()
            assert demo.table.replayed == 0
        finally:
            demo.close()
    finally:
        display.close()
