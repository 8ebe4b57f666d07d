"""`.onnx` models -> the `onnx` dialect, as onnx-mlir's `--EmitONNXBasic` gives them:

    func.func @main_graph(%arg0: tensor<1x3xf32> {onnx.name = "x"}) -> (tensor<1x3xui8> {onnx.name = "y"}) {
      %0 = onnx.Constant dense<0.5> : tensor<f32>            // an initializer
      %1 = "onnx.QuantizeLinear"(%arg0, %0, %2) <{axis = 1 : si64}> {onnx_node_name = "q"} : ...
      return %1 : tensor<1x3xui8>
    }

- graph inputs (initializers excluded) and outputs in order, their ONNX names as
  `onnx.name` argument / result attributes; value types from ONNX's shape inference
  (`onnx.shape_inference.infer_shapes`, strict), `?` for unknown sizes;
- each node checked against its own opset (`onnx.defs.get_schema(op, opset)`): its
  attributes and its inputs' element types must be that version's, else a diagnostic;
- a node of the standard domain becomes the onnx op declaring its op_type (`OnnxFacts`)
  (`unsupported op` otherwise); a node of another domain (com.microsoft) becomes
  `onnx.Custom` with `function_name` / `domain_name`; an absent optional input is
  `onnx.NoValue`;
- ONNX attributes: INT `si64`, FLOAT `f32`, STRING, INTS `[i64]`, FLOATS, TENSOR (dense);
  Cast's `to` as the MLIR type (onnx-mlir's TypeAttr).

Every problem is an `OnnxImportError` whose message names the node
(`node 'conv1' (Conv): ...`); the tools print it as one line.
"""

from __future__ import annotations

import re

import numpy as np
from xdsl.builder import Builder, InsertPoint
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    AnyFloat,
    ArrayAttr,
    BytesAttr,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    NoneType,
    StringAttr,
    TensorType,
    UnrankedTensorType,
    f32,
    i64,
)
from xdsl.ir import Attribute, Block, Region, SSAValue
from xdsl.irdl import VarOperandDef, VarResultDef

from qcomp.dialects.onnx.core import SI64, ConstantOp, CustomOp, NoValueOp
from qcomp.dialects.onnx.types import NAME_OF_DTYPE, mlir_type
from qcomp.importers import onnx_contrib_types
from qcomp.importers.onnx_checks import (
    OnnxImportError,
    check_names,
    check_order,
    inference_message,
    isolated,
    node_label,
)
from qcomp.importers.onnx_sequence_types import SEQUENCE_TYPES
from qcomp.importers.onnx_shapes import dims as _dims
from qcomp.importers.onnx_shapes import input_type as _input
from qcomp.importers.onnx_shapes import int_attr as _int_attr
from qcomp.importers.onnx_shapes import typed as _typed

INSTALL_HINT = "the ONNX importer needs the onnx package: pip install 'qcomp[onnx]'"
STANDARD_DOMAINS = ("", "ai.onnx")


def _onnx():
    try:
        import onnx
    except ImportError:
        raise OnnxImportError(INSTALL_HINT) from None
    return onnx


def load(raw: bytes):
    """The ModelProto of serialized bytes (OnnxImportError when they are not one)."""
    onnx = _onnx()
    from google.protobuf.message import DecodeError

    model = onnx.ModelProto()
    try:
        model.ParseFromString(raw)
    except (DecodeError, RuntimeError, ValueError) as e:
        raise OnnxImportError(f"not a valid ONNX model (truncated or corrupt): {e}") from None
    if not model.HasField("graph"):
        raise OnnxImportError("not a valid ONNX model: it has no graph")
    return model


def import_bytes(raw: bytes) -> ModuleOp:
    return import_model(load(raw))


def import_text(raw: bytes) -> str:
    """The printed module of a serialized model, each op built for a node or an
    initializer located at it (`loc("node 'conv1' (Conv)")`, `loc("initializer 'w'")`),
    so that diagnostics about it name the node, not a line of this text."""
    from qcomp.ir import print_located

    origins: dict = {}
    return print_located(import_model(load(raw), origins), origins)


