"""TopK, ArgMax, CumSum, GatherElements, InstanceNormalization and LeakyRelu
(`qcomp/dialects/onnx/index_ops.py`) against the oracles, over hypothesis-drawn shapes
and attributes (`QCOMP_EXAMPLES` per test, a few in CI):

- ONNX's own node tests of the six ops (43 with onnx 1.21): bit for bit, but for
  InstanceNormalization's two (float32 rounding of the sums);
- the float op: qcomp's interpreter against `onnx.reference.ReferenceEvaluator`
  (TopK, ArgMax, GatherElements, LeakyRelu bit for bit; CumSum and
  InstanceNormalization within float32 rounding: qcomp's reduce_window / reduce add in
  XLA's order, the reference in NumPy's), and the program `onnx-legalize-to-stablehlo`
  makes of it giving the interpreter's bits;
- the model `quantize_static` writes in the QDQ and the QOperator formats (ArgMax on the
  8-bit tensor, com.microsoft QLinearLeakyRelu; the QDQ-only ops stay float in the
  QOperator format), run by qcomp as imported, after `onnx-fuse-qdq`, and lowered to
  StableHLO integer math, against onnxruntime's unoptimized session (the fused QDQ model
  also against its optimized one, which fuses as onnxruntime's QDQ transformers do):
  equal, or within one output step for CumSum and InstanceNormalization (their float
  sums round differently before the QuantizeLinear).
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402

from qcomp.importers.onnx import import_model  # noqa: E402
from qcomp.interpreter import run  # noqa: E402
from tests.importers.onnx_oracle import apply_passes  # noqa: E402

EXAMPLES = int(os.environ.get("QCOMP_EXAMPLES", 4))
"""Examples per test; `QCOMP_EXAMPLES=100` for a long sweep."""
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
LOWER = ["onnx-unfuse-qdq", "onnx-legalize-qdq-to-quant", "onnx-legalize-to-stablehlo",
         "stablehlo-legalize-quant-to-math"]
INEXACT = ("CumSum", "InstanceNormalization")
"""Float sums: within float32 rounding of the reference, one output step when quantized."""
AFTER_QUANTIZED = ("TopK", "GatherElements")
"""`quantize_static` quantizes these (QDQDirect8BitOp, QDQGather) only after a quantized
op: their models start with `Mul(x, 1)` (QLinearMul in the QOperator format, which
onnxruntime's kernel requantizes in its own float order: one step there)."""


# -- one-op models --------------------------------------------------------------------------

def _int64(name, v):
    return numpy_helper.from_array(np.asarray(v, np.int64), name)


@st.composite
def cases(draw, op: str):
    """(op_type, float model, input shape) with drawn shape and attributes."""
    rank = draw(st.integers(3 if op == "InstanceNormalization" else 1, 4))
    shape = draw(st.lists(st.integers(1, 5), min_size=rank, max_size=rank))
    axis = draw(st.integers(-rank, rank - 1))
    n = shape[axis]
    attrs, inits, extra_out = {}, [], []
    inputs = ["x"]
    out_shape = None
    if op == "TopK":
        k = draw(st.integers(0, n))
        inputs.append("k")
        inits.append(_int64("k", [k]))
        attrs = dict(axis=axis, largest=draw(st.integers(0, 1)), sorted=1)
        extra_out = [helper.make_tensor_value_info("i", TensorProto.INT64, None)]
    elif op == "ArgMax":
        attrs = dict(axis=axis, keepdims=draw(st.integers(0, 1)),
                     select_last_index=draw(st.integers(0, 1)))
    elif op == "CumSum":
        inputs.append("a")
        inits.append(numpy_helper.from_array(
            np.array(axis, draw(st.sampled_from([np.int32, np.int64]))), "a"))
        attrs = dict(exclusive=draw(st.integers(0, 1)), reverse=draw(st.integers(0, 1)))
    elif op == "GatherElements":
        axis %= rank  # onnx 1.21's reference GatherElements misreads a negative axis
        ishape = list(shape)  # and takes only indices of data's other sizes
        ishape[axis] = draw(st.integers(1, 4))
        idx = draw(st.lists(st.integers(-n, n - 1), min_size=int(np.prod(ishape)),
                            max_size=int(np.prod(ishape))))
        inputs.append("i")
        inits.append(_int64("i", np.array(idx).reshape(ishape)))
        attrs = dict(axis=axis)
    elif op == "InstanceNormalization":
        c = shape[1]
        rng = np.random.default_rng(draw(st.integers(0, 99)))
        inputs += ["s", "b"]
        inits += [numpy_helper.from_array((rng.standard_normal(c) + 1).astype(np.float32), "s"),
                  numpy_helper.from_array(rng.standard_normal(c).astype(np.float32), "b")]
        attrs = dict(epsilon=draw(st.sampled_from([1e-5, 1e-2])))
    elif op == "LeakyRelu":
        attrs = dict(alpha=draw(st.sampled_from([0.01, 0.1, 0.3, 2.0])))
    outputs = ["y"] + (["i"] if op == "TopK" else [])
    nodes = [helper.make_node(op, inputs, outputs, name="n0", **attrs)]
    if op in AFTER_QUANTIZED:  # quantized only where its input is: a Mul by 1 first
        inits.append(numpy_helper.from_array(np.array(1, np.float32), "one"))
        nodes.insert(0, helper.make_node("Mul", ["x0", "one"], ["x"], name="n1"))
    elem = TensorProto.INT64 if op == "ArgMax" else TensorProto.FLOAT
    x = "x0" if op in AFTER_QUANTIZED else "x"
    g = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info(x, TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info("y", elem, out_shape), *extra_out], inits)
    model = helper.make_model(g, ir_version=10, opset_imports=[helper.make_opsetid("", 17)])
    return op, model, tuple(shape)


