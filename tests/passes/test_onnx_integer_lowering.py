"""`onnx-legalize-to-stablehlo` on quantize_dynamic's ops and Cast
(`qcomp.dialects.onnx.integer_lowering`): one-node models lowered with no onnx op
left, run in qcomp's interpreter (and on XLA for a few), against onnxruntime's
unoptimized session and ONNX's reference evaluator, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

from onnx import TensorProto, helper  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402

import qcomp  # noqa: E402
from qcomp.importers.onnx import import_model  # noqa: E402

F, U8, I8, I32 = TensorProto.FLOAT, TensorProto.UINT8, TensorProto.INT8, TensorProto.INT32
DTYPE = {np.dtype(np.float32): F, np.dtype(np.uint8): U8, np.dtype(np.int8): I8,
         np.dtype(np.int32): I32, np.dtype(np.int64): TensorProto.INT64,
         np.dtype(np.float16): TensorProto.FLOAT16, np.dtype(np.bool_): TensorProto.BOOL}


def _model(op_type, inputs: list[np.ndarray | None], outputs: list[tuple[int, tuple]],
           opset: int = 21, **attrs):
    names = [f"i{k}" if x is not None else "" for k, x in enumerate(inputs)]
    node = helper.make_node(op_type, names, [f"o{k}" for k in range(len(outputs))], **attrs)
    g = helper.make_graph(
        [node], "g",
        [helper.make_tensor_value_info(n, DTYPE[x.dtype], x.shape)
         for n, x in zip(names, inputs) if x is not None],
        [helper.make_tensor_value_info(f"o{k}", t, s) for k, (t, s) in enumerate(outputs)])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])


def _oracles(model, inputs):
    feeds = {f"i{k}": x for k, x in enumerate(inputs) if x is not None}
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    s = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
    return s.run(None, feeds), ReferenceEvaluator(model).run(None, feeds)


def _lowered(model, inputs, backend="numpy"):
    """The model imported, lowered (no onnx op left) and run on `backend`; and the
    imported (unlowered) model run in qcomp's interpreter."""
    module = import_model(model)
    given = [x for x in inputs if x is not None]
    as_imported = qcomp.run(module, given).results
    qcomp.run_pipeline(module, "onnx-legalize-to-stablehlo")
    text = qcomp.print_module(module)
    assert "onnx." not in text.replace("onnx.name", ""), text
    return [np.asarray(r) for r in qcomp.run(module, given, backend=backend).results], \
        as_imported


def _same(got, want):
    assert got.dtype == want.dtype and got.shape == want.shape
    assert np.array_equal(got, want, equal_nan=got.dtype.kind == "f"), (got, want)


DQL_CASES = {
    "normal": lambda r: r.standard_normal((4, 16)),
    "positive": lambda r: r.uniform(0.5, 3, (4, 16)),
    "negative": lambda r: -r.uniform(0.5, 3, (4, 16)),
    "ties": lambda r: np.array([[-2.55, 0, 1.27, 2.55, 0.005, 0.015, -0.005, 1.0]]),
    "tiny": lambda r: np.array([[1e-40, -3e-41, 0, 2e-45]]),
    "rank3": lambda r: r.standard_normal((2, 3, 5)) * 7,
}


@pytest.mark.parametrize("case", DQL_CASES)
def test_dynamic_quantize_linear_is_onnxruntimes_and_the_references(case):
    x = DQL_CASES[case](np.random.default_rng(len(case))).astype(np.float32)
    model = _model("DynamicQuantizeLinear", [x], [(U8, x.shape), (F, ()), (U8, ())], 11)
    (got, imported), (want, ref) = _lowered(model, [x]), _oracles(model, [x])
    for g, i, w, r in zip(got, imported, want, ref, strict=True):
        _same(g, w)
        _same(g, np.asarray(r))
        _same(g, i)


