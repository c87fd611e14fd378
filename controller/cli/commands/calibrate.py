"""``dicetable calibrate``: measure the table (landing area, die size, colours) at installation.

From image files (``--empty`` and ``--dice``, files or folders) or from a
camera (``--config``: the table's own, at its size, frame rate and game; or
``--source``): the installer clears the landing area, presses Enter, lays the
game's dice at rest, presses Enter. With the generated source it runs
unattended (the dice are thrown and filmed at rest), which is how the demo
and the tests calibrate. Writes ``calibration.toml`` (point the table
configuration at it), the mask and empty-table PNGs, and
``calibration_check.png`` for the installer to look at.
"""
from __future__ import annotations

import argparse
from typing import Any, Literal, Mapping

from controller.rules import GAMES

NAME = "calibrate"
HELP = "measure the landing area, die size and dice colours from frames of the empty table and of dice at rest"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--empty", nargs="+", metavar="PATH", help="images (or folders of images) of the empty table")
    parser.add_argument("--dice", nargs="+", metavar="PATH", help="images (or folders) with dice at rest in the landing area")
    parser.add_argument("--source", help="take the frames from this camera source instead (picamera2, usb:0, generated...)")
    parser.add_argument("--config", metavar="TOML", help="take the frames from the camera of this table configuration, "
                                                          "at its size and frame rate, with its game's dice (what "
                                                          "`dicetable run --config` will film)")
    parser.add_argument("--frames", type=int, default=5, help="frames to take of each (with --config or --source; default 5)")
    parser.add_argument("--expect", type=int, default=None, help="how many dice lie in each dice frame: only frames showing that many apart are measured, "
                             "and none is refused (give it: it catches dice touching in a cluster); with a camera "
                             "--source, the game's dice by default (2, or 3 with --game hazard)")
    parser.add_argument("--game", choices=tuple(GAMES), default=None,
                        help="which table (default: a rail table); hazard: the cage, whose wires may move between "
                             "the empty table and the dice; with the generated source, also which table to film")
    parser.add_argument("--out", default="calibration", help="folder to write (default ./calibration)")


# Frames dropped after each Enter: a USB camera left unread during the prompt still holds the
# frames it queued before (OpenCV's V4L2 backend keeps 4 buffers), showing the table as it was.
STALE_FRAMES = 5


def _images(paths: list[str], option: str) -> list:
    """The readable images among ``paths`` (files or folders), for ``option`` (``--empty``/``--dice``).

    A corrupt file is skipped with a note, so one bad frame among many does not stop an
    installation; but ``ValueError`` if none is readable, naming the option, since
    calibrating with no frames of one kind is impossible.
    """
    from pathlib import Path

    from vision.sources.base import BrokenFrame
    from vision.sources.folder import IMAGE_SUFFIXES, read_image

    files: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            files += sorted(f for f in p.iterdir() if f.suffix.lower() in IMAGE_SUFFIXES)
        elif p.exists():
            files.append(p)
        else:
            raise FileNotFoundError(f"{p}: no such file or folder")
    images = []
    for f in files:
        try:
            images.append(read_image(f))
        except BrokenFrame as exc:
            print(f"skipped {exc}")
    if not images:
        raise ValueError(f"{option} {' '.join(paths)}: not one readable image")
    return images


def _missing_inputs(args: argparse.Namespace) -> str | None:
    """What is missing for a calibration from image files, or None when nothing is."""
    if args.empty and args.dice:
        return None
    if args.empty or args.dice:
        return f"{'--dice' if args.empty else '--empty'} is missing: give --empty and --dice images, or --config or --source"
    return "give --empty and --dice images, or --config (the table's camera) or --source"


