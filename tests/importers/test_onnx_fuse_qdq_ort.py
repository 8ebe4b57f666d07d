"""`onnx-fuse-qdq`'s rules for AveragePool, Gemm, Where, Slice, Split, Relu, Clip (and
BatchNormalization, LayerNormalization, which onnxruntime keeps) on the one-op models
onnxruntime's `quantize_static` writes in the QDQ format (`ForceQuantizeNoInputCheck`:
the op is quantized on a graph input), against onnxruntime:

- the fused model has the ops onnxruntime's optimized QDQ model has
  (`ORT_ENABLE_EXTENDED`: its QDQ transformers, so the same groups fused, refused and
  cleaned up), and, run by qcomp's interpreter, gives what that session gives: equal;
- and against its unoptimized session (the float op between QuantizeLinear /
  DequantizeLinear): equal where the fused form moves integers (Slice, Split; Relu /
  Clip removed: `Q(Relu(x)) = Q(x)` when the zero point is the storage minimum), within
  one output step for the QLinear kernels (QLinearAveragePool, QGemm requantize their
  sums once, in their own float order) and the kept float ops;
- the groups onnxruntime refuses stay: Relu before an int8 QuantizeLinear of zero point 0
  (`ActivationSymmetric`), a Clip whose bounds lie inside the QuantizeLinear's range
  (whether that happens depends on the calibrated range: decided as onnxruntime does);
- the fused model, unfused and lowered to StableHLO (`onnx-unfuse-qdq`,
  `onnx-legalize-qdq-to-quant`, `onnx-legalize-to-stablehlo`): within one step of the
  unoptimized session (StableHLO's `round(x / s + zp)` is QuantizeLinear's
  `round(x / s) + zp` but where `x / s` lies within float32 rounding of a half);
- Split's QOperator form (Split on the 8-bit tensor, onnxruntime's `QSplit`): imported,
  run and lowered to StableHLO equal to onnxruntime.

Gemm also with per-channel weights (a scale per column: QGemm takes them as they are).
`QCOMP_EXAMPLES` seeds per case (2 in CI; `QCOMP_EXAMPLES=50` for a long sweep).
"""

from __future__ import annotations

import logging
import os
from collections import Counter

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from qcomp.importers.onnx import import_model  # noqa: E402
from qcomp.interpreter import run  # noqa: E402
from tests.importers.onnx_oracle import apply_passes  # noqa: E402

SEEDS = range(int(os.environ.get("QCOMP_EXAMPLES", 2)))
F = TensorProto.FLOAT
LOWER = ["onnx-unfuse-qdq", "onnx-legalize-qdq-to-quant", "onnx-legalize-to-stablehlo",
         "stablehlo-legalize-quant-to-math"]


def _vi(name, shape):
    return helper.make_tensor_value_info(name, F, list(shape))


def _init(name, a):
    return numpy_helper.from_array(np.asarray(a), name)


def _model(nodes, ins, outs, inits=(), opset=17):
    g = helper.make_graph(nodes, "g", [_vi(n, s) for n, s in ins],
                          [_vi(n, s) for n, s in outs], list(inits))
    return helper.make_model(g, ir_version=10, opset_imports=[helper.make_opsetid("", opset)])


# -- one-op models: (model, weight type, symmetric activations) -----------------------------

def average_pool(rng):
    c, h, w = (int(v) for v in (rng.integers(1, 4), *rng.integers(3, 7, 2)))
    k, s = int(rng.integers(2, 4)), int(rng.integers(1, 3))
    oh, ow = (h - k) // s + 1, (w - k) // s + 1
    node = helper.make_node("AveragePool", ["x"], ["y"], kernel_shape=[k, k], strides=[s, s])
    return _model([node], [("x", (1, c, h, w))], [("y", (1, c, oh, ow))])


def gemm(rng):
    m, k, n = (int(v) for v in rng.integers(1, 6, 3))
    trans_b = int(rng.integers(0, 2))
    w = rng.standard_normal((n, k) if trans_b else (k, n)).astype(np.float32)
    node = helper.make_node("Gemm", ["x", "w", "b"], ["y"], transB=trans_b)
    return _model([node], [("x", (m, k))], [("y", (m, n))],
                  [_init("w", w), _init("b", rng.standard_normal(n).astype(np.float32))])


def where(rng):
    shape = tuple(int(v) for v in rng.integers(1, 5, 2))
    node = helper.make_node("Where", ["c", "x", "w"], ["y"])
    return _model([node], [("x", shape), ("w", shape)], [("y", shape)],
                  [_init("c", rng.random(shape) > 0.5)])


def where_initializer(rng):
    """Where of an input and an initializer (both quantized as activations here)."""
    shape = tuple(int(v) for v in rng.integers(1, 5, 2))
    node = helper.make_node("Where", ["c", "x", "w"], ["y"])
    return _model([node], [("x", shape)], [("y", shape)],
                  [_init("c", rng.random(shape) > 0.5),
                   _init("w", rng.standard_normal(shape).astype(np.float32))])


