"""A private Mosquitto broker on a free port of 127.0.0.1, for the tests and the bench.

Why the real broker rather than a stand-in: what the floor must survive (a broker restarted
without persistence, a login refused, an ACL that drops another table's topic) is the broker's
behaviour, and a stand-in would only show what its author believed. As Mosquitto's own test
suite does, each user of this starts its own broker on a free port, with a password file and the
ACL of docs/floor.md (:func:`acl_text`), and stops it; no system service is involved.
"""
from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import time
from pathlib import Path

#: The broker's ACL for the floor's topics: each table (its user name is its table id) writes only
#: its own topics and reads only its own acknowledgement; the floor user reads every table's topics
#: and alone writes the acknowledgements.
ACL = """\
# Each table: user name = table id. It publishes its own rows, status and online word, and reads
# only the floor's acknowledgement of its own journal.
pattern write dicetable/table/%u/row/+
pattern write dicetable/table/%u/status
pattern write dicetable/table/%u/online
pattern read dicetable/floor/ack/%u

# The floor: reads every table's topics, and alone writes the acknowledgements.
user {floor}
topic read dicetable/table/#
topic write dicetable/floor/ack/+
"""


#: A user that publishes as several tables (the demo's one login for its three games).
SHARED = """
user {user}
{lines}
"""


def acl_text(floor_user: str = "floor", shared: dict[str, tuple[str, ...]] | None = None) -> str:
    """The ACL, with a block for each user of ``shared`` that may publish as each of its tables."""
    text = ACL.format(floor=floor_user)
    for user, tables in (shared or {}).items():
        lines = [f"topic write dicetable/table/{t}/{topic}" for t in tables for topic in ("row/+", "status", "online")]
        lines += [f"topic read dicetable/floor/ack/{t}" for t in tables]
        text += SHARED.format(user=user, lines="\n".join(lines))
    return text


def mosquitto_binary() -> str | None:
    """The broker's program, or None when the package is not installed."""
    return shutil.which("mosquitto") or next((p for p in ("/usr/sbin/mosquitto",) if Path(p).is_file()), None)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PrivateBroker:
    """A Mosquitto of its own in ``folder``: ``users`` maps each user name to its password
    (the floor's is ``floor``); ``shared``: users that publish as several tables (:func:`acl_text`);
    ``anonymous`` lets a client in without a login (the ACL then gives it nothing). ``tls``: (CA file, certificate, key) for an mqtts listener instead."""

    def __init__(self, folder: Path, users: dict[str, str], *, anonymous: bool = False,
                 tls: tuple[Path, Path, Path] | None = None, persistence: bool = False,
                 shared: dict[str, tuple[str, ...]] | None = None):
        binary = mosquitto_binary()
        if binary is None:
            raise FileNotFoundError("mosquitto is not installed (sudo apt-get install -y mosquitto)")
        self.binary = binary
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.users = dict(users)
        self.tls = tls
        passwords = self.folder / "passwords"
        passwords.write_text("")
        for user, password in users.items():
            subprocess.run(["mosquitto_passwd", "-b", str(passwords), user, password], check=True,
                           capture_output=True)
        (self.folder / "acl").write_text(acl_text(shared=shared))
        lines = [f"listener {self.port} 127.0.0.1", f"allow_anonymous {'true' if anonymous else 'false'}",
                 f"password_file {passwords}", f"acl_file {self.folder / 'acl'}",
                 f"persistence {'true' if persistence else 'false'}", f"persistence_location {self.folder}/",
                 # Started by root, it would become the user "mosquitto", who cannot read a private folder.
                 f"user {pwd.getpwuid(os.getuid()).pw_name}", "log_dest stderr", "log_type error", "log_type warning", "max_queued_messages 100000"]
        if tls is not None:
            cafile, cert, key = tls
            lines += [f"cafile {cafile}", f"certfile {cert}", f"keyfile {key}"]
        (self.folder / "mosquitto.conf").write_text("\n".join(lines) + "\n")
        self.process: subprocess.Popen[bytes] | None = None

    def url(self, user: str | None = None) -> str:
        """The broker's URL, with ``user``'s login in it when given."""
        login = f"{user}:{self.users[user]}@" if user else ""
        return f"{'mqtts' if self.tls else 'mqtt'}://{login}127.0.0.1:{self.port}"

    def start(self, timeout: float = 10.0) -> "PrivateBroker":
        log = open(self.folder / "mosquitto.log", "ab")
        self.process = subprocess.Popen([self.binary, "-c", str(self.folder / "mosquitto.conf")], stdout=log,
                                        stderr=log)
        log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"mosquitto exited at start: {(self.folder / 'mosquitto.log').read_text()}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"mosquitto did not listen on {self.port} within {timeout} s")

    def kill(self) -> None:
        """Kill the broker (SIGKILL): what it held in memory, retained messages and queues, is gone."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)

    def __enter__(self) -> "PrivateBroker":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
