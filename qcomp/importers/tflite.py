"""`.tflite` import: a LiteRT (TFLite) flatbuffer as quantized StableHLO text.

The flatbuffer is read with the schema that ships in `ai-edge-litert`
(`ai_edge_litert.schema_py_generated`, the `qcomp[litert]` extra). Subgraph 0 becomes
`func.func @main`: graph inputs are arguments, graph outputs are results, tensors with
buffer data are `stablehlo.constant`s. Quantized tensors get `!quant.uniform` types
(real = (q - zero_point) * scale): per-tensor `!quant.uniform<i8:f32, s:zp>`, per-axis
`!quant.uniform<i8<-127:127>:f32:d, {s0, s1, ...}>` (symmetric int8 weights keep the
spec's storage range [-127, 127]). Each operator is translated by `tflite_ops`; an
operator qcomp does not translate, or a malformed file, is an `ImportFailure` naming
the operator (`operator 3 (SQUARED_DIFFERENCE): ...`).
"""

from __future__ import annotations

import math

import numpy as np

from qcomp.importers.formats import is_tflite
from qcomp.importers.tflite_ir import (
    _MLIR,
    _NP,
    Emitter,
    ImportFailure,
    OpContext,
    Tensor,
)

INSTALL_HINT = "reading .tflite files needs ai-edge-litert: pip install 'qcomp[litert]'"


def _schema():
    try:
        from ai_edge_litert import schema_py_generated as schema
    except ImportError:
        raise ImportFailure(INSTALL_HINT) from None
    return schema


def _enum_names(enum_cls) -> dict[int, str]:
    return {v: k for k, v in vars(enum_cls).items() if not k.startswith("_")}


def _translations() -> dict:
    from qcomp.importers import tflite_composites as c
    from qcomp.importers import tflite_ops as o

    return {
        "FULLY_CONNECTED": o.fully_connected, "CONV_2D": o.conv_2d,
        "DEPTHWISE_CONV_2D": o.depthwise_conv_2d, "ADD": o.binary("add"),
        "SUB": o.binary("subtract"), "MUL": o.binary("multiply"), "MAX_POOL_2D": o.max_pool_2d,
        "AVERAGE_POOL_2D": c.average_pool_2d, "RESHAPE": o.reshape, "TRANSPOSE": o.transpose,
        "CONCATENATION": o.concatenation, "PAD": o.pad, "SOFTMAX": c.softmax, "MEAN": c.mean,
        "LOGISTIC": o.unary("logistic"), "TANH": o.unary("tanh"), "QUANTIZE": o.quantize,
        "DEQUANTIZE": o.dequantize,
    }


def _tensor(schema, sub, model, i: int, dtypes: dict[int, str]) -> Tensor:
    t = sub.tensors[i]
    dtype = dtypes.get(t.type, str(t.type))
    name = t.name.decode() if isinstance(t.name, bytes) else (t.name or "")
    shape = tuple(int(d) for d in (t.shape if t.shape is not None else ()))
    out = Tensor(i, name, shape, dtype)
    q = t.quantization
    if q is not None and q.scale is not None and len(q.scale) > 0:
        out.scales = np.asarray(q.scale, np.float32).astype(np.float64)
        zps = q.zeroPoint if q.zeroPoint is not None and len(q.zeroPoint) else [0]
        out.zero_points = np.broadcast_to(np.asarray(zps, np.int64), out.scales.shape).copy()
        out.axis = int(q.quantizedDimension)
    buf = model.buffers[t.buffer] if model.buffers and 0 < t.buffer < len(model.buffers) \
        else None
    if buf is not None and buf.data is not None and len(buf.data):
        if dtype not in _NP:
            raise ImportFailure(f"tensor {i} ('{name}'): constant of type {dtype} "
                                "is not supported")
        raw = np.asarray(buf.data, np.uint8).tobytes()
        arr = np.frombuffer(raw, _NP[dtype])
        if arr.size != math.prod(shape):
            raise ImportFailure(f"tensor {i} ('{name}'): buffer holds {arr.size} values "
                                f"for shape {list(shape)}")
        out.data = arr.reshape(shape)
    return out


