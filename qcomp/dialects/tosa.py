"""The `tosa` ops qcomp uses, in TOSA 1.0 form, printed and parsed as upstream MLIR does.

xDSL ships a `tosa` dialect, but its text differs from upstream's in places (property
order, `nan_mode` spelling, no default elision) and its verifiers use their own words.
This module defines the ops qcomp needs with upstream's assembly and diagnostics and
exports a complete `TOSA` dialect that qcomp loads instead of xDSL's.

`tosa.rescale`: `out = clamp(((in - input_zp) * multiplier + round) >> shift) + output_zp`,
with the multiplier i32 (`scale32 = true`) or i16, the shift i8, and one multiplier/shift
per channel of the last axis when `per_channel = true`.
"""

from __future__ import annotations

import io
import math
from collections.abc import Mapping, Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    BoolAttr,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    FunctionType,
    IntegerAttr,
    IntegerType,
    Signedness,
    TensorType,
    UnrankedTensorType,
)
from xdsl.dialects.tosa import NanMode, NanModeAttr, RoundingMode, RoundingModeAttr
from xdsl.ir import Attribute, Dialect, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Commutative, NoMemoryEffect
from xdsl.utils.exceptions import VerifyException

from qcomp.dialects.literals import QcompPrinter
from qcomp.dialects.quant import UniformQuantizedType

__all__ = [
    "TOSA", "AbsOp", "AddOp", "CastOp", "ClampOp", "ConstOp", "EqualOp", "GreaterEqualOp",
    "GreaterOp", "MaximumOp", "MinimumOp", "MulOp", "NanMode", "NanModeAttr", "RescaleOp",
    "RoundingMode", "RoundingModeAttr", "SubOp",
]

# -- helpers --------------------------------------------------------------------------

_DYN = DYNAMIC_INDEX


def _type_text(t: Attribute) -> str:
    """An attribute or type as qcomp prints it (MLIR's float text)."""
    out = io.StringIO()
    QcompPrinter(stream=out).print_attribute(t)
    return out.getvalue()


def _tq(t: Attribute) -> str:
    """A type quoted as MLIR quotes it in diagnostics: `'tensor<4xi8>'`."""
    return f"'{_type_text(t)}'"


def _element(t: Attribute) -> Attribute:
    return t.element_type if isinstance(t, TensorType | UnrankedTensorType) else t


def _storage_element(t: Attribute) -> Attribute:
    """Element type with a quantized element replaced by its storage type."""
    e = _element(t)
    return e.storage if isinstance(e, UniformQuantizedType) else e


def _shape(t: Attribute) -> tuple[int, ...] | None:
    """Static-or-dynamic shape of a ranked tensor (-1 for `?`), None if unranked."""
    if isinstance(t, TensorType):
        return tuple(t.get_shape())
    return None


def _shape_text(shape: Sequence[int]) -> str:
    """`2x3`, as upstream's broadcast diagnostics write a shape."""
    return "x".join("?" if d == _DYN else str(d) for d in shape)


def _shape_list_text(shape: Sequence[int]) -> str:
    """`2, 3`, as upstream's shape-inference diagnostics write a shape."""
    return ", ".join("?" if d == _DYN else str(d) for d in shape)


def _int_width(t: Attribute) -> int | None:
    return t.width.data if isinstance(t, IntegerType) else None


def _is_signless_int(t: Attribute, width: int | None = None) -> bool:
    return (isinstance(t, IntegerType) and t.signedness.data == Signedness.SIGNLESS
            and (width is None or t.width.data == width))


def _const_ints(value: SSAValue) -> list[int] | None:
    """The integer values of a `tosa.const` result, or None if not a constant."""
    owner = value.owner
    if not isinstance(owner, ConstOp):
        return None
    attr = owner.values
    if not isinstance(attr, DenseIntOrFPElementsAttr) or not isinstance(
            attr.get_element_type(), IntegerType):
        return None
    return [int(v) for v in attr.get_values()]