# -- types and constants ------------------------------------------------------------------

def _tensor_type(tp, what: str) -> Attribute:
    """The MLIR type of an ONNX TypeProto (tensors only)."""
    if tp.WhichOneof("value") != "tensor_type":
        raise OnnxImportError(f"{what}: only tensor values are supported, got "
                              f"{tp.WhichOneof('value') or 'no type'}")
    tt = tp.tensor_type
    if tt.elem_type not in NAME_OF_DTYPE:
        raise OnnxImportError(f"{what}: unsupported element type {tt.elem_type}")
    e = mlir_type(tt.elem_type)
    if not tt.HasField("shape"):
        return UnrankedTensorType(e)
    dims = [d.dim_value if d.HasField("dim_value") else -1 for d in tt.shape.dim]
    return TensorType(e, dims)


def dense_attr(arr: np.ndarray, t: TensorType) -> DenseIntOrFPElementsAttr:
    """A dense attribute holding `arr` (any dtype numpy_helper gives) as type `t`."""
    e = t.get_element_type()
    arr = np.asarray(arr)
    if isinstance(e, IntegerType):
        if e.width.data == 1:
            raw = arr.astype(np.bool_).astype(np.int8)
        else:
            raw = arr.astype(np.int64) if arr.dtype.kind not in "iu" else arr
            raw = raw.astype(np.dtype(e.format).newbyteorder("<"))  # type: ignore[attr-defined]
    elif isinstance(e, AnyFloat):
        from qcomp.interpreter.values import numpy_dtype

        dt = numpy_dtype(e)
        size = e.compile_time_size
        raw = arr.astype(dt).view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[size])
        raw = raw.astype(raw.dtype.newbyteorder("<"))
    else:
        raise OnnxImportError(f"constants of element type {e} are not supported")
    return DenseIntOrFPElementsAttr(t, BytesAttr(np.ascontiguousarray(raw).tobytes()))


def _constant(tensor, what: str) -> ConstantOp:
    """`onnx.Constant` of a TensorProto (strings as `value_strings`)."""
    from onnx import numpy_helper

    if tensor.data_location == 1:  # EXTERNAL
        raise OnnxImportError(f"{what}: tensors with external data are not supported")
    if tensor.data_type not in NAME_OF_DTYPE:
        raise OnnxImportError(f"{what}: unsupported element type {tensor.data_type}")
    try:
        arr = numpy_helper.to_array(tensor)
    except Exception as e:  # noqa: BLE001 - protobuf contents that do not decode
        raise OnnxImportError(f"{what}: cannot read tensor: {e}") from None
    t = TensorType(mlir_type(tensor.data_type), list(arr.shape))
    if tensor.data_type == 8:
        strs = [s.decode("utf-8", "replace") if isinstance(s, bytes) else str(s)
                for s in arr.reshape(-1)]
        op = ConstantOp.create(result_types=[t], properties={
            "value_strings": ArrayAttr([StringAttr(s) for s in strs])})
        return op
    return ConstantOp(dense_attr(arr, t), t)


def _attribute(a, op_type: str, what: str) -> Attribute:
    """An ONNX AttributeProto as onnx-mlir writes it."""
    from onnx import AttributeProto as A

    if a.type == A.INT:
        if op_type in ("Cast",) and a.name == "to":
            if a.i not in NAME_OF_DTYPE:
                raise OnnxImportError(f"{what}: attribute 'to' = {a.i} is not a data type")
            return mlir_type(a.i)
        return IntegerAttr(a.i, SI64)
    if a.type == A.FLOAT:
        return FloatAttr(a.f, f32)
    if a.type == A.STRING:
        return StringAttr(a.s.decode("utf-8", "replace"))
    if a.type == A.INTS:
        return ArrayAttr([IntegerAttr(v, i64) for v in a.ints])
    if a.type == A.FLOATS:
        return ArrayAttr([FloatAttr(v, f32) for v in a.floats])
    if a.type == A.STRINGS:
        return ArrayAttr([StringAttr(s.decode("utf-8", "replace")) for s in a.strings])
    if a.type == A.TENSOR:
        return _constant(a.t, what).properties.get("value") or StringAttr("")
    raise OnnxImportError(f"{what}: attribute '{a.name}' of type "
                          f"{A.AttributeType.Name(a.type)} is not supported")