def test_dynamic_quantize_linear_of_zeros():
    """All zeros: y and y_zero_point 0 everywhere; y_scale is the spec's (0 - 0) / 255
    = 0, where onnxruntime writes 1.0 and ONNX's reference evaluator 1/255."""
    x = np.zeros((3, 4), np.float32)
    model = _model("DynamicQuantizeLinear", [x], [(U8, x.shape), (F, ()), (U8, ())], 11)
    (got, imported), (want, ref) = _lowered(model, [x]), _oracles(model, [x])
    for k in (0, 2):
        _same(got[k], want[k])
        _same(got[k], np.asarray(ref[k]))
        _same(got[k], imported[k])
    assert (float(got[1]), float(imported[1]), float(want[1]), float(ref[1])) == (
        0.0, 0.0, 1.0, float(np.float32(1) / np.float32(255)))


def _ints(rng, dtype, shape):
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max + 1, shape).astype(dtype)


MATMUL_CASES = [  # (A type, B type, A shape, B shape, a_zp shape, b_zp shape)
    (np.uint8, np.uint8, (3, 8), (8, 5), (), ()),
    (np.uint8, np.int8, (3, 8), (8, 5), (), (5,)),
    (np.int8, np.int8, (2, 3, 8), (8, 5), None, ()),
    (np.int8, np.uint8, (3, 8), (2, 8, 5), (), None),
    (np.uint8, np.uint8, (3, 8), (8,), (), None),
]


@pytest.mark.parametrize("case", range(len(MATMUL_CASES)))
def test_matmul_integer_is_onnxruntimes_and_the_references(case):
    ta, tb, sa, sb, za, zb = MATMUL_CASES[case]
    rng = np.random.default_rng(case)
    inputs = [_ints(rng, ta, sa), _ints(rng, tb, sb),
              None if za is None else _ints(rng, ta, za),
              None if zb is None else _ints(rng, tb, zb)]
    while inputs and inputs[-1] is None:
        inputs.pop()
    out = np.matmul(np.zeros(sa), np.zeros(sb)).shape
    model = _model("MatMulInteger", inputs, [(I32, out)], 10)
    (got, imported), (want, ref) = _lowered(model, inputs), _oracles(model, inputs)
    _same(got[0], want[0])
    _same(got[0], np.asarray(ref[0]))
    _same(got[0], imported[0])


def test_matmul_integer_per_row_zero_point():
    """A 1-D a_zero_point of M entries is one per row of A; an N-D one [D1, M, 1]
    broadcasts (onnxruntime refuses both, `matmul_integer.cc:63`, and ONNX's reference
    evaluator broadcasts a 1-D one along K: the spec's formula in NumPy is the oracle
    for the 1-D form, the reference evaluator for the N-D one)."""
    rng = np.random.default_rng(7)
    inputs = [_ints(rng, np.uint8, (3, 6)), _ints(rng, np.uint8, (6, 4)),
              _ints(rng, np.uint8, (3,)), _ints(rng, np.uint8, (4,))]
    model = _model("MatMulInteger", inputs, [(I32, (3, 4))], 10)
    got, imported = _lowered(model, inputs)
    want = (inputs[0].astype(np.int32) - inputs[2].astype(np.int32)[:, None]) @ (
        inputs[1].astype(np.int32) - inputs[3].astype(np.int32))
    _same(got[0], want)
    _same(got[0], imported[0])
    inputs = [_ints(rng, np.int8, (2, 3, 6)), _ints(rng, np.int8, (2, 6, 4)),
              _ints(rng, np.int8, (2, 3, 1)), _ints(rng, np.int8, (2, 1, 4))]
    model = _model("MatMulInteger", inputs, [(I32, (2, 3, 4))], 10)
    got, imported = _lowered(model, inputs)
    _same(got[0], np.asarray(ReferenceEvaluator(model).run(
        None, {f"i{k}": x for k, x in enumerate(inputs)})[0]))
    _same(got[0], imported[0])


CONV_CASES = [  # (x type, w type, w_zp shape, attributes)
    (np.uint8, np.uint8, (), {}),
    (np.uint8, np.int8, (), {"pads": [1, 1, 1, 1], "strides": [2, 2]}),
    (np.int8, np.int8, None, {"group": 2, "pads": [0, 1, 1, 0], "dilations": [2, 1]}),
    (np.uint8, np.uint8, (), {"auto_pad": "SAME_UPPER", "strides": [2, 1]}),
]


