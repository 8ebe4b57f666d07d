"""ReduceMin / ReduceMax (axes as attribute at opset 13, as input at opset 18 and 20),
Min / Max and Round: random models run by qcomp and by ONNX's reference evaluator and
onnxruntime, equal bit for bit (NaN equals NaN)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402

from tests.importers.onnx_oracle import mismatch, run_qcomp  # noqa: E402

SETTINGS = settings(max_examples=15, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow])
DTYPES = {"float": np.float32, "int32": np.int32, "int8": np.int8, "uint8": np.uint8,
          "double": np.float64}


def _oracles(model, feeds, got):
    (ref,) = ReferenceEvaluator(model).run(None, feeds)
    assert mismatch(got, ref) is None, f"reference: {mismatch(got, ref)}"
    if model.graph.node[0].op_type.startswith("Reduce") and any(
            np.isnan(v).any() for v in feeds.values() if v.dtype.kind == "f"):
        return  # onnxruntime's (Eigen) min / max reductions skip NaN; ONNX's reference
        # and qcomp propagate it (docs/onnx.md)
    ort = pytest.importorskip("onnxruntime")
    try:
        s = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
        (rt,) = s.run(None, feeds)
    except Exception as e:  # noqa: BLE001 - a type onnxruntime has no kernel for
        if "NOT_IMPLEMENTED" in str(e) or "not implemented" in str(e).lower():
            return
        raise
    assert mismatch(got, rt) is None, f"onnxruntime: {mismatch(got, rt)}"


def _values(rng, dtype, shape):
    if dtype in ("float", "double"):
        x = rng.standard_normal(shape).astype(DTYPES[dtype])
        if x.size > 2 and rng.random() < 0.3:
            x.reshape(-1)[rng.integers(0, x.size)] = np.nan
        return x
    info = np.iinfo(DTYPES[dtype])
    return rng.integers(info.min, info.max, shape, endpoint=True).astype(DTYPES[dtype])


@st.composite
def reduce_cases(draw):
    rank = draw(st.integers(0, 3))
    shape = draw(st.lists(st.integers(1, 4), min_size=rank, max_size=rank))
    axes = draw(st.none() | st.lists(st.integers(-rank, rank - 1), min_size=1, max_size=rank,
                                     unique_by=lambda a: a % rank) if rank else st.none())
    return (shape, axes, draw(st.integers(0, 1)), draw(st.integers(0, 1)),
            draw(st.sampled_from([13, 18, 20])), draw(st.sampled_from(sorted(DTYPES))),
            draw(st.sampled_from(["ReduceMin", "ReduceMax"])), draw(st.integers(0, 2**31 - 1)))


@SETTINGS
@given(reduce_cases())
def test_reduce_min_max(case):
    shape, axes, keepdims, noop, opset, dtype, op, seed = case
    x = _values(np.random.default_rng(seed), dtype, shape)
    et = helper.np_dtype_to_tensor_dtype(x.dtype)
    attrs = {"keepdims": keepdims}
    inputs, inits = ["x"], []
    if opset >= 18:
        attrs["noop_with_empty_axes"] = noop
        if axes is not None:
            inputs.append("axes")
            inits.append(numpy_helper.from_array(np.array(axes, np.int64), "axes"))
    elif axes is not None:
        attrs["axes"] = axes
    node = helper.make_node(op, inputs, ["y"], name="r", **attrs)
    g = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", et, shape)],
                          [helper.make_tensor_value_info("y", et, None)], inits)
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], ir_version=10)
    got = run_qcomp(model, [x])[0]
    _oracles(model, {"x": x}, got)


@SETTINGS
@given(st.sampled_from(["Min", "Max"]), st.integers(1, 3), st.sampled_from(sorted(DTYPES)),
       st.integers(0, 2**31 - 1))
def test_min_max(op, n, dtype, seed):
    rng = np.random.default_rng(seed)
    shapes = [[3, 4], [4], [1, 4], [3, 1]][:n]
    xs = [_values(rng, dtype, s) for s in shapes]
    et = helper.np_dtype_to_tensor_dtype(xs[0].dtype)
    names = [f"x{i}" for i in range(n)]
    node = helper.make_node(op, names, ["y"], name="m")
    g = helper.make_graph([node], "g", [helper.make_tensor_value_info(k, et, x.shape)
                                        for k, x in zip(names, xs)],
                          [helper.make_tensor_value_info("y", et, None)])
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], ir_version=10)
    got = run_qcomp(model, xs)[0]
    _oracles(model, dict(zip(names, xs)), got)


def test_round_half_to_even():
    x = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 2.4999998, 1e8 + 0.5, np.nan, -np.inf,
                  -0.0], np.float32)
    node = helper.make_node("Round", ["x"], ["y"], name="r")
    g = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [11])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [11])])
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 22)], ir_version=10)
    got = run_qcomp(model, [x])[0]
    _oracles(model, {"x": x}, got)
