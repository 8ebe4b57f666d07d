"""qcomp's interpreter on onnx-mlir's float ops against `onnx.reference.ReferenceEvaluator`
(the ONNX operator specs' own implementation), on drawn shapes and attributes.

Exact where both compute one correctly rounded float32 operation per element (Add, Sub,
Mul, Div, Relu, Clip, MaxPool) or move data (Reshape ... Gather); within a few float32
ulps where the reference sums or evaluates transcendental functions in float32 in another
order (Conv, MatMul, Gemm, Softmax, Sigmoid, Tanh, the average pools): qcomp sums in
float64 and rounds once, as its StableHLO kernels do.

Conv is also checked against onnxruntime, and against it alone when `auto_pad` is given;
MaxPool and AveragePool against onnxruntime alone: onnx 1.21's reference mis-sizes VALID
convolutions (3 outputs for a width-3 input and a width-2 kernel) and fails on SAME_*
pools and on asymmetric pool pads (IndexError)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.interpreter.onnx_float_cases import onnxruntime_run, reference, run_qcomp

pytest.importorskip("onnx")

SETTINGS = settings(max_examples=15, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
EXACT = dict(rtol=0, atol=0)
CLOSE = dict(rtol=2e-6, atol=2e-6)


WINDOWED = ("Conv", "MaxPool", "AveragePool")


def _check(op_type, inputs, attrs, tol):
    oracles = []
    if op_type not in WINDOWED or op_type == "Conv" and "auto_pad" not in attrs:
        oracles.append(reference)
    if op_type in WINDOWED:
        oracles.append(onnxruntime_run)
    for oracle in oracles:
        want = oracle(op_type, inputs, attrs)
        got = run_qcomp(op_type, inputs, attrs, want.shape, want.dtype)
        assert got.shape == want.shape and got.dtype == want.dtype, oracle.__name__
        np.testing.assert_allclose(got, want, **tol, err_msg=oracle.__name__)


def _array(draw, shape, lo=-4.0, hi=4.0, dtype=np.float32):
    seed = draw(st.integers(0, 2**32 - 1))
    return np.random.default_rng(seed).uniform(lo, hi, shape).astype(dtype)


shapes = st.lists(st.integers(1, 4), min_size=0, max_size=4).map(tuple)


@st.composite
def broadcast_pair(draw):
    s = draw(shapes)
    t = list(s[len(s) - draw(st.integers(0, len(s))):])
    t = tuple(1 if draw(st.booleans()) else d for d in t)
    return (s, t) if draw(st.booleans()) else (t, s)


@SETTINGS
@given(st.data(), st.sampled_from(["Add", "Sub", "Mul", "Div"]), broadcast_pair())
def test_binary(data, op_type, pair):
    a = _array(data.draw, pair[0])
    b = _array(data.draw, pair[1], 0.25, 4.0) * np.float32(data.draw(st.sampled_from([1, -1])))
    _check(op_type, [a, b], {}, EXACT)


@SETTINGS
@given(st.data(), st.sampled_from(["Relu", "Sigmoid", "Tanh", "Identity"]), shapes)
def test_unary(data, op_type, shape):
    x = _array(data.draw, shape, -10, 10)
    _check(op_type, [x], {}, EXACT if op_type in ("Relu", "Identity") else CLOSE)


@SETTINGS
@given(st.data(), shapes, st.booleans(), st.booleans())
def test_clip(data, shape, has_min, has_max):
    x = _array(data.draw, shape)
    lo = np.array(-1.5, np.float32) if has_min else None
    hi = np.array(data.draw(st.sampled_from([-2.0, 0.5, 3.0])), np.float32) if has_max else None
    _check("Clip", [x, lo, hi], {}, EXACT)


@SETTINGS
@given(st.data(), st.lists(st.integers(1, 5), min_size=1, max_size=4).map(tuple))
def test_softmax(data, shape):
    x = _array(data.draw, shape, -30, 30)
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    _check("Softmax", [x], {"axis": axis}, CLOSE)


@SETTINGS
@given(st.data(), st.integers(1, 4), st.integers(1, 4))
def test_matmul(data, ra, rb):
    m, k, n = (data.draw(st.integers(1, 5)) for _ in range(3))
    batch = tuple(data.draw(st.integers(1, 3)) for _ in range(max(ra, rb) - 2))
    a_shape = (k,) if ra == 1 else (*batch[len(batch) - (ra - 2):], m, k)
    b_shape = (k,) if rb == 1 else (*batch[len(batch) - (rb - 2):], k, n)
    b_shape = tuple(1 if i < len(b_shape) - 2 and data.draw(st.booleans()) else d
                    for i, d in enumerate(b_shape))
    _check("MatMul", [_array(data.draw, a_shape), _array(data.draw, b_shape)], {}, CLOSE)


@SETTINGS
@given(st.data(), st.integers(0, 1), st.integers(0, 1), st.sampled_from([None, 0, 1, 2]))
def test_gemm(data, ta, tb, c_rank):
    m, k, n = (data.draw(st.integers(1, 5)) for _ in range(3))
    a = _array(data.draw, (k, m) if ta else (m, k))
    b = _array(data.draw, (n, k) if tb else (k, n))
    c = None if c_rank is None else _array(data.draw, {0: (), 1: (n,), 2: (m, n)}[c_rank])
    attrs = {"transA": ta, "transB": tb,
             "alpha": data.draw(st.sampled_from([1.0, 0.5, -2.0])),
             "beta": data.draw(st.sampled_from([1.0, 0.25]))}
    _check("Gemm", [a, b, c], attrs, CLOSE)


@st.composite
def window_case(draw, pool: bool):
    n_sp = draw(st.integers(1, 2))
    kernel = [draw(st.integers(1, 3)) for _ in range(n_sp)]
    attrs: dict = {"kernel_shape": kernel}
    if draw(st.booleans()):
        attrs["strides"] = [draw(st.integers(1, 3)) for _ in range(n_sp)]
    dil = [draw(st.integers(1, 2)) for _ in range(n_sp)] if draw(st.booleans()) else None
    if dil:
        attrs["dilations"] = dil
    spatial = [(k - 1) * (dil[i] if dil else 1) + 1 + draw(st.integers(0, 4))
               for i, k in enumerate(kernel)]
    auto = draw(st.sampled_from(["NOTSET", "NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"]))
    if auto != "NOTSET":
        attrs["auto_pad"] = auto
        if auto.startswith("SAME"):
            attrs.pop("dilations", None)  # onnxruntime: "Dilation not supported for SAME_*"
            # onnxruntime's pools compute a negative SAME padding when stride > kernel
            attrs["strides"] = [min(s, k) for s, k in zip(attrs.get("strides", kernel), kernel)]
    elif draw(st.booleans()):
        attrs["pads"] = [draw(st.integers(0, k - 1)) for k in kernel * 2]
    # VALID with ceil_mode: the spec's ceil((in - dk + 1) / s) ignores ceil_mode,
    # onnxruntime applies it (2 outputs for in=3, k=2, s=2): not drawn
    if pool and draw(st.booleans()) and auto == "NOTSET":
        attrs["ceil_mode"] = 1
    return spatial, attrs


@SETTINGS
@given(st.data(), window_case(pool=False), st.sampled_from([1, 2]), st.booleans())
def test_conv(data, case, group, bias):
    spatial, attrs = case
    c, m = 2 * group, 2 * group
    x = _array(data.draw, (2, c, *spatial))
    w = _array(data.draw, (m, c // group, *attrs["kernel_shape"]))
    attrs = {**attrs, "group": group}
    _check("Conv", [x, w, _array(data.draw, (m,)) if bias else None], attrs, dict(rtol=1e-5, atol=1e-5))


@SETTINGS
@given(st.data(), window_case(pool=True), st.sampled_from(["MaxPool", "AveragePool"]),
       st.integers(0, 1))
def test_pool(data, case, op_type, count_include_pad):
    spatial, attrs = case
    if "dilations" in attrs and op_type == "AveragePool" and attrs.get("ceil_mode"):
        attrs.pop("dilations")  # the reference mis-sizes dilated ceil_mode average pools
    if op_type == "AveragePool":
        attrs["count_include_pad"] = count_include_pad
    x = _array(data.draw, (1, 2, *spatial))
    _check(op_type, [x], attrs, EXACT if op_type == "MaxPool" else CLOSE)


@SETTINGS
@given(st.data(), st.lists(st.integers(1, 5), min_size=3, max_size=4).map(tuple))
def test_global_average_pool(data, shape):
    _check("GlobalAveragePool", [_array(data.draw, shape)], {}, CLOSE)


@SETTINGS
@given(st.data(), st.lists(st.integers(1, 4), min_size=1, max_size=4).map(tuple))
def test_shape_ops(data, shape):
    x = _array(data.draw, shape)
    r = len(shape)
    flat = [int(np.prod(shape))]
    target = data.draw(st.sampled_from([flat, [-1], [*shape[:1], -1], [0, *shape[1:]]]))
    _check("Reshape", [x, np.array(target, np.int64)], {}, EXACT)
    _check("Flatten", [x], {"axis": data.draw(st.integers(-r, r))}, EXACT)
    perm = data.draw(st.permutations(range(r)))
    _check("Transpose", [x], {"perm": list(perm)}, EXACT)
    _check("Transpose", [x], {}, EXACT)
    axis = data.draw(st.integers(-r, r - 1))
    other = list(shape)
    other[axis] = data.draw(st.integers(1, 3))
    _check("Concat", [x, _array(data.draw, tuple(other))], {"axis": axis}, EXACT)
    ones = [i for i, d in enumerate(shape) if d == 1]
    _check("Squeeze", [x, np.array(ones, np.int64) if ones else None], {}, EXACT)
    n_new = data.draw(st.integers(1, 2))
    ax = [a - (r + n_new) * data.draw(st.integers(0, 1))
          for a in data.draw(st.sets(st.integers(0, r + n_new - 1), min_size=n_new,
                                     max_size=n_new))]
    _check("Unsqueeze", [x, np.array(ax, np.int64)], {}, EXACT)
    g_axis = data.draw(st.integers(-r, r - 1))
    n = shape[g_axis]
    idx = np.array(data.draw(st.lists(st.integers(-n, n - 1), min_size=1, max_size=4)), np.int64)
    _check("Gather", [x, idx], {"axis": g_axis}, EXACT)
