"""onnx-mlir's Constant, NoValue, Custom, the `!onnx.String` type, and what every onnx op
declares about itself (`OnnxFacts`).

Text as onnx-mlir prints it (`src/Dialect/ONNX/ONNXOps.cpp`, `AdditionalONNXOps.td`):
- `%c = onnx.Constant dense<[1, 2]> : tensor<2xi64>`; when `value` is missing or its type
  differs from the result's: `onnx.Constant {value_strings = ["a"]} : tensor<1x!onnx.String>`;
- `%none = "onnx.NoValue"() {value} : () -> none`: an absent optional input;
- `"onnx.Custom"(%a, %b) {domain_name = "com.microsoft", function_name = "QLinearAdd"}`:
  a contrib op, its ONNX attributes beside `function_name` / `domain_name`.

An op's ONNX attributes are its properties, printed `<{axis = 1 : si64}>` as onnx-mlir
prints them today (its older text, and hand-written tests, give them in the attribute
dictionary `{axis = 1 : si64}`: that reads too, into the properties); INT `1 : si64`, FLOAT
`1.0 : f32`, STRING `"x"`, INTS `[1, 2]` (i64), a data type (`to`) as the MLIR type.
Other attributes (`onnx_node_name`, a contrib op's attributes) stay discardable.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    NoneType,
    Signedness,
    StringAttr,
    UnitAttr,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    opt_prop_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import NoMemoryEffect, OpTrait
from xdsl.utils.exceptions import VerifyException

from qcomp.dialects.facts import NO_QUANTIZATION
from qcomp.dialects.onnx.types import StringType, onnx_name, type_list

SI64 = IntegerType(64, Signedness.SIGNED)


@dataclass(frozen=True)
class OnnxFacts(OpTrait):
    """What an onnx op is in ONNX: its `op_type` and `domain` ("" for ai.onnx), the
    opsets that changed it (`since`), its inputs in order (optional ones end in `?`,
    a variadic one in `*`), its outputs, and its attributes' defaults (None: required
    or no default). The importer and the interpreter read these."""

    op_type: str
    since: tuple[int, ...] = ()
    inputs: tuple[str, ...] = ()
    outputs: tuple[str, ...] = ()
    defaults: Mapping[str, object] = field(default_factory=dict, hash=False, compare=False)
    domain: str = ""


def facts(op: Operation | type[Operation]) -> OnnxFacts | None:
    return op.get_trait(OnnxFacts)


@dataclass(frozen=True)
class Lowering(OpTrait):
    """The op's meaning in StableHLO: `build(b, op, out)` inserts the StableHLO ops that
    compute the op's result through `b` (`onnx-legalize-to-stablehlo`'s builder: qcomp's
    pass `Builder` and the steps of `qcomp.dialects.onnx.to_stablehlo`) and returns the
    value that replaces it; `out` is the result's static shape. It raises
    `to_stablehlo.Unsupported` (the message is the pass's remark) for what it does not
    handle. `onnx-legalize-to-stablehlo` rewrites the op with it, and the interpreter
    runs the op as the StableHLO it builds. `static_shapes=False`: `build` needs no
    static shapes and its value replaces the result as it is (Identity). `check(op,
    *args)`, when given, raises ValueError on run-time values the ONNX operator rejects
    and StableHLO would not (an integer division by zero, an index out of bounds); the
    interpreter calls it first. `constants`: the operands `build` reads as constants
    (Slice's starts and ends); the interpreter gives it their run-time values as
    constants. `shaped_by_operands`: `build` reads its operands' shapes only (not
    `out`), so the interpreter runs the op on operands of any run-time shape whatever
    its result types leave unknown (LSTM, the com.microsoft sequence ops)."""

    build: Callable = field(hash=False, compare=False)
    static_shapes: bool = True
    check: Callable | None = field(default=None, hash=False, compare=False)
    constants: tuple[int, ...] = ()
    shaped_by_operands: bool = False


CONTRIB_LOWERINGS: dict[str, Lowering] = {}
"""The `Lowering` of an `onnx.Custom` op by its function_name (a contrib op with a
StableHLO meaning: com.microsoft Attention, EmbedLayerNormalization, ...)."""


def lowering(op: Operation | type[Operation]) -> Lowering | None:
    """The op's declared `Lowering`; for an `onnx.Custom` op, its function's."""
    if isinstance(op, CustomOp) and op.function_name is not None:
        return CONTRIB_LOWERINGS.get(op.function_name.data)
    return op.get_trait(Lowering)


@dataclass(frozen=True)
class QdqRole(OpTrait):
    """How onnxruntime's QDQ transformers (`qdq_selectors.cc`) treat the op as the target
    of a DequantizeLinear -> op -> QuantizeLinear group, what `onnx-fuse-qdq`,
    `onnx-unfuse-qdq` and `onnx_qdq.groups` read:

    - `selector`: `binary`, `unary`, `variadic` (one element type throughout), `conv`,
      `matmul` (the weight rules), `gemm` (QGemm: the QuantizeLinear optional, an int32
      bias, beta 1), `where` (QLinearWhere: the condition stays), `drop` (the pair is
      dropped, the op moves integers; one QuantizeLinear per result), `drop_dq`
      (DequantizeLinear -> op, no QuantizeLinear: the DequantizeLinear is dropped, the
      op runs on the integers: ArgMax), `clip_by_q` (op -> QuantizeLinear, the op removed
      when the QuantizeLinear's range already clips: onnxruntime's ReluQuantFusion /
      ClipQuantFusion), `keep` (onnxruntime's selectors have no rule for it: the group
      stays as it is);
    - `fused`: what the group becomes: `QLinearMatMul` / `QLinearConv`, or the
      com.microsoft contrib op (`QLinearAdd`); None for `drop`;
    - `fused_attrs`: attributes the fused op carries besides the op's own (si64 ints);
    - `data_inputs`: the operands that carry quantized data (None: every present one;
      shapes, axes and indices stay as they are);
    - `condition`: what the op itself must satisfy besides the group's types and
      parameters (the reason onnxruntime refuses it, or None: Resize is dropped only in
      `nearest` mode);
    - `condition_doc`: that condition in a few words, for docs/onnx.md's table
      (`tools/gen_onnx_table.py`)."""

    selector: str
    fused: str | None = None
    fused_attrs: Mapping[str, int] = field(default_factory=dict, hash=False, compare=False)
    data_inputs: tuple[int, ...] | None = None
    condition: Callable[[Operation], str | None] | None = field(default=None, hash=False,
                                                                compare=False)
    condition_doc: str = ""


def qdq_role(op: Operation | type[Operation]) -> QdqRole | None:
    return op.get_trait(QdqRole)


@dataclass(frozen=True)
class QuantizerForms(OpTrait):
    """What onnxruntime's quantizer (`onnxruntime.quantization`) writes for the op
    besides its QDQ group, where its `QdqRole` does not tell:

    - `qoperator`: `quantize_static` in the QOperator format: the QLinear /
      com.microsoft op it becomes, `integers` (the op itself on the 8-bit tensor) or
      `removed` (Relu, Clip after a quantized op: its output's range does the clipping);
      None: what its QdqRole fuses to (`fused`, the op on integers for `drop` /
      `drop_dq`);
    - `dynamic`: `quantize_dynamic`: the op it becomes (`ConvInteger`) or `integers`;
      None: the op is not in onnxruntime's IntegerOpsRegistry.

    `tools/gen_onnx_table.py` reads these for docs/onnx.md."""

    qoperator: str | None = None
    dynamic: str | None = None


def quantizer_forms(op: Operation | type[Operation]) -> QuantizerForms | None:
    return op.get_trait(QuantizerForms)


CONTRIB_QUANTIZER_FORMS: dict[str, QuantizerForms] = {}
"""`QuantizerForms` of com.microsoft ops in onnxruntime's registries (Attention,
EmbedLayerNormalization), by op_type (`sequence_contrib` and `attention_contrib` fill it)."""


def si64(v: int) -> IntegerAttr:
    return IntegerAttr(v, SI64)


def attr_value(a: Attribute | None):
    """An ONNX attribute's Python value: int, float, str, list, or the attribute itself."""
    if isinstance(a, IntegerAttr):
        return int(a.value.data)
    if isinstance(a, FloatAttr):
        return float(a.value.data)
    if isinstance(a, StringAttr):
        return a.data
    if isinstance(a, ArrayAttr):
        return [attr_value(x) for x in a.data]
    return a


def raw_attr(op: Operation, name: str) -> Attribute | None:
    """The attribute `name` of `op`, a property or a discardable attribute."""
    a = op.properties.get(name)
    return a if a is not None else op.attributes.get(name)


def attr(op: Operation, name: str):
    """The ONNX attribute `name` of `op`, or its declared default."""
    a = raw_attr(op, name)
    if a is not None:
        return attr_value(a)
    f = facts(op)
    return None if f is None else f.defaults.get(name)


def is_none(v: SSAValue | Attribute) -> bool:
    """An absent optional input (a `none`-typed value)."""
    t = v.type if isinstance(v, SSAValue) else v
    return isinstance(t, NoneType)


def fail(msg: str) -> None:
    raise VerifyException(msg)


def verify_int_attr(op: Operation, name: str, allowed: Sequence[int] | None = None) -> None:
    """`name`, when given, is an integer attribute (onnx-mlir's `SI64Attr`) in `allowed`."""
    a = raw_attr(op, name)
    if a is None:
        return
    if not isinstance(a, IntegerAttr):
        fail(f"'{op.name}' op attribute '{name}' failed to satisfy constraint: "
             "64-bit signed integer attribute")
    if allowed is not None and int(a.value.data) not in allowed:
        fail(f"'{op.name}' op attribute '{name}' must be one of "
             f"{', '.join(map(str, allowed))}, got {int(a.value.data)}")


@irdl_op_definition
class ConstantOp(IRDLOperation):
    """`onnx.Constant`: the tensor of `value` (or `value_strings`, `value_float`,
    `value_int`, `value_floats`, `value_ints`, `value_string`)."""

    name = "onnx.Constant"
    value = opt_prop_def(Attribute)
    value_strings = opt_prop_def(ArrayAttr)
    value_float = opt_prop_def(FloatAttr)
    value_floats = opt_prop_def(ArrayAttr)
    value_int = opt_prop_def(IntegerAttr)
    value_ints = opt_prop_def(ArrayAttr)
    value_string = opt_prop_def(StringAttr)
    sparse_value = opt_prop_def(Attribute)
    output = result_def()
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION,
                        OnnxFacts("Constant", (1, 9, 11, 12, 13, 19, 21, 23, 24, 25),
                                  (), ("output",)))

    def __init__(self, value: Attribute, result_type: Attribute | None = None,
                 name: str = "value"):
        super().__init__(properties={name: value},
                         result_types=[result_type or value.type])  # type: ignore[attr-defined]

    @classmethod
    def parse(cls, parser: Parser) -> ConstantOp:
        attrs = parser.parse_optional_attr_dict()
        if not attrs:
            pos = parser.pos
            value = parser.parse_optional_attribute()
            if value is not None:
                vtype = getattr(value, "type", None)
                if vtype is None:
                    parser.raise_error("expected an elements attribute", pos, parser.pos)
                return cls.create(result_types=[vtype], properties={"value": value})
        parser.parse_punctuation(":")
        t = parser.parse_type()
        props = {k: v for k, v in attrs.items() if k.startswith("value") or k == "sparse_value"}
        return cls.create(result_types=[t], properties=props,
                          attributes={k: v for k, v in attrs.items() if k not in props})

    def print(self, printer: Printer) -> None:
        v = self.properties.get("value")
        if (v is not None and getattr(v, "type", None) == self.output.type
                and len(self.properties) == 1 and not self.attributes):
            printer.print_string(" ")
            printer.print_attribute(v)
            return
        attrs = {**self.properties, **self.attributes}
        if attrs:
            printer.print_string(" ")
            printer.print_attr_dict(attrs)
        printer.print_string(" : ")
        printer.print_attribute(self.output.type)

    def verify_(self) -> None:
        keys = [k for k in self.properties if k.startswith("value") or k == "sparse_value"]
        if len(keys) != 1:
            fail("'onnx.Constant' op Require exactly one of the attributes 'value', "
                 "'value_float', 'value_floats', 'value_int', 'value_ints', 'value_string', "
                 "'value_strings' or 'sparse_value'")
        v = self.properties.get("value")
        if isinstance(v, DenseIntOrFPElementsAttr):
            rt = self.output.type
            if hasattr(rt, "get_shape") and list(v.get_type().get_shape()) != list(rt.get_shape()) \
                    and -1 not in list(rt.get_shape()):
                fail("'onnx.Constant' op value's shape does not match the result type")


