"""bench/pi_latency.py: multiply-accumulates counted from ONNX graphs, and the network calls of
real reads, which the Pi latencies of docs/vision.md are estimated from."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("onnx", reason="the learn extra's onnx reads the graphs")
from onnx import ModelProto, TensorProto, helper, numpy_helper  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("pi_latency", REPO / "bench" / "pi_latency.py")
assert spec is not None and spec.loader is not None
pl = importlib.util.module_from_spec(spec)
sys.modules["pi_latency"] = pl  # its dataclasses look their module up
spec.loader.exec_module(pl)


def small_net() -> ModelProto:
    """3 -> 4 channels by a 3x3 conv (padded), 4 -> 4 by a grouped 3x3 conv (2 groups, stride 2),
    then global pooling and a Gemm to 7 outputs: hand-countable."""
    rng = np.random.default_rng(0)
    weights = [numpy_helper.from_array(rng.random(shape, dtype=np.float32), name) for name, shape in (
        ("w1", (4, 3, 3, 3)), ("w2", (4, 2, 3, 3)), ("fc", (7, 4)), ("fb", (7,)))]
    nodes = [
        helper.make_node("Conv", ["x", "w1"], ["c1"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"]),
        helper.make_node("Conv", ["r1", "w2"], ["c2"], pads=[1, 1, 1, 1], strides=[2, 2], group=2),
        helper.make_node("GlobalAveragePool", ["c2"], ["g"]),
        helper.make_node("Flatten", ["g"], ["f"]),
        helper.make_node("Gemm", ["f", "fc", "fb"], ["y"], transB=1),
    ]
    graph = helper.make_graph(nodes, "small", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 3, "h", "w"])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], weights)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def test_macs_are_counted_per_output_element_of_each_conv_and_gemm():
    conv1 = 4 * 8 * 8 * (3 * 3 * 3)  # every output element: its kernel over all 3 input channels
    conv2 = 4 * 4 * 4 * (2 * 3 * 3)  # stride 2: 4x4 outputs; 2 groups: each sees 2 of the 4 channels
    gemm = 7 * 4
    assert pl.graph_macs(small_net(), (1, 3, 8, 8)) == conv1 + conv2 + gemm
    assert pl.graph_macs(small_net(), (2, 3, 8, 8)) == 2 * (conv1 + conv2 + gemm)


def test_a_shape_of_the_wrong_rank_is_refused():
    with pytest.raises(ValueError, match="4 dimensions"):
        pl.graph_macs(small_net(), (1, 3, 8))


def test_the_bundled_networks_cost_what_their_layers_say():
    table = pl.MacTable(REPO / "vision" / "models")
    crop = table.macs("dice_classifier.onnx", (1, 3, 40, 40))
    assert 5e6 < crop < 5e7
    assert table.macs("dice_classifier.onnx", (5, 3, 40, 40)) == 5 * crop
    detector = table.macs("dice_detector.onnx", (1, 3, 192, 256))
    # fully convolutional: the work grows with the input's area (a quarter of the area, a quarter of the work)
    assert table.macs("dice_detector.onnx", (1, 3, 96, 128)) == pytest.approx(detector / 4, rel=0.02)


def test_a_read_is_counted_call_by_call_and_the_warm_up_is_not(tmp_path):
    from vision.benchtool.dataset import write_dataset

    folder = write_dataset(tmp_path / "drawn", 2, seed=13)
    nets = pl.CountingNets(REPO / "vision" / "models")
    assert nets.calls == []
    figures = pl.measure([folder], None)
    assert figures["reads"] == 2
    detector = figures["networks_mmac"]["dice_detector.onnx"]
    assert figures["read_mmac_median"] > detector  # the detector and at least one crop network
    # processor time: the networks' share lies within the read that made their calls
    assert 0 < figures["here_network_share"] <= 1 and figures["here_network_gmac_s"] > 0
    for core, rate in pl.CORES.items():
        assert figures["estimate_network_ms"][core]["median"] == pytest.approx(
            1000 * figures["read_mmac_median"] * 1e6 / rate)
