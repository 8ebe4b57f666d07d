"""onnxruntime's com.microsoft QLinearAveragePool, QLinearReduceMean, QLinearWhere and
QLinearLeakyRelu (the QOperator ops onnxruntime's quantizer has for AveragePool, Where
and LeakyRelu; QLinearReduceMean is in onnxruntime's schemas only): one-node models
(`onnx.helper`) with hypothesis-drawn shapes, attributes, scales and zero points,
imported with no type information for their output (as the quantizer writes them), run by qcomp's interpreter and by onnxruntime's unoptimized CPU
session; then `onnx-unfuse-qdq` and the QDQ pipeline lower them to StableHLO with no
onnx op and no quant type left, within one output step of the direct result.

- QLinearAveragePool: bit for bit (both dequantize, sum each window in order, divide and
  quantize `avg / y_s + y_zp` in float32), except when the window is the whole image
  with no padding: onnxruntime then runs its integer global-average kernel, and both are
  the nearest integer away from ties (`assert_nearest`).
- QLinearWhere, QLinearLeakyRelu: bit for bit (onnxruntime's 256-entry tables are the
  float32 dequantize / quantize qcomp computes).
- QLinearReduceMean: onnxruntime has no CPU kernel; its schema defines it as
  `Dequantize -> ReduceMean on fp32 -> Quantize`, which onnxruntime runs as a QDQ graph:
  the oracle; the nearest integer away from ties (the sums' order differs).
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from tests.importers.test_onnx_contrib_against_ort import (  # noqa: E402
    Q8,
    _ort,
    assert_bits,
    assert_nearest,
    qparams,
)

EXAMPLES = int(os.environ.get("QCOMP_EXAMPLES", 6))
"""Examples per test; `QCOMP_EXAMPLES=200` for a long sweep."""
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=True,
                    phases=[Phase.explicit, Phase.generate],
                    suppress_health_check=[HealthCheck.too_slow])
MS = "com.microsoft"
LOWER = ["onnx-unfuse-qdq", "onnx-legalize-qdq-to-quant", "onnx-legalize-to-stablehlo",
         "stablehlo-legalize-quant-to-math"]


def _model(nodes, data, consts, out_type, ir_version=10):
    ins = [helper.make_tensor_value_info(k, helper.np_dtype_to_tensor_dtype(v.dtype), v.shape)
           for k, v in data.items()]
    inits = [numpy_helper.from_array(np.asarray(v), k) for k, v in consts.items()]
    g = helper.make_graph(nodes, "g", ins, [helper.make_tensor_value_info("y", out_type, None)],
                          inits)
    return helper.make_model(g, ir_version=ir_version, opset_imports=[
        helper.make_opsetid("", 13), helper.make_opsetid(MS, 1)])


def _qcomp(model, data, lower=False):
    """qcomp's output (the direct import, or lowered by LOWER) and the lowered text."""
    from qcomp.importers.onnx import import_bytes
    from qcomp.interpreter import run
    from qcomp.registry import PASSES, make_context

    module = import_bytes(model.SerializeToString())
    if lower:
        ctx = make_context()
        for name in LOWER:
            PASSES[name]()().apply(ctx, module)
        module.verify()
        left = {o.name for o in module.walk() if o.name.startswith("onnx.")}
        assert not left and "!quant" not in str(module), left
    (r,) = run(module, list(data.values()))
    assert r.error is None, r.error
    return np.asarray(r.results[0])


def _ints(rng, dtype, shape):
    _, npt, lo, hi = Q8[dtype]
    return rng.integers(lo, hi + 1, shape).astype(npt)


def _check_lowered(model, data, direct, lo, hi):
    """The lowered program is within one step of the direct result."""
    low = _qcomp(model, data, lower=True)
    assert low.shape == direct.shape and low.dtype == direct.dtype
    assert np.abs(low.astype(np.int64) - direct.astype(np.int64)).max(initial=0) <= 1


def _f(v):
    return np.asarray(v, np.float64)