@irdl_op_definition
class NoValueOp(IRDLOperation):
    """`"onnx.NoValue"() {value} : () -> none`: an absent optional input."""

    name = "onnx.NoValue"
    value = opt_prop_def(UnitAttr)
    none_val = result_def(NoneType)
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION, OnnxFacts("NoValue"))

    def __init__(self):
        super().__init__(properties={"value": UnitAttr()}, result_types=[NoneType()])


CONTRIB_VERIFIERS: dict[str, Callable[[Operation], None]] = {}
"""`onnx.Custom` verifiers by function_name (quantized.py adds onnxruntime's ops)."""


@irdl_op_definition
class CustomOp(IRDLOperation):
    """`"onnx.Custom"(...) {domain_name = "com.microsoft", function_name = "QLinearAdd"}`:
    an op outside the ONNX standard, named by `function_name` (and `domain_name`)."""

    name = "onnx.Custom"
    inputs = var_operand_def()
    function_name = opt_prop_def(StringAttr)
    output_element_type = opt_prop_def(Attribute)
    shape_infer_pattern = opt_prop_def(StringAttr)
    inputs_for_infer = opt_prop_def(ArrayAttr)
    outputs = var_result_def()
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION, OnnxFacts("Custom"))

    def __init__(self, inputs: Sequence[SSAValue], result_types: Sequence[Attribute],
                 function_name: str, domain_name: str | None = None,
                 attributes: Mapping[str, Attribute] = {}):
        attrs = dict(attributes)
        if domain_name is not None:
            attrs["domain_name"] = StringAttr(domain_name)
        super().__init__(operands=[list(inputs)], result_types=[list(result_types)],
                         attributes=attrs,
                         properties={"function_name": StringAttr(function_name)})

    def verify_(self) -> None:
        if self.function_name is None:
            fail("'onnx.Custom' op requires attribute 'function_name'")
        check = CONTRIB_VERIFIERS.get(self.function_name.data)
        if check is not None:
            check(self)