@pytest.mark.parametrize("case", range(len(CONV_CASES)))
def test_conv_integer_is_onnxruntimes_and_the_references(case):
    tx, tw, zw, attrs = CONV_CASES[case]
    rng = np.random.default_rng(case)
    group = attrs.get("group", 1)
    x, w = _ints(rng, tx, (1, 2 * group, 7, 6)), _ints(rng, tw, (3 * group, 2, 3, 3))
    inputs = [x, w, _ints(rng, tx, ()), None if zw is None else _ints(rng, tw, zw)]
    if inputs[-1] is None:
        inputs.pop()
    probe = _model("ConvInteger", inputs, [(I32, None)], 10, **attrs)
    want, ref = _oracles(probe, inputs)
    model = _model("ConvInteger", inputs, [(I32, want[0].shape)], 10, **attrs)
    got, imported = _lowered(model, inputs)
    _same(got[0], want[0])
    _same(got[0], np.asarray(ref[0]))
    _same(got[0], imported[0])


def test_conv_integer_per_channel_weight_zero_point():
    """A 1-D w_zero_point of M entries is one per output channel (onnxruntime takes
    only a scalar one: NumPy and the reference evaluator are the oracles)."""
    rng = np.random.default_rng(3)
    inputs = [_ints(rng, np.uint8, (1, 2, 5, 5)), _ints(rng, np.uint8, (3, 2, 3, 3)),
              _ints(rng, np.uint8, ()), _ints(rng, np.uint8, (3,))]
    model = _model("ConvInteger", inputs, [(I32, (1, 3, 5, 5))], 10, pads=[1, 1, 1, 1])
    got, imported = _lowered(model, inputs)
    ref = ReferenceEvaluator(model).run(None, {f"i{k}": x for k, x in enumerate(inputs)})
    _same(got[0], np.asarray(ref[0]))
    _same(got[0], imported[0])


CASTS = [  # (input, ONNX `to`, attributes)
    (np.array([-2.7, -0.5, 0.0, 0.5, 1.5, 2.5, 120.9], np.float32), TensorProto.INT32, {}),
    (np.array([0.0, 0.9, 17.5, 254.99], np.float32), U8, {}),
    (np.array([-128.9, -1.5, 0.0, 127.7], np.float32), I8, {}),
    (np.array([16777217, -16777219, 2**31 - 1, 3], np.int32), F, {}),
    (np.array([70000.0, 1e-8, 0.1, -65519.0, np.inf, np.nan], np.float32),
     TensorProto.FLOAT16, {}),
    (np.array([300, -129, 255, 7], np.int64), I8, {}),
    (np.array([300, -1, 255], np.int32), U8, {}),
    (np.array([0.0, -0.0, 2.0, np.nan], np.float32), TensorProto.BOOL, {}),
    (np.array([True, False]), F, {}),
    (np.array([1e9, -1e9, 448.0, 464.0, 0.3, np.inf, -np.inf, np.nan], np.float32),
     TensorProto.FLOAT8E4M3FN, {}),
    (np.array([1e9, -1e9, 57344.0, 0.3, np.inf, -np.inf], np.float32),
     TensorProto.FLOAT8E5M2, {"saturate": 0}),
    (np.array([1e9, 240.0, -1e9, 0.3], np.float32), TensorProto.FLOAT8E4M3FNUZ, {}),
    (np.array([1000, -1000, 100], np.int32), TensorProto.FLOAT8E4M3FN, {}),
]


@pytest.mark.parametrize("case", range(len(CASTS)))
def test_cast_is_onnxruntimes_and_the_references(case):
    x, to, attrs = CASTS[case]
    model = _model("Cast", [x], [(to, x.shape)], 21, to=to, **attrs)
    got, imported = _lowered(model, [x])
    g = got[0]
    if "float8" in str(g.dtype):
        # onnxruntime returns no float8 array: its Cast to float8 then to float (exact)
        ref = ReferenceEvaluator(model).run(None, {"i0": x})
        model.graph.node.append(helper.make_node("Cast", ["o0"], ["f"], to=F))
        model.graph.output.pop()
        model.graph.output.append(helper.make_tensor_value_info("f", F, x.shape))
        want, _ = _oracles(model, [x])
        _same(g.astype(np.float32), want[0])
        assert np.array_equal(g.view(np.uint8), np.asarray(ref[0]).view(np.uint8))
        assert np.array_equal(g.view(np.uint8), np.asarray(imported[0]).view(np.uint8))
        return
    want, ref = _oracles(model, [x])
    _same(g, want[0])
    _same(g, np.asarray(ref[0]))
    _same(g, imported[0])


