"""One table as the console sees it: requests into its input queue, its steps out to the browsers.

Two threads meet here, and each does only its own part:

- the **table's thread** calls :meth:`TableLink.listener` after every step (a ``TableController``
  listener). It hands the step over to the web server's event loop (``call_soon_threadsafe``:
  no lock, no I/O, no JSON) and returns: the table never waits for the console.
- the **web server's loop** does the rest: it keeps the last rolls with their reads and pay lists,
  the session's results per seat and the rates of each read status, builds the state the pages
  show, and pushes it (:mod:`controller.web.push`). A request from the console is put on the
  table's input queue as a :class:`~controller.main_loop.Submission` and answered when the table has
  stepped it.

Every console input carries ``"user"`` (who) and ``"via": "console"`` into the journal; the rules
ignore both. ``journal recall`` shows them.
"""
from __future__ import annotations

import asyncio
import json
import logging
import os
import queue
import sys
from collections import Counter, deque
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from controller.main_loop import Stepped, Submission
from controller.console.layouts import layout_json
from controller.console.pit import PitWatch
from controller.console.views import board_json, roll_json, table_json
from controller.journal import ORIGIN, recall
from controller.table import Phase, Step, TableState, display_phase
from controller.table_controller import TableController

log = logging.getLogger(__name__)

#: The journal's ``via`` of an input from the console (``stream`` is an event stream's).
CONSOLE = "console"
#: Rolls kept for the board (their dice), and of them those the dealer's and the pit's pages get in
#: full (frame, read, pay list): the state is sent again at every step, so it stays small.
KEEP_ROLLS = 20
SHOWN_ROLLS = 8
#: Journal rows read back at the start for the last rolls (a roll is ten to thirty rows).
TAIL_ROWS = 3000
#: How long a request waits for the table to take it before it is withdrawn (and never applied).
TAKE_WITHIN_S = 10.0
#: Seconds between two journal verifications run in the background (and once at the start).
VERIFY_EVERY_S = 600.0

Health = Callable[[], dict[str, dict[str, Any]]]
#: A seat's results this session: net (cents won less lost), staked, bets settled, and how they went.
SESSION_FIELDS = ("net", "staked", "bets", "won", "lost", "pushed")
_COUNTED = {"win": "won", "lose": "lost", "push": "pushed"}


class NotTaken(Exception):
    """The table did not take a request in time; it was withdrawn and will never take effect."""


