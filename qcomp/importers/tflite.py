"""`.tflite` import: a LiteRT (TFLite) flatbuffer as quantized StableHLO, built with
xDSL builders.

The flatbuffer is read with the schema that ships in `ai-edge-litert`
(`ai_edge_litert.schema_py_generated`, the `qcomp[litert]` extra). Subgraph 0 becomes
`func.func @main`: graph inputs are arguments, graph outputs are results, tensors with
buffer data are `stablehlo.constant`s. Quantized tensors get `!quant.uniform` types
(real = (q - zero_point) * scale): per-tensor `!quant.uniform<i8:f32, s:zp>`, per-axis
`!quant.uniform<i8<-127:127>:f32:d, {s0, s1, ...}>` (symmetric int8 weights keep the
spec's storage range [-127, 127]).

Each operator is its declaration in `qcomp.tflite` (`Operator`: options table, operand
roles, `build`): the importer checks what the declaration states (operand count, -1
only for an optional operand, element types, ranks, constants, the options table's type
and every field), then calls `build`, then verifies the ops it built. Every problem is
an `ImportFailure` naming the operator and the tensor (`operator 3 (CONV_2D): tensor 5
('w'): scale inf is not a positive finite normal f32`); an operator without a `build`
keeps the one line `operator 3 (SQUARED_DIFFERENCE): operator not supported by the
qcomp importer (supported: ...)`.
"""

from __future__ import annotations

import math

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, ModuleOp
from xdsl.ir import Block, Operation, Region
from xdsl.utils.exceptions import VerifyException

from qcomp.importers.formats import is_tflite
from qcomp.tflite.context import (
    ELEMENT,
    NUMPY,
    ImportFailure,
    Module,
    OpContext,
    Tensor,
    check_scales,
    type_problem,
)
from qcomp.tflite.operator import Operator

INSTALL_HINT = "reading .tflite files needs ai-edge-litert: pip install 'qcomp[litert]'"


def _schema():
    try:
        from ai_edge_litert import schema_py_generated as schema
    except ImportError:
        raise ImportFailure(INSTALL_HINT) from None
    return schema


def _enum_names(enum_cls) -> dict[int, str]:
    return {v: k for k, v in vars(enum_cls).items() if not k.startswith("_")}


def _text(raw, what: str) -> str:
    """A flatbuffer string (bytes) as text; not UTF-8 is an ImportFailure."""
    if raw is None:
        return ""
    if isinstance(raw, str):
        return raw
    try:
        return bytes(raw).decode()
    except UnicodeDecodeError:
        raise ImportFailure(f"{what} is not UTF-8: {bytes(raw)!r}") from None


class _Reader:
    """The model's tensors, read and checked once each."""

    def __init__(self, schema, model) -> None:
        self.model = model
        self.sub = model.subgraphs[0]
        self.dtypes = _enum_names(schema.TensorType)
        self.n = len(self.sub.tensors or [])
        self.cache: dict[int, Tensor] = {}

    def tensor(self, i: int, where: str) -> Tensor:
        if not 0 <= i < self.n:
            raise ImportFailure(f"{where}: tensor index {i} out of range ({self.n} tensors)")
        if i not in self.cache:
            self.cache[i] = self._read(i, where)
        return self.cache[i]

    def _read(self, i: int, where: str) -> Tensor:
        t = self.sub.tensors[i]
        dtype = self.dtypes.get(t.type, str(t.type))
        name = _text(t.name, f"{where}: tensor {i}: the name")
        shape = tuple(int(d) for d in (t.shape if t.shape is not None else ()))
        out = Tensor(i, name, shape, dtype)

        def fail(message: str) -> ImportFailure:
            return ImportFailure(f"{where}: {out.label}: {message}")
        if any(d < 0 for d in shape):
            raise fail(f"shape {list(shape)} has a dynamic dimension (not supported)")
        q = t.quantization
        if q is not None and q.scale is not None and len(q.scale) > 0:
            out.scales = np.asarray(q.scale, np.float32).astype(np.float64)
            zps = np.asarray(q.zeroPoint if q.zeroPoint is not None else [], np.int64)
            if zps.size == 0:
                zps = np.zeros(out.scales.shape, np.int64)
            if zps.size != out.scales.size:
                raise fail(f"{zps.size} zero points for {out.scales.size} scales")
            out.zero_points = zps
            out.axis = int(q.quantizedDimension)
            problem = check_scales(out) or (type_problem(out) if dtype in ELEMENT else None)
            if problem:
                raise fail(problem)
        buffers = self.model.buffers or []
        buf = buffers[t.buffer] if 0 < t.buffer < len(buffers) else None
        if buf is not None and buf.data is not None and len(buf.data):
            if dtype not in NUMPY:
                raise fail(f"constant of type {dtype} is not supported")
            raw = np.asarray(buf.data, np.uint8).tobytes()
            size = np.dtype(NUMPY[dtype]).itemsize
            if len(raw) % size:
                raise fail(f"buffer of {len(raw)} bytes is not a whole number of {dtype} "
                           "values")
            arr = np.frombuffer(raw, NUMPY[dtype])
            if arr.size != math.prod(shape):
                raise fail(f"buffer holds {arr.size} values for shape {list(shape)}")
            out.data = arr.reshape(shape)
        return out


