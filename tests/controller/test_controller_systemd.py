"""The service unit passes `systemd-analyze verify` without a single warning; sd_notify speaks the protocol."""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from controller.sdnotify import Notifier

ROOT = Path(__file__).resolve().parents[2]
UNIT = ROOT / "systemd" / "dicetable.service"
INSTALLED_AT = "/opt/dicetable/.venv/bin/"


def test_unit_verifies_without_warnings(tmp_path):
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed on this machine")
    text = UNIT.read_text()
    assert INSTALLED_AT in text
    # The unit names the installed paths; verify checks that the commands exist, so point them at this
    # checkout's venv exactly as systemd/install.sh points them at the install prefix.
    here = Path(sys.executable).parent
    assert (here / "dicetable").exists() and (here / "python").exists()
    unit = tmp_path / "dicetable.service"
    unit.write_text(text.replace(INSTALLED_AT, f"{here}/"))
    done = subprocess.run([analyze, "verify", str(unit)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stderr.strip() == "" and done.stdout.strip() == "", done.stderr + done.stdout


def test_unit_has_the_required_settings():
    settings = {}
    for line in UNIT.read_text().splitlines():
        if "=" in line and not line.startswith("#"):
            key, value = line.split("=", 1)
            settings[key] = value
    assert settings["Type"] == "notify" and settings["WatchdogSec"] and settings["NotifyAccess"] == "main"
    assert settings["Restart"] == "on-failure"
    # safe_exit ends on SIGTERM with 128 + 15: `systemctl stop` must not leave the unit failed
    assert settings["SuccessExitStatus"].split() == ["143"]
    # a configuration error (exit 2) is not restarted; other quick failures stop after a burst of starts
    assert settings["RestartPreventExitStatus"].split() == ["2"]
    assert int(settings["StartLimitBurst"]) >= 5 and settings["StartLimitIntervalSec"]
    assert "hardware.gpio.force_off" in settings["ExecStopPost"]
    assert settings["NoNewPrivileges"] == "yes" and settings["ProtectSystem"] == "strict"
    assert settings["StateDirectory"] == "dicetable" and settings["ProtectHome"] == "yes"
    assert settings["PrivateTmp"] == "yes"
    assert set(settings["SupplementaryGroups"].split()) == {"gpio", "video", "dialout"}
    assert settings["User"] not in ("root", "nobody")
    # the console's share is counted within 1024 descriptors: a higher limit is the table's margin
    assert int(settings["LimitNOFILE"]) > 1024


def test_install_script_is_valid_shell():
    subprocess.run(["sh", "-n", str(ROOT / "systemd" / "install.sh")], check=True)


def test_notifier_sends_datagrams(tmp_path):
    path = tmp_path / "notify"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as server:
        server.bind(str(path))
        notifier = Notifier(str(path))
        assert notifier.ready("table open")
        assert server.recv(4096) == b"READY=1\nSTATUS=table open"
        assert notifier.watchdog() and server.recv(4096) == b"WATCHDOG=1"
        assert notifier.stopping() and server.recv(4096) == b"STOPPING=1"


def test_notifier_abstract_socket():
    name = f"dicetable-test-{os.getpid()}"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as server:
        server.bind("\0" + name)
        assert Notifier("@" + name).status("ok")
        assert server.recv(4096) == b"STATUS=ok"


def test_notifier_outside_systemd_does_nothing(monkeypatch):
    monkeypatch.delenv("NOTIFY_SOCKET", raising=False)
    notifier = Notifier()
    assert not notifier.enabled and notifier.watchdog() is False


def test_watchdog_interval_is_half_the_timeout(monkeypatch):
    monkeypatch.setenv("WATCHDOG_USEC", "15000000")
    monkeypatch.setenv("WATCHDOG_PID", str(os.getpid()))
    assert Notifier("x").watchdog_interval() == 7.5
    monkeypatch.setenv("WATCHDOG_PID", "1")
    assert Notifier("x").watchdog_interval() is None