def _broadcast_shape(a: Sequence[int], b: Sequence[int]) -> list[int] | None:
    """MLIR's `getBroadcastedShape`: NumPy-style (right-aligned, 1 stretches; a dynamic
    size takes the other side's size when that is > 1), None if incompatible."""
    rank = max(len(a), len(b))
    a = [1] * (rank - len(a)) + list(a)
    b = [1] * (rank - len(b)) + list(b)
    out = []
    for x, y in zip(a, b):
        if _DYN in (x, y):
            out.append(x if x > 1 else y if y > 1 else y if x == 1 else x if y == 1 else _DYN)
        elif x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        else:
            return None
    return out


def _compatible(a: Sequence[int], b: Sequence[int]) -> bool:
    return len(a) == len(b) and all(x == y or _DYN in (x, y) for x, y in zip(a, b))


# -- text: operands {attr-dict with bare enums} : functional-type --------------------

class _EnumAttrDictFormat(IRDLOperation):
    """Upstream's `parseWithEnumHandling` / `printWith*Handling` text:

    `tosa.rescale %a, %b, ... {per_channel = false, rounding_mode = SINGLE_ROUND} : (...) -> t`

    Enum properties are written as bare keywords (the qualified `#tosa.…<X>` form is
    read too); the dictionary prints sorted by name, properties and discardable
    attributes together; `nan_mode = PROPAGATE` (the default) is left out.
    """

    _DEFAULTS: ClassVar[Mapping[str, Attribute]] = {}

    @classmethod
    def create(cls, *, properties: Mapping[str, Attribute] = {}, **kwargs):  # type: ignore[override]
        props = {**cls._DEFAULTS, **properties}
        return super().create(properties=dict(sorted(props.items())), **kwargs)

    @classmethod
    def parse(cls, parser: Parser):
        pos = parser.pos
        operands = parser.parse_comma_separated_list(
            parser.Delimiter.NONE, parser.parse_unresolved_operand)
        entries: dict[str, Attribute] = {}

        def entry() -> None:
            key = parser.parse_identifier()
            parser.parse_punctuation("=")
            entries[key] = cls._parse_entry_value(parser, key)

        if parser.parse_optional_punctuation("{") is not None:
            if parser.parse_optional_punctuation("}") is None:
                parser.parse_comma_separated_list(parser.Delimiter.NONE, entry)
                parser.parse_punctuation("}")
        parser.parse_punctuation(":")
        type_pos = parser.pos
        fn = parser.parse_type()
        if not isinstance(fn, FunctionType):
            parser.raise_error("expected a function type", type_pos, parser.pos)
        if len(fn.inputs.data) != len(operands):
            parser.raise_error(
                f"{len(operands)} operands present, but expected {len(fn.inputs.data)}",
                pos, parser.pos)
        if len(fn.outputs.data) != 1:
            parser.raise_error("expected a single result type", type_pos, parser.pos)
        props_def = cls.get_irdl_definition().properties
        props = {k: v for k, v in entries.items() if k in props_def}
        attrs = {k: v for k, v in entries.items() if k not in props_def}
        return cls.create(
            operands=parser.resolve_operands(operands, fn.inputs.data, pos),
            result_types=[fn.outputs.data[0]],
            properties=props,
            attributes=attrs,
        )

    @classmethod
    def _parse_entry_value(cls, parser: Parser, key: str) -> Attribute:
        enum = {"rounding_mode": (RoundingMode, RoundingModeAttr, "rounding_mode"),
                "nan_mode": (NanMode, NanModeAttr, "nan_mode")}.get(key)
        if enum is not None and key in cls.get_irdl_definition().properties:
            start = parser.pos
            word = parser.parse_optional_identifier()
            if word is not None:
                kind, attr_cls, label = enum
                if word not in kind.__members__:
                    parser.raise_error(
                        f"custom op '{cls.name}' invalid {label} value: {word}", start,
                        parser.pos)
                return attr_cls(kind(word))
        return parser.parse_attribute()

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list(self.operands, printer.print_operand)
        entries = dict(sorted({**self.properties, **self.attributes}.items()))
        nan = entries.get("nan_mode")
        if isinstance(nan, NanModeAttr) and nan.data == NanMode.PROPAGATE:
            del entries["nan_mode"]
        if entries:
            printer.print_string(" {")

            def one(item: tuple[str, Attribute]) -> None:
                key, value = item
                printer.print_identifier_or_string_literal(key)
                printer.print_string(" = ")
                if isinstance(value, RoundingModeAttr | NanModeAttr):
                    printer.print_string(value.data)
                else:
                    printer.print_attribute(value)

            printer.print_list(entries.items(), one)
            printer.print_string("}")
        printer.print_string(" : ")
        printer.print_attribute(FunctionType.from_lists(
            [o.type for o in self.operands], [r.type for r in self.results]))


