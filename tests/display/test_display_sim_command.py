"""`dicetable display-sim` as a user runs it: a separate process that prints
its port, answers the real DisplayLink and draws what the digits show."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading

from firmware import layout
from firmware.max7219 import Max7219Chain
from firmware.virtual import VirtualChain
from hardware.display import DisplayLink, DisplayState

STATE = DisplayState("hazard", "settled", (2, 5, 6), None, ((1, 1, 1), (6, 6, 5)), 3)


def _expected_drawing(state: DisplayState) -> list[str]:
    chain = VirtualChain()
    panel = Max7219Chain(chain.spi, chain.cs)
    panel.init()
    panel.show(layout.rows(state))
    return [line.rstrip() for line in chain.drawing().split("\n") if line.strip()]


def test_display_sim_answers_the_link_and_draws_the_digits(tmp_path, fast_timing, eventually):
    port = tmp_path / "display"
    process = subprocess.Popen(
        [sys.executable, "-m", "controller.cli", "display-sim", "--port", str(port), "--plain", "--duration", "30"],
        # Ctrl-C as a user at a terminal sends it: a test run started in the background by a shell
        # (`make test &`) inherits SIGINT ignored, and would pass that on to the program.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(process.stdout), daemon=True)
    reader.start()
    try:
        eventually(lambda: os.path.lexists(port), timeout=15.0)
        with DisplayLink(str(port), timing=fast_timing) as link:
            link.show(STATE)
            assert link.wait_acked(STATE, 10.0) is not None
            eventually(lambda: any("[linked]" in line for line in lines), timeout=10.0)
            process.send_signal(signal.SIGINT)
            process.wait(timeout=15)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    reader.join(5)
    out, err = "".join(lines), process.stderr.read()
    assert process.returncode == 0, err
    assert f"port for the controller: {port}" in out
    assert "[linked]" in out
    for line in _expected_drawing(STATE):
        assert line in out
    assert not os.path.lexists(port)  # the stand-in removed its port on exit


def test_display_sim_refuses_a_bad_fault_rate(capsys):
    from controller.cli import main

    assert main(["display-sim", "--drop", "1.5", "--duration", "0"]) == 2
    assert "drop rate 1.5" in capsys.readouterr().err
