"""Which connections a server holds, and whether one more may come in: the accounting behind
:mod:`controller.web.gate`, kept apart from sockets so that every cap can be tested as arithmetic.

A connection is counted from the moment it is accepted until it is closed, always in one stage:

- **waiting** -- accepted, its request not yet whole (a few seconds at most);
- **probation** -- accepted while *waiting* was full, out of the logged-in users' reserve: it stays
  only if its request carries a login, or finds room without one;
- **session** -- its request carried a valid login (the reserved share, :attr:`Budget.sessions`);
- **anonymous** -- its request carried none: capped in all, per client, and per kind of event stream;
- **refusing** -- being answered 503 and closed.

The sum never exceeds :attr:`Budget.connections`: a connection is accepted only below it, and moves
between stages without being counted twice. A refusal is tallied by its reason, and the
:class:`Tally` sums them up for the log, one line a minute.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from enum import Enum

from controller.web.budget import Budget

#: Clients remembered by the tally between two of its lines (beyond it, they are counted, not named).
TALLIED_CLIENTS = 10000


class Stage(Enum):
    WAITING = "waiting"
    PROBATION = "probation"
    SESSION = "session"
    ANONYMOUS = "anonymous"
    REFUSING = "refusing"
    CLOSED = "closed"


class Refusal(Enum):
    """Why a connection was answered 503; the value is what the answer and the log say."""

    ALL = "the server holds as many connections without a login as it may"
    CLIENT = "this client holds as many connections without a login as it may"
    STREAMS = "the server holds as many of these event streams as it may"
    CLIENT_STREAMS = "this client holds as many of these event streams as it may"
    SESSIONS = "the connections reserved for logged-in users are all taken"
    SESSION = "this login holds as many connections as it may"
    SILENT = "no whole request came in time"


#: How each refusal is counted in the log's summary line.
TALLY_WORDS = {
    Refusal.ALL: "over the cap on connections without a login",
    Refusal.CLIENT: "over a client's cap",
    Refusal.STREAMS: "over the cap on event streams of their kind",
    Refusal.CLIENT_STREAMS: "over a client's cap on event streams of a kind",
    Refusal.SESSIONS: "over the reserve of logged-in users",
    Refusal.SESSION: "over a login's cap",
    Refusal.SILENT: "with no whole request in time",
}


@dataclass(eq=False)
class Connection:
    """One accepted connection: its peer's address, its stage, and once its request came, who it is."""

    peer: str
    stage: Stage
    client: str | None = None
    stream: str | None = None
    session: str | None = None


