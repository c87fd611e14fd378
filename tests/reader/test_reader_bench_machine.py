"""The bench says where it ran and how fast that machine was while it ran (vision.benchtool.machine)."""
from __future__ import annotations

import cv2

from vision.benchtool import machine

X86 = """processor\t: 0
vendor_id\t: AuthenticAMD
model\t\t: 1
model name\t: AMD EPYC 7B13
processor\t: 1
model name\t: AMD EPYC 7B13
"""
PI4 = """processor\t: 0
model name\t: ARMv7 Processor rev 3 (v7l)
Hardware\t: BCM2711
Model\t\t: Raspberry Pi 4 Model B Rev 1.4
"""
PI4_64 = """processor\t: 0
BogoMIPS\t: 108.00
Hardware\t: BCM2835
"""


def test_cpu_model_names_the_machine_on_x86_and_on_a_pi(tmp_path):
    for text, name in ((X86, "AMD EPYC 7B13"), (PI4, "Raspberry Pi 4 Model B Rev 1.4"), (PI4_64, "BCM2835")):
        path = tmp_path / "cpuinfo"
        path.write_text(text)
        assert machine.cpu_model(path) == name


def test_cpu_model_without_cpuinfo_falls_back_to_platform(tmp_path):
    name = machine.cpu_model(tmp_path / "absent")
    assert isinstance(name, str) and name


def test_probe_figures_before_and_after_sampling():
    probe = machine.SpeedProbe()
    assert probe.figures() == {"probe_ms_median": None, "probe_ms_fastest": None, "slowdown": None}
    for _ in range(5):
        probe.sample()
    fig = probe.figures()
    assert 0 < fig["probe_ms_fastest"] <= fig["probe_ms_median"]
    assert fig["slowdown"] >= 1.0


def test_describe_and_line():
    probe = machine.SpeedProbe()
    bare = machine.describe(1, probe)
    assert bare["opencv"] == cv2.__version__ and bare["opencv_threads"] == 1
    assert machine.line(bare).startswith("measured on ") and "blur" not in machine.line(bare)
    probe.sample()
    text = machine.line(machine.describe(2, probe))
    assert "2 threads" in text and "fixed blur" in text and "times slower than its best" in text
