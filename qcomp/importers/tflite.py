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
from dataclasses import dataclass, field

import numpy as np

INSTALL_HINT = "reading .tflite files needs ai-edge-litert: pip install 'qcomp[litert]'"


class ImportFailure(Exception):
    """A model qcomp cannot import; the message names the operator where there is one."""


def is_tflite(name: str, data: bytes) -> bool:
    """A `.tflite` file by name, or by the flatbuffer file identifier `TFL3` at byte 4."""
    return name.endswith(".tflite") or data[4:8] == b"TFL3"


def _schema():
    try:
        from ai_edge_litert import schema_py_generated as schema
    except ImportError:
        raise ImportFailure(INSTALL_HINT) from None
    return schema


def _enum_names(enum_cls) -> dict[int, str]:
    return {v: k for k, v in vars(enum_cls).items() if not k.startswith("_")}


_NP = {"FLOAT32": np.float32, "INT32": np.int32, "INT8": np.int8, "INT64": np.int64,
       "INT16": np.int16, "UINT8": np.uint8, "BOOL": np.bool_}
_MLIR = {"FLOAT32": "f32", "INT32": "i32", "INT8": "i8", "INT64": "i64", "INT16": "i16",
         "UINT8": "ui8", "BOOL": "i1"}


def fmt_float(x: float) -> str:
    """An f64 literal MLIR reads back to exactly `x`."""
    return f"{float(x):.17e}"


@dataclass
class Tensor:
    """One TFLite tensor: shape, element type, quantization, constant data."""

    index: int
    name: str
    shape: tuple[int, ...]
    dtype: str                              # schema TensorType name (INT8, FLOAT32, ...)
    scales: np.ndarray | None = None        # f32 scales as float64
    zero_points: np.ndarray | None = None
    axis: int = 0
    data: np.ndarray | None = None

    @property
    def quantized(self) -> bool:
        return self.scales is not None and self.dtype in ("INT8", "INT16", "INT32", "UINT8")

    @property
    def per_axis(self) -> bool:
        return self.quantized and self.scales.size > 1

    @property
    def scale(self) -> float:
        return float(self.scales[0])

    @property
    def zero_point(self) -> int:
        return int(self.zero_points[0])

    def element(self, symmetric_weight: bool = False) -> str:
        """The MLIR element type: `!quant.uniform<...>` for a quantized tensor."""
        base = _MLIR[self.dtype]
        if not self.quantized:
            return base
        storage = base
        if symmetric_weight and self.dtype == "INT8" and not np.any(self.zero_points) and \
                self.data is not None and int(self.data.min(initial=0)) >= -127:
            storage = "i8<-127:127>"
        if self.per_axis:
            pairs = ", ".join(f"{fmt_float(s)}:{int(z)}" if z else fmt_float(s)
                              for s, z in zip(self.scales, self.zero_points))
            return f"!quant.uniform<{storage}:f32:{self.axis}, {{{pairs}}}>"
        return f"!quant.uniform<{storage}:f32, {fmt_float(self.scale)}:{self.zero_point}>"

    def type(self, shape=None, symmetric_weight: bool = False) -> str:
        return tensor_type(self.shape if shape is None else shape,
                           self.element(symmetric_weight))


def tensor_type(shape, element: str) -> str:
    dims = "".join(f"{d}x" for d in shape)
    return f"tensor<{dims}{element}>"


def dense(values: np.ndarray) -> str:
    """A `dense<...>` literal of an integer or float array (nested lists, or a splat)."""
    flat = values.reshape(-1)
    if flat.size and np.all(flat == flat[0]):
        return f"dense<{_scalar(flat[0])}>"
    if values.ndim == 0:
        return f"dense<{_scalar(values)}>"

    def nest(a):
        if a.ndim == 1:
            return "[" + ", ".join(_scalar(v) for v in a) + "]"
        return "[" + ", ".join(nest(x) for x in a) + "]"
    return f"dense<{nest(values)}>"


def constant(values, shape, element: str, storage: str) -> str:
    """`stablehlo.constant` text of `values` (storage integers for a quantized element)."""
    if element.startswith("!quant"):
        return (f"stablehlo.constant() <{{value = {dense(np.asarray(values))} : "
                f"{tensor_type(shape, storage)}}}> : () -> {tensor_type(shape, element)}")
    return f"stablehlo.constant {dense(np.asarray(values))} : {tensor_type(shape, element)}"


def _scalar(v) -> str:
    if isinstance(v, (np.floating, float)):
        return fmt_float(float(v))
    if isinstance(v, (np.bool_, bool)):
        return "true" if v else "false"
    return str(int(v))


@dataclass
class Emitter:
    """The text of `@main` and its decomposition functions, built op by op."""

    lines: list[str] = field(default_factory=list)
    functions: list[str] = field(default_factory=list)
    values: dict[int, str] = field(default_factory=dict)
    counter: int = 0

    def fresh(self) -> str:
        self.counter += 1
        return f"%v{self.counter}"

    def emit(self, text: str) -> str:
        """`%vN = text`; returns `%vN`."""
        name = self.fresh()
        self.lines.append(f"    {name} = {text}")
        return name


@dataclass
class OpContext:
    """What an operator translation sees: its tensors, options and the emitter."""

    index: int
    name: str
    inputs: list[Tensor | None]
    outputs: list[Tensor]
    options: object
    out: Emitter

    def fail(self, message: str) -> ImportFailure:
        return ImportFailure(f"operator {self.index} ({self.name}): {message}")

    def value(self, t: Tensor, shape=None, symmetric_weight: bool = False) -> str:
        """The SSA value of tensor `t` (a constant is emitted on first use)."""
        key = t.index if shape is None else (t.index, tuple(shape))
        if key in self.out.values:
            return self.out.values[key]
        if t.data is None:
            raise self.fail(f"tensor {t.index} ('{t.name}') is read before it is written")
        data = t.data if shape is None else t.data.reshape(shape)
        v = self.out.emit(constant(data, data.shape, t.element(symmetric_weight),
                                   _MLIR[t.dtype]))
        self.out.values[key] = v
        return v


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
    from qcomp.importers.tflite_ops import TRANSLATIONS

    try:
        root = schema.Model.GetRootAs(data, 0)
        model = schema.ModelT.InitFromObj(root)
    except Exception as e:  # a corrupt flatbuffer raises anything from struct to Index
        raise ImportFailure(f"not a readable TFLite flatbuffer ({type(e).__name__}: {e})") \
            from None
    if not model.subgraphs:
        raise ImportFailure("the model has no subgraph")
    ops = _enum_names(schema.BuiltinOperator)
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


__all__ = ["constant", "INSTALL_HINT", "ImportFailure", "import_tflite", "is_tflite"]