_FUNCTIONAL = "operands attr-dict `:` functional-type(operands, results)"


# -- verification pieces ---------------------------------------------------------------

def _same_element_types(values: Sequence[Attribute], with_results: bool) -> None:
    elements = [_element(t) for t in values]
    if any(e != elements[0] for e in elements):
        raise VerifyException(
            "requires the same element type for all operands"
            + (" and results" if with_results else ""))


def _same_shapes(values: Sequence[Attribute]) -> None:
    shapes = [_shape(t) for t in values]
    ranked = [s for s in shapes if s is not None]
    if any(not _compatible(s, ranked[0]) for s in ranked):
        raise VerifyException("requires the same shape for all operands and results")


def _verify_binary_broadcast(op: IRDLOperation) -> None:
    """Upstream's `ResultsBroadcastableShape` trait (NumPy-style broadcasting; the
    result's trailing sizes must fit), then TOSA's equal-rank rule."""
    a, b = _shape(op.operands[0].type), _shape(op.operands[1].type)
    out = _shape(op.results[0].type)
    if a is None or b is None:
        return
    shape = _broadcast_shape(a, b)
    if shape is None:
        raise VerifyException("operands don't have broadcast-compatible shapes")
    if out is not None and not _compatible(shape, out[-len(shape):] if shape else ()):
        raise VerifyException(
            f"result type '{_shape_text(out)}' not broadcast compatible with broadcasted "
            f"operands's shapes '{_shape_text(shape)}'")
    if len(a) != len(b):
        raise VerifyException("operands don't have matching ranks")
    if out is not None and len(out) != len(a):
        raise VerifyException("result type has different rank than operands")


def _verify_operand(op: IRDLOperation, index: int, ok: bool, what: str) -> None:
    if not ok:
        raise VerifyException(
            f"operand #{index} must be {what}, but got {_tq(op.operands[index].type)}")


def _require_properties(op: IRDLOperation, kinds: Mapping[str, type | tuple[type, ...]]) -> None:
    """Upstream's inherent-attribute check, in its order (by name) and words: a missing
    property, or one of the wrong kind, is `requires attribute 'name'`."""
    for name in sorted(kinds):
        if not isinstance(op.properties.get(name), kinds[name]):
            raise VerifyException(f"requires attribute '{name}'")


def _is_scalar_tensor(t: Attribute) -> bool:
    """Upstream `Tosa_ScalarTensor`: a rank-1 tensor of one element."""
    return isinstance(t, TensorType) and tuple(t.get_shape()) == (1,)


# -- element-wise ops -------------------------------------------------------------------

class _BinaryOp(IRDLOperation):
    """`tosa.add`-like: same element type in and out, TOSA broadcasting."""

    input1 = operand_def(TensorType | UnrankedTensorType)
    input2 = operand_def(TensorType | UnrankedTensorType)
    output = result_def(TensorType | UnrankedTensorType)
    traits = traits_def(NoMemoryEffect())
    assembly_format = _FUNCTIONAL

    def __init__(self, input1: SSAValue | Operation, input2: SSAValue | Operation,
                 result_type: Attribute):
        super().__init__(operands=[input1, input2], result_types=[result_type])

    def verify_(self) -> None:
        _same_element_types([self.input1.type, self.input2.type, self.output.type], True)
        _verify_binary_broadcast(self)


