"""The float ops of `qcomp.dialects.onnx.float_math` (what the model zoo's BERT, GPT,
MobileNet and BatchNormalization models need), each as a one-node model with seeded
shapes (NumPy broadcasting where the op has it) and values, run by qcomp (import, then
the interpreter, which runs the op as its declared StableHLO lowering) and lowered by
`onnx-legalize-to-stablehlo` (no onnx op left), against `onnx.reference.ReferenceEvaluator`
and onnxruntime:

- bit for bit for the ops that round once or not at all (Neg, Sqrt, Pow by 2, HardSigmoid,
  the comparisons, Where);
- within `TOLERANCE` (relative, absolute) for those whose float steps or approximations
  differ: Exp and Erf (NumPy's libm / chlo.erf's rational approximation vs onnxruntime's
  own), HardSwish (x * clamp(...) vs x * clamp(x + 3, 0, 6) / 6), the normalizations and
  ReduceMean (sums in another order; onnxruntime's LayerNormalization takes the variance
  as mean(x^2) - mean(x)^2).

Two seeds per op here; `QCOMP_FLOAT_MATH_SEEDS=50` runs more.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

from qcomp.importers.onnx import import_model
from qcomp.interpreter import run
from qcomp.registry import PASSES, make_context

SEEDS = range(int(os.environ.get("QCOMP_FLOAT_MATH_SEEDS", "2")))
F, B, I64 = TensorProto.FLOAT, TensorProto.BOOL, TensorProto.INT64
TOLERANCE = {"Exp": (2e-7, 0), "Pow": (3e-7, 0), "Erf": (2e-6, 1e-7), "HardSwish": (2e-7, 1e-7),
             "BatchNormalization": (1e-5, 1e-6), "LayerNormalization": (1e-5, 1e-5),
             "ReduceMean": (1e-6, 1e-7)}


def _shapes(rng, broadcast: bool):
    rank = int(rng.integers(1, 4))
    a = [int(d) for d in rng.integers(1, 5, rank)]
    if not broadcast:
        return a, a
    b = [d if rng.random() < 0.6 else 1 for d in a][int(rng.integers(0, rank)):]
    return (a, b) if rng.random() < 0.5 else (b, a)


def case(op: str, seed: int):
    """(model, feeds) of a one-node `op` model."""
    rng = np.random.default_rng(seed)
    normal = lambda s: np.asarray(rng.standard_normal(s) * 2, np.float32)
    attrs: dict = {}
    inits = []
    if op in ("Neg", "Exp", "Sqrt", "Erf", "HardSigmoid", "HardSwish"):
        s, _ = _shapes(rng, False)
        x = np.abs(normal(s)) if op == "Sqrt" else normal(s)
        if op == "HardSigmoid":
            attrs = {"alpha": float(rng.uniform(0.1, 0.5)), "beta": float(rng.uniform(0, 1))}
        ins, feeds, out = [("x", F, s)], {"x": x}, (F, s)
    elif op == "Pow":
        s, t = _shapes(rng, True)
        e = np.full(t, 2.0, np.float32) if rng.random() < 0.5 else normal(t).round()
        ins, feeds = [("x", F, s), ("y", F, t)], {"x": normal(s), "y": e}
        out = (F, list(np.broadcast_shapes(s, t)))
    elif op in ("Equal", "Less", "Greater"):
        s, t = _shapes(rng, True)
        a, b = normal(s).round(), normal(t).round()
        ins, feeds = [("x", F, s), ("y", F, t)], {"x": a, "y": b}
        out = (B, list(np.broadcast_shapes(s, t)))
    elif op == "Where":
        s, t = _shapes(rng, True)
        c = rng.random(s) < 0.5
        ins = [("c", B, s), ("x", F, t), ("y", F, [])]
        feeds = {"c": c, "x": normal(t), "y": normal([])}
        out = (F, list(np.broadcast_shapes(s, t)))
    elif op == "BatchNormalization":
        s = [int(rng.integers(1, 3)), int(rng.integers(1, 5)), *rng.integers(1, 5, 2).tolist()]
        c = s[1]
        inits = [numpy_helper.from_array(v.astype(np.float32), n) for n, v in (
            ("scale", normal(c)), ("bias", normal(c)), ("mean", normal(c)),
            ("var", rng.uniform(0.1, 2, c)))]
        attrs = {"epsilon": float(rng.choice([1e-5, 1e-3]))}
        ins, feeds, out = [("x", F, s)], {"x": normal(s)}, (F, s)
    elif op == "LayerNormalization":
        s = [int(d) for d in rng.integers(1, 6, int(rng.integers(2, 4)))]
        axis = int(rng.integers(-len(s), len(s)))
        norm = s[axis % len(s):]
        inits = [numpy_helper.from_array(normal(norm), "scale"),
                 numpy_helper.from_array(normal(norm), "bias")]
        attrs = {"axis": axis, "epsilon": 1e-5}
        ins, feeds, out = [("x", F, s)], {"x": normal(s) + 3}, (F, s)
    elif op == "ReduceMean":
        s = [int(d) for d in rng.integers(1, 6, int(rng.integers(1, 4)))]
        axes = [a - len(s) * int(rng.integers(0, 2))  # some counted from the end
                for a in sorted({int(a) for a in rng.integers(0, len(s), int(rng.integers(1, 3)))})]
        keep = int(rng.integers(0, 2))
        attrs = {"axes": axes, "keepdims": keep}
        red = {a % len(s) for a in axes}
        o = [1 if d in red else n for d, n in enumerate(s) if keep or d not in red]
        ins, feeds, out = [("x", F, s)], {"x": normal(s)}, (F, o)
    elif op == "Slice":
        s = [int(d) for d in rng.integers(1, 7, int(rng.integers(1, 4)))]
        axes = [int(a) for a in rng.permutation(len(s))[:int(rng.integers(1, len(s) + 1))]]
        starts = [int(rng.integers(-s[a] - 2, s[a] + 2)) for a in axes]
        ends = [int(rng.integers(-s[a] - 2, s[a] + 2)) for a in axes]
        steps = [int(rng.choice([-2, -1, 1, 2])) for _ in axes]  # negative: reversed
        inits = [numpy_helper.from_array(np.array(v, np.int64), n) for n, v in (
            ("starts", starts), ("ends", ends), ("axes", axes), ("steps", steps))]
        x = normal(s)
        o = list(x[tuple(slice(None) for _ in s)].shape)
        sl = [slice(None)] * len(s)
        for a, b0, e, k in zip(axes, starts, ends, steps):
            sl[a] = slice(b0, e, k)
        o = list(x[tuple(sl)].shape)
        ins, feeds, out = [("x", F, s)], {"x": x}, (F, o)
    elif op == "Split":
        s = [int(d) for d in rng.integers(1, 7, int(rng.integers(1, 4)))]
        axis = int(rng.integers(-len(s), len(s)))
        n = s[axis]
        cuts = sorted(int(c) for c in rng.integers(0, n + 1, int(rng.integers(1, 3))))
        sizes = np.diff([0, *cuts, n]).tolist()
        inits = [numpy_helper.from_array(np.array(sizes, np.int64), "split")]
        attrs = {"axis": axis}
        outs = [[k if d == axis % len(s) else m for d, m in enumerate(s)] for k in sizes]
        names = ["x", "split"]
        node = helper.make_node(op, names, [f"out{i}" for i in range(len(sizes))], name="n",
                                **attrs)
        g = helper.make_graph([node], op, [helper.make_tensor_value_info("x", F, s)],
                              [helper.make_tensor_value_info(f"out{i}", F, o)
                               for i, o in enumerate(outs)], inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
        m.ir_version = 8
        return m, {"x": normal(s)}
    else:
        raise ValueError(op)
    names = [n for n, _, _ in ins] + [t.name for t in inits]
    node = helper.make_node(op, names, ["out"], name="n", **attrs)
    g = helper.make_graph([node], op, [helper.make_tensor_value_info(n, t, s) for n, t, s in ins],
                          [helper.make_tensor_value_info("out", *out)], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    return m, feeds


OPS = ["Neg", "Exp", "Sqrt", "Erf", "Pow", "HardSigmoid", "HardSwish", "Equal", "Less",
       "Greater", "Where", "BatchNormalization", "LayerNormalization", "ReduceMean", "Slice",
       "Split"]


def _close(got, want, op, oracle):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, (op, oracle)
    if op in TOLERANCE:
        rtol, atol = TOLERANCE[op]
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=f"{op} vs {oracle}")
    else:
        assert np.array_equal(got, want), f"{op} vs {oracle}: {got} != {want}"


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("op", OPS)
def test_float_op_matches_reference_and_onnxruntime(op, seed):
    model, feeds = case(op, seed)
    module = import_model(model)
    args = list(feeds.values())
    (r,) = run(module, args)
    assert r.error is None, r.error
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    rt = ort.InferenceSession(model.SerializeToString(), so,
                              providers=["CPUExecutionProvider"]).run(None, feeds)
    rts = rt
    ref = ReferenceEvaluator(model).run(None, feeds)
    for got, want_ref, want_rt in zip(r.results, ref, rts, strict=True):
        _close(got, want_ref, op, "ReferenceEvaluator")
        _close(got, want_rt, op, "onnxruntime")
    PASSES["onnx-legalize-to-stablehlo"]()().apply(make_context(), module)
    left = [o.name for o in module.walk() if o.name.startswith("onnx.")
            and o.name != "onnx.Constant"]
    assert left == []
    (lowered,) = run(module, args)
    assert all(np.array_equal(a, b) for a, b in zip(lowered.results, r.results, strict=True))


NEGATIVE_SLICES = [  # (shape, starts, ends, axes, steps)
    ((6,), [-1], [-(2**63)], [0], [-1]),  # the whole dimension reversed (INT_MIN end)
    ((6,), [4], [0], [0], [-2]),
    ((6,), [10], [-10], [0], [-3]),  # start clamped to dim - 1, end to -1
    ((6,), [1], [4], [0], [-1]),  # empty
    ((3, 5, 4), [2, -2], [0, 0], [2, 0], [-1, 1]),
    ((3, 5, 4), [-1, 3, 9], [-4, -(2**63), 0], [0, 1, -1], [-2, -2, -1]),
]


@pytest.mark.parametrize("case", range(len(NEGATIVE_SLICES)))
def test_slice_with_negative_steps(case):
    """Slice with negative steps (the dimension reversed, then sliced) run as imported
    and lowered, equal to ONNX's reference evaluator and onnxruntime."""
    shape, starts, ends, axes, steps = NEGATIVE_SLICES[case]
    x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    sl = [slice(None)] * len(shape)
    for a, b0, e, k in zip(axes, starts, ends, steps):
        sl[a] = slice(b0, e, k)
    want = x[tuple(sl)]
    inits = [numpy_helper.from_array(np.array(v, np.int64), n) for n, v in (
        ("starts", starts), ("ends", ends), ("axes", axes), ("steps", steps))]
    node = helper.make_node("Slice", ["x", "starts", "ends", "axes", "steps"], ["out"])
    g = helper.make_graph([node], "s", [helper.make_tensor_value_info("x", F, shape)],
                          [helper.make_tensor_value_info("out", F, want.shape)], inits)
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    [rt] = ort.InferenceSession(model.SerializeToString(), so,
                                providers=["CPUExecutionProvider"]).run(None, {"x": x})
    [ref] = ReferenceEvaluator(model).run(None, {"x": x})
    assert np.array_equal(rt, want) and np.array_equal(ref, want)
    module = import_model(model)
    (r,) = run(module, [x])
    assert r.error is None, r.error
    assert np.array_equal(r.results[0], want)
    PASSES["onnx-legalize-to-stablehlo"]()().apply(make_context(), module)
    text = str(module)
    assert "onnx.Slice" not in text and "stablehlo.reverse" in text
    (lowered,) = run(module, [x])
    assert np.array_equal(lowered.results[0], want)


