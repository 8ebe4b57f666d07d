"""One ONNX node as an onnx model (for `onnx.reference.ReferenceEvaluator` and
onnxruntime) and as onnx-mlir text (for qcomp), from the same inputs and attributes."""

from __future__ import annotations

import numpy as np

from qcomp.registry import parse_module

_MLIR_ELEMENT = {np.dtype(np.float32): "f32", np.dtype(np.float64): "f64",
                 np.dtype(np.float16): "f16", np.dtype(np.int64): "i64",
                 np.dtype(np.int32): "i32", np.dtype(np.int8): "i8", np.dtype(np.uint8): "ui8"}
_MLIR_OP = {"MaxPool": "MaxPoolSingleOut"}


def tensor_type(shape, dtype) -> str:
    return "tensor<" + "".join(f"{d}x" for d in shape) + _MLIR_ELEMENT[np.dtype(dtype)] + ">"


def attr_text(v) -> str:
    if isinstance(v, bool | int | np.integer):
        return f"{int(v)} : si64"
    if isinstance(v, float):
        return f"{v!r} : f32"
    if isinstance(v, str):
        return f'"{v}"'
    return "[" + ", ".join(str(int(x)) for x in v) + "]"


def mlir_text(op_type: str, inputs: list[np.ndarray | None], attrs: dict,
              out_shape, out_dtype) -> str:
    """`func.func @main` running the one op on its arguments (None: `onnx.NoValue`)."""
    args = [f"%a{i}: {tensor_type(x.shape, x.dtype)}"
            for i, x in enumerate(x for x in inputs if x is not None)]
    lines, operands, types = [], [], []
    k = 0
    for i, x in enumerate(inputs):
        if x is None:
            lines.append(f'  %none{i} = "onnx.NoValue"() {{value}} : () -> none')
            operands.append(f"%none{i}")
            types.append("none")
        else:
            operands.append(f"%a{k}")
            types.append(tensor_type(x.shape, x.dtype))
            k += 1
    out_t = tensor_type(out_shape, out_dtype)
    a = ("{" + ", ".join(f"{n} = {attr_text(v)}" for n, v in sorted(attrs.items())) + "}"
         if attrs else "")
    lines.append(f'  %y = "onnx.{_MLIR_OP.get(op_type, op_type)}"({", ".join(operands)}) {a} : '
                 f'({", ".join(types)}) -> {out_t}')
    return (f"func.func @main({', '.join(args)}) -> {out_t} {{\n" + "\n".join(lines)
            + f"\n  return %y : {out_t}\n}}\n")


def onnx_model(op_type: str, inputs: list[np.ndarray | None], attrs: dict, opset: int = 21):
    from onnx import helper
    from onnx.helper import np_dtype_to_tensor_dtype

    names = ["" if x is None else f"in{i}" for i, x in enumerate(inputs)]
    node = helper.make_node(op_type, names, ["out"], **attrs)
    graph = helper.make_graph(
        [node], "g",
        [helper.make_tensor_value_info(n, np_dtype_to_tensor_dtype(x.dtype), x.shape)
         for n, x in zip(names, inputs) if x is not None],
        [helper.make_tensor_value_info("out", np_dtype_to_tensor_dtype(inputs[0].dtype), None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def reference(op_type: str, inputs: list[np.ndarray | None], attrs: dict) -> np.ndarray:
    from onnx.reference import ReferenceEvaluator

    model = onnx_model(op_type, inputs, attrs)
    feeds = {f"in{i}": x for i, x in enumerate(inputs) if x is not None}
    return np.asarray(ReferenceEvaluator(model).run(None, feeds)[0])


def run_qcomp(op_type: str, inputs: list[np.ndarray | None], attrs: dict, out_shape,
              out_dtype) -> np.ndarray:
    from qcomp.interpreter import run

    module = parse_module(mlir_text(op_type, inputs, attrs, out_shape, out_dtype))
    module.verify()
    (r,) = run(module, [x for x in inputs if x is not None])
    if r.error is not None:
        raise AssertionError(r.error)
    return np.asarray(r.results[0])


def onnxruntime_run(op_type: str, inputs: list[np.ndarray | None], attrs: dict) -> np.ndarray:
    import onnxruntime as ort

    model = onnx_model(op_type, inputs, attrs)
    session = ort.InferenceSession(model.SerializeToString(),
                                   providers=["CPUExecutionProvider"])
    feeds = {f"in{i}": x for i, x in enumerate(inputs) if x is not None}
    return np.asarray(session.run(None, feeds)[0])