@st.composite
def pool_cases(draw):
    n = draw(st.integers(1, 2))
    spatial = [draw(st.integers(2, 7)) for _ in range(n)]
    kernel = [draw(st.integers(1, s)) for s in spatial]
    attrs = {"kernel_shape": kernel}
    if draw(st.booleans()):
        attrs["strides"] = [draw(st.integers(1, 3)) for _ in range(n)]
    pad = draw(st.sampled_from(["none", "pads", "SAME_UPPER", "VALID"]))
    if pad == "pads":
        attrs["pads"] = [draw(st.integers(0, k - 1)) for k in kernel * 2]
        attrs["ceil_mode"] = draw(st.integers(0, 1))
    elif pad != "none":
        attrs["auto_pad"] = pad
    attrs["count_include_pad"] = draw(st.integers(0, 1))
    return [draw(st.integers(1, 2)), draw(st.integers(1, 3)), *spatial], attrs


@SETTINGS
@given(pool_cases(), st.sampled_from(sorted(Q8)), st.data(), st.integers(0, 2**31 - 1))
def test_qlinear_average_pool(case, dtype, data, seed):
    shape, attrs = case
    rng = np.random.default_rng(seed)
    (sx, zx), (sy, zy) = data.draw(qparams(dtype, 2, 0.02, 0.2))
    x = _ints(rng, dtype, shape)
    et, _, lo, hi = Q8[dtype]
    node = helper.make_node("QLinearAveragePool", ["x", "sx", "zx", "sy", "zy"], ["y"],
                            domain=MS, name="pool", **attrs)
    dat = {"x": x}
    model = _model([node], dat, {"sx": sx, "zx": zx, "sy": sy, "zy": zy}, et)
    got = _qcomp(model, dat)
    (rt,) = _ort(model, dat)
    whole = attrs["kernel_shape"] == shape[2:] and not any(attrs.get("pads", [0])) and \
        attrs.get("auto_pad", "NOTSET") in ("NOTSET", "VALID")
    if whole:  # onnxruntime's integer global-average path
        exact = ((_f(x) - _f(zx)) * _f(sx)).mean(axis=tuple(range(2, x.ndim)), keepdims=True)
        assert_nearest(got, rt, exact / _f(sy) + _f(zy), lo, hi)
    else:
        assert_bits(got, rt)
    if attrs.get("ceil_mode") and attrs["count_include_pad"]:
        return  # onnx-unfuse-qdq keeps it (its remark says why)
    _check_lowered(model, dat, got, lo, hi)


@SETTINGS
@given(st.sampled_from(sorted(Q8)), st.lists(st.integers(1, 5), min_size=1, max_size=4),
       st.data(), st.integers(0, 1), st.integers(0, 2**31 - 1))
def test_qlinear_reduce_mean(dtype, shape, data, keepdims, seed):
    rng = np.random.default_rng(seed)
    rank = len(shape)
    axes = data.draw(st.lists(st.integers(-rank, rank - 1), min_size=1, max_size=rank,
                              unique_by=lambda a: a % rank))
    (sx, zx), (sy, zy) = data.draw(qparams(dtype, 2, 0.02, 0.2))
    x = _ints(rng, dtype, shape)
    et, _, lo, hi = Q8[dtype]
    consts = {"sx": sx, "zx": zx, "sy": sy, "zy": zy}
    dat = {"x": x}
    node = helper.make_node("QLinearReduceMean", ["x", "sx", "zx", "sy", "zy"], ["y"],
                            domain=MS, axes=axes, keepdims=keepdims)
    model = _model([node], dat, consts, et)
    got = _qcomp(model, dat)
    qdq = _model([helper.make_node("DequantizeLinear", ["x", "sx", "zx"], ["d"]),
                  helper.make_node("ReduceMean", ["d"], ["m"], axes=axes, keepdims=keepdims),
                  helper.make_node("QuantizeLinear", ["m", "sy", "zy"], ["y"])], dat, consts, et)
    (rt,) = _ort(qdq, dat)
    ax = tuple(a % rank for a in axes)
    exact = ((_f(x) - _f(zx)) * _f(sx)).mean(axis=ax, keepdims=bool(keepdims))
    assert_nearest(got, rt, exact / _f(sy) + _f(zy), lo, hi)
    _check_lowered(model, dat, got, lo, hi)


