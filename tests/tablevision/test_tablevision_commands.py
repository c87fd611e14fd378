"""`dicetable record` and `dicetable calibrate` end to end on stand-in sources."""
from __future__ import annotations

import csv
from pathlib import Path

import cv2
import numpy as np
import pytest

from controller.cli import main
from vision.calibrate import load_calibration
from vision.sources import FolderSource


def rows(folder: Path) -> list[dict]:
    with open(folder / "frames.csv", newline="") as fh:
        return list(csv.DictReader(fh))


def test_record_a_generated_session_and_replay_it(tmp_path: Path, capsys):
    out = tmp_path / "session"
    assert main(["record", "--source", "generated:seed=4,size=320x240", "--out", str(out), "--throws", "1", "--seed", "9"]) == 0
    assert "saved" in capsys.readouterr().out
    recorded = rows(out)
    assert len(recorded) > 40
    assert [r["file"] for r in recorded] == sorted(p.name for p in out.glob("frame_*.png"))
    stamps = [float(r["timestamp"]) for r in recorded]
    assert stamps == sorted(stamps) and stamps[1] - stamps[0] == np.float64(1 / 30).round(6)
    thrown = {r["values"] for r in recorded if r["moving"] == "0" and r["values"]}
    assert len(thrown) == 1  # one throw, one set of values at rest
    replay = list(FolderSource(out))
    assert len(replay) == len(recorded)
    assert [f.timestamp for f in replay] == stamps
    first = cv2.imread(str(out / recorded[0]["file"]))
    assert first is not None and np.array_equal(replay[0].image, first)


def test_record_stops_after_frames_and_keeps_one_in_n(tmp_path: Path):
    out = tmp_path / "few"
    assert main(["record", "--source", "generated:size=160x120", "--out", str(out), "--frames", "4", "--every", "3"]) == 0
    assert [int(r["index"]) for r in rows(out)] == [0, 3, 6, 9]


def test_record_from_a_folder_skips_the_corrupt_file(tmp_path: Path, image_folder: Path, capsys):
    out = tmp_path / "copy"
    assert main(["record", "--source", f"folder:{image_folder}", "--out", str(out), "--format", "jpg"]) == 0
    assert len(rows(out)) == 4
    assert "1 broken skipped" in capsys.readouterr().out


def test_record_stops_cleanly_on_a_full_disk_keeping_what_it_saved(tmp_path: Path, capsys, monkeypatch):
    import vision.sources.recording as recording

    real_imwrite, written = recording.cv2.imwrite, list[str]()

    def imwrite_until_full(path, image, params):
        if len(written) == 3:
            return False  # what cv2.imwrite does when the disk is full
        written.append(path)
        return real_imwrite(path, image, params)

    monkeypatch.setattr(recording.cv2, "imwrite", imwrite_until_full)
    out = tmp_path / "full"
    assert main(["record", "--source", "generated:size=160x120", "--out", str(out), "--frames", "10"]) == 1
    captured = capsys.readouterr()
    assert "saved 3 frames" in captured.out
    assert captured.err.startswith("dicetable record: stopped") and "cannot write" in captured.err
    assert [r["file"] for r in rows(out)] == [Path(p).name for p in written]