class Pools:
    """The connections held, by stage, against ``budget``. Not thread-safe: the server's loop owns it."""

    def __init__(self, budget: Budget):
        self.budget = budget
        self.stages: Counter[Stage] = Counter()
        self.clients: Counter[str] = Counter()
        self.streams: Counter[str] = Counter()
        self.client_streams: Counter[tuple[str, str]] = Counter()
        self.sessions: Counter[str] = Counter()
        self.peak = 0
        """The most connections held at once."""

    @property
    def held(self) -> int:
        return sum(count for stage, count in self.stages.items() if stage is not Stage.CLOSED)

    def entry(self) -> Stage | None:
        """The stage a connection accepted now would enter, or None: accept none now."""
        budget, stages = self.budget, self.stages
        if self.held >= budget.connections:
            return None
        if stages[Stage.WAITING] < budget.waiting:
            return Stage.WAITING
        if stages[Stage.PROBATION] < budget.probation and stages[Stage.PROBATION] + stages[Stage.SESSION] < budget.sessions:
            return Stage.PROBATION
        return None

    def enter(self, peer: str) -> Connection | None:
        """Count a connection accepted from ``peer``; None when :meth:`entry` has no room for it."""
        stage = self.entry()
        if stage is None:
            return None
        self.stages[stage] += 1
        self.peak = max(self.peak, self.held)
        return Connection(peer, stage)

    def admit(self, connection: Connection, *, session: str | None, client: str, stream: str | None) -> Refusal | None:
        """The first request of a waiting ``connection`` has come: move it to the logged-in users'
        share (``session`` is its login) or to the anonymous one (as ``client``, holding an event
        stream of kind ``stream``), or say why not (it is then :attr:`Stage.REFUSING`)."""
        assert connection.stage in (Stage.WAITING, Stage.PROBATION), connection.stage
        budget = self.budget
        self._move(connection, Stage.REFUSING)
        refusal: Refusal | None
        if session is not None:
            if self.sessions[session] >= budget.per_session:
                refusal = Refusal.SESSION
            elif self.stages[Stage.SESSION] + self.stages[Stage.PROBATION] >= budget.sessions:
                refusal = Refusal.SESSIONS
            else:
                connection.session = session
                self.sessions[session] += 1
                self._move(connection, Stage.SESSION)
                return None
            return refusal
        if self.stages[Stage.ANONYMOUS] >= budget.anonymous:
            return Refusal.ALL
        if self.clients[client] >= budget.per_client:
            return Refusal.CLIENT
        if stream is not None:
            if self.streams[stream] >= budget.streams:
                return Refusal.STREAMS
            if self.client_streams[(stream, client)] >= budget.streams_per_client:
                return Refusal.CLIENT_STREAMS
            connection.stream = stream
            self.streams[stream] += 1
            self.client_streams[(stream, client)] += 1
        connection.client = client
        self.clients[client] += 1
        self._move(connection, Stage.ANONYMOUS)
        return None

    def refuse(self, connection: Connection) -> None:
        """``connection`` is being answered 503 (it sent no request in time)."""
        if connection.stage is not Stage.CLOSED:
            self._release_shares(connection)
            self._move(connection, Stage.REFUSING)

    def release(self, connection: Connection) -> None:
        """``connection`` is closed (a second call does nothing)."""
        if connection.stage is not Stage.CLOSED:
            self._release_shares(connection)
            self._move(connection, Stage.CLOSED)

    def _release_shares(self, connection: Connection) -> None:
        if connection.session is not None:
            _down(self.sessions, connection.session)
            connection.session = None
        if connection.client is not None:
            _down(self.clients, connection.client)
            if connection.stream is not None:
                _down(self.streams, connection.stream)
                _down(self.client_streams, (connection.stream, connection.client))
            connection.client = connection.stream = None

    def _move(self, connection: Connection, stage: Stage) -> None:
        _down(self.stages, connection.stage)
        connection.stage = stage
        if stage is not Stage.CLOSED:
            self.stages[stage] += 1


def _down(counter: Counter, key: object) -> None:
    """One less of ``key``, forgetting it at none (so that counters of gone clients do not pile up)."""
    counter[key] -= 1
    if counter[key] <= 0:
        del counter[key]


class Tally:
    """The refusals since the last summary, by reason, and how many clients they came from."""

    def __init__(self) -> None:
        self.counts: Counter[Refusal] = Counter()
        self.clients: set[str] = set()
        self.more_clients = False

    def add(self, refusal: Refusal, client: str) -> None:
        self.counts[refusal] += 1
        if len(self.clients) < TALLIED_CLIENTS:
            self.clients.add(client)
        elif client not in self.clients:
            self.more_clients = True

    def summary(self, *, silent_s: float) -> str | None:
        """What was refused since the last summary, counted (and a fresh count), or None when nothing was:
        ``refused 1192 connections from 2 clients with 503 (1092 over a client's cap on event streams of a
        kind; 100 with no whole request within 5 s)``."""
        if not self.counts:
            return None
        total = sum(self.counts.values())
        clients = f"{'over ' if self.more_clients else ''}{len(self.clients)} client{'s' if len(self.clients) != 1 else ''}"
        parts = [f"{count} {TALLY_WORDS[refusal]}".replace("in time", f"within {silent_s:g} s")
                 for refusal, count in self.counts.most_common()]
        self.counts, self.clients, self.more_clients = Counter(), set(), False
        return f"refused {total} connection{'s' if total != 1 else ''} from {clients} with 503 ({'; '.join(parts)})"
