"""ONNX LSTM (and com.microsoft DynamicQuantizeLSTM, what `quantize_dynamic` makes of it)
against onnxruntime's unoptimized session (ORT_DISABLE_ALL, one thread) and, for the
float op, `onnx.reference.ReferenceEvaluator`, on one-op models of random shapes and
attributes; the program `onnx-legalize-to-stablehlo` makes of it (a `stablehlo.while`)
gives the interpreter's bits.

Within float tolerance, not bit for bit: onnxruntime's LSTM computes sigmoid and tanh
with MLAS's rational approximations (`MlasComputeLogistic`, `MlasComputeTanh`) and sums
`XW + HR + P*C + (Wb + Rb)` in its own order; qcomp's `stablehlo.logistic` / `tanh` are
correctly rounded and its sums go left to right as ONNX writes them. The reference
evaluator's LSTM is forward only, with the default activations, no clip, no
`sequence_lens`, no Y_c (and layout 1's Y_h wrong): it checks Y and Y_h of those cases
(`reference_ok`); every case is checked against onnxruntime.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402

from qcomp.importers.onnx import import_model  # noqa: E402
from qcomp.interpreter import run  # noqa: E402
from qcomp.registry import PASSES, make_context  # noqa: E402

SEEDS = range(int(os.environ.get("QCOMP_ONNX_SEQUENCE_SEEDS", "4")))
"""CI's sample; `tools/onnx_sequence_ops.py` runs many more."""


def session(model):
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    so.intra_op_num_threads = 1
    return ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])


def lstm_case(seed: int):
    """A random one-LSTM model and its feeds: direction, biases, peepholes,
    initial states, sequence_lens, clip, activations drawn by `seed`."""
    rng = np.random.default_rng(seed)
    s, n, k, hh = (int(v) for v in rng.integers(1, 5, 4))
    direction = str(rng.choice(["forward", "reverse", "bidirectional"]))
    d = 2 if direction == "bidirectional" else 1
    f32 = np.float32
    inits = [numpy_helper.from_array(rng.standard_normal((d, 4 * hh, k)).astype(f32), "W"),
             numpy_helper.from_array(rng.standard_normal((d, 4 * hh, hh)).astype(f32), "R")]
    names = ["X", "W", "R"]
    feeds = {"X": rng.standard_normal((s, n, k)).astype(f32)}
    ins = [helper.make_tensor_value_info("X", TensorProto.FLOAT, list(feeds["X"].shape))]
    optional = {"B": (d, 8 * hh), "sequence_lens": (n,), "initial_h": (d, n, hh),
                "initial_c": (d, n, hh), "P": (d, 3 * hh)}
    with_lens = bool(rng.integers(0, 2))
    for name, shape in optional.items():
        use = with_lens if name == "sequence_lens" else bool(rng.integers(0, 2))
        if not use:
            names.append("")
            continue
        names.append(name)
        if name == "sequence_lens":
            feeds[name] = rng.integers(0, s + 1, n).astype(np.int32)
            ins.append(helper.make_tensor_value_info(name, TensorProto.INT32, [n]))
        elif name in ("initial_h", "initial_c"):
            feeds[name] = rng.standard_normal(shape).astype(f32)
            ins.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, list(shape)))
        else:
            inits.append(numpy_helper.from_array(rng.standard_normal(shape).astype(f32), name))
    while names[-1] == "":
        names.pop()
    attrs = {"hidden_size": hh, "direction": direction}
    if rng.integers(0, 3) == 0:
        attrs["clip"] = float(rng.uniform(0.5, 3))
    if rng.integers(0, 3) == 0:
        attrs["activations"] = ["HardSigmoid", "Tanh", "Relu"] * d
    outs = ["Y", "Y_h", "Y_c"]
    node = helper.make_node("LSTM", names, outs, name="lstm", **attrs)
    g = helper.make_graph([node], "lstm", ins,
                          [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in outs],
                          inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 14)])
    m.ir_version = 8
    ok = (direction == "forward" and not with_lens and "clip" not in attrs
          and "activations" not in attrs)
    return m, feeds, ok


