"""Server-sent events to many browsers, fed from any thread, never waiting for a browser.

Why this shape: the producer is the table's loop, which must not wait for a browser on a slow
Wi-Fi link. :meth:`Broadcast.publish` only hands the message to the server's event loop
(``call_soon_threadsafe``: no lock held, no I/O); there, each subscriber has a bounded queue, and a
subscriber whose queue is full is dropped, not waited for. A browser's ``EventSource`` reconnects
by itself a moment later and is sent the whole state again, so a dropped browser loses nothing but
the moment. A comment line every :data:`KEEPALIVE_S` keeps proxies from closing a quiet stream; a
channel made with ``alive`` sends an ``alive`` event instead, at that pace, which a page can hear
(an ``EventSource`` never shows comments) and so tell a quiet stream from a dead one.
"""
from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from collections.abc import AsyncIterator, Callable, Iterable
from typing import Any

from starlette.responses import StreamingResponse

#: Messages a subscriber may have waiting before it is dropped.
BACKLOG = 32
#: Seconds between two keep-alive comments on a quiet stream.
KEEPALIVE_S = 15.0
#: What a browser waits before reconnecting (milliseconds, sent as the stream's ``retry``).
RETRY_MS = 1000


def sse(event: str, data: Any) -> bytes:
    """One server-sent event: ``event: NAME`` and ``data:`` the JSON of ``data``."""
    text = json.dumps(data, separators=(",", ":"))
    return f"event: {event}\ndata: {text}\n\n".encode()


@dataclass(eq=False)
class Subscriber:
    queue: asyncio.Queue[bytes | None] = field(default_factory=lambda: asyncio.Queue(BACKLOG))
    dropped: bool = False


class Broadcast:
    """One channel of messages (the console's, the public board's)."""

    def __init__(self, backlog: int = BACKLOG, *, alive: float | None = None):
        self.backlog = backlog
        self.alive = alive
        """Seconds between two ``alive`` events on a quiet stream (None: a comment every :data:`KEEPALIVE_S`)."""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._subscribers: set[Subscriber] = set()
        self.dropped = 0
        """How many subscribers were dropped for being too slow (for the bench and the pit)."""

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        """The server's event loop, where subscribers are served."""
        self._loop = loop

    @property
    def subscribers(self) -> int:
        return len(self._subscribers)

    def publish(self, message: bytes) -> None:
        """Send ``message`` to every subscriber; callable from any thread, returns at once."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        try:
            loop.call_soon_threadsafe(self.send, message)
        except RuntimeError:  # the loop closed between the check and the call: nobody listens any more
            pass

    def send(self, message: bytes) -> None:
        """In the server's loop: queue ``message`` for each subscriber, dropping any that is full."""
        for subscriber in list(self._subscribers):
            try:
                subscriber.queue.put_nowait(message)
            except asyncio.QueueFull:
                self._end(subscriber, dropped=True)

    def _end(self, subscriber: Subscriber, *, dropped: bool = False) -> None:
        self._subscribers.discard(subscriber)
        if dropped and not subscriber.dropped:
            subscriber.dropped = True
            self.dropped += 1
        while not subscriber.queue.empty():
            subscriber.queue.get_nowait()
        subscriber.queue.put_nowait(None)

    def close(self) -> None:
        """In the server's loop: end every stream (the server is stopping)."""
        for subscriber in list(self._subscribers):
            self._end(subscriber)

    def response(self, first: Iterable[bytes], allowed: Callable[[], bool] | None = None) -> StreamingResponse:
        """A ``text/event-stream`` answer that starts with ``first`` (the state as it is now) and
        then carries every message published, until the browser leaves or is dropped, or
        ``allowed()`` says its reader may no longer see them (logged out, removed)."""
        subscriber = Subscriber(asyncio.Queue(self.backlog))
        self._subscribers.add(subscriber)
        return StreamingResponse(self._stream(subscriber, list(first), allowed), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})

    async def _stream(self, subscriber: Subscriber, first: list[bytes],
                      allowed: Callable[[], bool] | None) -> AsyncIterator[bytes]:
        quiet_s, keepalive, hello = KEEPALIVE_S, b": keep-alive\n\n", b""
        if self.alive is not None:  # said at once too: the page knows the pace from the start
            quiet_s, keepalive = self.alive, sse("alive", {"every": self.alive})
            hello = keepalive
        try:
            yield f"retry: {RETRY_MS}\n\n".encode() + b"".join(first) + hello
            while True:
                try:
                    message = await asyncio.wait_for(subscriber.queue.get(), quiet_s)
                except TimeoutError:
                    message = keepalive
                if message is None or (allowed is not None and not allowed()):
                    return
                yield message
        finally:
            self._subscribers.discard(subscriber)
