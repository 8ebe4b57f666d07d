"""Output types of onnxruntime's com.microsoft ops, which ONNX's shape inference leaves
untyped (a QOperator model carries no value_info for them): the importer infers them as
onnxruntime's schemas do; a com.microsoft op qcomp does not have is `unsupported op`."""

from __future__ import annotations

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from qcomp.importers.onnx import OnnxImportError, import_model  # noqa: E402

MS = "com.microsoft"


def _model(nodes, inits, x_shape, y_shape, y_type=TensorProto.UINT8):
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.UINT8,
                                                                     x_shape)],
                          [helper.make_tensor_value_info("y", y_type, y_shape)], inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17),
                                               helper.make_opsetid(MS, 1)])


def _qparams():
    return [numpy_helper.from_array(np.array(0.1, np.float32), "s"),
            numpy_helper.from_array(np.array(128, np.uint8), "z"),
            numpy_helper.from_array(np.full((1, 4), 3, np.uint8), "b"),
            numpy_helper.from_array(np.arange(12, dtype=np.int8).reshape(4, 3), "w"),
            numpy_helper.from_array(np.array(0, np.int8), "wz")]


def test_a_chain_of_contrib_ops_is_typed():
    """QLinearAdd (broadcast) -> QLinearSigmoid -> QLinearConcat -> QGemm ->
    QLinearSoftmax: every intermediate typed from its inputs' types."""
    nodes = [helper.make_node("QLinearAdd", ["x", "s", "z", "b", "s", "z", "s", "z"], ["a"],
                              domain=MS),
             helper.make_node("QLinearSigmoid", ["a", "s", "z", "s", "z"], ["sg"], domain=MS),
             helper.make_node("QLinearConcat", ["s", "z", "a", "s", "z", "sg", "s", "z"],
                              ["c"], domain=MS, axis=0),
             helper.make_node("QGemm", ["c", "s", "z", "w", "s", "wz", "", "s", "z"], ["g"],
                              domain=MS),
             helper.make_node("QLinearSoftmax", ["g", "s", "z", "s", "z"], ["y"], domain=MS,
                              axis=-1, opset=13)]
    module = import_model(_model(nodes, _qparams(), [2, 4], [4, 3]))
    types = {op.properties["function_name"].data: str(op.results[0].type)
             for op in module.walk() if op.name == "onnx.Custom"}
    assert types == {"QLinearAdd": "tensor<2x4xui8>", "QLinearSigmoid": "tensor<2x4xui8>",
                     "QLinearConcat": "tensor<4x4xui8>", "QGemm": "tensor<4x3xui8>",
                     "QLinearSoftmax": "tensor<4x3xui8>"}


def test_an_unknown_contrib_op_is_unsupported():
    nodes = [helper.make_node("QuantizeWithOrder", ["x", "s"], ["p"], name="order",
                              domain=MS, order_input=1, order_output=1),
             helper.make_node("QLinearSigmoid", ["p", "s", "z", "s", "z"], ["y"], domain=MS)]
    with pytest.raises(OnnxImportError) as e:
        import_model(_model(nodes, _qparams(), [1, 2, 4], [1, 2, 3]))
    assert str(e.value) == "node 'order' (QuantizeWithOrder): unsupported op"
