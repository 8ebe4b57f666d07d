"""Tiny int8 TFLite models built through the schema's object API (`ModelT`, ...), packed
with file identifier `TFL3`, and run with LiteRT's interpreter: the oracle of the
`.tflite` import and of `rescale=fixed-point`."""

from __future__ import annotations

import numpy as np

schema = __import__("pytest").importorskip("ai_edge_litert.schema_py_generated")
import flatbuffers  # noqa: E402

_TYPES = {np.int8: schema.TensorType.INT8, np.uint8: schema.TensorType.UINT8,
          np.int16: schema.TensorType.INT16,
          np.int32: schema.TensorType.INT32,
          np.float32: schema.TensorType.FLOAT32, np.int64: schema.TensorType.INT64,
          np.bool_: schema.TensorType.BOOL}


class Model:
    """One subgraph: `tensor(...)` adds tensors, `op(...)` operators, `build()` packs."""

    def __init__(self) -> None:
        self.tensors: list = []
        self.buffers = [schema.BufferT()]
        self.codes: list[int] = []
        self.ops: list = []
        self.inputs: list[int] = []
        self.outputs: list[int] = []

    def tensor(self, shape, dtype=np.int8, scale=None, zero_point=None, data=None,
               axis: int = 0) -> int:
        t = schema.TensorT()
        t.shape = list(shape)
        t.type = _TYPES[dtype]
        t.name = f"t{len(self.tensors)}"
        if scale is not None:
            q = schema.QuantizationParametersT()
            q.scale = [float(s) for s in np.atleast_1d(scale)]
            zp = np.atleast_1d(0 if zero_point is None else zero_point)
            q.zeroPoint = [int(z) for z in np.broadcast_to(zp, (len(q.scale),))]
            q.quantizedDimension = axis
            t.quantization = q
        if data is not None:
            b = schema.BufferT()
            b.data = np.frombuffer(np.ascontiguousarray(np.asarray(data, dtype)).tobytes(),
                                   np.uint8)
            self.buffers.append(b)
            t.buffer = len(self.buffers) - 1
        else:
            t.buffer = 0
        self.tensors.append(t)
        return len(self.tensors) - 1

    def op(self, code: int, inputs, outputs, options=None, options_type: int = 0) -> None:
        if code not in self.codes:
            self.codes.append(code)
        o = schema.OperatorT()
        o.opcodeIndex = self.codes.index(code)
        o.inputs, o.outputs = list(inputs), list(outputs)
        if options is not None:
            o.builtinOptionsType, o.builtinOptions = options_type, options
        self.ops.append(o)

    def build(self) -> bytes:
        sub = schema.SubGraphT()
        sub.tensors, sub.operators = self.tensors, self.ops
        sub.inputs, sub.outputs = self.inputs, self.outputs
        m = schema.ModelT()
        m.version = 3
        m.subgraphs = [sub]
        m.buffers = self.buffers
        codes = []
        for c in self.codes:
            oc = schema.OperatorCodeT()
            oc.builtinCode = c
            oc.deprecatedBuiltinCode = min(c, 127)
            oc.version = 1
            codes.append(oc)
        m.operatorCodes = codes
        b = flatbuffers.Builder(1024)
        b.Finish(m.Pack(b), file_identifier=b"TFL3")
        return bytes(b.Output())


def run_litert(model: bytes, inputs: list[np.ndarray], resolver: str = "BUILTIN_REF"
               ) -> list[np.ndarray]:
    """The model's outputs from LiteRT's interpreter with the op resolver named (the
    reference kernels by default; `BUILTIN` optimised, `BUILTIN_WITHOUT_DEFAULT_DELEGATES`
    optimised without XNNPACK)."""
    from ai_edge_litert.interpreter import Interpreter, OpResolverType

    it = Interpreter(model_content=model,
                     experimental_op_resolver_type=getattr(OpResolverType, resolver))
    it.allocate_tensors()
    for d, x in zip(it.get_input_details(), inputs, strict=True):
        it.set_tensor(d["index"], x)
    it.invoke()
    return [it.get_tensor(d["index"]).copy() for d in it.get_output_details()]



def litert_inputs(detail: dict, n: int, seed: int) -> list[np.ndarray]:
    """`n` inputs for a model input (`detail`: LiteRT's input details): the all-minimum
    and all-maximum values of an integer type (-3 and 3 for a float one), then seeded
    random ones."""
    dtype, shape = detail["dtype"], tuple(detail["shape"])
    rng = np.random.default_rng(seed)
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        xs = [np.full(shape, info.min, dtype), np.full(shape, info.max, dtype)]
        xs += [rng.integers(info.min, int(info.max) + 1, shape).astype(dtype)
               for _ in range(max(0, n - 2))]
    else:
        xs = [np.full(shape, -3.0, dtype), np.full(shape, 3.0, dtype)]
        xs += [rng.standard_normal(shape).astype(dtype) for _ in range(max(0, n - 2))]
    return xs[:n]

REF_VERSIONS = {"TILE": 2}
"""Operators whose newest version LiteRT's BUILTIN_REF resolver does not register, with
the newest it does: TensorFlow 2.21's converter writes TILE as version 3 (its int16
support), the reference resolver registers TILE versions 1-2, and the int8 kernel is
one for all versions."""


def reference_model(model) -> bytes:
    """`model` (bytes or a path) with each operator code of `REF_VERSIONS` at most that
    version, so that BUILTIN_REF loads it (the kernels are the same)."""
    from pathlib import Path

    data = Path(model).read_bytes() if not isinstance(model, bytes) else model
    m = schema.ModelT.InitFromPackedBuf(data, 0)
    names = {v: k for k, v in vars(schema.BuiltinOperator).items() if not k.startswith("_")}
    changed = False
    for c in m.operatorCodes or []:
        top = REF_VERSIONS.get(names.get(max(c.builtinCode, c.deprecatedBuiltinCode)))
        if top is not None and c.version > top:
            c.version, changed = top, True
    if not changed:
        return data
    b = flatbuffers.Builder(1024)
    b.Finish(m.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output())
