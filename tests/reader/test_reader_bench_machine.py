"""The bench says where it ran and how fast that machine was while it ran (vision.benchtool.machine)."""
from __future__ import annotations

import cv2
import numpy as np

from vision.benchtool import machine
from vision.model import DiceRead, ReadStatus

X86 = """processor\t: 0
vendor_id\t: AuthenticAMD
model\t\t: 1
model name\t: AMD EPYC 7B13
processor\t: 1
model name\t: AMD EPYC 7B13
"""
#: Raspberry Pi OS, 32-bit kernel: every core says ARMv7; the board is named at the end.
PI4_32 = """processor\t: 0
model name\t: ARMv7 Processor rev 3 (v7l)
BogoMIPS\t: 108.00
Hardware\t: BCM2711
Revision\t: c03114
Model\t\t: Raspberry Pi 4 Model B Rev 1.4
"""
#: Raspberry Pi OS, 64-bit kernel: no model name, no Hardware line, the board at the end.
PI4_64 = """processor\t: 0
BogoMIPS\t: 108.00
Features\t: fp asimd evtstrm crc32 cpuid
CPU implementer\t: 0x41
CPU part\t: 0xd08
Revision\t: c03114
Serial\t\t: 10000000abcdef01
Model\t\t: Raspberry Pi 4 Model B Rev 1.4
"""
#: Another Arm board: only the SoC.
ARM_SOC = """processor\t: 0
BogoMIPS\t: 48.00
Hardware\t: Allwinner sun50i
"""


def test_cpu_model_names_the_machine_on_x86_and_on_a_pi(tmp_path):
    path = tmp_path / "cpuinfo"
    for text, name in ((X86, "AMD EPYC 7B13"), (PI4_32, "Raspberry Pi 4 Model B Rev 1.4"),
                       (PI4_64, "Raspberry Pi 4 Model B Rev 1.4"), (ARM_SOC, "Allwinner sun50i")):
        path.write_text(text)
        assert machine.cpu_model(path) == name


def test_cpu_model_without_cpuinfo_asks_platform(tmp_path, monkeypatch):
    monkeypatch.setattr(machine.platform, "processor", lambda: "")
    monkeypatch.setattr(machine.platform, "machine", lambda: "aarch64")
    assert machine.cpu_model(tmp_path / "absent") == "aarch64"
    monkeypatch.setattr(machine.platform, "machine", lambda: "")
    assert machine.cpu_model(tmp_path / "absent") == "unknown"


def test_probe_counts_its_samples():
    probe = machine.SpeedProbe()
    assert probe.figures() == {"probe_samples": 0, "probe_ms_median": None, "probe_ms_fastest": None,
                               "slowdown": None}
    for _ in range(5):
        probe.sample()
    fig = probe.figures()
    assert fig["probe_samples"] == 5
    assert 0 < fig["probe_ms_fastest"] <= fig["probe_ms_median"]


def test_probed_reader_reads_then_samples_once_per_frame():
    seen = []

    def reader(frame, **kwargs):
        seen.append(kwargs)
        return DiceRead(ReadStatus.NO_READ, (), "stub")

    probe = machine.SpeedProbe()
    read = machine.probed(reader, probe)
    frame = np.zeros((8, 8, 3), np.uint8)
    assert read(frame, expect=2).reason == "stub"
    read(frame, expect=3)
    assert seen == [{"expect": 2}, {"expect": 3}]
    assert probe.figures()["probe_samples"] == 2


def test_describe_and_summary_line():
    probe = machine.SpeedProbe()
    bare = machine.describe(probe)
    assert bare["opencv"] == cv2.__version__ and bare["opencv_threads"] == cv2.getNumThreads()
    text = machine.summary_line(bare)
    assert text.startswith("measured on ") and "blur" not in text  # nothing measured, nothing said
    probe.sample()
    text = machine.summary_line({**machine.describe(probe), "cores": 1, "opencv_threads": 2})
    assert "(1 core)" in text and "2 threads" in text and "times its fastest" in text
    assert "unknown cores" in machine.summary_line({**bare, "cores": None})
