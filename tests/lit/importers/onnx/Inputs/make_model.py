"""Writes the small ONNX models the lit tests of this directory import:

    python3 make_model.py NAME OUT.onnx [INPUTS.npz]

NAME: qdq (per-axis QuantizeLinear -> DequantizeLinear with named inputs / outputs),
constants (initializers of 3, 100 and 128 elements, a Constant node), contrib
(com.microsoft QLinearAdd), truncated (the qdq model cut short), unsupported (an op
qcomp lacks), bad_attr (an attribute of a later opset), bad_type (an input type the
node's opset refuses). With INPUTS, also the npz of the graph's inputs by name.
"""

import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

T = TensorProto


def model(nodes, inputs, outputs, inits=(), opset=21, extra=()):
    g = helper.make_graph(nodes, "g", inputs, outputs, list(inits))
    ops = [helper.make_opsetid("", opset), *extra]
    return helper.make_model(g, opset_imports=ops, ir_version=10)


def vi(name, t, shape):
    return helper.make_tensor_value_info(name, t, shape)


def const(name, a):
    return numpy_helper.from_array(np.asarray(a), name)


def qdq():
    return model(
        [helper.make_node("QuantizeLinear", ["x", "s", "zp"], ["q"], name="quant", axis=1,
                          saturate=1),
         helper.make_node("DequantizeLinear", ["q", "s", "zp"], ["y"], name="dequant", axis=1)],
        [vi("x", T.FLOAT, [2, 3])], [vi("y", T.FLOAT, [2, 3]), vi("q", T.INT8, [2, 3])],
        [const("s", np.array([0.5, 0.25, 2.0], np.float32)),
         const("zp", np.array([0, -3, 10], np.int8))])


def constants():
    w128 = np.arange(-64, 64, dtype=np.int8).reshape(2, 64)
    w100 = np.arange(100, dtype=np.uint8).reshape(4, 25)
    return model(
        [helper.make_node("Constant", [], ["c"], name="c0",
                          value=numpy_helper.from_array(np.array([1.5, -2.0], np.float32))),
         helper.make_node("DequantizeLinear", ["w128", "s"], ["y128"], name="dq128"),
         helper.make_node("DequantizeLinear", ["w100", "s"], ["y100"], name="dq100")],
        [], [vi("c", T.FLOAT, [2]), vi("y128", T.FLOAT, [2, 64]), vi("y100", T.FLOAT, [4, 25])],
        [const("w128", w128), const("w100", w100), const("s", np.array(0.5, np.float32))])


def contrib():
    return model(
        [helper.make_node("QLinearAdd", ["a", "sa", "za", "b", "sb", "zb", "sc", "zc"], ["c"],
                          name="add0", domain="com.microsoft")],
        [vi("a", T.UINT8, [4]), vi("b", T.UINT8, [4])], [vi("c", T.UINT8, [4])],
        [const("sa", np.array(0.5, np.float32)), const("za", np.array(128, np.uint8)),
         const("sb", np.array(0.25, np.float32)), const("zb", np.array(128, np.uint8)),
         const("sc", np.array(1.0, np.float32)), const("zc", np.array(100, np.uint8))],
        extra=[helper.make_opsetid("com.microsoft", 1)])


def unsupported():
    return model([helper.make_node("Einsum", ["x", "x"], ["y"], name="ein", equation="i,i->i")],
                 [vi("x", T.FLOAT, [3])], [vi("y", T.FLOAT, [3])])


def bad_attr():
    return model([helper.make_node("QuantizeLinear", ["x", "s"], ["y"], name="q19", block_size=2)],
                 [vi("x", T.FLOAT, [4]), vi("s", T.FLOAT, [2])], [vi("y", T.UINT8, [4])],
                 opset=19)


def bad_type():
    return model([helper.make_node("QuantizeLinear", ["x", "s"], ["y"], name="q10")],
                 [vi("x", T.FLOAT16, [4]), vi("s", T.FLOAT16, [])], [vi("y", T.UINT8, [4])],
                 opset=10)


def main():
    name, out = sys.argv[1], sys.argv[2]
    if name == "truncated":
        raw = qdq().SerializeToString()[:60]
    else:
        raw = globals()[name]().SerializeToString()
    with open(out, "wb") as f:
        f.write(raw)
    if len(sys.argv) > 3:
        feeds = {"qdq": {"x": np.array([[1.0, -2.25, 300.0], [0.24, 0.125, -7.0]], np.float32)},
                 "contrib": {"a": np.array([128, 130, 0, 255], np.uint8),
                             "b": np.array([128, 132, 0, 255], np.uint8)}}[name]
        np.savez(sys.argv[3], **feeds)


if __name__ == "__main__":
    main()
