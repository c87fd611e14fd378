"""How many connections a web server in the table's process may hold: a share of the process's
file descriptors, computed once at its start, that leaves the table a reserve it can always count on.

Why: every connection is a descriptor, and so are the journal's files, the saved frames, the
camera, the serial display and the journal check's pipes. A process out of descriptors cannot
write its journal, and a table that cannot journal must stop. So the server never holds more
than its budget, whatever its clients do (:mod:`controller.web.gate` enforces it):

- the limit is the soft ``RLIMIT_NOFILE`` (systemd's ``LimitNOFILE``), counted up to 1024 at
  most: the display link's serial library waits with ``select()``, which takes no descriptor
  numbered 1024 or more, so the table's own descriptors must keep numbers below it. A higher
  limit is the table's margin, never more connections;
- from it go the descriptors already open when the server starts, the table's reserve (an eighth
  of the limit, 64 at least: the journal and its rollback file, a frame being saved, the camera
  and the display reopened, the floor's link) and the server's own (its event loop, files read
  for an answer, the journal check's pipes);
- what is left is the server's connections, shared out between the connections of logged-in
  users (a quarter, reserved for them), those waiting for their request, those without a login
  and those being refused.
"""
from __future__ import annotations

import os
import resource
from dataclasses import dataclass

#: ``select()`` (pyserial's reads, the display link) takes no descriptor numbered this or more.
SELECT_LIMIT = 1024
#: The table's reserve: this share of the limit, and at least :data:`MIN_RESERVE` descriptors.
RESERVE_SHARE = 8
MIN_RESERVE = 64
#: The server's own descriptors besides its connections: the event loop, its listening socket, a
#: file read for an answer by each worker thread, the journal check's pipes.
SERVER_OWN = 48
#: Fewer connections than this and the server is not started at all.
MIN_CONNECTIONS = 16
#: Connections one logged-in browser may hold (a browser opens six a server at most).
PER_SESSION = 32
#: Event streams of one kind a client without a login may hold (a board screen holds one).
STREAMS_PER_CLIENT = 8
#: Descriptors counted as open where the system cannot list them.
ASSUMED_OPEN = 64


class BudgetError(ValueError):
    """The file limit leaves no room for a server beside the table's reserve."""


@dataclass(frozen=True)
class Budget:
    """The connections a server may hold, and how they are shared out."""

    limit: int
    """The file limit counted (the soft ``RLIMIT_NOFILE``, 1024 at most)."""
    open_at_start: int
    """Descriptors already open when the server started."""
    reserve: int
    """Descriptors the server never takes: the table's."""
    connections: int
    """Every connection the server may hold at once."""
    sessions: int
    """Reserved for the connections of logged-in users."""
    probation: int
    """Of :attr:`sessions`, for connections that arrive while :attr:`waiting` is full: they stay only
    if their request carries a login (or finds room among :attr:`anonymous`)."""
    refusing: int
    """Connections being answered 503 and closed."""
    waiting: int
    """Connections that have not sent a whole request yet."""
    anonymous: int
    """Connections without a login."""
    per_client: int
    """Of :attr:`anonymous`, for one client."""
    streams: int
    """Of :attr:`anonymous`, event streams of one kind (the board's)."""
    streams_per_client: int = STREAMS_PER_CLIENT
    per_session: int = PER_SESSION

    @classmethod
    def shared(cls, limit: int, open_at_start: int) -> Budget:
        """The budget under a file ``limit`` with ``open_at_start`` descriptors open;
        :class:`BudgetError` when fewer than :data:`MIN_CONNECTIONS` would be left."""
        limit = min(limit, SELECT_LIMIT)
        reserve = max(MIN_RESERVE, limit // RESERVE_SHARE)
        connections = limit - open_at_start - reserve - SERVER_OWN
        if connections < MIN_CONNECTIONS:
            raise BudgetError(f"the file limit ({limit} descriptors, {open_at_start} open) leaves fewer than "
                              f"{MIN_CONNECTIONS} connections beside the table's reserve of {reserve}")
        sessions = max(4, connections // 4)
        refusing = max(2, connections // 16)
        general = connections - sessions - refusing
        waiting = max(2, general // 4)
        anonymous = general - waiting
        return cls(limit=limit, open_at_start=open_at_start, reserve=reserve, connections=connections,
                   sessions=sessions, probation=sessions // 2, refusing=refusing, waiting=waiting,
                   anonymous=anonymous, per_client=max(2, anonymous // 2), streams=max(1, anonymous // 2),
                   streams_per_client=min(STREAMS_PER_CLIENT, max(1, anonymous // 2)))

    @classmethod
    def measure(cls) -> Budget:
        """The budget of this process now: its soft file limit and the descriptors it has open."""
        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
        return cls.shared(SELECT_LIMIT if soft == resource.RLIM_INFINITY else soft, open_descriptors())

    def __str__(self) -> str:
        return (f"{self.connections} connections of {self.limit} descriptors ({self.open_at_start} open at the start, "
                f"{self.reserve} kept for the table): {self.sessions} reserved for logged-in users, "
                f"{self.anonymous} without a login ({self.per_client} a client, {self.streams} event streams of a "
                f"kind, {self.streams_per_client} a client), {self.waiting} waiting for their request")


def open_descriptors() -> int:
    """How many descriptors this process has open (:data:`ASSUMED_OPEN` where it cannot be listed)."""
    try:
        return len(os.listdir("/proc/self/fd")) - 1  # less the one listing the folder
    except OSError:
        return ASSUMED_OPEN
