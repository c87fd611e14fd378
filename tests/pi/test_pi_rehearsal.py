"""The pure parts of ``make pi-rehearsal`` (scripts/pi_rehearsal.py): docs/install.md's steps as
the emulated root runs them, the frames it reads, and the comparison of the Pi's reads with the
PC's. The emulation itself runs only under ``make pi-rehearsal``, never in ``make test``."""
from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "pi_rehearsal.py"
spec = importlib.util.spec_from_file_location("pi_rehearsal", SCRIPT)
assert spec is not None and spec.loader is not None
pr = importlib.util.module_from_spec(spec)
sys.modules["pi_rehearsal"] = pr  # its dataclasses look their module up
spec.loader.exec_module(pr)

BARS = (0.9, 0.85, 0.95, 0.92)


def line(image, status="ok", dice=((3, 0.99), (5, 0.98)), **extra):
    return json.dumps({"image": image, "status": status,
                       "dice": [{"value": v, "confidence": c, "box": [0, 0, 40, 40]} for v, c in dice],
                       "ms": 12.0, **extra})


# ---------------------------------------------------------------- the comparison

def test_equal_reads_compare_clean_whatever_their_times():
    pc = [line("a.png"), line("b.png", "uncertain", ((2, 0.7),))]
    pi = [line("a.png").replace('"ms": 12.0', '"ms": 900.5'), line("b.png", "uncertain", ((2, 0.7),))]
    result = pr.compare_reads(pc, pi, BARS)
    assert (result.compared, result.differences, result.near_bar) == (2, [], [])


def test_a_confidence_may_move_by_the_tolerance_and_no_more():
    pc = [line("a.png", dice=((3, 0.5), (5, 0.6)))]
    assert pr.compare_reads(pc, [line("a.png", dice=((3, 0.501), (5, 0.599)))], BARS).differences == []
    moved = pr.compare_reads(pc, [line("a.png", dice=((3, 0.5), (5, 0.6016)))], BARS)
    assert moved.differences == ["a.png: die 2 (5): confidence 0.6 on the PC, 0.6016 on the Pi"]


def test_a_status_or_a_value_that_differs_is_a_difference_with_its_frame():
    pc = [line("a.png"), line("b.png")]
    pi = [line("a.png", "uncertain", reason="the die at (1, 2) is not clear"), line("b.png", dice=((3, 0.99), (6, 0.98)))]
    result = pr.compare_reads(pc, pi, BARS)
    assert result.differences == [
        "a.png: status ok on the PC (ok), uncertain on the Pi (the die at (1, 2) is not clear)",
        "b.png: values [3, 5] on the PC, [3, 6] on the Pi",
    ]


def test_a_frame_near_a_bar_is_listed_not_counted():
    pc = [line("a.png", dice=((3, 0.9005), (5, 0.5)))]
    pi = [line("a.png", "uncertain", dice=((3, 0.8995), (5, 0.5)))]
    result = pr.compare_reads(pc, pi, BARS)
    assert result.differences == []
    assert result.near_bar == ["a.png: a confidence within 0.001 of 0.9: status ok on the PC (ok), "
                               "uncertain on the Pi (ok)"]


def test_near_is_measured_on_the_pc_confidence_only():
    """The PC is the reference: a Pi confidence near a bar, with the PC's far from it, is counted."""
    result = pr.compare_reads([line("a.png", dice=((3, 0.8980),))], [line("a.png", dice=((3, 0.8995),))], BARS)
    assert result.near_bar == [] and len(result.differences) == 1


def test_a_frame_read_on_one_side_only_is_a_difference():
    result = pr.compare_reads([line("a.png"), line("b.png")], [line("b.png"), line("c.png")], BARS)
    assert result.compared == 1
    assert result.differences == ["a.png: read on the PC only", "c.png: read on the Pi only"]


def test_a_line_that_is_not_a_read_or_a_frame_read_twice_is_refused():
    with pytest.raises(ValueError, match="the Pi's reads, line 2"):
        pr.compare_reads([line("a.png")], [line("a.png"), "Traceback (most recent call last):"], BARS)
    with pytest.raises(ValueError, match="a.png read twice"):
        pr.compare_reads([line("a.png"), line("a.png")], [], BARS)


def test_the_bars_are_the_bundled_policys_sure_bars():
    assert pr.policy_bars(REPO / "vision" / "models") == (0.9, 0.85, 0.95, 0.92)


def test_compare_exits_1_on_a_difference_and_prints_it(tmp_path):
    (tmp_path / "pc.jsonl").write_text(line("a.png") + "\n" + line("b.png") + "\n")
    (tmp_path / "pi.jsonl").write_text(line("a.png") + "\n" + line("b.png", "no_read") + "\n")
    done = subprocess.run([sys.executable, str(SCRIPT), "compare", str(tmp_path / "pc.jsonl"),
                           str(tmp_path / "pi.jsonl"), "--model", str(REPO / "vision" / "models"),
                           "--label", "arm64 cortex-a72"], capture_output=True, text=True)
    assert done.returncode == 1
    assert done.stdout.splitlines()[0] == "arm64 cortex-a72: 2 frames compared, 1 differ, 0 near a bar"
    assert "  differs: b.png: status ok on the PC (ok), no_read on the Pi (ok)" in done.stdout


# ---------------------------------------------------------------- the install steps