class TableLink:
    """The console's side of one running table.

    Made in the table's thread (it reads the journal's tail for the last rolls), then attached to
    the console, whose loop owns everything else. ``health()`` is called from the web thread and
    must only read: it says, per device, ``{"ok": bool, "detail": str}``.
    """

    def __init__(self, controller: TableController, inputs: queue.Queue[Any], *, frames_dir: Path | None,
                 health: Health | None = None, verify_every_s: float | None = VERIFY_EVERY_S,
                 large_payout: int = 10_000):
        self.controller = controller
        self.inputs = inputs
        self.frames_dir = frames_dir
        self.health = health or dict
        self.verify_every_s = verify_every_s
        table = controller.table
        self.state: TableState = controller.state
        self.game = self.state.game
        self.layout = layout_json(self.game, self.state.rules.config)
        self.journal_path = table.journal.path
        total = len(table.journal)
        entries = list(table.journal.entries(max(0, total - 1)))
        self.head = (entries[-1].seq, entries[-1].hash) if entries else (0, "")
        self.pit = PitWatch(table.journal.entries(), large_payout)
        """The shift, the dice and the pit's alerts, from every row of the journal."""
        records = recall(table.journal, KEEP_ROLLS, since=max(0, total - TAIL_ROWS))
        self.rolls: deque[dict[str, Any]] = deque(maxlen=KEEP_ROLLS)
        # The last roll recalled is the table's last: the rolls are numbered back from the count.
        for back, record in enumerate(reversed(records)):
            self.rolls.append(roll_json(seq=record.seq, number=self.state.rolls - back, ts=record.ts, dice=record.dice,
                                        source=record.source, by=record.by, read=record.read,
                                        settlements=record.settlements, actions=record.actions))
        self.read: dict[str, Any] | None = None
        self.actions: list[Mapping[str, Any]] = []
        """The console's inputs since the last roll (who bet, who pressed), for that roll's record."""
        self.reads: Counter[str] = Counter()
        self.session: dict[str, dict[str, int]] = {}
        self.verified: dict[str, Any] | None = None
        self.device_health: dict[str, dict[str, Any]] = {}
        self.started = datetime.now(UTC).isoformat(timespec="seconds")
        self.loop: asyncio.AbstractEventLoop | None = None
        self.on_change: Callable[[], None] = lambda: None

    # --- the table's thread --------------------------------------------------------------

    def listener(self, event: Mapping[str, Any], step: Step, before: TableState) -> None:
        """The table stepped: hand the step to the console's loop and return at once."""
        loop = self.loop
        if loop is None or loop.is_closed():
            return
        try:
            loop.call_soon_threadsafe(self._stepped, event, step, before, self.controller.table.last_rows)
        except RuntimeError:  # the console's loop closed meanwhile: nobody is watching
            pass

    # --- the console's loop --------------------------------------------------------------

    def _stepped(self, event: Mapping[str, Any], step: Step, before: TableState, rows: tuple[Any, ...]) -> None:
        self.state = step.state
        if rows:
            self.head = (rows[-1].seq, rows[-1].hash)
            self.pit.add(rows)
        name = event.get("event") if isinstance(event, Mapping) else None
        if isinstance(event, Mapping) and event.get("user"):
            self.actions.append(event)
        if step.accepted and name == "read":
            self.reads[str(event.get("status"))] += 1
            self.read = {**event, "seq": rows[0].seq if rows else None}
        elif step.accepted and name == "void" and before.phase is not Phase.MANUAL:
            self.read = None  # a voided read shows other dice than the rethrow's
        roll_row = next((row for row in rows if row.event.get("event") == "roll"), None)
        if roll_row is not None:
            effects = [e for e in step.effects if e.get("event") == "settle"]
            for effect in effects:
                seat = self.session.setdefault(str(effect["seat"]), dict.fromkeys(SESSION_FIELDS, 0))
                seat["net"] += int(effect["paid"]) - int(effect["amount"])
                seat["staked"] += int(effect["amount"])
                seat["bets"] += 1
                seat[_COUNTED[str(effect["result"])]] += 1
            roll = roll_row.event
            self.rolls.appendleft(roll_json(seq=roll_row.seq, number=step.state.rolls, ts=roll_row.ts, dice=roll["dice"],
                                            source=roll["source"],
                                            by=roll.get("by"), read=self.read, settlements=effects,
                                            actions=self.actions))
            self.read, self.actions = None, []
        self.on_change()

    def snapshot(self) -> dict[str, Any]:
        """``GET /api/state``: the table, and what the pit watches (health, reads, journal, alerts)."""
        controller = self.controller
        data = table_json(self.state, display=display_phase(self.state, controller.camera_lost,
                                                              motor_failed=controller.motor_failed),
                          last_rolls=list(self.rolls)[:SHOWN_ROLLS], read=self.read)
        reads = {status: self.reads.get(status, 0) for status in ("ok", "uncertain", "no_read")}
        total = sum(reads.values())
        data.update({
            "health": self.device_health,
            "reads": {"counts": reads, "rates": {k: round(v / total, 4) if total else None for k, v in reads.items()},
                      "since": self.started},
            "session": {"since": self.started, "seats": self.session},
            "journal": {"rows": self.head[0], "head": self.head[1], "verify": self.verified,
                        "file": str(self.journal_path)},
            "alerts": self.alerts(),
        })
        return data

    def board(self) -> dict[str, Any]:
        return board_json(self.state, list(self.rolls))

    def alerts(self) -> list[dict[str, str]]:
        """What the pit must look at now, worst first."""
        found = []
        if self.verified is not None and not self.verified.get("ok"):
            found.append({"level": "alarm", "text": f"journal check failed: {self.verified.get('reason', 'see the log')}"})
        if self.controller.motor_failed:
            found.append({"level": "alarm", "text": "the cage motor did not start (VOID, then LOCK, tries again)"})
        if self.controller.camera_lost:
            found.append({"level": "warning", "text": "the camera is lost: the dealer enters the dice by hand"})
        for device, health in sorted(self.device_health.items()):
            if not health.get("ok", True):
                found.append({"level": "warning", "text": f"{device}: {health.get('detail') or 'not healthy'}"})
        return found

    def poll_health(self) -> bool:
        """Ask the devices how they are; True when that changed what the pit sees."""
        try:
            health = self.health()
        except Exception as exc:  # noqa: BLE001 - a device that cannot say how it is, is not well
            health = {"devices": {"ok": False, "detail": f"cannot be asked: {exc}"}}
        if health == self.device_health:
            return False
        self.device_health = health
        return True

    async def verify(self) -> None:
        """Check the journal's chain in another process (``dicetable journal --file F verify``), so a
        long journal costs the table's process nothing; the verdict goes to the pit."""
        checked = datetime.now(UTC).isoformat(timespec="seconds")
        process = None
        try:
            process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "controller.cli", "journal", "--file", str(self.journal_path), "verify",
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, preexec_fn=_lower_priority)
            out, err = await process.communicate()
            report = json.loads(out.decode().strip().splitlines()[-1]) if out.strip() else {}
            if not isinstance(report, dict) or "ok" not in report:
                report = {"ok": False, "reason": err.decode(errors="replace").strip()[-300:] or "no verdict"}
        except (OSError, ValueError) as exc:
            report = {"ok": False, "reason": f"could not run the check: {exc}"}
        except asyncio.CancelledError:  # the console stops: the check goes with it, leaving no process behind
            if process is not None and process.returncode is None:
                process.kill()
                await process.wait()
            raise
        report["checked"] = checked
        self.verified = report
        self.on_change()

    async def submit(self, event: dict[str, Any], user: str) -> Stepped:
        """Put ``event`` (as ``user``'s, via the console) on the table's queue and wait until the
        table has stepped it; :class:`NotTaken` when it was withdrawn untaken after
        :data:`TAKE_WITHIN_S`."""
        reply: Future[Stepped] = Future()
        self.inputs.put(Submission({**event, "user": user, ORIGIN: CONSOLE}, reply))
        waiting = asyncio.wrap_future(reply)
        done, _ = await asyncio.wait({waiting}, timeout=TAKE_WITHIN_S)
        if not done and reply.cancel():
            raise NotTaken(f"the table did not take it within {TAKE_WITHIN_S:.0f} s; nothing was done")
        return await waiting

    def frame(self, name: str) -> Path | None:
        """The saved frame ``name`` (a plain file name in the frames folder), or None."""
        if self.frames_dir is None or not name or "/" in name or "\\" in name or name.startswith("."):
            return None
        path = self.frames_dir / name
        try:
            return path if path.is_file() else None
        except OSError:  # a name the file system cannot hold (too long, say) names no frame either
            return None


def _lower_priority() -> None:
    os.nice(10)