def split(rng):
    rows, parts = int(rng.integers(1, 4)), int(rng.integers(2, 4))
    cols = parts * int(rng.integers(1, 3))
    outs = [f"y{i}" for i in range(parts)]
    node = helper.make_node("Split", ["x"], outs, axis=1, num_outputs=parts)
    return _model([node], [("x", (rows, cols))], [(o, (rows, cols // parts)) for o in outs],
                  opset=18)


def slice_(rng):
    n = int(rng.integers(3, 8))
    lo, step = int(rng.integers(0, 2)), int(rng.choice([1, 2, -1]))
    start, end = (lo, n) if step > 0 else (n - 1, lo - 1 if lo else -n - 1)
    size = len(range(n)[start:end if end >= -n else None:step])
    node = helper.make_node("Slice", ["x", "s", "e", "a", "t"], ["y"])
    return _model([node], [("x", (2, n))], [("y", (2, size))],
                  [_init("s", [start]), _init("e", [end]), _init("a", [1]),
                   _init("t", [step])])


def _after_transpose(op, rng, extra=()):
    """Transpose (dropped by the fusion, exact) -> op: the op's input is also a graph
    output, so `quantize_static` keeps the op (between QuantizeLinear / DequantizeLinear)
    instead of folding it into the Transpose's output range."""
    a, b = (int(v) for v in rng.integers(1, 5, 2))
    nodes = [helper.make_node("Transpose", ["x"], ["t"], perm=[1, 0]),
             helper.make_node(op, ["t", *(e[0] for e in extra)], ["y"])]
    return _model(nodes, [("x", (a, b))], [("y", (b, a)), ("t", (b, a))],
                  [_init(n, np.float32(v)) for n, v in extra])


def relu(rng):
    return _after_transpose("Relu", rng)


def clip(rng):
    return _after_transpose("Clip", rng, (("lo", -1.0), ("hi", 6.0)))


def batch_norm(rng):
    c = int(rng.integers(1, 4))
    p = [_init(n, (rng.random(c) + 0.5).astype(np.float32)) for n in "abmv"]
    node = helper.make_node("BatchNormalization", ["x", "a", "b", "m", "v"], ["y"])
    return _model([node], [("x", (1, c, 3))], [("y", (1, c, 3))], p)


def layer_norm(rng):
    n = int(rng.integers(2, 5))
    p = [_init(k, (rng.random(n) + 0.5).astype(np.float32)) for k in "ab"]
    node = helper.make_node("LayerNormalization", ["x", "a", "b"], ["y"])
    return _model([node], [("x", (2, n))], [("y", (2, n))], p)


CASES = {
    # name: (model, an op the fused model must have, one it must not, exact vs unoptimized)
    "AveragePool": (average_pool, "QLinearAveragePool", "AveragePool", False),
    "Gemm": (gemm, "QGemm", "Gemm", False),
    "GemmPerChannel": (gemm, "QGemm", "Gemm", False),
    "Where": (where, "QLinearWhere", "Where", True),
    "Split": (split, "Split", None, True),
    "Slice": (slice_, "Slice", None, True),
    "Relu": (relu, None, "Relu", True),
    "Clip": (clip, None, None, True),
    "WhereInitializer": (where_initializer, "QLinearWhere", "Where", True),
    "BatchNormalization": (batch_norm, "BatchNormalization", None, False),
    "LayerNormalization": (layer_norm, "LayerNormalization", None, False),
}
PER_CHANNEL = ("GemmPerChannel",)
"""Quantized with `per_channel=True` (a scale per weight column)."""


# -- quantize, run ----------------------------------------------------------------------------

def _inputs(model, seed) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed + 1000)
    return {i.name: (rng.standard_normal([d.dim_value for d in i.type.tensor_type.shape.dim])
                     * 2).astype(np.float32) for i in model.graph.input}


def _quantize(model, fmt, tmp_path, seed, per_channel=False, **extra) -> onnx.ModelProto:
    from onnxruntime import quantization

    class Reader(quantization.CalibrationDataReader):
        def __init__(self):
            self.it = iter([_inputs(model, seed * 10 + i) for i in range(4)])

        def get_next(self):
            return next(self.it, None)

    src, dst = tmp_path / "f.onnx", tmp_path / "q.onnx"
    onnx.save(model, src)
    logging.disable(logging.WARNING)  # "consider pre-processing"
    try:
        quantization.quantize_static(
            str(src), str(dst), Reader(), quant_format=fmt, per_channel=per_channel,
            activation_type=extra.pop("activation_type", quantization.QuantType.QUInt8),
            weight_type=quantization.QuantType.QInt8,
            extra_options={"ForceQuantizeNoInputCheck": True, **extra})
    finally:
        logging.disable(logging.NOTSET)
    return onnx.load(dst)


def _ort(model, feeds, level=None, save=None) -> list[np.ndarray]:
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.graph_optimization_level = level or ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    if save is not None:
        so.optimized_model_filepath = str(save)
    s = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
    return s.run(None, feeds)


def _ort_ops(path) -> Counter:
    return Counter(n.op_type for n in onnx.load(path).graph.node)


def _ops(module) -> Counter:
    """The module's ONNX ops by op_type (a com.microsoft op by its name), as onnxruntime
    lists its nodes (constants are initializers there)."""
    out: Counter = Counter()
    for op in module.walk():
        if op.name == "onnx.Custom":
            out[op.function_name.data] += 1
        elif op.name.startswith("onnx.") and op.name not in ("onnx.Constant", "onnx.NoValue"):
            out[op.name.removeprefix("onnx.")] += 1
    return out



def _run(module, model, feeds) -> list[np.ndarray]:
    (r,) = run(module, [feeds[i.name] for i in model.graph.input])
    assert r.error is None, r.error
    return [np.asarray(v) for v in r.results]


def _steps(qmodel) -> list[float]:
    """Each graph output's step: the scale of the DequantizeLinear that makes it."""
    by_out = {o: n for n in qmodel.graph.node for o in n.output}
    inits = {t.name: numpy_helper.to_array(t) for t in qmodel.graph.initializer}
    out = []
    for o in qmodel.graph.output:
        dq = by_out[o.name]
        assert dq.op_type == "DequantizeLinear", dq.op_type
        out.append(float(inits[dq.input[1]]))
    return out


def _equal(got, want) -> None:
    for g, w in zip(got, want, strict=True):
        assert g.shape == w.shape and g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)


def _within_a_step(got, want, steps) -> None:
    for g, w, s in zip(got, want, steps, strict=True):
        assert g.shape == w.shape and g.dtype == w.dtype
        assert np.max(np.abs(g - w), initial=0) <= s * 1.0001


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("case", CASES)
def test_fused_qdq_model_against_onnxruntime(case, seed, tmp_path):
    from onnxruntime.quantization import QuantFormat

    build, present, gone, exact = CASES[case]
    model = build(np.random.default_rng(seed))
    qmodel = _quantize(model, QuantFormat.QDQ, tmp_path, seed, case in PER_CHANNEL)
    feeds = _inputs(model, seed)
    want = _ort(qmodel, feeds)
    fused = apply_passes(import_model(qmodel), ["onnx-fuse-qdq"])
    ops = _ops(fused)
    assert present is None or ops[present]
    assert gone is None or not ops[gone]
    # onnxruntime's own QDQ transformers fuse the same groups, into the same kernels
    optimized = _ort(qmodel, feeds, ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED,
                     tmp_path / "o.onnx")
    ort_ops = _ort_ops(tmp_path / "o.onnx")  # EnsureUniqueDQForNodeUnit copies shared DQs
    assert bool(ops.pop("DequantizeLinear", 0)) == bool(ort_ops.pop("DequantizeLinear", 0))
    assert ops == ort_ops
    got = _run(fused, qmodel, feeds)
    _equal(got, optimized)
    if exact:
        _equal(got, want)
    else:
        _within_a_step(got, want, _steps(qmodel))
    # taken apart again (QGemm, QLinearAveragePool, QLinearWhere) and lowered to StableHLO
    lowered = apply_passes(fused, LOWER)
    assert not [o.name for o in lowered.walk() if o.name.startswith("onnx.")]
    _within_a_step(_run(lowered, qmodel, feeds), want, _steps(qmodel))


def test_relu_before_a_symmetric_int8_quantize_stays(tmp_path):
    """`ActivationSymmetric` int8: the QuantizeLinear's zero point is 0, not -128: its
    range does not clip at 0, onnxruntime keeps the Relu and so does the fusion."""
    from onnxruntime.quantization import QuantFormat, QuantType

    model = relu(np.random.default_rng(0))
    qmodel = _quantize(model, QuantFormat.QDQ, tmp_path, 0, activation_type=QuantType.QInt8,
                       ActivationSymmetric=True)
    fused = apply_passes(import_model(qmodel), ["onnx-fuse-qdq"])
    assert "onnx.Relu" in str(fused)
    feeds = _inputs(model, 0)
    _equal(_run(fused, qmodel, feeds), _ort(qmodel, feeds))


@pytest.mark.parametrize("seed", SEEDS)
def test_split_qoperator_form(seed, tmp_path):
    """`quantize_static` in the QOperator format writes Split on the 8-bit tensor (each
    result with the input's scale and zero point)."""
    from onnxruntime.quantization import QuantFormat

    model = split(np.random.default_rng(seed))
    qmodel = _quantize(model, QuantFormat.QOperator, tmp_path, seed)
    types = [n.op_type for n in qmodel.graph.node]
    assert "Split" in types and "QuantizeLinear" in types
    feeds = _inputs(model, seed)
    want = _ort(qmodel, feeds)
    module = import_model(qmodel)
    _equal(_run(module, qmodel, feeds), want)
    lowered = apply_passes(module, LOWER)
    assert not [o.name for o in lowered.walk() if o.name.startswith("onnx.")]
    _equal(_run(lowered, qmodel, feeds), want)
