"""What a logged-in user's inputs may do: come at a bounded rate, and each take effect once.

- :class:`InputRate` -- a token bucket per session: a burst of taps is taken, a flood is answered
  429 with ``Retry-After`` before it reaches anything behind.
- :class:`IdempotencyKeys` -- the ``Idempotency-Key`` header (the IETF's draft, as payment APIs use
  it): a request sent again with the same key gets the first one's answer and does nothing again;
  sent again while the first is under way, it waits for that answer; the same key with another
  body is refused. Keys are per session, at most :data:`KEYS_PER_SESSION` of them (the oldest goes
  first), each for :data:`KEY_AGE_S`. A caller may decline to keep an answer that did nothing (the
  table never took it): the same key then tries again.

Both live in the server's loop (not thread-safe) and in memory, as the sessions do.
"""
from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

#: Inputs a session may send in a burst, and how many a second after it.
BURST = 40
PER_SECOND = 10.0
#: Keys remembered per session, and for how long (seconds).
KEYS_PER_SESSION = 256
KEY_AGE_S = 3600.0
#: Sessions whose keys and rates are remembered (the least recently seen are forgotten first).
SESSIONS = 1024
#: The longest key taken.
MAX_KEY = 200

T = TypeVar("T")


class KeyRefused(ValueError):
    """An ``Idempotency-Key`` that cannot be honoured: malformed, or used before for another request."""


def key_problem(key: str) -> str | None:
    """Why ``key`` is no ``Idempotency-Key``, or None (visible ASCII, 1 to :data:`MAX_KEY` characters)."""
    if not 0 < len(key) <= MAX_KEY or not all("!" <= c <= "~" for c in key):
        return f"an Idempotency-Key is 1 to {MAX_KEY} visible ASCII characters (a UUID, say)"
    return None


class InputRate:
    """At most :data:`BURST` inputs at once per session, refilled at :data:`PER_SECOND`."""

    def __init__(self, *, burst: int = BURST, per_second: float = PER_SECOND, sessions: int = SESSIONS,
                 clock: Callable[[], float] = time.monotonic):
        self.burst, self.per_second, self.sessions, self.clock = burst, per_second, sessions, clock
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def take(self, session: str) -> float:
        """Take one input of ``session``: 0 when it may go, else the seconds until it may."""
        now = self.clock()
        tokens, then = self._buckets.pop(session, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - then) * self.per_second)
        wait = 0.0 if tokens >= 1 else (1 - tokens) / self.per_second
        self._buckets[session] = (tokens - 1 if wait == 0 else tokens, now)
        while len(self._buckets) > self.sessions:
            self._buckets.popitem(last=False)
        return wait


@dataclass
class _Entry(Generic[T]):
    fingerprint: bytes
    answer: asyncio.Future[T]
    made: float


class IdempotencyKeys(Generic[T]):
    """The answers of the requests sent with an ``Idempotency-Key``, per session."""

    def __init__(self, *, per_session: int = KEYS_PER_SESSION, max_age_s: float = KEY_AGE_S, sessions: int = SESSIONS,
                 clock: Callable[[], float] = time.monotonic):
        self.per_session, self.max_age_s, self.sessions, self.clock = per_session, max_age_s, sessions, clock
        self._keys: OrderedDict[str, OrderedDict[str, _Entry[T]]] = OrderedDict()

    def _of(self, session: str) -> OrderedDict[str, _Entry[T]]:
        """``session``'s keys, without those too old."""
        entries = self._keys.pop(session, None) or OrderedDict()
        self._keys[session] = entries
        while len(self._keys) > self.sessions:
            self._keys.popitem(last=False)
        now = self.clock()
        while entries and now - next(iter(entries.values())).made > self.max_age_s:
            entries.popitem(last=False)
        return entries

    async def once(self, session: str, key: str, fingerprint: bytes, run: Callable[[], Awaitable[T]],
                   keep: Callable[[T], bool] = lambda _: True) -> T:
        """``run()``'s answer, run once per ``key`` of ``session`` and request (its ``fingerprint``:
        what it asked, the path and the body); :class:`KeyRefused` for a malformed key or one used
        for another request. An answer ``keep`` declines is given to those waiting for it, then
        forgotten. An exception of ``run()`` is raised to them all and forgotten likewise."""
        problem = key_problem(key)
        if problem is not None:
            raise KeyRefused(problem)
        entries = self._of(session)
        entry = entries.get(key)
        if entry is not None:
            if entry.fingerprint != fingerprint:
                raise KeyRefused("this Idempotency-Key was sent before with another request: use a new key for a "
                                 "new request")
            return await asyncio.shield(entry.answer)  # a waiter that leaves leaves the answer to the others
        entry = _Entry(fingerprint, asyncio.get_running_loop().create_future(), self.clock())
        entries[key] = entry
        while len(entries) > self.per_session:
            entries.popitem(last=False)
        try:
            answer = await run()
        except Exception as exc:
            self._forget(session, key, entry)
            entry.answer.set_exception(exc)
            entry.answer.exception()  # retrieved: nobody waiting is no error
            raise
        except BaseException:  # cancelled (the server stops): so are those waiting
            self._forget(session, key, entry)
            entry.answer.cancel()
            raise
        if not keep(answer):
            self._forget(session, key, entry)
        entry.answer.set_result(answer)
        return answer

    def _forget(self, session: str, key: str, entry: _Entry[T]) -> None:
        entries = self._keys.get(session)
        if entries is not None and entries.get(key) is entry:
            del entries[key]
