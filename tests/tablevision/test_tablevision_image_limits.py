"""An image file is measured from its header before it is decoded: over 50 megapixels it is a
`no_read`, never decoded; a FIFO or anything else that is not a regular file is refused, not
waited on. `dicetable read` takes a folder as `bench` does."""
from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
import threading
import zlib

import cv2
import numpy as np
import pytest

from controller.cli import main
from vision.sources.folder import decode_image_file
from vision.sources.imagesize import MAX_PIXELS, measure


def _png(path, width: int, height: int) -> None:
    """A grey PNG of any size, written a row at a time (a few kilobytes for millions of pixels)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    pack = zlib.compressobj()
    row = bytes(1 + width)  # filter byte 0, then black
    body = b"".join(pack.compress(row) for _ in range(height)) + pack.flush()
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
                     + chunk(b"IDAT", body) + chunk(b"IEND", b""))


@pytest.mark.parametrize("suffix", [".png", ".jpg", ".bmp", ".tif", ".webp", ".ppm", ".pgm"])
def test_the_header_of_every_format_read_gives_its_size(tmp_path, suffix):
    image = np.zeros((37, 53, 3), np.uint8)
    if suffix == ".pgm":
        image = image[:, :, 0]
    path = tmp_path / f"x{suffix}"
    ok, data = cv2.imencode(suffix, image)
    path.write_bytes(data.tobytes())
    with open(path, "rb") as stream:
        assert measure(stream) == (53, 37)


def test_gif_and_progressive_jpeg_headers_give_their_size(tmp_path):
    (tmp_path / "a.gif").write_bytes(b"GIF89a" + struct.pack("<HH", 640, 480) + bytes(20))
    ok, data = cv2.imencode(".jpg", np.zeros((40, 30, 3), np.uint8), [cv2.IMWRITE_JPEG_PROGRESSIVE, 1])
    (tmp_path / "p.jpg").write_bytes(data.tobytes())
    with open(tmp_path / "a.gif", "rb") as gif, open(tmp_path / "p.jpg", "rb") as jpeg:
        assert measure(gif) == (640, 480) and measure(jpeg) == (30, 40)


@pytest.mark.parametrize("width, height, whole", [(8000, 8000, True), (50001, 1000, True), (30000, 30000, False)])
def test_an_image_over_50_megapixels_is_refused_before_it_is_decoded(tmp_path, width, height, whole):
    if whole:
        _png(tmp_path / "huge.png", width, height)
    else:  # the header alone: the refusal reads no further
        (tmp_path / "huge.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + struct.pack(">II", width, height)
                                            + bytes(40))
    image, why = decode_image_file(tmp_path / "huge.png")
    assert image is None and f"{width}x{height} pixels" in why and "over the 50 megapixels" in why


def test_a_jpeg_whose_frame_header_claims_too_much_is_refused(tmp_path):
    ok, data = cv2.imencode(".jpg", np.zeros((16, 16, 3), np.uint8))
    raw = bytearray(data.tobytes())
    at = raw.index(b"\xff\xc0") + 5  # SOF0: length, precision, then height and width
    raw[at:at + 4] = struct.pack(">HH", 30000, 30000)
    (tmp_path / "claims.jpg").write_bytes(bytes(raw))
    image, why = decode_image_file(tmp_path / "claims.jpg")
    assert image is None and "900.0 megapixels" in why


@pytest.mark.parametrize("width, height", [(4000, 3000), (8000, 6000)])  # a 12 MP frame, a 48 MP phone photo
def test_a_camera_frame_and_a_phone_photo_still_read(tmp_path, width, height):
    assert width * height <= MAX_PIXELS
    _png(tmp_path / "photo.png", width, height)
    image, why = decode_image_file(tmp_path / "photo.png")
    assert why is None and image.shape == (height, width, 3)


def test_dicetable_read_gives_a_no_read_line_for_an_image_too_large(tmp_path, capsys):
    _png(tmp_path / "huge.png", 8000, 8000)
    assert main(["read", "--json", str(tmp_path / "huge.png")]) == 1
    line = json.loads(capsys.readouterr().out)
    assert line["status"] == "no_read" and "64.0 megapixels" in line["reason"]


MEASURE = """
import resource, sys
from vision.sources.folder import decode_image_file
image, why = decode_image_file(sys.argv[1])
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)
"""


def _peak_kib(path) -> int:
    done = subprocess.run([sys.executable, "-c", MEASURE, str(path)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return int(done.stderr.split()[-1])


def test_an_image_too_large_costs_no_more_memory_than_a_small_one(tmp_path):
    """Decoding the 64-megapixel picture would take 190 MB and more."""
    _png(tmp_path / "small.png", 64, 64)
    _png(tmp_path / "huge.png", 8000, 8000)
    assert _peak_kib(tmp_path / "huge.png") - _peak_kib(tmp_path / "small.png") < 16 * 1024


def test_a_fifo_given_as_an_image_is_refused_not_waited_on(tmp_path, capsys):
    os.mkfifo(tmp_path / "pipe.png")
    done: list = []
    reading = threading.Thread(target=lambda: done.append(decode_image_file(tmp_path / "pipe.png")), daemon=True)
    reading.start()
    reading.join(timeout=10)
    if reading.is_alive():  # let the stuck reader go before failing
        open(tmp_path / "pipe.png", "wb").close()
    assert done and done[0][0] is None and "not a regular file" in done[0][1]
    assert main(["read", "--json", str(tmp_path / "pipe.png")]) == 1
    assert "not a regular file" in json.loads(capsys.readouterr().out)["reason"]


def test_read_takes_a_folder_as_bench_does(tmp_path, capsys):
    (tmp_path / "shots" / "images").mkdir(parents=True)
    for name in ("roll_10.png", "roll_2.png"):
        cv2.imwrite(str(tmp_path / "shots" / "images" / name), np.full((60, 80, 3), 90, np.uint8))
    (tmp_path / "shots" / "notes.txt").write_text("not an image")
    assert main(["read", "--json", str(tmp_path / "shots")]) == 0
    read = [json.loads(line)["image"] for line in capsys.readouterr().out.splitlines()]
    assert read == [str(tmp_path / "shots" / "images" / name) for name in ("roll_2.png", "roll_10.png")]


@pytest.mark.parametrize("listed, stored", [("images/a.png", "a.png"), ("a.png", "images/a.png"),
                                            ("images/a.png", "images/a.png"), ("a.png", "a.png")])
def test_bench_finds_a_manifest_row_named_either_way(tmp_path, capsys, listed, stored):
    from vision.benchtool.labels import load_labelled

    (tmp_path / "set" / "images").mkdir(parents=True)
    cv2.imwrite(str(tmp_path / "set" / stored), np.full((60, 80, 3), 90, np.uint8))
    (tmp_path / "set" / "manifest.csv").write_text(f"image,values\n{listed},3 4\n")
    (found,) = load_labelled(tmp_path / "set").images
    assert found.path == (tmp_path / "set" / stored).resolve()