def test_cast_to_e8m0_stays_with_a_remark(capsys):
    x = np.array([1.0, 3.0], np.float32)
    model = _model("Cast", [x], [(TensorProto.FLOAT8E8M0, x.shape)], 25,
                   to=TensorProto.FLOAT8E8M0)
    from qcomp.passes import onnx_legalize_to_stablehlo as legalize

    said = []
    module = import_model(model)
    orig = legalize.remark
    legalize.remark = lambda op, msg: said.append((op.name, msg))
    try:
        qcomp.run_pipeline(module, "onnx-legalize-to-stablehlo")
    finally:
        legalize.remark = orig
    assert said == [("onnx.Cast", "onnx-legalize-to-stablehlo: 'onnx.Cast' from float to "
                     "float8e8m0 is not lowered (float8e8m0 has no StableHLO convert with "
                     "ONNX's rounding)")]


@pytest.mark.parametrize("op_type", ["DynamicQuantizeLinear", "MatMulInteger", "ConvInteger",
                                     "Cast"])
def test_lowered_on_xla(op_type):
    """The lowered StableHLO runs on XLA with the same bits."""
    pytest.importorskip("jax")
    rng = np.random.default_rng(11)
    if op_type == "DynamicQuantizeLinear":
        inputs = [rng.standard_normal((4, 16)).astype(np.float32)]
        model = _model(op_type, inputs, [(U8, (4, 16)), (F, ()), (U8, ())], 11)
    elif op_type == "MatMulInteger":
        inputs = [_ints(rng, np.uint8, (3, 8)), _ints(rng, np.int8, (8, 5)),
                  _ints(rng, np.uint8, ()), _ints(rng, np.int8, (5,))]
        model = _model(op_type, inputs, [(I32, (3, 5))], 10)
    elif op_type == "ConvInteger":
        inputs = [_ints(rng, np.uint8, (1, 2, 6, 6)), _ints(rng, np.uint8, (3, 2, 3, 3)),
                  _ints(rng, np.uint8, ()), _ints(rng, np.uint8, ())]
        model = _model(op_type, inputs, [(I32, (1, 3, 6, 6))], 10, pads=[1, 1, 1, 1])
    else:
        inputs = [np.array([-2.7, 0.5, 1.5, 300.2, 1e9], np.float32)]
        model = _model(op_type, inputs, [(TensorProto.FLOAT8E4M3FN, (5,))], 21,
                       to=TensorProto.FLOAT8E4M3FN)
    want, _ = _oracles(model, inputs)
    got, _ = _lowered(model, inputs, backend="xla")
    for g, w in zip(got, want, strict=True):
        assert np.array_equal(np.asarray(g).view(np.uint8) if "float8" in str(g.dtype) else g,
                              np.asarray(w).view(np.uint8) if "float8" in str(w.dtype) else w)


def test_dynamic_quantize_linear_of_zeros_on_xla():
    """XLA gives the interpreter's bits for an input of zeros (scale 0, the divisions by
    1) and for one with a negative zero."""
    pytest.importorskip("jax")
    x = np.zeros((2, 3), np.float32)
    x[0, 1] = -0.0
    model = _model("DynamicQuantizeLinear", [x], [(U8, x.shape), (F, ()), (U8, ())], 11)
    on_numpy, _ = _lowered(model, [x])
    on_xla, _ = _lowered(model, [x], backend="xla")
    for g, w in zip(on_xla, on_numpy, strict=True):
        _same(np.asarray(g), np.asarray(w))
    assert float(on_xla[1]) == 0.0 and not on_xla[0].any() and int(on_xla[2]) == 0