def batch_first(model, feeds):
    """The layout-1 twin of a layout-0 LSTM model and its feeds."""
    m = onnx.ModelProto.FromString(model.SerializeToString())
    m.graph.node[0].attribute.append(helper.make_attribute("layout", 1))
    perm = {"X": (1, 0, 2), "initial_h": (1, 0, 2), "initial_c": (1, 0, 2)}
    out = {k: np.ascontiguousarray(np.transpose(v, perm[k])) if k in perm else v
           for k, v in feeds.items()}
    for vi in m.graph.input:
        if vi.name in perm:
            dims = vi.type.tensor_type.shape.dim
            sizes = [d.dim_value for d in dims]
            for d, p in zip(dims, perm[vi.name]):
                d.dim_value = sizes[p]
    return m, out


def check_all(model, feeds, oracles, rtol=1e-5, atol=1e-5):
    """qcomp's import + interpreter against each oracle's outputs; then the lowered
    program against the interpreter, bit for bit. Returns the interpreter's results."""
    module = import_model(model)
    args = list(feeds.values())
    (r,) = run(module, args)
    assert r.error is None, r.error
    for name, want in oracles.items():
        for got, w in zip(r.results, want, strict=True):
            np.testing.assert_allclose(got, w, rtol=rtol, atol=atol, err_msg=name)
    PASSES["onnx-legalize-to-stablehlo"]()().apply(make_context(), module)
    module.verify()
    left = [o.name for o in module.walk() if o.name.startswith("onnx.")
            and o.name not in ("onnx.Constant", "onnx.NoValue")]
    assert left == []
    assert any(o.name == "stablehlo.while" for o in module.walk()) or "Attention" in str(oracles)
    (lowered,) = run(module, args)
    assert lowered.error is None, lowered.error
    for a, b in zip(lowered.results, r.results, strict=True):
        assert np.array_equal(a, b, equal_nan=True)
    return r.results


@pytest.mark.parametrize("seed", SEEDS)
def test_lstm_matches_onnxruntime_and_reference(seed):
    model, feeds, reference_ok = lstm_case(seed)
    got = check_all(model, feeds, {"onnxruntime": session(model).run(None, feeds)})
    if seed % 2:  # layout 1 (onnxruntime has none): layout 0's results, batch first
        check_all(*batch_first(model, feeds), {"onnxruntime (layout 0)": [
            np.transpose(got[0], (2, 0, 1, 3)), *(np.transpose(g, (1, 0, 2)) for g in got[1:])]})
    if reference_ok:
        m = onnx.ModelProto.FromString(model.SerializeToString())
        m.graph.node[0].output.pop()  # the reference computes no Y_c
        m.graph.output.pop()
        for g, w in zip(got[:2], ReferenceEvaluator(m).run(None, feeds), strict=True):
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5, err_msg="ReferenceEvaluator")


NODE_TESTS = Path(onnx.__file__).parent / "backend" / "test" / "data" / "node"


@pytest.mark.parametrize("name", ["test_lstm_defaults", "test_lstm_with_initial_bias",
                                  "test_lstm_with_peepholes", "test_lstm_batchwise"])
def test_onnx_node_tests_of_lstm(name):
    """ONNX's own LSTM node tests (defaults, initial bias, peepholes, batchwise: layout
    1), their expected outputs computed by NumPy in float64 and stored as float32."""
    case = NODE_TESTS / name
    model = onnx.load(str(case / "model.onnx"))
    data = case / "test_data_set_0"

    def arrays(kind):
        return [numpy_helper.to_array(onnx.load_tensor(str(p)))
                for p in sorted(data.glob(f"{kind}_*.pb"))]
    (r,) = run(import_model(model), arrays("input"))
    assert r.error is None, r.error
    for got, want in zip(r.results, arrays("output"), strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_a_sequence_length_past_the_steps_is_a_run_error():
    """onnxruntime refuses it ("Invalid value/s in sequence_lens"); so does qcomp's
    interpreter, with one line naming the op."""
    model, feeds, _ = next(c for c in map(lstm_case, range(50)) if "sequence_lens" in c[1])
    feeds = dict(feeds, sequence_lens=np.full_like(feeds["sequence_lens"], 99))
    (r,) = run(import_model(model), list(feeds.values()))
    assert "onnx.LSTM: sequence_lens must be in [0, " in str(r.error)
    assert "\n" not in str(r.error)
