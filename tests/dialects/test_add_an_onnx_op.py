"""docs/design.md's recipe "Adding an ONNX op", followed in this file alone: an ONNX
float op (LeakyRelu, the recipe's example) is defined here with its facts, its
StableHLO lowering and its QDQ role, and registered the way the recipe's list edit does
(here by monkeypatching the onnx dialect's op list, with qcomp's own LeakyRelu of
`qcomp/dialects/onnx/index_ops.py` taken out of it). With nothing else in qcomp edited
it imports from a `.onnx` model, runs in the interpreter (bit for bit as onnxruntime),
lowers through `onnx-legalize-to-stablehlo` (same bits), and its QDQ group is fused by
`onnx-fuse-qdq` into onnxruntime's com.microsoft QLinearLeakyRelu and unfused back.

A real op touches at most two files: its class (and lowering) in a module of
`qcomp/dialects/onnx/`, and that module's op list (or the dialect's list in
`qcomp/dialects/onnx/__init__.py` for a new module)."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects.builtin import FloatAttr
from xdsl.ir import Dialect
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import NoMemoryEffect

import qcomp.dialects.onnx as onnx_dialect
from qcomp.dialects import stablehlo as sh
from qcomp.dialects.facts import NO_QUANTIZATION
from qcomp.dialects.onnx.core import Lowering, OnnxFacts, QdqRole, attr, facts
from qcomp.dialects.onnx.float_ops import UnaryOp
from qcomp.dialects.onnx.to_stablehlo import element_of

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

from onnx import TensorProto, helper, numpy_helper

from qcomp.importers.onnx import import_model
from qcomp.interpreter import run
from qcomp.registry import PASSES, make_context, parse_module


def leaky_relu(b, op, out):
    """`select(x < 0, x * alpha, x)`."""
    e = element_of(op.Y)
    neg = b.emit(sh.CompareOp(op.X, b.splat(0, e, out), "LT"))
    scaled = b.op(sh.MultiplyOp, [op.X, b.splat(attr(op, "alpha"), e, out)], e, out)
    return b.op(sh.SelectOp, [neg, scaled, op.X], e, out)


@irdl_op_definition
class LeakyReluOp(UnaryOp):
    """`Y = X < 0 ? alpha * X : X`."""

    name = "onnx.LeakyRelu"
    X = operand_def()
    alpha = opt_prop_def(FloatAttr)
    Y = result_def()
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION,
                        OnnxFacts("LeakyRelu", (1, 6, 16), ("X",), ("Y",), {"alpha": 0.01}),
                        Lowering(leaky_relu), QdqRole("unary", "QLinearLeakyRelu"))


@pytest.fixture(autouse=True)
def registered(monkeypatch):
    """The recipe's one-line list edit: the op joins the onnx dialect (in place of
    qcomp's own LeakyRelu, so that nothing but this file's class declares it)."""
    d = onnx_dialect.ONNX
    ops = [c for c in d.operations if getattr(facts(c), "op_type", None) != "LeakyRelu"]
    assert len(ops) == len(list(d.operations)) - 1
    monkeypatch.setattr(onnx_dialect, "ONNX", Dialect(
        "onnx", [*ops, LeakyReluOp], list(d.attributes)))


ALPHA = 0.2
X = np.array([[-3.5, -0.1, 0.0, 2.25], [-1e-30, 7.0, -65504.0, np.inf]], np.float32)


def _model(qdq: bool):
    nodes, inits = [], []
    if qdq:
        inits = [numpy_helper.from_array(np.array(0.05, np.float32), "s"),
                 numpy_helper.from_array(np.array(128, np.uint8), "z")]
        nodes += [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["xq"]),
                  helper.make_node("DequantizeLinear", ["xq", "s", "z"], ["xd"])]
    nodes.append(helper.make_node("LeakyRelu", ["xd" if qdq else "x"], ["r"], alpha=ALPHA))
    if qdq:
        nodes += [helper.make_node("QuantizeLinear", ["r", "s", "z"], ["rq"]),
                  helper.make_node("DequantizeLinear", ["rq", "s", "z"], ["y"])]
    else:
        nodes[-1].output[0] = "y"
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                                      X.shape)],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, X.shape)],
                          inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])


def _onnxruntime(model) -> np.ndarray:
    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    s = ort.InferenceSession(model.SerializeToString(), opts,
                             providers=["CPUExecutionProvider"])
    return s.run(None, {"x": X})[0]


def _apply(module, name: str):
    PASSES[name]()().apply(make_context(), module)
    module.verify()
    return module


def _names(module) -> list[str]:
    return [op.name for op in module.walk()][2:]


def _bits(a: np.ndarray) -> list[int]:
    return np.asarray(a, np.float32).view(np.uint32).reshape(-1).tolist()


def test_imported_run_and_lowered():
    module = import_model(_model(qdq=False))
    assert _names(module) == ["onnx.LeakyRelu", "func.return"]
    text = str(module)
    assert str(parse_module(text)) == text  # it parses and prints in qcomp's context
    want = _onnxruntime(_model(qdq=False))
    assert _bits(run(module, [X])[0].results[0]) == _bits(want)
    lowered = _apply(module, "onnx-legalize-to-stablehlo")
    assert _names(lowered) == ["stablehlo.constant", "stablehlo.compare", "stablehlo.constant",
                               "stablehlo.multiply", "stablehlo.select", "func.return"]
    assert _bits(run(lowered, [X])[0].results[0]) == _bits(want)


def test_qdq_role_fused_and_unfused():
    module = import_model(_model(qdq=True))
    want = _onnxruntime(_model(qdq=True))
    assert _bits(run(module, [X])[0].results[0]) == _bits(want)
    fused = _apply(module, "onnx-fuse-qdq")
    (custom,) = [op for op in fused.walk() if op.name == "onnx.Custom"]
    assert custom.function_name.data == "QLinearLeakyRelu"
    assert custom.attributes["domain_name"].data == "com.microsoft"
    assert custom.attributes["alpha"].value.data == pytest.approx(ALPHA)
    assert len(custom.operands) == 5  # x, x_scale, x_zero_point, y_scale, y_zero_point
    unfused = _apply(fused, "onnx-unfuse-qdq")
    (leaky,) = [op for op in unfused.walk() if isinstance(op, LeakyReluOp)]
    assert attr(leaky, "alpha") == pytest.approx(ALPHA)
    assert _bits(run(unfused, [X])[0].results[0]) == _bits(want)