def _from_source(spec: str | Mapping[str, Any], frames: int,
                 game: str | None) -> tuple[list, list, list, int, Literal["rail", "cage"]]:
    """Frames of the empty table and of dice at rest from a camera source, the dice frames at
    full resolution where the camera gives them (else none), the number of dice laid, and the
    setting filmed (``rail`` or ``cage``: a generated source films its own; a camera, ``game``'s)."""
    import numpy as np

    from controller.camera import SETTING, open_camera
    from controller.rules import DICE
    from vision.scenes import SceneState
    from vision.settle import SettleConfig, SettleDetector, Settled
    from vision.sources import BrokenFrame, GeneratedSource, SourceUnavailable, parse_spec

    def grab(source, n: int) -> list:
        out: list = []
        misses = 0
        while len(out) < n:
            try:
                out.append(source.read())
            except (BrokenFrame, SourceUnavailable) as exc:
                misses += 1
                if misses > 10:  # about ten seconds without a frame
                    raise SourceUnavailable(f"the camera gives no frames: {exc}") from exc
        return out

    generated = parse_spec(spec)["type"] == "generated"
    source = open_camera(spec, game=game) if game and generated else open_camera(spec)
    with source:
        if isinstance(source, GeneratedSource):
            empty: list = []
            if source.setting == "rail":
                empty = [f.image for f in grab(source, frames)]
            else:
                # The installer opens the cage and takes the dice out; here: the dish drawn without them.
                empty = [source.renderer.render(SceneState())[0] for _ in range(frames)]
            rng = np.random.default_rng(source.seed)
            source.throw(rng.integers(1, 7, source.dice).tolist())
            detector = SettleDetector(SettleConfig(mode=source.setting, fps=source.fps), empty=empty[0])
            detector.arm()
            while True:
                event = detector.feed(source.read())
                if isinstance(event, Settled):
                    break
            dice = grab(source, frames)
            return empty, [f.image for f in dice], _full(dice), source.dice, source.setting
        # The installer lays the game's dice, so their count is known: frames showing another number
        # (dice touching in a cluster, which can pass for one big die) are then not measured.
        game = game or "craps"
        count = DICE[game]
        grab(source, 1)  # a camera that gives nothing is named now, not after the installer has cleared the table
        input("Clear the landing area (no dice, no hands), then press Enter... ")
        grab(source, STALE_FRAMES)
        empty = [f.image for f in grab(source, frames)]
        input(f"Lay {count} dice at rest in the landing area, apart from each other, then press Enter... ")
        grab(source, STALE_FRAMES)
        dice = grab(source, frames)
        return empty, [f.image for f in dice], _full(dice), count, SETTING[game]


def _full(frames: list) -> list:
    """The full-resolution pictures of ``frames``, where the source gave one with each."""
    return [f.full for f in frames] if frames and all(f.full is not None for f in frames) else []


def _table_camera(path: str) -> tuple[dict[str, Any], str]:
    """The camera spec and the game of the table configured in ``path``, so that calibration
    films what ``dicetable run`` will: the same camera, size and frame rate.

    Its ``[calibration]`` is left out: it is what is being made again, and a stale one (taken at
    another size) would make the configuration refuse to load. A recording is refused: its frames
    do not follow the prompts (calibrate from chosen frames with ``--empty`` and ``--dice``).
    """
    from controller.camera import source_spec
    from controller.config import ConfigError, load

    try:
        config = load(path, without_calibration=True)
    except ConfigError as exc:
        raise ValueError(str(exc)) from None
    camera = config.camera
    if camera.source in ("generated", "none"):
        raise ValueError(f"{path}: camera.source is {camera.source!r}: no camera to calibrate")
    if not camera.live:
        raise ValueError(f"{path}: the camera is a recording ({camera.path}): calibrate from its frames "
                         "of the empty table and of dice at rest with --empty and --dice")
    return source_spec(config), config.game


def run(args: argparse.Namespace) -> int:
    import sys

    import numpy as np

    from controller.camera import SETTING
    from vision.calibrate import CalibrationError, calibrate, save_calibration
    from vision.sources import SourceError

    expect = args.expect
    if args.config and (args.source or args.game):
        print("dicetable calibrate: --config says the camera and the game; give neither --source nor --game with it",
              file=sys.stderr)
        return 2
    missing = None if args.source or args.config else _missing_inputs(args)
    if missing:
        print(f"dicetable calibrate: {missing}", file=sys.stderr)
        return 2
    game = args.game
    try:
        if args.source or args.config:
            spec, configured = _table_camera(args.config) if args.config else (args.source, None)
            empty, dice, full, seen, mode = _from_source(spec, args.frames, game or configured)
            expect = expect or seen
        else:
            empty, dice, full = _images(args.empty, "--empty"), _images(args.dice, "--dice"), []
            mode = SETTING[game] if game else "rail"
        result = calibrate(empty, dice, expect=expect, mode=mode,
                           full_dice_frames=full)
        path = save_calibration(result, args.out)
    except (CalibrationError, SourceError, FileNotFoundError, ValueError, OSError) as exc:  # SourceError: EndOfStream too
        print(f"dicetable calibrate: {exc}", file=sys.stderr)
        return 2
    except (EOFError, KeyboardInterrupt):
        print("dicetable calibrate: stopped before the frames were taken; nothing written", file=sys.stderr)
        return 1
    cal = result.calibration
    assert cal.landing_mask is not None  # calibrate() always measures the landing area
    print(f"wrote {path}")
    print(f"  landing area {100 * np.mean(cal.landing_mask > 0):.0f}% of the frame, die size {cal.die_size_px} px")
    if cal.full_die_size_px and cal.full_size:
        print(f"  at full resolution ({cal.full_size[0]}x{cal.full_size[1]}): die size {cal.full_die_size_px} px")
    if cal.view_tilt_deg:
        print(f"  camera about {cal.view_tilt_deg:.0f} degrees off the vertical")
    print(f"  dice HSV {cal.dice_hsv}, felt HSV {cal.felt_hsv}")
    print(f"  check {path.parent / 'calibration_check.png'} before using it")
    for warning in result.warnings:
        print(f"  warning: {warning}")
    return 0