@SETTINGS
@given(st.sampled_from(sorted(Q8)), st.data(), st.booleans(), st.integers(0, 2**31 - 1))
def test_qlinear_where(dtype, data, same_as_z, seed):
    rng = np.random.default_rng(seed)
    shapes = data.draw(st.sampled_from([([2, 3], [2, 3], [2, 3]), ([2, 1, 3], [4, 3], [1]),
                                        ([1], [3, 1], [1, 4]), ([5], [5], [5])]))
    (sx, zx), (sy, zy), (sz, zz) = data.draw(qparams(dtype, 3, 0.01, 0.2))
    if same_as_z:
        sx, zx = sz, zz  # onnxruntime copies X
    et, _, lo, hi = Q8[dtype]
    dat = {"c": rng.integers(0, 2, shapes[0]).astype(bool), "x": _ints(rng, dtype, shapes[1]),
           "w": _ints(rng, dtype, shapes[2])}
    node = helper.make_node("QLinearWhere", ["c", "x", "sx", "zx", "w", "sy", "zy", "sz", "zz"],
                            ["y"], domain=MS)
    g_model = _model([node], dat, {"sx": sx, "zx": zx, "sy": sy, "zy": zy, "sz": sz, "zz": zz},
                     et)
    got = _qcomp(g_model, dat)
    (rt,) = _ort(g_model, dat)
    assert_bits(got, rt)
    _check_lowered(g_model, dat, got, lo, hi)


@SETTINGS
@given(st.sampled_from(sorted(Q8)), st.data(), st.floats(0.0, 1.0, width=32))
def test_qlinear_leaky_relu_unfused(dtype, data, alpha):
    """Every input value: the direct result equals onnxruntime's; lowered, within a step."""
    (sx, zx), (sy, zy) = data.draw(qparams(dtype, 2))
    et, npt, lo, hi = Q8[dtype]
    dat = {"x": np.arange(256).astype(np.uint8).view(npt)}
    node = helper.make_node("QLinearLeakyRelu", ["x", "sx", "zx", "sy", "zy"], ["y"],
                            domain=MS, alpha=alpha)
    model = _model([node], dat, {"sx": sx, "zx": zx, "sy": sy, "zy": zy}, et)
    got = _qcomp(model, dat)
    (rt,) = _ort(model, dat)
    assert_bits(got, rt)
    _check_lowered(model, dat, got, lo, hi)


def test_output_types_without_value_info():
    """The schemas' shape rules: pooling windows, reduced axes, broadcasting."""
    from qcomp.importers.onnx import import_model

    x = np.zeros((1, 2, 5, 6), np.uint8)
    consts = {"s": np.float32(0.1), "z": np.uint8(3)}
    cases = [
        (helper.make_node("QLinearAveragePool", ["x", "s", "z", "s", "z"], ["y"], domain=MS,
                          kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[2, 2], ceil_mode=1),
         {"x": x}, "tensor<1x2x3x4xui8>"),
        (helper.make_node("QLinearAveragePool", ["x", "s", "z", "s", "z"], ["y"], domain=MS,
                          kernel_shape=[2, 2], channels_last=1), {"x": x}, "tensor<1x1x4x6xui8>"),
        (helper.make_node("QLinearReduceMean", ["x", "s", "z", "s", "z"], ["y"], domain=MS,
                          axes=[-1, 1], keepdims=0), {"x": x}, "tensor<1x5xui8>"),
        (helper.make_node("QLinearWhere", ["c", "x", "s", "z", "x", "s", "z", "s", "z"], ["y"],
                          domain=MS), {"c": np.zeros((3, 1, 1, 1), bool), "x": x},
         "tensor<3x2x5x6xui8>")]
    for node, dat, want in cases:
        module = import_model(_model([node], dat, consts, TensorProto.UINT8))
        (op,) = [o for o in module.walk() if o.name == "onnx.Custom"]
        assert str(op.results[0].type) == want, node.op_type