def test_record_to_a_folder_that_cannot_be_made_is_one_line_of_error(tmp_path: Path, capsys):
    (tmp_path / "file").write_text("not a folder")
    assert main(["record", "--source", "generated", "--out", str(tmp_path / "file" / "rec"), "--frames", "1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("dicetable record: cannot record to") and err.count("\n") == 1


def test_record_refuses_a_folder_in_use_and_a_bad_source(tmp_path: Path, capsys):
    used = tmp_path / "used"
    used.mkdir()
    (used / "keep.txt").write_text("mine")
    assert main(["record", "--source", "generated", "--out", str(used), "--frames", "1"]) == 2
    assert (used / "keep.txt").read_text() == "mine" and not (used / "frames.csv").exists()
    assert main(["record", "--source", "folder:/no/such/folder", "--out", str(tmp_path / "x"), "--frames", "1"]) == 2
    assert "no such folder" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["record", "calibrate"])
@pytest.mark.parametrize("spec, why", [("generated:sede=3", "unknown option 'sede'"), ("generated:fps=0", "fps=0"),
                                       ("usb:0,exposure=3", "expected a camera number")])
def test_a_bad_source_spec_is_one_line_of_error(tmp_path: Path, capsys, command, spec, why):
    assert main([command, "--source", spec, "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"dicetable {command}: ") and why in err and err.count("\n") == 1


def test_calibrate_from_image_files(tmp_path: Path):
    from vision.scenes.render import SceneRenderer, SceneState, place_dice
    from vision.scenes.table import make_table

    rng = np.random.default_rng(12)
    table = make_table("rail", rng, (640, 480))
    renderer = SceneRenderer(table, rng)
    (tmp_path / "empty").mkdir()
    for i in range(2):
        cv2.imwrite(str(tmp_path / "empty" / f"e{i}.png"), renderer.render(SceneState())[0])
    cv2.imwrite(str(tmp_path / "dice.png"), renderer.render(SceneState(dice=place_dice(rng, table, (2, 5))))[0])
    out = tmp_path / "cal"
    assert main(["calibrate", "--empty", str(tmp_path / "empty"), "--dice", str(tmp_path / "dice.png"), "--expect", "2", "--out", str(out)]) == 0
    cal = load_calibration(out / "calibration.toml")
    assert cal.die_size_px is not None and abs(cal.die_size_px - table.die_size) < 0.08 * table.die_size
    assert (out / "calibration_check.png").exists()


def table_pictures(folder: Path) -> tuple[Path, Path]:
    """An empty rail table and the same table with two dice, as image files in ``folder``."""
    from vision.scenes.render import SceneRenderer, SceneState, place_dice
    from vision.scenes.table import make_table

    rng = np.random.default_rng(12)
    table = make_table("rail", rng, (640, 480))
    renderer = SceneRenderer(table, rng)
    cv2.imwrite(str(folder / "empty.png"), renderer.render(SceneState())[0])
    cv2.imwrite(str(folder / "dice.png"), renderer.render(SceneState(dice=place_dice(rng, table, (2, 5))))[0])
    return folder / "empty.png", folder / "dice.png"


def test_calibrate_skips_a_corrupt_image_and_refuses_when_none_is_readable(tmp_path: Path, capsys):
    empty, dice = table_pictures(tmp_path)
    corrupt = tmp_path / "corrupt.png"
    corrupt.write_bytes(b"\x89PNG\r\n\x1a\n cut short")
    args = ["--dice", str(dice), "--expect", "2"]
    assert main(["calibrate", "--empty", str(corrupt), str(empty), *args, "--out", str(tmp_path / "a")]) == 0
    assert "skipped corrupt.png" in capsys.readouterr().out
    assert main(["calibrate", "--empty", str(corrupt), *args, "--out", str(tmp_path / "b")]) == 2
    err = capsys.readouterr().err
    assert err == f"dicetable calibrate: --empty {corrupt}: not one readable image\n"
    assert not (tmp_path / "b").exists()


@pytest.mark.parametrize("given, missing", [("--empty", "--dice is missing"), ("--dice", "--empty is missing")])
def test_calibrate_from_files_says_which_option_is_missing(tmp_path: Path, capsys, given, missing):
    assert main(["calibrate", given, str(tmp_path / "nonexistent"), "--out", str(tmp_path / "out")]) == 2
    assert capsys.readouterr().err.startswith(f"dicetable calibrate: {missing}")


def test_calibrate_the_generated_hazard_cage_unattended(tmp_path: Path, capsys):
    out = tmp_path / "cage"
    assert main(["calibrate", "--source", "generated:seed=3", "--game", "hazard", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "warning" not in text
    cal = load_calibration(out / "calibration.toml")
    assert cal.die_size_px and cal.landing_mask is not None


def test_calibrate_without_frames_or_with_bad_ones_fails_cleanly(tmp_path: Path, capsys):
    assert main(["calibrate", "--out", str(tmp_path / "a")]) == 2
    noise = tmp_path / "noise.png"
    cv2.imwrite(str(noise), np.random.default_rng(0).integers(0, 255, (120, 160, 3), dtype=np.uint8))
    assert main(["calibrate", "--empty", str(noise), "--dice", str(noise), "--out", str(tmp_path / "b")]) == 2
    assert "felt" in capsys.readouterr().err
    assert not (tmp_path / "b").exists()


def test_a_calibrated_generated_table_settles_each_throw_once(tmp_path: Path, drain_throw):
    """Calibration feeding settle detection, as a configured table on a laptop uses them."""
    from vision.calibrate import load_empty_image
    from vision.settle import SettleConfig, SettleDetector, Settled
    from vision.sources import GeneratedSource

    out = tmp_path / "cal"
    assert main(["calibrate", "--source", "generated:seed=6,size=320x240", "--out", str(out)]) == 0
    cal = load_calibration(out / "calibration.toml")
    empty = load_empty_image(out / "calibration.toml")
    src = GeneratedSource(seed=6, size=(320, 240), rest_s=0.4)  # the same table, filmed again
    det = SettleDetector(SettleConfig(die_size_px=cal.die_size_px), landing_mask=cal.landing_mask, empty=empty)
    for values in ([1, 6], [4, 4]):
        src.throw(values)
        settled = drain_throw(src, det)
        assert [type(e) for e in settled] == [Settled]  # armed by the empty table, no controller needed
        assert sorted(settled[0].frame.meta["values"]) == sorted(values)


class QueuingCamera:
    """A camera that queues 4 frames while nobody reads it; each frame's first pixel is 0 when stale."""

    def __init__(self) -> None:
        self.queued, self.reads = 0, 0

    def read(self):
        from vision.sources import Frame

        self.reads += 1
        image = np.random.default_rng(self.reads).integers(50, 200, (48, 64, 3), dtype=np.uint8)
        image[0, 0] = 0 if self.queued else 255
        self.queued = max(0, self.queued - 1)
        return Frame(image, self.reads / 30, self.reads)

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        pass


def test_calibrate_from_a_camera_drops_the_frames_queued_during_each_prompt(monkeypatch):
    import vision.sources
    from controller.cli.commands import calibrate

    camera = QueuingCamera()

    def prompt(text: str) -> str:
        camera.queued = 4  # the camera kept filming the table as it was while the installer worked
        return ""

    monkeypatch.setattr(vision.sources, "open_source", lambda spec: camera)
    monkeypatch.setattr("builtins.input", prompt)
    empty, dice, _, _, _ = calibrate._from_source("usb:0", 3, None)
    assert len(empty) == len(dice) == 3
    assert all(image[0, 0, 0] == 255 for image in empty + dice)


@pytest.mark.parametrize("game, count", [(None, 2), ("bang", 2), ("hazard", 3)])
def test_calibrate_from_a_camera_asks_for_and_expects_the_games_dice(monkeypatch, game, count):
    """Knowing the count is what keeps dice touching in a cluster from passing for one big die."""
    import vision.sources
    from controller.cli.commands import calibrate

    asked = []
    monkeypatch.setattr(vision.sources, "open_source", lambda spec: QueuingCamera())
    monkeypatch.setattr("builtins.input", lambda text: asked.append(text) or "")
    _, _, _, expect, filmed = calibrate._from_source("usb:0", 2, game)
    assert expect == count and asked[1].startswith(f"Lay {count} dice at rest")
    assert filmed == ("cage" if game == "hazard" else "rail")


def test_calibrate_names_a_camera_that_gives_no_frames_before_asking_anything(monkeypatch):
    """An installer must not clear the table, then lay dice, for a camera that was never there."""
    import vision.sources
    from controller.cli.commands import calibrate
    from vision.sources import SourceUnavailable

    class AbsentCamera(QueuingCamera):
        def read(self):
            raise SourceUnavailable("picamera2: no camera found")

    asked = []
    monkeypatch.setattr(vision.sources, "open_source", lambda spec: AbsentCamera())
    monkeypatch.setattr("builtins.input", lambda text: asked.append(text) or "")
    with pytest.raises(SourceUnavailable, match="gives no frames: picamera2: no camera found"):
        calibrate._from_source("picamera2", 2, "craps")
    assert asked == []


def test_calibrate_the_generated_cage_named_in_the_source_alone(tmp_path, capsys):
    """The source says which table it films: the cage is calibrated as a cage without --game."""
    assert main(["calibrate", "--source", "generated:seed=3,game=hazard", "--out", str(tmp_path / "cal")]) == 0
    assert "wrote" in capsys.readouterr().out


def test_calibrate_films_the_configured_camera_at_its_size_and_rate(tmp_path, monkeypatch):
    """--config opens the table's own camera as `dicetable run` does, whatever [calibration] says now."""
    import vision.sources
    from controller.cli.commands import calibrate

    config = tmp_path / "table.toml"
    config.write_text('[table]\ngame = "hazard"\n[camera]\nsource = "opencv"\ndevice = 2\nwidth = 1280\n'
                      'height = 960\nfps = 15\n[calibration]\nfile = "stale/calibration.toml"\n')
    opened = []
    monkeypatch.setattr(vision.sources, "open_source", lambda spec: opened.append(spec) or QueuingCamera())
    monkeypatch.setattr("builtins.input", lambda text: "")
    spec, game = calibrate._table_camera(str(config))
    _, _, _, expect, filmed = calibrate._from_source(spec, 2, game)
    assert opened == [{"type": "usb", "target": 2, "size": (1280, 960), "fps": 15}]
    assert (expect, filmed) == (3, "cage")
    config.write_text('[camera]\nsource = "scenes"\n')
    with pytest.raises(ValueError, match="no camera to calibrate"):
        calibrate._table_camera(str(config))
    (tmp_path / "rec").mkdir()
    config.write_text('[camera]\nsource = "folder"\npath = "rec"\n')
    with pytest.raises(ValueError, match="the camera is a recording"):  # its frames do not follow the prompts
        calibrate._table_camera(str(config))


def test_calibrate_with_a_config_takes_the_game_from_it(tmp_path, capsys):
    config = tmp_path / "table.toml"
    config.write_text('[table]\ngame = "hazard"\n[camera]\nsource = "picamera2"\n')
    assert main(["calibrate", "--config", str(config), "--game", "craps"]) == 2
    assert "give neither --source nor --game" in capsys.readouterr().err
