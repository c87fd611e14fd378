"""Loading the reader's networks: a missing or broken file is an install problem
with a clear message, and the engine chosen per network changes no output."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.model import ReadStatus
from vision.reader import nets as N
from vision.reader.model_dir import BUNDLED_MODEL, CLASSIFIER, DETECTOR, NETWORK_FILES, SECOND_CLASSIFIER
from vision.reader.read import read_dice


def test_a_missing_or_broken_model_file_says_which_file(tmp_path):
    files = [BUNDLED_MODEL / name for name in NETWORK_FILES]
    with pytest.raises(N.ModelMissing, match="missing: .*nope.onnx"):
        N.DiceNets(tmp_path / "nope.onnx", *files[1:])
    broken = tmp_path / "broken.onnx"
    broken.write_bytes(b"not a network")
    with pytest.raises(N.ModelMissing, match="unreadable: .*broken.onnx"):
        N.DiceNets(files[0], broken, *files[2:])


def test_the_reader_without_its_networks_gives_no_read_with_the_reason(monkeypatch, tmp_path):
    def missing():
        raise N.ModelMissing(f"model file missing: {tmp_path / 'dice_detector.onnx'}")

    monkeypatch.setattr("vision.reader.read.load_model", missing)
    read = read_dice(np.zeros((480, 640, 3), np.uint8), expect=2)
    assert read.status == ReadStatus.NO_READ and "model file missing" in read.reason


@pytest.mark.skipif(not hasattr(cv2.dnn, "ENGINE_NEW"), reason="this OpenCV has one DNN engine only")
@pytest.mark.parametrize("path, shape", [(BUNDLED_MODEL / CLASSIFIER, (5, 3, 40, 40)),
                                         (BUNDLED_MODEL / SECOND_CLASSIFIER, (5, 3, 40, 40)),
                                         (BUNDLED_MODEL / DETECTOR, (1, 3, 192, 256))])
def test_both_engines_give_the_same_outputs(path, shape):
    blob = np.random.default_rng(0).random(shape, dtype=np.float32)
    outs = []
    for engine in ("ENGINE_CLASSIC", "ENGINE_NEW"):
        net = N.load_net(path, engine)
        net.setInput(blob)
        outs.append(net.forward())
    np.testing.assert_allclose(outs[0], outs[1], atol=1e-4)