def _x(shape, seed, ties: bool = True) -> np.ndarray:
    """Inputs with ties (small integers / 4) so that the tie rules matter."""
    rng = np.random.default_rng(seed)
    if ties:
        return (rng.integers(-8, 8, shape) / 4).astype(np.float32)
    return rng.standard_normal(shape).astype(np.float32)



def _run(module, x) -> list[np.ndarray]:
    (r,) = run(module, [x])
    assert r.error is None, r.error
    return [np.asarray(v) for v in r.results]


def _bits_equal(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


OPS = ["TopK", "ArgMax", "CumSum", "GatherElements", "InstanceNormalization", "LeakyRelu"]


# -- ONNX's node tests ----------------------------------------------------------------------

NODE_PREFIXES = ("test_top_k", "test_argmax_", "test_cumsum_", "test_gather_elements_",
                 "test_instancenorm_", "test_leakyrelu")


def _node_cases():
    """The six ops' cases: their modules of `onnx.backend.test.case.node`, imported
    alone (each export records its cases as it is defined; `collect_testcases` would
    build every op's)."""
    import importlib

    from onnx.backend.test.case import node

    for m in ("argmax", "cumsum", "gatherelements", "instancenorm", "leakyrelu", "topk"):
        importlib.import_module(f"onnx.backend.test.case.node.{m}")
    return [c for c in node._NodeTestCases if c.name.startswith(NODE_PREFIXES)]


NODE_CASES = _node_cases()


def test_the_node_tests_are_all_there():
    assert len(NODE_CASES) >= 43, len(NODE_CASES)


@pytest.mark.parametrize("case", NODE_CASES, ids=lambda c: c.name)
def test_onnx_node_test(case):
    from tests.importers.onnx_oracle import as_array, mismatch, run_qcomp

    for inputs, outputs in case.data_sets:
        got = run_qcomp(case.model, inputs)
        for g, w in zip(got, outputs, strict=True):
            if case.name.startswith("test_instancenorm_"):
                np.testing.assert_allclose(g, as_array(w), rtol=1e-5, atol=1e-6)
            else:
                assert mismatch(g, w) is None, mismatch(g, w)


# -- the float op ---------------------------------------------------------------------------

@pytest.mark.parametrize("op", OPS)
@SETTINGS
@given(data=st.data())
def test_float_op_against_reference(op, data):
    _, model, shape = data.draw(cases(op))
    x = _x(shape, data.draw(st.integers(0, 1 << 16)), ties=op not in INEXACT)
    want = ReferenceEvaluator(model).run(None, {model.graph.input[0].name: x})
    module = import_model(model)
    got = _run(module, x)
    for g, w in zip(got, want, strict=True):
        w = np.asarray(w)
        assert g.shape == w.shape and g.dtype == w.dtype, (g.dtype, g.shape, w.dtype, w.shape)
        if op in INEXACT:
            np.testing.assert_allclose(g, w, rtol=2e-5, atol=2e-5)
        else:
            np.testing.assert_array_equal(g, w)
    lowered = apply_passes(module, ["onnx-legalize-to-stablehlo"])
    assert not [o.name for o in lowered.walk() if o.name.startswith("onnx.")]
    assert all(_bits_equal(a, b) for a, b in zip(_run(lowered, x), got, strict=True))


# -- quantize_static's QDQ and QOperator models ---------------------------------------------

def _quantize(model, shape, fmt, tmp_path, seed) -> onnx.ModelProto:
    from onnxruntime import quantization

    rng = np.random.default_rng(seed)

    class Reader(quantization.CalibrationDataReader):
        def __init__(self):
            self.it = iter([{model.graph.input[0].name:
                              rng.standard_normal(shape).astype(np.float32) * 2}
                            for _ in range(4)])

        def get_next(self):
            return next(self.it, None)

    src, dst = tmp_path / "f.onnx", tmp_path / f"q{seed}.onnx"
    onnx.save(model, src)
    quantization.quantize_static(
        str(src), str(dst), Reader(), quant_format=fmt,
        activation_type=quantization.QuantType.QUInt8, weight_type=quantization.QuantType.QInt8)
    return onnx.load(dst)


def _ort(model, x, level=None) -> list[np.ndarray]:
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.graph_optimization_level = level or ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    s = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
    return s.run(None, {model.graph.input[0].name: x})


def _output_step(qmodel) -> float | None:
    """The scale of the DequantizeLinear that makes output y, or (QOperator: a float op
    after a QLinear op) the float op's input (None: nothing is quantized)."""
    by_out = {o: n for n in qmodel.graph.node for o in n.output}
    inits = {t.name: numpy_helper.to_array(t) for t in qmodel.graph.initializer}
    dq = by_out.get("y")
    if dq is None or dq.op_type != "DequantizeLinear":  # QOperator: the float op's input's
        dqs = [n for n in qmodel.graph.node if n.op_type == "DequantizeLinear"]
        if not dqs:
            return None
        dq = dqs[-1]
    return float(inits[dq.input[1]])


def _close(op, got, want, step, fmt="qdq") -> None:
    for g, w in zip(got, want, strict=True):
        assert g.shape == w.shape and g.dtype == w.dtype
        if fmt == "qoperator" and op in AFTER_QUANTIZED and g.dtype == np.float32:
            assert np.max(np.abs(g - w), initial=0) <= step * 1.0001
        elif op in INEXACT and step is not None:
            assert np.max(np.abs(g - w), initial=0) <= step * 1.0001
        elif op in INEXACT:  # onnxruntime's float kernel (InstanceNormalization: 4e-5 seen)
            np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-4)
        else:
            np.testing.assert_array_equal(g, w)


