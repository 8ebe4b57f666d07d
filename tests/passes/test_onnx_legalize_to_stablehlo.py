"""`onnx-legalize-to-stablehlo` on drawn Conv / MaxPool / AveragePool / Gemm / MatMul /
Softmax / Gather cases: the lowered StableHLO program, run in qcomp's interpreter, gives
onnxruntime's results (within float32 summation order for the contractions and average
pools; exactly for MaxPool and Gather), and every op is lowered."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from qcomp.interpreter import run
from qcomp.registry import PASSES, make_context, parse_module
from tests.interpreter.onnx_float_cases import mlir_text, onnxruntime_run, reference
from tests.interpreter.test_onnx_float_functions import window_case

pytest.importorskip("onnxruntime")

SETTINGS = settings(max_examples=12, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _lowered(op_type, inputs, attrs, want):
    module = parse_module(mlir_text(op_type, inputs, attrs, want.shape, want.dtype))
    PASSES["onnx-legalize-to-stablehlo"]()().apply(make_context(), module)
    module.verify()
    assert '"onnx.' not in str(module)
    (r,) = run(module, [x for x in inputs if x is not None])
    assert r.error is None, r.error
    return np.asarray(r.results[0])


def _array(data, shape, lo=-4.0, hi=4.0):
    seed = data.draw(st.integers(0, 2**32 - 1))
    return np.random.default_rng(seed).uniform(lo, hi, shape).astype(np.float32)


@SETTINGS
@given(st.data(), window_case(pool=True), st.sampled_from(["MaxPool", "AveragePool"]),
       st.integers(0, 1))
def test_pools(data, case, op_type, count_include_pad):
    spatial, attrs = case
    if op_type == "AveragePool":
        attrs["count_include_pad"] = count_include_pad
    x = _array(data, (1, 2, *spatial))
    want = onnxruntime_run(op_type, [x], attrs)
    got = _lowered(op_type, [x], attrs, want)
    tol = dict(rtol=0, atol=0) if op_type == "MaxPool" else dict(rtol=2e-6, atol=2e-6)
    np.testing.assert_allclose(got, want, **tol)


@SETTINGS
@given(st.data(), window_case(pool=False), st.sampled_from([1, 2]), st.booleans())
def test_conv(data, case, group, bias):
    spatial, attrs = case
    x = _array(data, (1, 2 * group, *spatial))
    w = _array(data, (3 * group, 2, *attrs["kernel_shape"]))
    inputs = [x, w, _array(data, (3 * group,)) if bias else None]
    attrs = {**attrs, "group": group}
    want = onnxruntime_run("Conv", inputs, attrs)
    np.testing.assert_allclose(_lowered("Conv", inputs, attrs, want), want, rtol=1e-5, atol=1e-5)


@SETTINGS
@given(st.data(), st.integers(0, 1), st.integers(0, 1), st.sampled_from([None, 1, 2]),
       st.sampled_from([1.0, -0.5]), st.sampled_from([1.0, 2.0]))
def test_gemm(data, ta, tb, c_rank, alpha, beta):
    m, k, n = 3, 4, 5
    a = _array(data, (k, m) if ta else (m, k))
    b = _array(data, (n, k) if tb else (k, n))
    c = None if c_rank is None else _array(data, (n,) if c_rank == 1 else (m, n))
    attrs = {"transA": ta, "transB": tb, "alpha": alpha, "beta": beta}
    want = reference("Gemm", [a, b, c], attrs)
    np.testing.assert_allclose(_lowered("Gemm", [a, b, c], attrs, want), want,
                               rtol=2e-6, atol=2e-6)


@SETTINGS
@given(st.data(), st.sampled_from([((4,), (4, 3)), ((2, 4), (4,)), ((2, 1, 3, 4), (5, 4, 2)),
                                   ((3, 4), (2, 4, 5))]), st.integers(-3, 2))
def test_matmul_softmax_gather(data, shapes, axis):
    a, b = _array(data, shapes[0]), _array(data, shapes[1])
    want = reference("MatMul", [a, b], {})
    np.testing.assert_allclose(_lowered("MatMul", [a, b], {}, want), want, rtol=2e-6, atol=2e-6)
    x = _array(data, (2, 3, 4), -20, 20)
    want = reference("Softmax", [x], {"axis": axis})
    np.testing.assert_allclose(_lowered("Softmax", [x], {"axis": axis}, want), want,
                               rtol=2e-6, atol=2e-7)
    idx = np.array([[0, -1], [2, 1]], np.int64)
    g_axis = axis % 3
    idx = np.where(idx >= x.shape[g_axis], x.shape[g_axis] - 1, idx)
    module_inputs = [x, idx]
    want = reference("Gather", module_inputs, {"axis": g_axis})
    np.testing.assert_array_equal(_lowered("Gather", module_inputs, {"axis": g_axis}, want), want)


@pytest.mark.parametrize("op_type,count_include_pad", [("MaxPool", 0), ("AveragePool", 0),
                                                       ("AveragePool", 1)])
@pytest.mark.parametrize("attrs", [
    {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1], "ceil_mode": 1},
    {"kernel_shape": [2, 3], "strides": [3, 2], "pads": [0, 1, 1, 0], "ceil_mode": 1},
    {"kernel_shape": [3, 2], "strides": [2, 2], "dilations": [2, 1], "ceil_mode": 1},
    {"kernel_shape": [3, 3], "strides": [2, 2], "auto_pad": "SAME_LOWER"},
])
def test_pool_windows(op_type, count_include_pad, attrs):
    """ceil_mode's extra room at the end (not counted by count_include_pad), asymmetric
    pads, dilation, SAME_LOWER: lowered, as onnxruntime computes them."""
    attrs = dict(attrs)
    if op_type == "AveragePool":
        attrs["count_include_pad"] = count_include_pad
    x = np.random.default_rng(3).uniform(-4, 4, (1, 2, 8, 7)).astype(np.float32)
    want = onnxruntime_run(op_type, [x], attrs)
    np.testing.assert_allclose(_lowered(op_type, [x], attrs, want), want, rtol=2e-6, atol=2e-6)