@irdl_op_definition
class AddOp(_BinaryOp):
    """`tosa.add`: `out = input1 + input2` (wrapping for integers)."""

    name = "tosa.add"
    traits = traits_def(NoMemoryEffect(), Commutative())


@irdl_op_definition
class SubOp(_BinaryOp):
    """`tosa.sub`: `out = input1 - input2`."""

    name = "tosa.sub"


_NAN_DEFAULT = {"nan_mode": NanModeAttr(NanMode.PROPAGATE)}


class _NanBinaryOp(_EnumAttrDictFormat):
    input1 = operand_def(TensorType | UnrankedTensorType)
    input2 = operand_def(TensorType | UnrankedTensorType)
    output = result_def(TensorType | UnrankedTensorType)
    nan_mode = opt_prop_def(NanModeAttr)
    traits = traits_def(NoMemoryEffect(), Commutative())
    _DEFAULTS: ClassVar[Mapping[str, Attribute]] = _NAN_DEFAULT

    def __init__(self, input1: SSAValue | Operation, input2: SSAValue | Operation,
                 result_type: Attribute, nan_mode: NanMode = NanMode.PROPAGATE):
        super().__init__(operands=[input1, input2], result_types=[result_type],
                         properties={"nan_mode": NanModeAttr(nan_mode)})

    def verify_(self) -> None:
        _same_element_types([self.input1.type, self.input2.type, self.output.type], True)
        _verify_binary_broadcast(self)


@irdl_op_definition
class MaximumOp(_NanBinaryOp):
    """`tosa.maximum`: `out = max(input1, input2)`."""

    name = "tosa.maximum"


@irdl_op_definition
class MinimumOp(_NanBinaryOp):
    """`tosa.minimum`: `out = min(input1, input2)`."""

    name = "tosa.minimum"


@irdl_op_definition
class MulOp(IRDLOperation):
    """`tosa.mul`: `out = (input1 * input2) >> shift` (rounded; shift only for i32)."""

    name = "tosa.mul"
    input1 = operand_def(TensorType | UnrankedTensorType)
    input2 = operand_def(TensorType | UnrankedTensorType)
    shift = operand_def(TensorType | UnrankedTensorType)
    output = result_def(TensorType | UnrankedTensorType)
    traits = traits_def(NoMemoryEffect(), Commutative())
    assembly_format = _FUNCTIONAL

    def __init__(self, input1: SSAValue | Operation, input2: SSAValue | Operation,
                 shift: SSAValue | Operation, result_type: Attribute):
        super().__init__(operands=[input1, input2, shift], result_types=[result_type])

    def verify_(self) -> None:
        shift_t = self.shift.type
        _verify_operand(self, 2, _is_scalar_tensor(shift_t)
                        and _is_signless_int(_element(shift_t), 8),
                        "tosa-conformant scalar tensor of 8-bit signless integer values")
        a = _storage_element(self.input1.type)
        out = _storage_element(self.output.type)
        if not isinstance(out, IntegerType):
            _same_element_types([self.input1.type, self.input2.type, self.output.type], True)
        else:
            _same_element_types([self.input1.type, self.input2.type], False)
            if not isinstance(a, IntegerType):
                raise VerifyException("requires the same element type for all operands")
            if out.width.data < a.width.data:
                raise VerifyException("invalid data type size for operands or result")
        if not isinstance(a, IntegerType):
            shift = _const_ints(self.shift)
            if shift is not None and any(s != 0 for s in shift):
                raise VerifyException("require shift to be 0 for float type")
        sa, sb = _shape(self.input1.type), _shape(self.input2.type)
        so = _shape(self.output.type)
        if sa is None or sb is None:
            return
        if len(sa) != len(sb):
            raise VerifyException(
                f"a and b operands don't have matching ranks, got {len(sa)} and {len(sb)}")
        shape = _broadcast_shape(sa, sb)
        if shape is None:
            raise VerifyException(
                "a and b operands don't have broadcast-compatible shapes, got "
                f"{_tq(self.input1.type)} and {_tq(self.input2.type)}")
        if so is None:
            return
        if len(so) != len(sa):
            raise VerifyException(
                f"result type has different rank than a, got {len(so)} vs {len(sa)}")
        if not _compatible(so, shape):
            raise VerifyException(
                f"expected output shape {_shape_list_text(so)} to be compatible with "
                f"inferred shape {_shape_list_text(shape)}")


