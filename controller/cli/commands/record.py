"""``dicetable record``: save a camera's frames to a folder, to replay and score them on a laptop.

The folder (images + ``frames.csv`` with timestamps) is what
``folder:PATH`` sources replay, with the original timing, so a session
filmed at the table can be run again through settle detection and the reader.
"""
from __future__ import annotations

import argparse

from controller.cli.argtypes import positive_number

NAME = "record"
HELP = "save frames from a camera or any source to a folder with timestamps (replay with --source folder:DIR)"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--source", default="picamera2", help="camera source: picamera2, usb:0, video:FILE, folder:DIR, generated[:seed=N,game=G] (default: picamera2)")
    parser.add_argument("--out", required=True, help="folder to write (must be empty or new)")
    parser.add_argument("--frames", type=int, default=None, help="stop after this many frames saved")
    parser.add_argument("--seconds", type=float, default=None, help="stop after this many seconds")
    parser.add_argument("--every", type=int, default=1, help="keep one frame in N (default 1: all)")
    parser.add_argument("--format", choices=("png", "jpg"), default="png", help="image format (png is lossless)")
    parser.add_argument("--throws", type=int, default=0, help="generated source only: throw random dice this many times")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random throws (--throws)")
    parser.add_argument("--wait", type=positive_number, default=10.0, metavar="SECONDS",
                        help="give up when the camera delivers no frame for this long (default 10): a camera "
                             "that is not there ends the recording with its reason")


def run(args: argparse.Namespace) -> int:
    import logging
    import sys
    import time
    from pathlib import Path

    import numpy as np

    from controller.camera import open_camera
    from vision.sources import BrokenFrame, EndOfStream, GeneratedSource, SourceUnavailable
    from vision.sources.recording import Recorder

    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    out = Path(args.out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        print(f"dicetable record: {out} exists and is not an empty folder; choose a new one", file=sys.stderr)
        return 2
    if args.every < 1:
        print("dicetable record: --every must be at least 1", file=sys.stderr)
        return 2
    try:
        source = open_camera(args.source)
    except (ValueError, SourceUnavailable) as exc:
        print(f"dicetable record: {exc}", file=sys.stderr)
        return 2
    if args.frames is None and args.seconds is None and not args.throws:
        print("recording until Ctrl-C (or the end of the source)", file=sys.stderr)
    throws_left = args.throws if isinstance(source, GeneratedSource) else 0
    if args.throws and not isinstance(source, GeneratedSource):
        print("dicetable record: --throws applies to the generated source only; ignored", file=sys.stderr)
    rng = np.random.default_rng(args.seed)
    broken = unavailable = seen = 0
    start = last_frame = time.monotonic()
    failure: str | None = None
    interrupted = False
    try:
        recorder = Recorder(out, args.format)
    except OSError as exc:
        source.close()
        print(f"dicetable record: cannot record to {out}: {exc}", file=sys.stderr)
        return 2
    with source, recorder:
        try:
            while True:
                if args.frames is not None and recorder.count >= args.frames:
                    break
                if args.seconds is not None and time.monotonic() - start >= args.seconds:
                    break
                if isinstance(source, GeneratedSource) and source.pending == 0:
                    if not throws_left:
                        if args.throws:
                            break  # every throw asked for has been filmed
                    else:
                        source.throw(rng.integers(1, 7, source.dice).tolist())
                        throws_left -= 1
                try:
                    frame = source.read()
                except BrokenFrame as exc:
                    broken += 1
                    logging.getLogger("record").warning("skipped: %s", exc)
                    continue
                except SourceUnavailable as exc:
                    unavailable += 1
                    if time.monotonic() - last_frame >= args.wait:  # a live camera is retried: not for ever
                        failure = f"no frame from {args.source} for {args.wait:g} s: {source.health.detail or exc}"
                        break
                    continue
                except EndOfStream:
                    break
                last_frame = time.monotonic()
                if seen % args.every == 0:
                    recorder.write(frame)
                seen += 1
        except KeyboardInterrupt:
            interrupted = True
        except OSError as exc:  # a full disk, a card pulled out: keep what was written, say why it stopped
            failure = str(exc)
    print(f"saved {recorder.count} frames to {out} ({broken} broken skipped, {unavailable} moments without a camera)")
    if failure is not None:
        kept = ", the frames saved are kept" if recorder.count else ", nothing was saved"
        print(f"dicetable record: stopped{kept}: {failure}", file=sys.stderr)
        return 1 if recorder.count else 2
    if not recorder.count:  # interrupted, or a source that ended, before a single frame
        why = "interrupted" if interrupted else "the source ended"
        print(f"dicetable record: {why} before a frame was saved: nothing recorded in {out}", file=sys.stderr)
        return 1
    return 0