# -- shape inference and opset checks ------------------------------------------------------

_NODE_IN_MESSAGE = re.compile(r"\(op_type:([^,]*), node name: ([^)]*)\):\s*(.*)", re.S)


def _infer(model, nodes_by_name):
    onnx = _onnx()
    strict = all(n.domain in STANDARD_DOMAINS for n in model.graph.node)

    def infer(m):
        return onnx.shape_inference.infer_shapes(m, check_type=True, strict_mode=strict)

    try:
        return isolated(infer, model)  # an abort in onnx's C++ cannot take qcomp down
    except OnnxImportError:
        raise
    except Exception as e:  # noqa: BLE001 - onnx's InferenceError / ValidationError
        text = inference_message(e)
        m = _NODE_IN_MESSAGE.search(text)
        if m:
            raise OnnxImportError(f"node '{m.group(2)}' ({m.group(1)}): "
                                  f"{m.group(3).strip().splitlines()[0]}") from None
        raise OnnxImportError(f"shape inference failed: {text.splitlines()[0]}") from None


def _matmul_nbits_type(node, types):
    """com.microsoft MatMulNBits: Y has A's element type and shape A[..., :-1] + [N]."""
    a = _input(node, types, 0)
    n = next((x.i for x in node.attribute if x.name == "N"), None)
    d = None if a is None else _dims(a)
    if n is None or not d:
        return None
    return _typed(a.tensor_type.elem_type, [*d[:-1], n])


def _like_input(i: int):
    """Y has input i's type (QLinearSigmoid, QLinearLeakyRelu, QLinearSoftmax: X)."""
    def rule(node, types):
        return _input(node, types, i)
    return rule


def _broadcast_type(node, types):
    """QLinearAdd / QLinearMul: C has A's element type, A and B (inputs 0, 3) broadcast."""
    a, b = _input(node, types, 0), _input(node, types, 3)
    da, db = (None if t is None else _dims(t) for t in (a, b))
    if da is None or db is None:
        return None
    n = max(len(da), len(db))
    da, db = [1] * (n - len(da)) + da, [1] * (n - len(db)) + db
    out = [y if x == 1 else x if y == 1 or x == y else None if None in (x, y) else -1
           for x, y in zip(da, db)]
    if -1 in out:
        return None  # not broadcastable: the op's verifier says so
    return _typed(a.tensor_type.elem_type, out)


def _global_pool_type(node, types):
    """QLinearGlobalAveragePool: [N, C, 1, ...] (channels_last: [N, 1, ..., C])."""
    x = _input(node, types, 0)
    d = None if x is None else _dims(x)
    if not d or len(d) < 3:
        return None
    ones = [1] * (len(d) - 2)
    out = [d[0], *ones, d[-1]] if _int_attr(node, "channels_last", 0) else [d[0], d[1], *ones]
    return _typed(x.tensor_type.elem_type, out)


def _concat_type(node, types):
    """QLinearConcat(Y_scale, Y_zp, (X, X_scale, X_zp)...): the Xs joined along axis."""
    xs = [_input(node, types, i) for i in range(2, len(node.input), 3)]
    ds = [None if t is None else _dims(t) for t in xs]
    if not ds or any(d is None for d in ds) or len({len(d) for d in ds}) != 1:
        return None
    axis = _int_attr(node, "axis", 0)
    rank = len(ds[0])
    if not -rank <= axis < rank:
        return None
    axis %= rank
    out = list(ds[0])
    sizes = [d[axis] for d in ds]
    out[axis] = None if None in sizes else sum(sizes)
    return _typed(xs[0].tensor_type.elem_type, out)