CORE_OPS: list[type[IRDLOperation]] = [ConstantOp, NoValueOp, CustomOp]
CORE_ATTRS: list[type[Attribute]] = [StringType]


# -- verifier pieces shared by the onnx ops ---------------------------------------------------

def type_str(t: Attribute) -> str:
    from qcomp.dialects.tosa.support import type_text

    return type_text(t)


def elements_in(op: Operation, value: SSAValue, label: str, allowed: Sequence[str],
                optional: bool = False) -> str | None:
    """The ONNX element name of `value`, checked against `allowed` (ONNX names, as the
    opset's type constraint lists them); None for an absent optional input."""
    if optional and is_none(value):
        return None
    name = onnx_name(value.type)
    if name is None or name not in allowed or not hasattr(value.type, "element_type"):
        fail(f"'{op.name}' {label} must be a tensor of one of {type_list(allowed)}, "
             f"but got '{type_str(value.type)}'")
    return name


def static_shape(v: SSAValue) -> list[int] | None:
    """The shape of a ranked tensor value (-1 for `?`), None when unranked or absent."""
    get = getattr(v.type, "get_shape", None)
    return None if get is None else list(get())


def same_shape(op: Operation, a: SSAValue, b: SSAValue, what: str) -> None:
    sa, sb = static_shape(a), static_shape(b)
    if sa is None or sb is None:
        return
    if len(sa) != len(sb) or any(x != y and -1 not in (x, y) for x, y in zip(sa, sb)):
        fail(f"'{op.name}' op {what} must have the same shape, got "
             f"'{type_str(a.type)}' and '{type_str(b.type)}'")