class _CompareOp(IRDLOperation):
    """`tosa.greater`-like: i1 result, same operand element types, broadcasting."""

    input1 = operand_def(TensorType | UnrankedTensorType)
    input2 = operand_def(TensorType | UnrankedTensorType)
    output = result_def(TensorType | UnrankedTensorType)
    traits = traits_def(NoMemoryEffect())
    assembly_format = _FUNCTIONAL

    def __init__(self, input1: SSAValue | Operation, input2: SSAValue | Operation,
                 result_type: Attribute):
        super().__init__(operands=[input1, input2], result_types=[result_type])

    def verify_(self) -> None:
        if not _is_signless_int(_element(self.output.type), 1):
            raise VerifyException(
                "result #0 must be tosa-conformant tensor of 1-bit signless integer "
                f"values, but got {_tq(self.output.type)}")
        _same_element_types([self.input1.type, self.input2.type], False)
        _verify_binary_broadcast(self)


@irdl_op_definition
class GreaterOp(_CompareOp):
    """`tosa.greater`: `out = input1 > input2`."""

    name = "tosa.greater"


@irdl_op_definition
class GreaterEqualOp(_CompareOp):
    """`tosa.greater_equal`: `out = input1 >= input2`."""

    name = "tosa.greater_equal"


@irdl_op_definition
class EqualOp(_CompareOp):
    """`tosa.equal`: `out = input1 == input2`."""

    name = "tosa.equal"
    traits = traits_def(NoMemoryEffect(), Commutative())


@irdl_op_definition
class AbsOp(IRDLOperation):
    """`tosa.abs`: `out = |input1|`."""

    name = "tosa.abs"
    input1 = operand_def(TensorType | UnrankedTensorType)
    output = result_def(TensorType | UnrankedTensorType)
    traits = traits_def(NoMemoryEffect())
    assembly_format = _FUNCTIONAL

    def __init__(self, input1: SSAValue | Operation, result_type: Attribute):
        super().__init__(operands=[input1], result_types=[result_type])

    def verify_(self) -> None:
        _same_shapes([self.input1.type, self.output.type])
        _same_element_types([self.input1.type, self.output.type], True)


@irdl_op_definition
class CastOp(IRDLOperation):
    """`tosa.cast`: element type conversion (float → int rounds half to even, saturates)."""

    name = "tosa.cast"
    input = operand_def(TensorType | UnrankedTensorType)
    output = result_def(TensorType | UnrankedTensorType)
    traits = traits_def(NoMemoryEffect())
    assembly_format = _FUNCTIONAL

    def __init__(self, input: SSAValue | Operation, result_type: Attribute):
        super().__init__(operands=[input], result_types=[result_type])

    def verify_(self) -> None:
        _same_shapes([self.input.type, self.output.type])


def _attr_text(a: Attribute) -> str:
    return _type_text(a)