def test_quantize_static_qoperator_writes_them(tmp_path):
    """A float AveragePool -> LeakyRelu model quantized by onnxruntime's
    `quantize_static(..., quant_format=QOperator)`: QLinearAveragePool and
    QLinearLeakyRelu, imported, run bit for bit as onnxruntime's unoptimized session, and
    lowered within one output step. (Its QOperator Where quantizer fails in onnxruntime
    1.32, `Invalid model with unknown initializers/tensors`, so QLinearWhere is drawn in
    one-node models only.)"""
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, quantize_static

    rng = np.random.default_rng(5)
    nodes = [helper.make_node("AveragePool", ["x"], ["p"], kernel_shape=[3, 3], strides=[2, 2],
                              pads=[1, 1, 1, 1]),
             helper.make_node("LeakyRelu", ["p"], ["y"], alpha=0.2)]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                                     [1, 3, 8, 8])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3, 4, 4])])
    model = helper.make_model(g, ir_version=10, opset_imports=[helper.make_opsetid("", 13)])
    src, dst = tmp_path / "f.onnx", tmp_path / "q.onnx"
    onnx.save(model, src)

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.left = [{"x": rng.standard_normal((1, 3, 8, 8)).astype(np.float32)}
                         for _ in range(8)]

        def get_next(self):
            return self.left.pop() if self.left else None

    quantize_static(str(src), str(dst), Reader(), quant_format=QuantFormat.QOperator)
    qmodel = onnx.load(dst)
    ops = {n.op_type for n in qmodel.graph.node}
    assert {"QLinearAveragePool", "QLinearLeakyRelu"} <= ops, ops
    last = qmodel.graph.node[-1]
    assert last.op_type == "DequantizeLinear"
    step = float(next(numpy_helper.to_array(t) for t in qmodel.graph.initializer
                      if t.name == last.input[1]))
    for _ in range(3):
        dat = {"x": rng.standard_normal((1, 3, 8, 8)).astype(np.float32)}
        got = _qcomp(qmodel, dat)
        (rt,) = _ort(qmodel, dat)
        assert_bits(got, rt)
        low = _qcomp(qmodel, dat, lower=True)
        assert np.abs(low - got).max() <= step * 1.0001


@pytest.mark.parametrize("node, message", [
    (helper.make_node("QLinearWhere", ["x", "x", "s", "z", "x", "s", "z", "s", "z"], ["y"],
                      domain=MS, name="w"),
     "node 'w' (QLinearWhere): 'onnx.Custom' operand #0 must be a tensor of one of "
     "tensor(bool), but got 'tensor<1x2x4x4xui8>'"),
    (helper.make_node("QLinearReduceMean", ["x", "s", "z", "s", "z"], ["y"], domain=MS,
                      name="r", axes=[1]),
     "node 'r' (QLinearReduceMean): 'onnx.Custom' op QLinearReduceMean requires attribute "
     "'keepdims'"),
    (helper.make_node("QLinearAveragePool", ["x", "s", "z", "s", "z"], ["y"], domain=MS,
                      name="p", kernel_shape=2),
     "node 'p' (QLinearAveragePool): 'onnx.Custom' op QLinearAveragePool attribute "
     "'kernel_shape' must be INTS, got INT"),
], ids=["where-condition", "reduce-keepdims", "pool-kernel"])
def test_schema_checks(node, message):
    from qcomp.importers.onnx import OnnxImportError, import_model

    dat = {"x": np.zeros((1, 2, 4, 4), np.uint8)}
    with pytest.raises(OnnxImportError) as e:
        import_model(_model([node], dat, {"s": np.float32(0.1), "z": np.uint8(3)},
                            TensorProto.UINT8))
    assert str(e.value) == message