def import_tflite(data: bytes) -> str:
    """MLIR text (quantized StableHLO) of the model in `data`; raises `ImportFailure`."""
    schema = _schema()
    try:
        root = schema.Model.GetRootAs(data, 0)
        model = schema.ModelT.InitFromObj(root)
    except Exception as e:  # a corrupt flatbuffer raises anything from struct to Index
        raise ImportFailure(f"not a readable TFLite flatbuffer ({type(e).__name__}: {e})") \
            from None
    if not model.subgraphs:
        raise ImportFailure("the model has no subgraph")
    ops = _enum_names(schema.BuiltinOperator)
    TRANSLATIONS = _translations()
    dtypes = _enum_names(schema.TensorType)
    sub = model.subgraphs[0]
    n = len(sub.tensors or [])

    def tensor(i: int, where: str) -> Tensor | None:
        if i < 0:
            return None
        if i >= n:
            raise ImportFailure(f"{where}: tensor index {i} out of range ({n} tensors)")
        return _tensor(schema, sub, model, i, dtypes)

    out = Emitter()
    args = []
    for k, i in enumerate(sub.inputs if sub.inputs is not None else []):
        t = tensor(int(i), "subgraph input")
        if t.dtype not in _MLIR:
            raise ImportFailure(f"subgraph input {k}: type {t.dtype} is not supported")
        out.values[t.index] = f"%arg{k}"
        args.append(f"%arg{k}: {t.type()}")
    for index, op in enumerate(sub.operators or []):
        codes = model.operatorCodes or []
        if op.opcodeIndex >= len(codes):
            raise ImportFailure(f"operator {index}: opcode index {op.opcodeIndex} out of range")
        code = codes[op.opcodeIndex]
        builtin = max(code.builtinCode, code.deprecatedBuiltinCode)
        name = ops.get(builtin, f"opcode {builtin}")
        if name == "CUSTOM":
            cc = code.customCode
            name = f"CUSTOM {cc.decode() if isinstance(cc, bytes) else cc}"
        where = f"operator {index} ({name})"
        ctx = OpContext(index, name,
                        [tensor(int(i), where) for i in (op.inputs if op.inputs is not None
                                                         else [])],
                        [tensor(int(i), where) for i in (op.outputs if op.outputs is not None
                                                         else [])],
                        op.builtinOptions, out)
        translate = TRANSLATIONS.get(name)
        if translate is None:
            raise ctx.fail("operator not supported by the qcomp importer (supported: "
                           f"{', '.join(sorted(TRANSLATIONS))})")
        for t in ctx.inputs + ctx.outputs:
            if t is not None and t.dtype not in _MLIR:
                raise ctx.fail(f"tensor {t.index} ('{t.name}') has type {t.dtype}, "
                               "not supported")
        results = translate(ctx)
        for t, v in zip(ctx.outputs, results, strict=True):
            out.values[t.index] = v
    results, types = [], []
    for i in (sub.outputs if sub.outputs is not None else []):
        t = tensor(int(i), "subgraph output")
        if t.index not in out.values and t.data is None:
            raise ImportFailure(f"subgraph output tensor {t.index} ('{t.name}') is never "
                                "written")
        results.append(OpContext(-1, "", [], [], None, out).value(t))
        types.append(t.type())
    sig = ", ".join(args)
    body = "\n".join(out.lines)
    ret = (f"    return {', '.join(results)} : {', '.join(types)}" if results
           else "    return")
    res = f" -> ({', '.join(types)})" if len(types) != 1 else f" -> {types[0]}"
    if not types:
        res = ""
    text = ["module {", f"  func.func @main({sig}){res} {{", body, ret, "  }"]
    text += out.functions
    text.append("}")
    return "\n".join(line for line in text if line) + "\n"


__all__ = ["INSTALL_HINT", "ImportFailure", "import_tflite", "is_tflite"]