def _qgemm_type(node, types):
    """QGemm(A, a_scale, a_zp, B, b_scale, b_zp, C?, y_scale?, y_zp?): [M, N] (transA,
    transB); y_zp's element type when y_scale is given (uint8 without y_zp), else float."""
    a, b = _input(node, types, 0), _input(node, types, 3)
    da, db = (None if t is None else _dims(t) for t in (a, b))
    if da is None or db is None or len(da) != 2 or len(db) != 2:
        return None
    m = da[1] if _int_attr(node, "transA", 0) else da[0]
    n = db[0] if _int_attr(node, "transB", 0) else db[1]
    if _input(node, types, 7) is None:
        elem = 1  # FLOAT
    else:
        zp = _input(node, types, 8)
        elem = 2 if zp is None else zp.tensor_type.elem_type  # UINT8 by default
    return _typed(elem, [m, n])


_MS = "com.microsoft"
CONTRIB_TYPES = {(_MS, "MatMulNBits"): _matmul_nbits_type,
                 (_MS, "QLinearAdd"): _broadcast_type, (_MS, "QLinearMul"): _broadcast_type,
                 (_MS, "QLinearSigmoid"): _like_input(0),
                 (_MS, "QLinearLeakyRelu"): _like_input(0),
                 (_MS, "QLinearSoftmax"): _like_input(0),
                 (_MS, "QLinearGlobalAveragePool"): _global_pool_type,
                 (_MS, "QLinearConcat"): _concat_type, (_MS, "QGemm"): _qgemm_type,
                 **onnx_contrib_types.RULES}
"""Output types of contrib ops that ONNX's shape inference does not know (it leaves
their outputs untyped, and everything computed from them), as onnxruntime's schemas
(`contrib_defs.cc`, `quantization_defs.cc`) infer them; a rule returns None when its
inputs' types do not tell."""


def _contrib_rules() -> dict:
    """`CONTRIB_TYPES` and the rules of `onnx_sequence_types`."""
    return {**CONTRIB_TYPES, **SEQUENCE_TYPES}


def _infer_with_contrib(model, nodes_by_name):
    """ONNX's shape inference, re-run with the outputs of `CONTRIB_TYPES` ops typed by
    their rule until no more become known (a contrib op after a contrib op)."""
    import copy

    onnx = _onnx()
    inferred = _infer(model, nodes_by_name)
    table = _contrib_rules()
    rules = [n for n in model.graph.node if (n.domain, n.op_type) in table]
    known: dict = {}
    consts = {t.name: _typed(t.data_type, list(t.dims)) for t in model.graph.initializer}
    while rules:
        g = inferred.graph
        types = {vi.name: vi.type for vi in (*g.value_info, *g.input, *g.output)
                 if vi.type.WhichOneof("value") and vi.type.tensor_type.HasField("shape")}
        types = {**consts, **types, **known}
        added = False
        for n in rules:
            if n.output and any(o and o not in types for o in n.output):
                t = table[(n.domain, n.op_type)](n, types)
                for name, tt in zip(n.output, t if isinstance(t, list) else [t]):
                    if name and tt is not None and name not in types:  # a list: per output
                        known[name] = tt
                        added = True
        if not added:
            break
        m = copy.deepcopy(model)
        m.graph.value_info.extend(onnx.ValueInfoProto(name=k, type=t) for k, t in known.items())
        inferred = _infer(m, nodes_by_name)
    return inferred


def _supported_contrib() -> set[str]:
    """The com.microsoft ops qcomp has (each has an `onnx.Custom` verifier)."""
    import qcomp.dialects.onnx  # noqa: F401 - registers the contrib verifiers
    from qcomp.dialects.onnx.core import CONTRIB_VERIFIERS

    return set(CONTRIB_VERIFIERS)