def _operator_name(ops: dict[int, str], code, index: int) -> str:
    builtin = max(code.builtinCode, code.deprecatedBuiltinCode)
    name = ops.get(builtin, f"opcode {builtin}")
    if name == "CUSTOM":
        name = f"CUSTOM {_text(code.customCode, f'operator {index}: the custom opcode')}"
    return name


def _operands(ctx_where: str, decl: Operator, reader: _Reader, op) -> tuple[list, list]:
    """The operator's input (None for an absent optional one) and output tensors,
    checked against its declared operands."""
    given = [int(i) for i in (op.inputs if op.inputs is not None else [])]
    declared = decl.inputs
    if decl.variadic:
        ok, wanted = len(given) >= 1, "at least 1 input"
        roles = [declared[0]] * len(given)
    else:
        required = sum(1 for d in declared if not d.optional)
        ok = required <= len(given) <= len(declared)
        wanted = (f"{required} input{'s' * (required != 1)}" if required == len(declared)
                  else f"{required} to {len(declared)} inputs")
        roles = list(declared[:len(given)])
    if not ok:
        raise ImportFailure(f"{ctx_where}: takes {wanted}, {len(given)} given")
    inputs: list[Tensor | None] = []
    for k, (i, role) in enumerate(zip(given, roles)):
        if i < 0:
            if not role.optional:
                raise ImportFailure(f"{ctx_where}: input {k} ({role.role}) is required, "
                                    "given as -1")
            inputs.append(None)
            continue
        inputs.append(reader.tensor(i, ctx_where))
    outs = [int(i) for i in (op.outputs if op.outputs is not None else [])]
    if decl.outputs is None and not outs:
        raise ImportFailure(f"{ctx_where}: has no outputs, takes at least 1")
    if decl.outputs is not None and len(outs) != decl.outputs:
        raise ImportFailure(f"{ctx_where}: has {len(outs)} outputs, takes {decl.outputs}")
    outputs = []
    for k, i in enumerate(outs):
        if i < 0:
            raise ImportFailure(f"{ctx_where}: output {k} is given as -1")
        outputs.append(reader.tensor(i, ctx_where))
    for t in inputs + outputs:
        if t is not None and t.dtype not in ELEMENT:
            raise ImportFailure(f"{ctx_where}: {t.label} has type {t.dtype}, not supported")
    for k, (t, role) in enumerate(zip(inputs, roles)):
        if t is None:
            continue
        what = f"{ctx_where}: input {k} ({role.role}) {t.label}"
        if role.types and t.dtype not in role.types:
            raise ImportFailure(f"{what} is {t.dtype}; {decl.tflite} takes "
                                f"{', '.join(role.types)}")
        if role.rank and len(t.shape) not in role.rank:
            raise ImportFailure(f"{what} has rank {len(t.shape)}; {decl.tflite} takes rank "
                                f"{' or '.join(map(str, role.rank))}")
        if len(t.shape) < role.min_rank:
            raise ImportFailure(f"{what} has rank {len(t.shape)}; {decl.tflite} takes rank "
                                f">= {role.min_rank}")
        if role.constant and t.data is None:
            raise ImportFailure(f"{what} must be a constant")
    return inputs, outputs


def _options(where: str, decl: Operator, op, option_names: dict[int, str]):
    """The operator's builtin options object, checked against its declaration (None:
    absent, and the declaration lets its fields take the schema's defaults)."""
    given = int(op.builtinOptionsType or 0)
    spec = decl.options
    table = spec.table if spec is not None else None
    if given and option_names.get(given) != table:
        name = option_names.get(given, f"options type {given}")
        raise ImportFailure(f"{where}: builtin options are {name}, "
                            f"{'expected ' + table if table else 'it takes none'}")
    options = op.builtinOptions if given else None
    if spec is None:
        return None
    if options is None:
        if spec.required:
            raise ImportFailure(f"{where}: the builtin options table {table} is missing")
        return None
    for field, check in spec.fields.items():
        value = getattr(options, field, None)
        problem = check(value)
        if problem:
            raise ImportFailure(f"{where}: option {field} = {value!r} {problem}")
    return options