@irdl_op_definition
class ClampOp(_EnumAttrDictFormat):
    """`tosa.clamp`: `out = min(max(input, min_val), max_val)` (no zero point applied)."""

    name = "tosa.clamp"
    input = operand_def(TensorType | UnrankedTensorType)
    output = result_def(TensorType | UnrankedTensorType)
    min_val = opt_prop_def(Attribute)   # IntegerAttr | FloatAttr, checked in verify_
    max_val = opt_prop_def(Attribute)
    nan_mode = opt_prop_def(NanModeAttr)
    traits = traits_def(NoMemoryEffect())
    _DEFAULTS: ClassVar[Mapping[str, Attribute]] = _NAN_DEFAULT

    def __init__(self, input: SSAValue | Operation, result_type: Attribute,
                 min_val: IntegerAttr | FloatAttr, max_val: IntegerAttr | FloatAttr,
                 nan_mode: NanMode = NanMode.PROPAGATE):
        super().__init__(operands=[input], result_types=[result_type], properties={
            "max_val": max_val, "min_val": min_val, "nan_mode": NanModeAttr(nan_mode)})

    def verify_(self) -> None:
        _require_properties(self, {"max_val": (IntegerAttr, FloatAttr),
                                   "min_val": (IntegerAttr, FloatAttr)})
        _same_shapes([self.input.type, self.output.type])
        _same_element_types([self.input.type, self.output.type], True)
        element = _storage_element(self.input.type)
        lo, hi = self.properties["min_val"], self.properties["max_val"]
        assert isinstance(lo, IntegerAttr | FloatAttr) and isinstance(hi, IntegerAttr | FloatAttr)
        if lo.type != element or hi.type != element:
            raise VerifyException(
                "min/max attributes types are incompatible with input/output element types.")
        got = f"got min_val={_attr_text(lo)}, max_val={_attr_text(hi)}"
        if isinstance(lo, FloatAttr) and isinstance(hi, FloatAttr):
            if math.isnan(lo.value.data) or math.isnan(hi.value.data):
                raise VerifyException(f"min/max attributes should not be 'NaN', {got}")
            if lo.value.data > hi.value.data:
                raise VerifyException(f"expected min_val <= max_val, {got}")
        elif isinstance(lo, IntegerAttr) and isinstance(hi, IntegerAttr):
            if lo.value.data > hi.value.data:
                raise VerifyException(f"expected min_val <= max_val, {got}")


@irdl_op_definition
class ConstOp(IRDLOperation):
    """`tosa.const`: a constant tensor. Upstream has no custom form: it prints
    `"tosa.const"() <{values = dense<...> : T}> : () -> T`."""

    name = "tosa.const"
    values = prop_def(Attribute)
    output = result_def(TensorType)
    traits = traits_def(NoMemoryEffect())

    def __init__(self, values: DenseIntOrFPElementsAttr, result_type: Attribute | None = None):
        super().__init__(properties={"values": values},
                         result_types=[result_type or values.get_type()])

    @classmethod
    def parse(cls, parser: Parser):
        parser.raise_error(f"custom op '{cls.name}' has no custom assembly form")

    def verify_(self) -> None:
        attr_type = getattr(self.values, "get_type", lambda: None)()
        out = self.output.type
        if not isinstance(attr_type, TensorType) or not isinstance(out, TensorType):
            raise VerifyException("expected tensors for attr/result type")
        if tuple(attr_type.get_shape()) != tuple(out.get_shape()):
            raise VerifyException("failed to verify that all of {values, output} have same shape")
        q = out.element_type
        if isinstance(q, UniformQuantizedType) and q.storage == attr_type.element_type:
            return
        if attr_type.element_type != out.element_type:
            raise VerifyException("expected same attr/result element types")


# -- rescale ----------------------------------------------------------------------------