def _check_schema(node, opset: int, label: str, elem_of) -> None:
    """The node's attributes and input/output element types are those of its opset."""
    from onnx import defs, helper

    try:
        schema = defs.get_schema(node.op_type, opset, node.domain)
    except Exception:  # noqa: BLE001 - SchemaError: no such op at this opset
        raise OnnxImportError(f"{label}: no {node.op_type} in opset {opset} of domain "
                              f"'{node.domain or 'ai.onnx'}'") from None
    for a in node.attribute:
        if a.name not in schema.attributes:
            raise OnnxImportError(f"{label}: attribute '{a.name}' is not in "
                                  f"{node.op_type}-{schema.since_version}")
    for a in schema.attributes.values():
        if a.required and a.name not in {x.name for x in node.attribute}:
            raise OnnxImportError(f"{label}: required attribute '{a.name}' is missing")
    allowed = {c.type_param_str: set(c.allowed_type_strs) for c in schema.type_constraints}
    formal = [(f, n) for f, n in zip(schema.inputs, node.input)] + \
             [(f, n) for f, n in zip(schema.outputs, node.output)]
    for f, name in formal:
        if not name:
            continue
        et = elem_of(name)
        if et is None:
            continue
        if et not in NAME_OF_DTYPE:
            raise OnnxImportError(f"{label}: '{name}' has element type {et}, which is not "
                                  "an ONNX data type qcomp knows")
        ts = f"tensor({helper.tensor_dtype_to_string(et).removeprefix('TensorProto.').lower()})"
        ok = allowed.get(f.type_str, {f.type_str})
        if ts not in ok:
            raise OnnxImportError(f"{label}: '{name}' has type {ts}, {node.op_type}-"
                                  f"{schema.since_version} takes {', '.join(sorted(ok))}")


# -- the graph -----------------------------------------------------------------------------

def _op_class(op_type: str, outputs: int = 1):
    """The onnx dialect's op declaring `op_type` (`OnnxFacts`), None when there is none
    or a node with that many outputs has more than it declares (onnx-mlir's importer: a
    MaxPool whose Indices are absent is `MaxPoolSingleOut`, one with Indices is not)."""
    from qcomp.dialects.onnx import ONNX
    from qcomp.dialects.onnx.core import facts

    for cls in ONNX.operations:
        f = facts(cls)
        if f is not None and not f.domain and f.op_type == op_type:
            variadic = any(o.endswith("*") for o in f.outputs)
            return cls if variadic or outputs <= len(f.outputs) else None
    return None


