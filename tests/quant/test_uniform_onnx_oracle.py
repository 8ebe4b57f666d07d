"""uniform.quantize against ONNX's reference QuantizeLinear (per-tensor and per-axis, f32).

ONNX: y = saturate(round_half_even(x / y_scale) + y_zero_point); the StableHLO spec:
round_half_even(clamp(x / scale + zp)), in f32. They agree for a zero zero point; with
one they differ at ties (adding an odd zero point first changes which neighbour is
even) and just off ties (x / scale + zp rounds in f32 onto a tie: 28.500002 + 6 = 34.5).
"""

from __future__ import annotations

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="onnx is not installed (optional oracle)")
from onnx import helper, numpy_helper  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402

from qcomp.quant.uniform import quantize  # noqa: E402


def onnx_quantize(x, scale, zp, axis=None):
    kw = {} if axis is None else {"axis": axis}
    node = helper.make_node("QuantizeLinear", ["x", "s", "z"], ["y"], **kw)
    graph = helper.make_graph(
        [node], "q", [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, x.shape)],
        [helper.make_tensor_value_info("y", onnx.TensorProto.INT8, x.shape)],
        [numpy_helper.from_array(np.asarray(scale, np.float32), "s"),
         numpy_helper.from_array(np.asarray(zp, np.int8), "z")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    return ReferenceEvaluator(model).run(None, {"x": x})[0]


def test_per_tensor_matches_onnx_on_ties_and_saturation():
    rng = np.random.default_rng(0)
    scale, zp = np.float32(0.05), 0  # zero point 0: the formulas agree everywhere
    ks = rng.integers(-150, 150, 400)
    fr = rng.choice([0.0, 0.5, -0.5, 0.25, 0.49999997], 400)
    x = ((ks + fr) * scale).astype(np.float32)
    got = quantize(x, float(scale), zp, -128, 127, "f32")
    assert got.tolist() == onnx_quantize(x, scale, zp).astype(np.int64).tolist()


def test_per_axis_matches_onnx():
    rng = np.random.default_rng(1)
    x = (rng.standard_normal((4, 3)) * 4).astype(np.float32)
    scales = np.array([0.1, 0.02, 0.5], np.float32)
    zps = np.array([0, -3, 10], np.int8)
    got = quantize(x, scales[None, :].astype(np.float64), zps[None, :], -128, 127, "f32")
    assert got.tolist() == onnx_quantize(x, scales, zps, axis=1).astype(np.int64).tolist()


def test_odd_zero_point_ties_differ_by_design():
    x = np.array([0.5, 1.5, -0.5], np.float32)  # scale 1: exact ties
    spec = quantize(x, 1.0, 7, -128, 127, "f32")  # round(x + 7): 7.5 -> 8, 8.5 -> 8, 6.5 -> 6
    ref = onnx_quantize(x, np.float32(1.0), 7).astype(np.int64)  # round(x) + 7: 7, 9, 7
    assert spec.tolist() == [8, 8, 6]
    assert ref.tolist() == [7, 9, 7]
    # off a tie, the f32 addition of the zero point can land on one
    y = np.array([1.4250001], np.float32)
    assert quantize(y, float(np.float32(0.05)), 6, -128, 127, "f32").tolist() == [34]
    assert onnx_quantize(y, np.float32(0.05), 6).astype(np.int64).tolist() == [35]