FORMATS = {"qdq": "QDQ", "qoperator": "QOperator"}


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("op", OPS)
@SETTINGS
@given(data=st.data())
def test_quantize_static_against_onnxruntime(op, fmt, data, tmp_path_factory):
    from onnxruntime.quantization import QuantFormat

    _, model, shape = data.draw(cases(op))
    seed = data.draw(st.integers(0, 1 << 16))
    qmodel = _quantize(model, shape, getattr(QuantFormat, FORMATS[fmt]),
                       tmp_path_factory.mktemp("q"), seed)
    types = {n.op_type for n in qmodel.graph.node}
    if fmt == "qoperator" and op == "LeakyRelu":
        assert "QLinearLeakyRelu" in types
    elif fmt == "qdq":
        assert "DequantizeLinear" in types and op in types
    step = _output_step(qmodel)
    x = _x(shape, seed, ties=op not in INEXACT) * 2
    want = _ort(qmodel, x)
    module = import_model(qmodel)
    _close(op, _run(module, x), want, step, fmt)
    fused = apply_passes(import_model(qmodel), ["onnx-fuse-qdq"])
    _close(op, _run(fused, x), want, step, fmt)
    if fmt == "qdq" and op == "ArgMax":  # DequantizeLinear dropped: ArgMax on the integers
        assert "onnx.DequantizeLinear" not in str(fused)
    if fmt == "qdq" and op == "LeakyRelu":
        assert '"QLinearLeakyRelu"' in str(fused)
    if fmt == "qdq":  # as onnxruntime's own QDQ transformers fuse it
        optimized = _ort(qmodel, x, ort.GraphOptimizationLevel.ORT_ENABLE_ALL)
        _close(op, _run(fused, x), optimized, step, fmt)
    lowered = apply_passes(module, LOWER)
    assert not [o.name for o in lowered.walk() if o.name.startswith("onnx.")]
    _close(op, _run(lowered, x), want, step, fmt)