PAGE = """# Installing

## Raspberry Pi install

1. System packages:

   ```sh
   sudo apt install -y git python3-venv python3-picamera2 python3-lgpio
   ```

2. The program, in a venv (`--system-site-packages`):

   ```sh
   sudo git clone <this repository> /opt/dicetable
   cd /opt/dicetable
   sudo .venv/bin/python -c "import picamera2, cv2; print('ok')"
   ```

3. The serial port: `sudo raspi-config`.

4. The service: `systemd/install.sh`.

   ```sh
   sudo systemd/install.sh
   ```

5. Calibrate:

   ```sh
   sudo /opt/dicetable/.venv/bin/dicetable calibrate
   ```

## Wiring

1. Not a step of the install.
"""


def test_the_steps_are_read_with_their_code_dedented():
    steps = pr.install_steps(PAGE)
    assert [s.number for s in steps] == [1, 2, 3, 4, 5]
    assert steps[1].blocks == ("sudo git clone <this repository> /opt/dicetable\ncd /opt/dicetable\n"
                               "sudo .venv/bin/python -c \"import picamera2, cv2; print('ok')\"\n",)
    assert steps[2].blocks == ()


def test_the_script_runs_the_steps_with_the_stand_ins_named_and_skips_the_rest_with_a_reason():
    script = pr.install_script(PAGE, "/srv/dicetable.git")
    assert "sudo apt install -y git python3-venv python3-numpy\n" in script
    assert "sudo git clone /srv/dicetable.git /opt/dicetable\n" in script
    assert "import cv2; print('ok')" in script and "picamera2" not in script.split("set -x")[2]
    assert "python3-picamera2 and python3-lgpio are Raspberry Pi OS" in script
    assert "install step 3: skipped: " in script and "raspi-config" not in script.split("step 3")[0]
    assert "systemd/install.sh\n" not in script and "calibrate\n" not in script


def test_the_script_of_the_real_page_runs_in_sh():
    script = pr.install_script((REPO / "docs" / "install.md").read_text(encoding="utf-8"), "/srv/x.git")
    subprocess.run(["sh", "-n"], input=script, text=True, check=True)
    assert "sudo .venv/bin/pip install -e '.[pi]'" in script


@pytest.mark.parametrize("change, complaint", [
    (("5. Calibrate:", "5. Calibrate:\n\n6. A new step."), r"steps \[1, 2, 3, 4, 5, 6\]"),
    (("python3-picamera2 python3-lgpio", "python3-picamera2"), "step 1: no longer holds"),
    (("sudo raspi-config", "the serial console"), "step 3: no longer mentions 'raspi-config'"),
    (("## Raspberry Pi install", "## On a Pi"), "no section"),
])
def test_a_page_the_plan_no_longer_fits_stops_the_rehearsal(change, complaint):
    with pytest.raises(pr.PlanError, match=complaint):
        pr.install_script(PAGE.replace(*change), "/srv/dicetable.git")


# ---------------------------------------------------------------- the frames

def test_the_frames_are_the_drawn_scenes_and_each_sets_held_out_photos(tmp_path, monkeypatch):
    import cv2
    import numpy as np

    monkeypatch.setattr(pr, "DRAWN_COUNT", 3)
    photos = tmp_path / "datasets" / "tray" / "images"
    labels = tmp_path / "datasets" / "tray" / "labels"
    photos.mkdir(parents=True)
    labels.mkdir()
    for i in range(1, 31):  # three runs of ten shots, the split holds the third out (by its name's hash)
        cv2.imwrite(str(photos / f"roll_{i}.png"), np.zeros((64, 64, 3), np.uint8))
        (labels / f"roll_{i}.txt").write_text("0 0.5 0.5 0.2 0.2\n" * (1 + i % 2))
    (tmp_path / "datasets" / "empty").mkdir()
    notes = pr.write_frames(tmp_path / "inputs", tmp_path / "datasets")
    listed = {p.name: p.read_text().splitlines() for p in (tmp_path / "inputs" / "groups").iterdir()}
    drawn = [p for paths in listed.values() for p in paths if "/drawn/" in p]
    photos_listed = [p for paths in listed.values() for p in paths if "/datasets/tray/" in p]
    assert len(drawn) == 3 and all(Path(p).is_absolute() and Path(p).is_file() for p in drawn)
    from vision.benchtool.labels import load_folder
    from vision.benchtool.split import select
    held_out = select(load_folder(tmp_path / "datasets" / "tray"), "heldout")
    assert len(held_out) == 10
    assert sorted(photos_listed) == sorted(str(i.path.resolve()) for i in held_out)
    assert {Path(p).name for p in listed["1.txt"] if "/datasets/" in p} == {f"roll_{i}.png" for i in range(22, 31, 2)}
    assert notes[0].startswith("3 drawn scenes") and "empty: left out, no labelled held-out photo" in notes
    assert f"tray: {len(held_out)} held-out photos (dicetable bench --split heldout)" in notes


def test_a_missing_datasets_folder_is_a_note(tmp_path, monkeypatch):
    monkeypatch.setattr(pr, "DRAWN_COUNT", 1)
    notes = pr.write_frames(tmp_path / "inputs", tmp_path / "nowhere")
    assert notes[1] == f"no photos read: the datasets folder {tmp_path / 'nowhere'} is missing"