def _verify_new(ctx: OpContext, block: Block, after, functions_before: int,
                origins: dict[Operation, str] | None) -> None:
    """The verifier on the ops `ctx`'s build added (an objection names the operator);
    each of them (and the ops inside) is recorded in `origins` as `ctx`'s operator."""
    ops = []
    op = block.first_op if after is None else after.next_op
    while op is not block.last_op:
        ops.append(op)
        op = op.next_op
    ops += list(ctx.out.module.body.block.ops)[functions_before:]
    try:
        for o in ops:
            o.verify()
    except VerifyException as e:
        raise ctx.fail(str(e).splitlines()[0]) from None
    if origins is not None:
        for o in ops:
            for inner in o.walk():
                origins[inner] = ctx.where


def import_module(data: bytes, origins: dict[Operation, str] | None = None) -> ModuleOp:
    """The quantized StableHLO module of the model in `data`; raises `ImportFailure`.

    `origins`, when given, receives each op built for an operator (and the ops of its
    decomposition function) -> `operator N (NAME)`, and the constants of graph outputs
    -> `subgraph output`: what a diagnostic about the module's ops can name."""
    schema = _schema()
    try:
        root = schema.Model.GetRootAs(data, 0)
        model = schema.ModelT.InitFromObj(root)
    except Exception as e:  # noqa: BLE001 - a corrupt flatbuffer raises anything (struct, Index)
        raise ImportFailure(f"not a readable TFLite flatbuffer ({type(e).__name__}: {e})") \
            from None
    if not model.subgraphs:
        raise ImportFailure("the model has no subgraph")
    from qcomp.tflite.operators import imported

    ops = _enum_names(schema.BuiltinOperator)
    option_names = _enum_names(schema.BuiltinOptions)
    declarations = imported()
    reader = _Reader(schema, model)
    sub = reader.sub

    arg_tensors = [reader.tensor(int(i), "subgraph input")
                   for i in (sub.inputs if sub.inputs is not None else [])]
    for k, t in enumerate(arg_tensors):
        if t.dtype not in ELEMENT:
            raise ImportFailure(f"subgraph input {k}: type {t.dtype} is not supported")
    arg_types = [t.type() for t in arg_tensors]
    main = Block([func.ReturnOp()], arg_types=arg_types)
    # @main first (its result types are set at the end), the decompositions after it
    f = func.FuncOp("main", (arg_types, []), Region(main))
    out = Module(ModuleOp([f]), main)
    for t, arg in zip(arg_tensors, main.args):
        out.values[t.index] = arg
    codes = model.operatorCodes or []
    for index, op in enumerate(sub.operators or []):
        if not 0 <= op.opcodeIndex < len(codes):
            raise ImportFailure(f"operator {index}: opcode index {op.opcodeIndex} out of range")
        name = _operator_name(ops, codes[op.opcodeIndex], index)
        where = f"operator {index} ({name})"
        decl = declarations.get(name)
        if decl is None or decl.build is None:
            raise ImportFailure(f"{where}: operator not supported by the qcomp importer "
                                f"(supported: {', '.join(sorted(declarations))})")
        inputs, outputs = _operands(where, decl, reader, op)
        options = _options(where, decl, op, option_names)
        ctx = OpContext(index, name, inputs, outputs, options, out)
        assert main.last_op is not None  # the placeholder return
        last, functions = main.last_op.prev_op, len(out.module.body.block.ops)
        try:
            results = decl.build(ctx)
        except (VerifyException, ValueError) as e:
            raise ctx.fail(str(e).splitlines()[0]) from None
        _verify_new(ctx, main, last, functions, origins)
        for t, v in zip(ctx.outputs, results, strict=True):
            out.values[t.index] = v
    results, types = [], []
    for i in (sub.outputs if sub.outputs is not None else []):
        t = reader.tensor(int(i), "subgraph output")
        if t.index not in out.values and t.data is None:
            raise ImportFailure(f"subgraph output {t.label} is never written")
        if t.dtype not in ELEMENT:
            raise ImportFailure(f"subgraph output {t.label}: type {t.dtype} is not supported")
        v = OpContext(-1, "", [], [], None, out).value(t)
        if origins is not None and v.owner not in origins and not isinstance(v.owner, Block):
            origins[v.owner] = "subgraph output"
        results.append(v)
        types.append(t.type())
    placeholder = main.last_op
    main.add_op(func.ReturnOp(*results))
    main.erase_op(placeholder)
    for v, t in zip(results, types):
        if v.type != t:
            raise ImportFailure(f"subgraph output: the value written has type {v.type}, "
                                f"the output declares {t}")
    f.function_type = FunctionType.from_lists(arg_types, types)
    return out.module


def import_tflite(data: bytes) -> str:
    """MLIR text (quantized StableHLO) of the model in `data`, printed from the module
    `import_module` builds, each op built for an operator located at it
    (`loc("operator N (NAME)")`, so diagnostics name the operator); raises
    `ImportFailure`."""
    from qcomp.ir import print_located

    origins: dict[Operation, str] = {}
    return print_located(import_module(data, origins), origins)


__all__ = ["INSTALL_HINT", "ImportFailure", "import_module", "import_tflite", "is_tflite"]