@irdl_op_definition
class RescaleOp(_EnumAttrDictFormat):
    """`tosa.rescale`: `out = apply_scale(in - input_zp, multiplier, shift) + output_zp`,
    clamped to the output type (read as unsigned when `output_unsigned`)."""

    name = "tosa.rescale"
    input = operand_def(TensorType | UnrankedTensorType)
    multiplier = operand_def(TensorType | UnrankedTensorType)
    shift = operand_def(TensorType | UnrankedTensorType)
    input_zp = operand_def(TensorType | UnrankedTensorType)
    output_zp = operand_def(TensorType | UnrankedTensorType)
    output = result_def(TensorType | UnrankedTensorType)
    # required; kinds checked in verify_ with upstream's words
    scale32 = opt_prop_def(Attribute)
    rounding_mode = opt_prop_def(Attribute)
    per_channel = opt_prop_def(Attribute)
    input_unsigned = opt_prop_def(Attribute)
    output_unsigned = opt_prop_def(Attribute)
    traits = traits_def(NoMemoryEffect())

    def __init__(self, input: SSAValue | Operation, multiplier: SSAValue | Operation,
                 shift: SSAValue | Operation, input_zp: SSAValue | Operation,
                 output_zp: SSAValue | Operation, result_type: Attribute, *,
                 scale32: bool = True, rounding_mode: RoundingMode = RoundingMode.SINGLE_ROUND,
                 per_channel: bool = False, input_unsigned: bool = False,
                 output_unsigned: bool = False):
        props = {
            "input_unsigned": BoolAttr.from_bool(input_unsigned),
            "output_unsigned": BoolAttr.from_bool(output_unsigned),
            "per_channel": BoolAttr.from_bool(per_channel),
            "rounding_mode": RoundingModeAttr(rounding_mode),
            "scale32": BoolAttr.from_bool(scale32),
        }
        super().__init__(operands=[input, multiplier, shift, input_zp, output_zp],
                         result_types=[result_type], properties=props)

    def _flag(self, name: str) -> bool:
        value = self.properties.get(name)
        return isinstance(value, IntegerAttr) and bool(value.value.data)

    @property
    def is_scale32(self) -> bool:
        return self._flag("scale32")

    @property
    def is_per_channel(self) -> bool:
        return self._flag("per_channel")

    @property
    def is_input_unsigned(self) -> bool:
        return self._flag("input_unsigned")

    @property
    def is_output_unsigned(self) -> bool:
        return self._flag("output_unsigned")

    def verify_(self) -> None:
        # (BoolAttr is IntegerAttr[i1]: the i1 part is checked just below)
        _require_properties(self, {"input_unsigned": IntegerAttr, "output_unsigned": IntegerAttr,
                                   "per_channel": IntegerAttr,
                                   "rounding_mode": RoundingModeAttr, "scale32": IntegerAttr})
        for name in ("input_unsigned", "output_unsigned", "per_channel", "scale32"):
            if self.properties[name] != BoolAttr.from_bool(self._flag(name)):
                raise VerifyException(f"requires attribute '{name}'")
        m_t, s_t = self.multiplier.type, self.shift.type
        one_d = isinstance(m_t, TensorType) and len(m_t.get_shape()) == 1
        _verify_operand(self, 1, one_d and (_is_signless_int(_element(m_t), 16)
                                            or _is_signless_int(_element(m_t), 32)),
                        "1D tosa-conformant tensor of 16-bit signless integer or 32-bit "
                        "signless integer values")
        one_d = isinstance(s_t, TensorType) and len(s_t.get_shape()) == 1
        _verify_operand(self, 2, one_d and _is_signless_int(_element(s_t), 8),
                        "1D tosa-conformant tensor of 8-bit signless integer values")
        for i in (3, 4):
            _verify_operand(self, i, _is_scalar_tensor(self.operands[i].type),
                            "tosa-conformant scalar tensor of unsigned integer or signless "
                            "integer or floating-point values")
        in_e = _storage_element(self.input.type)
        out_e = _storage_element(self.output.type)
        if not isinstance(in_e, IntegerType):
            raise VerifyException(f"expect input to have integer element type, got {_tq(in_e)}")
        if not isinstance(out_e, IntegerType):
            raise VerifyException(
                f"expect output to have integer element type, got {_tq(out_e)}")
        for name, value_e, zp in (("input", in_e, self.input_zp),
                                  ("output", out_e, self.output_zp)):
            zp_e = _storage_element(zp.type)
            if not isinstance(zp_e, IntegerType) or zp_e.width.data != value_e.width.data:
                raise VerifyException(
                    f"expected {name} and {name}_zp to both be integer of the same "
                    f"bitwidth, but got {_tq(value_e)} vs. {_tq(zp_e)}")
        self._verify_zero_point("input", in_e, self.input_zp, self.is_input_unsigned)
        self._verify_zero_point("output", out_e, self.output_zp, self.is_output_unsigned)
        m_e = _element(m_t)
        if self.is_scale32 and not _is_signless_int(m_e, 32):
            raise VerifyException(
                f"expect i32 element type for multiplier for scale32=true, got {_tq(m_e)}")
        if not self.is_scale32 and not _is_signless_int(m_e, 16):
            raise VerifyException(
                f"expect i16 element type for multiplier for scale32=false, got {_tq(m_e)}")
        channels = 1
        in_shape = _shape(self.input.type)
        if self.is_per_channel:
            if in_shape is not None and len(in_shape) == 0:
                raise VerifyException(
                    "requires input to be at least rank 1 when per_channel is true, but got "
                    "rank 0")
            channels = _DYN if in_shape is None else in_shape[-1]
        out_shape = _shape(self.output.type)
        if in_shape is not None and out_shape is not None and not _compatible(
                in_shape, out_shape):
            raise VerifyException(
                f"expected output shape {_shape_list_text(out_shape)} to be compatible with "
                f"inferred shape {_shape_list_text(in_shape)}")
        for what, t in (("multiplier", m_t), ("shift", s_t)):
            size = tuple(t.get_shape())[0]  # rank 1, checked above
            if size != _DYN and channels != _DYN and size != channels:
                raise VerifyException(
                    f"expect shape of {{ {channels} }} for {what} input, got {{ {size} }}")
        self._verify_unsigned(in_e.width.data, out_e.width.data)

    @staticmethod
    def _verify_zero_point(name: str, element: IntegerType, zp: SSAValue,
                           unsigned: bool) -> None:
        values = _const_ints(zp)
        if not values:
            return
        width = element.width.data
        value = values[0]
        if unsigned:
            value &= (1 << width) - 1   # an unsigned operand's zero point reads unsigned
        if width == 8:
            return
        if width == 16 and unsigned:
            if value not in (0, 32768):
                raise VerifyException(
                    f"expect {name}_zp of 0 or 32768 for unsigned int16 {name}, got {value}")
            return
        if value != 0:
            raise VerifyException(f"expect {name}_zp of 0, got {value}")

    def _verify_unsigned(self, in_width: int, out_width: int) -> None:
        """The TOSA spec's signedness rules (upstream reports these from
        `--tosa-validate=strict-op-spec-alignment`, with these words)."""
        iu, ou = self.is_input_unsigned, self.is_output_unsigned
        if iu and ou:
            raise VerifyException("input and output cannot be both unsigned.")
        if iu and in_width not in (8, 16):
            raise VerifyException(f"i{in_width} input type cannot be unsigned.")
        if ou and out_width not in (8, 16):
            raise VerifyException(f"i{out_width} output type cannot be unsigned.")
        if iu and out_width == 32:
            raise VerifyException("i32 output type is not allowed with unsigned input.")
        if ou and in_width == 32:
            raise VerifyException("i32 input type is not allowed with unsigned output.")
        if in_width == 48 and self.is_scale32:
            raise VerifyException("scale32 is not allowed with 48-bit input.")


TOSA = Dialect(
    "tosa",
    [AbsOp, AddOp, CastOp, ClampOp, ConstOp, EqualOp, GreaterEqualOp, GreaterOp,
     MaximumOp, MinimumOp, MulOp, RescaleOp, SubOp],
    [NanModeAttr, RoundingModeAttr],
)
