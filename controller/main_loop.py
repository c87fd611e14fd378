"""The main loop: one queue of inputs, one thread that takes them in order.

Why one loop: every input -- a dealer's button, a dice read, the cage
stopping, a bet from the event stream or the console -- is put on one queue by
whatever thread produced it, and one thread takes them off in order, journals
each, steps the table and then redraws the outputs. So the journal's order is
the order things took effect, and outputs are always drawn from the state that
was just journaled.

- :func:`serve` -- inputs until stopped, watchdog pings while the camera and the
  display are healthy.
- :class:`Submission` / :func:`take` -- an input someone waits on (the console's),
  answered once the table has stepped it.
"""
from __future__ import annotations

import logging
import queue
import threading
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Union

from controller.sdnotify import Notifier
from controller.table import Step
from controller.table_controller import TableController

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Stepped:
    """A console request's outcome: the table's step and the journal rows it wrote (the input first)."""

    step: Step
    rows: tuple[Any, ...]


@dataclass(frozen=True)
class Submission:
    """An input someone waits on (a request from the console), put on the input queue like any other.

    The table takes it in its turn and sets ``reply`` to the :class:`Stepped`. A requester that
    gave up waiting cancels ``reply`` first; the table then skips the input without journaling it,
    so a request answered "not taken" never takes effect later."""

    event: Mapping[str, Any]
    reply: Future[Stepped]


Input = Union[Mapping[str, Any], Submission]


def take(controller: TableController, item: Input) -> None:
    """Step one item of the input queue: an event, or a :class:`Submission` whose requester is told."""
    if not isinstance(item, Submission):
        controller.submit(item)
        return
    if not item.reply.set_running_or_notify_cancel():
        return  # the requester stopped waiting before the table took it: never journaled, never applied
    try:
        step = controller.submit(item.event)
    except BaseException as exc:  # the journal failed: the requester hears it, the table stops as before
        item.reply.set_exception(exc)
        raise
    item.reply.set_result(Stepped(step, controller.table.last_rows))



def serve(
    controller: TableController,
    inputs: "queue.Queue[Input | None]",
    *,
    stop: threading.Event,
    problems: Callable[[], dict[str, str]],
    notifier: Notifier,
    tick: float = 1.0,
    camera_lost: Callable[[], bool] = lambda: False,
) -> None:
    """Take inputs off the queue until ``stop`` is set (or a ``None`` arrives).

    Between inputs, at least every ``tick`` seconds, it pings systemd's
    watchdog -- but only while ``problems()`` is empty (camera delivering,
    display link answering): a table that cannot see or show the dice should be
    restarted, not kept alive. ``problems()`` maps each failing device to what is
    wrong with it; that goes to systemd's status line and, when the set of failing
    devices changes, to the log, so the operator reading ``journalctl`` learns which
    device stopped the pings (once, not at every retry whose wording differs).
    ``camera_lost()`` tells the table when the camera is gone (not merely starting), so the
    display can ask the dealer for a hand entry.
    """
    interval = notifier.watchdog_interval()
    tick = min(tick, interval) if interval else tick
    last_status, failing = "", set[str]()
    while not stop.is_set():
        left = controller.notice_left()
        try:
            event = inputs.get(timeout=tick if left is None else min(tick, left))
        except queue.Empty:
            event = None
        else:
            if event is None:
                break
            take(controller, event)
        controller.expire_notices()
        found = problems()
        controller.set_camera_lost(camera_lost())
        said = "; ".join(f"{device} {what}" for device, what in found.items())
        if not found:
            notifier.watchdog()
        if set(found) != failing:
            if found:
                log.warning("not pinging the watchdog: %s", said)
            else:
                log.warning("camera and display healthy again: pinging the watchdog")
            failing = set(found)
        status = f"{controller.state.game}: {controller.state.phase.value}, {controller.state.rolls} rolls" + (
            ", the cage motor did not start" if controller.motor_failed else "") + (
            f" ({said}: not pinging the watchdog)" if found else "")
        if status != last_status:
            notifier.status(status)
            last_status = status