@pytest.mark.parametrize("outputs", [["y", "mean", "inv"], ["y", "", "inv"], ["y", "mean"]])
@pytest.mark.parametrize("axis", [-1, 1])
def test_layer_normalization_mean_and_inv_std_dev(outputs, axis):
    """LayerNormalization's optional Mean and InvStdDev outputs (an absent Mean before a
    present InvStdDev is `none`), run as imported and lowered, against ONNX's reference
    evaluator and onnxruntime (within TOLERANCE: sums in another order)."""
    rng = np.random.default_rng(axis + len(outputs))
    shape = (2, 3, 5)
    x = (rng.standard_normal(shape) * 3 + 1).astype(np.float32)
    a = axis % len(shape)
    scale = rng.standard_normal(shape[a:]).astype(np.float32)
    bias = rng.standard_normal(shape[a:]).astype(np.float32)
    stat = [*shape[:a], *[1] * (len(shape) - a)]
    node = helper.make_node("LayerNormalization", ["x", "scale", "bias"], outputs, axis=axis,
                            epsilon=1e-3)
    outs = [helper.make_tensor_value_info("y", F, shape)] + [
        helper.make_tensor_value_info(o, F, stat) for o in outputs[1:] if o]
    g = helper.make_graph([node], "ln", [helper.make_tensor_value_info("x", F, shape)], outs,
                          [numpy_helper.from_array(scale, "scale"),
                           numpy_helper.from_array(bias, "bias")])
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    rt = ort.InferenceSession(model.SerializeToString(), so,
                              providers=["CPUExecutionProvider"]).run(None, {"x": x})
    ref = ReferenceEvaluator(model).run(None, {"x": x})
    module = import_model(model)
    (r,) = run(module, [x])
    assert r.error is None, r.error
    assert len(r.results) == len(rt) == len([o for o in outputs if o])
    for got, want_ref, want_rt in zip(r.results, ref, rt, strict=True):
        _close(got, want_ref, "LayerNormalization", "ReferenceEvaluator")
        _close(got, want_rt, "LayerNormalization", "onnxruntime")
    PASSES["onnx-legalize-to-stablehlo"]()().apply(make_context(), module)
    assert [o.name for o in module.walk() if o.name.startswith("onnx.")] == []
    (lowered,) = run(module, [x])
    assert all(np.array_equal(p, q) for p, q in zip(lowered.results, r.results, strict=True))