def import_model(model, origins: dict | None = None) -> ModuleOp:
    """The `onnx` dialect module of a ModelProto (see the module docstring); `origins`,
    when given, receives each op built -> the node or initializer it stands for."""
    g = model.graph
    opsets = {("" if o.domain == "ai.onnx" else o.domain): o.version for o in model.opset_import}
    if "" not in opsets and any(n.domain in STANDARD_DOMAINS for n in g.node):
        raise OnnxImportError("the model imports no opset of the default domain")
    check_names(model)
    check_order(model)
    nodes_by_name = {n.name: n for n in g.node}
    inferred = _infer_with_contrib(model, nodes_by_name).graph
    vtypes = {}
    for vi in (*inferred.value_info, *inferred.input, *inferred.output, *g.input, *g.output):
        if vi.name not in vtypes and vi.type.WhichOneof("value"):
            vtypes[vi.name] = vi.type

    def elem_of(name):
        tp = vtypes.get(name)
        if tp is not None and tp.WhichOneof("value") == "tensor_type":
            return tp.tensor_type.elem_type
        return inits.get(name).data_type if name in inits else None

    inits = {t.name: t for t in g.initializer}
    graph_inputs = [vi for vi in g.input if vi.name not in inits]
    arg_types = [_tensor_type(vi.type, f"graph input '{vi.name}'") for vi in graph_inputs]
    block = Block(arg_types=arg_types)
    values: dict[str, SSAValue] = {vi.name: a for vi, a in zip(graph_inputs, block.args)}
    b = Builder(InsertPoint.at_end(block))
    for t in g.initializer:
        const = b.insert(_constant(t, f"initializer '{t.name}'"))
        values[t.name] = const.results[0]
        if origins is not None:
            origins[const] = f"initializer '{t.name}'"
    none: list[SSAValue] = []

    def no_value() -> SSAValue:
        if not none:
            none.append(b.insert(NoValueOp()).results[0])
        return none[0]

    for index, node in enumerate(g.node):
        label = node_label(node, index)
        standard = node.domain in STANDARD_DOMAINS
        domain = "" if standard else node.domain
        if domain not in opsets:
            raise OnnxImportError(f"{label}: the model imports no opset of domain "
                                  f"'{node.domain}'")
        if standard:
            _check_schema(node, opsets[""], label, elem_of)
        operands = []
        for name in node.input:
            operands.append(values[name] if name else no_value())  # check_order
        if node.domain == _MS and node.op_type not in _supported_contrib():
            raise OnnxImportError(f"{label}: unsupported op")
        outputs = list(node.output)
        while outputs and not outputs[-1]:  # absent trailing optional outputs
            outputs.pop()
        result_types: list = []
        for name in outputs:
            if not name:  # an absent optional output between present ones
                result_types.append(NoneType())
                continue
            if name not in vtypes:
                raise OnnxImportError(f"{label}: shape inference gives no type for output "
                                      f"'{name}'")
            result_types.append(_tensor_type(vtypes[name], f"{label}: output '{name}'"))
        attrs = {a.name: _attribute(a, node.op_type, label) for a in node.attribute}
        if standard:
            cls = _op_class(node.op_type, len(outputs))
            if cls is None:
                raise OnnxImportError(f"{label}: unsupported op")
            defn = cls.get_irdl_definition()
            if len(defn.operands) == 1 and isinstance(defn.operands[0][1], VarOperandDef):
                args: list = [operands]
            else:
                while len(operands) < len(defn.operands):
                    operands.append(no_value())
                if len(operands) > len(defn.operands):
                    raise OnnxImportError(f"{label}: {len(operands)} inputs, qcomp's "
                                          f"{cls.name} takes {len(defn.operands)}")
                args = operands
            variadic = len(defn.results) == 1 and isinstance(defn.results[0][1], VarResultDef)
            if len(defn.results) > 1 and isinstance(defn.results[-1][1], VarResultDef):
                # fixed results, then the optional ones (LayerNormalization's statistics)
                fixed = len(defn.results) - 1
                result_types = [*result_types[:fixed], result_types[fixed:]]
            elif not variadic:  # absent trailing outputs: none (LSTM's Y_h, Y_c)
                result_types += [NoneType()] * (len(defn.results) - len(result_types))
            props = {k: v for k, v in attrs.items() if k in defn.properties}
            rest = {k: v for k, v in attrs.items() if k not in props}
            if node.name:
                rest["onnx_node_name"] = StringAttr(node.name)
            op = cls.build(operands=args, result_types=[result_types] if variadic
                           else result_types, properties=props, attributes=rest)
        else:
            if node.name:
                attrs["onnx_node_name"] = StringAttr(node.name)
            op = CustomOp(operands, result_types, node.op_type, node.domain, attrs)
        b.insert(op)
        if origins is not None:
            origins[op] = label
        try:
            op.verify()
        except Exception as e:  # noqa: BLE001 - VerifyException from the op's verifier
            raise OnnxImportError(f"{label}: {e}") from None
        for name, r in zip(node.output, op.results):
            if name:
                values[name] = r
    outs = []
    for vi in g.output:
        if vi.name not in values:
            raise OnnxImportError(f"graph output '{vi.name}' is not computed by any node")
        outs.append(values[vi.name])
    b.insert(func.ReturnOp(*outs))
    fn = func.FuncOp("main_graph", ([a.type for a in block.args], [v.type for v in outs]),
                     Region(block))
    fn.arg_attrs = ArrayAttr([DictionaryAttr({"onnx.name": StringAttr(vi.name)})
                              for vi in graph_inputs])
    fn.res_attrs = ArrayAttr([DictionaryAttr({"onnx.name": StringAttr(vi.name)})
                              for vi in g.output])
    return ModuleOp([fn])
