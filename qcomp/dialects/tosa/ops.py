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

import math
from collections.abc import Mapping
from typing import ClassVar

from xdsl.dialects.builtin import (
    BoolAttr,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    TensorType,
    UnrankedTensorType,
)
from xdsl.dialects.tosa import NanMode, NanModeAttr, RoundingMode, RoundingModeAttr
from xdsl.ir import Attribute, Operation, SSAValue
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
from xdsl.traits import Commutative, NoMemoryEffect
from xdsl.utils.exceptions import VerifyException

from qcomp.dialects.facts import NO_QUANTIZATION, own_lowering
from qcomp.dialects.quant import UniformQuantizedType
from qcomp.dialects.stablehlo import kernels
from qcomp.dialects.tosa.support import (
    DYN,
    FUNCTIONAL,
    EnumAttrDictFormat,
    broadcast_shape,
    compatible,
    element_of,
    is_scalar_tensor,
    is_signless_int,
    quoted_type,
    require_properties,
    same_element_types,
    same_shapes,
    shape_list_text,
    shape_of,
    storage_element,
    type_text,
    verify_binary_broadcast,
    verify_operand,
)

__all__ = [
    "AbsOp", "AddOp", "CastOp", "ClampOp", "ConstOp", "EqualOp", "GreaterEqualOp",
    "GreaterOp", "MaximumOp", "MinimumOp", "MulOp", "NanMode", "NanModeAttr", "RescaleOp",
    "RoundingMode", "RoundingModeAttr", "SubOp",
]


def _const_ints(value: SSAValue) -> list[int] | None:
    """The integer values of a `tosa.const` result, or None if not a constant."""
    owner = value.owner
    if not isinstance(owner, ConstOp):
        return None
    attr = owner.values
    if not isinstance(attr, DenseIntOrFPElementsAttr) or not isinstance(
            attr.get_element_type(), IntegerType):
        return None
    # a splat held as one element (qcomp.ir.splat) gives its one value: the checks read
    # the first value or whether any is non-zero, the same for every element
    return [int(v) for v in attr.get_values()]


# -- element-wise ops -------------------------------------------------------------------

def _verify_binary(op) -> None:
    """One element type for both inputs and the output; TOSA broadcasting."""
    same_element_types([op.input1.type, op.input2.type, op.output.type], True)
    verify_binary_broadcast(op)


class _BinaryOp(IRDLOperation):
    """`tosa.add`-like: same element type in and out, TOSA broadcasting."""

    input1 = operand_def(TensorType | UnrankedTensorType)
    input2 = operand_def(TensorType | UnrankedTensorType)
    output = result_def(TensorType | UnrankedTensorType)
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION)
    assembly_format = FUNCTIONAL

    def __init__(self, input1: SSAValue | Operation, input2: SSAValue | Operation,
                 result_type: Attribute):
        super().__init__(operands=[input1, input2], result_types=[result_type])

    def verify_(self) -> None:
        _verify_binary(self)


@irdl_op_definition
class AddOp(_BinaryOp):
    """`tosa.add`: `out = input1 + input2` (wrapping for integers)."""

    name = "tosa.add"
    traits = traits_def(NoMemoryEffect(), Commutative(), NO_QUANTIZATION, kernels.ADD)


@irdl_op_definition
class SubOp(_BinaryOp):
    """`tosa.sub`: `out = input1 - input2`."""

    name = "tosa.sub"
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION, kernels.SUBTRACT)


_NAN_DEFAULT = {"nan_mode": NanModeAttr(NanMode.PROPAGATE)}


class _NanBinaryOp(EnumAttrDictFormat):
    input1 = operand_def(TensorType | UnrankedTensorType)
    input2 = operand_def(TensorType | UnrankedTensorType)
    output = result_def(TensorType | UnrankedTensorType)
    nan_mode = opt_prop_def(NanModeAttr)
    traits = traits_def(NoMemoryEffect(), Commutative(), NO_QUANTIZATION)
    _DEFAULTS: ClassVar[Mapping[str, Attribute]] = _NAN_DEFAULT

    def __init__(self, input1: SSAValue | Operation, input2: SSAValue | Operation,
                 result_type: Attribute, nan_mode: NanMode = NanMode.PROPAGATE):
        super().__init__(operands=[input1, input2], result_types=[result_type],
                         properties={"nan_mode": NanModeAttr(nan_mode)})

    def verify_(self) -> None:
        _verify_binary(self)


@irdl_op_definition
class MaximumOp(_NanBinaryOp):
    """`tosa.maximum`: `out = max(input1, input2)`."""

    name = "tosa.maximum"
    traits = traits_def(NoMemoryEffect(), Commutative(), NO_QUANTIZATION, kernels.MAXIMUM)


@irdl_op_definition
class MinimumOp(_NanBinaryOp):
    """`tosa.minimum`: `out = min(input1, input2)`."""

    name = "tosa.minimum"
    traits = traits_def(NoMemoryEffect(), Commutative(), NO_QUANTIZATION, kernels.MINIMUM)


@irdl_op_definition
class MulOp(IRDLOperation):
    """`tosa.mul`: `out = (input1 * input2) >> shift` (rounded; shift only for i32)."""

    name = "tosa.mul"
    input1 = operand_def(TensorType | UnrankedTensorType)
    input2 = operand_def(TensorType | UnrankedTensorType)
    shift = operand_def(TensorType | UnrankedTensorType)
    output = result_def(TensorType | UnrankedTensorType)
    traits = traits_def(NoMemoryEffect(), Commutative(), NO_QUANTIZATION, kernels.MULTIPLY)
    assembly_format = FUNCTIONAL

    def __init__(self, input1: SSAValue | Operation, input2: SSAValue | Operation,
                 shift: SSAValue | Operation, result_type: Attribute):
        super().__init__(operands=[input1, input2, shift], result_types=[result_type])

    def verify_(self) -> None:
        shift_t = self.shift.type
        verify_operand(self, 2, is_scalar_tensor(shift_t)
                        and is_signless_int(element_of(shift_t), 8),
                        "tosa-conformant scalar tensor of 8-bit signless integer values")
        a = storage_element(self.input1.type)
        out = storage_element(self.output.type)
        if not isinstance(out, IntegerType):
            same_element_types([self.input1.type, self.input2.type, self.output.type], True)
        else:
            same_element_types([self.input1.type, self.input2.type], False)
            if not isinstance(a, IntegerType):
                raise VerifyException("requires the same element type for all operands")
            if out.width.data < a.width.data:
                raise VerifyException("invalid data type size for operands or result")
        if not isinstance(a, IntegerType):
            shift = _const_ints(self.shift)
            if shift is not None and any(s != 0 for s in shift):
                raise VerifyException("require shift to be 0 for float type")
        sa, sb = shape_of(self.input1.type), shape_of(self.input2.type)
        so = shape_of(self.output.type)
        if sa is None or sb is None:
            return
        if len(sa) != len(sb):
            raise VerifyException(
                f"a and b operands don't have matching ranks, got {len(sa)} and {len(sb)}")
        shape = broadcast_shape(sa, sb)
        if shape is None:
            raise VerifyException(
                "a and b operands don't have broadcast-compatible shapes, got "
                f"{quoted_type(self.input1.type)} and {quoted_type(self.input2.type)}")
        if so is None:
            return
        if len(so) != len(sa):
            raise VerifyException(
                f"result type has different rank than a, got {len(so)} vs {len(sa)}")
        if not compatible(so, shape):
            raise VerifyException(
                f"expected output shape {shape_list_text(so)} to be compatible with "
                f"inferred shape {shape_list_text(shape)}")


class _CompareOp(IRDLOperation):
    """`tosa.greater`-like: i1 result, same operand element types, broadcasting."""

    input1 = operand_def(TensorType | UnrankedTensorType)
    input2 = operand_def(TensorType | UnrankedTensorType)
    output = result_def(TensorType | UnrankedTensorType)
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION)
    assembly_format = FUNCTIONAL

    def __init__(self, input1: SSAValue | Operation, input2: SSAValue | Operation,
                 result_type: Attribute):
        super().__init__(operands=[input1, input2], result_types=[result_type])

    def verify_(self) -> None:
        if not is_signless_int(element_of(self.output.type), 1):
            raise VerifyException(
                "result #0 must be tosa-conformant tensor of 1-bit signless integer "
                f"values, but got {quoted_type(self.output.type)}")
        same_element_types([self.input1.type, self.input2.type], False)
        verify_binary_broadcast(self)


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
    traits = traits_def(NoMemoryEffect(), Commutative(), NO_QUANTIZATION)


@irdl_op_definition
class AbsOp(IRDLOperation):
    """`tosa.abs`: `out = |input1|`."""

    name = "tosa.abs"
    input1 = operand_def(TensorType | UnrankedTensorType)
    output = result_def(TensorType | UnrankedTensorType)
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION, kernels.ABS)
    assembly_format = FUNCTIONAL

    def __init__(self, input1: SSAValue | Operation, result_type: Attribute):
        super().__init__(operands=[input1], result_types=[result_type])

    def verify_(self) -> None:
        same_shapes([self.input1.type, self.output.type])
        same_element_types([self.input1.type, self.output.type], True)


@irdl_op_definition
class CastOp(IRDLOperation):
    """`tosa.cast`: element type conversion (float → int rounds half to even, saturates)."""

    name = "tosa.cast"
    input = operand_def(TensorType | UnrankedTensorType)
    output = result_def(TensorType | UnrankedTensorType)
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION)
    assembly_format = FUNCTIONAL

    def __init__(self, input: SSAValue | Operation, result_type: Attribute):
        super().__init__(operands=[input], result_types=[result_type])

    def verify_(self) -> None:
        same_shapes([self.input.type, self.output.type])


@irdl_op_definition
class ClampOp(EnumAttrDictFormat):
    """`tosa.clamp`: `out = min(max(input, min_val), max_val)` (no zero point applied)."""

    name = "tosa.clamp"
    input = operand_def(TensorType | UnrankedTensorType)
    output = result_def(TensorType | UnrankedTensorType)
    min_val = opt_prop_def(Attribute)   # IntegerAttr | FloatAttr, checked in verify_
    max_val = opt_prop_def(Attribute)
    nan_mode = opt_prop_def(NanModeAttr)
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION)
    _DEFAULTS: ClassVar[Mapping[str, Attribute]] = _NAN_DEFAULT

    def __init__(self, input: SSAValue | Operation, result_type: Attribute,
                 min_val: IntegerAttr | FloatAttr, max_val: IntegerAttr | FloatAttr,
                 nan_mode: NanMode = NanMode.PROPAGATE):
        super().__init__(operands=[input], result_types=[result_type], properties={
            "max_val": max_val, "min_val": min_val, "nan_mode": NanModeAttr(nan_mode)})

    def verify_(self) -> None:
        require_properties(self, {"max_val": (IntegerAttr, FloatAttr),
                                   "min_val": (IntegerAttr, FloatAttr)})
        same_shapes([self.input.type, self.output.type])
        same_element_types([self.input.type, self.output.type], True)
        element = storage_element(self.input.type)
        lo, hi = self.properties["min_val"], self.properties["max_val"]
        assert isinstance(lo, IntegerAttr | FloatAttr) and isinstance(hi, IntegerAttr | FloatAttr)
        if lo.type != element or hi.type != element:
            raise VerifyException(
                "min/max attributes types are incompatible with input/output element types.")
        got = f"got min_val={type_text(lo)}, max_val={type_text(hi)}"
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
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION)

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
class RescaleOp(EnumAttrDictFormat):
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
    traits = traits_def(NoMemoryEffect(), own_lowering(per_axis=True))

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
        require_properties(self, {"input_unsigned": IntegerAttr, "output_unsigned": IntegerAttr,
                                   "per_channel": IntegerAttr,
                                   "rounding_mode": RoundingModeAttr, "scale32": IntegerAttr})
        for name in ("input_unsigned", "output_unsigned", "per_channel", "scale32"):
            if self.properties[name] != BoolAttr.from_bool(self._flag(name)):
                raise VerifyException(f"requires attribute '{name}'")
        m_t, s_t = self.multiplier.type, self.shift.type
        one_d = isinstance(m_t, TensorType) and len(m_t.get_shape()) == 1
        verify_operand(self, 1, one_d and (is_signless_int(element_of(m_t), 16)
                                            or is_signless_int(element_of(m_t), 32)),
                        "1D tosa-conformant tensor of 16-bit signless integer or 32-bit "
                        "signless integer values")
        one_d = isinstance(s_t, TensorType) and len(s_t.get_shape()) == 1
        verify_operand(self, 2, one_d and is_signless_int(element_of(s_t), 8),
                        "1D tosa-conformant tensor of 8-bit signless integer values")
        for i in (3, 4):
            verify_operand(self, i, is_scalar_tensor(self.operands[i].type),
                            "tosa-conformant scalar tensor of unsigned integer or signless "
                            "integer or floating-point values")
        in_e = storage_element(self.input.type)
        out_e = storage_element(self.output.type)
        if not isinstance(in_e, IntegerType):
            raise VerifyException(
                f"expect input to have integer element type, got {quoted_type(in_e)}")
        if not isinstance(out_e, IntegerType):
            raise VerifyException(
                f"expect output to have integer element type, got {quoted_type(out_e)}")
        for name, value_e, zp in (("input", in_e, self.input_zp),
                                  ("output", out_e, self.output_zp)):
            zp_e = storage_element(zp.type)
            if not isinstance(zp_e, IntegerType) or zp_e.width.data != value_e.width.data:
                raise VerifyException(
                    f"expected {name} and {name}_zp to both be integer of the same "
                    f"bitwidth, but got {quoted_type(value_e)} vs. {quoted_type(zp_e)}")
        self._verify_zero_point("input", in_e, self.input_zp, self.is_input_unsigned)
        self._verify_zero_point("output", out_e, self.output_zp, self.is_output_unsigned)
        m_e = element_of(m_t)
        if self.is_scale32 and not is_signless_int(m_e, 32):
            raise VerifyException(
                f"expect i32 element type for multiplier for scale32=true, got {quoted_type(m_e)}")
        if not self.is_scale32 and not is_signless_int(m_e, 16):
            raise VerifyException(
                f"expect i16 element type for multiplier for scale32=false, got {quoted_type(m_e)}")
        channels = 1
        in_shape = shape_of(self.input.type)
        if self.is_per_channel:
            if in_shape is not None and len(in_shape) == 0:
                raise VerifyException(
                    "requires input to be at least rank 1 when per_channel is true, but got "
                    "rank 0")
            channels = DYN if in_shape is None else in_shape[-1]
        out_shape = shape_of(self.output.type)
        if in_shape is not None and out_shape is not None and not compatible(
                in_shape, out_shape):
            raise VerifyException(
                f"expected output shape {shape_list_text(out_shape)} to be compatible with "
                f"inferred shape {shape_list_text(in_shape)}")
        for what, t in (("multiplier", m_t), ("shift", s_t)):
            size = t.get_shape()[0]  # rank 1, checked above
            if size != DYN and channels != DYN and size != channels:
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
        mode = self.rounding_mode
        if not self.is_scale32 and isinstance(mode, RoundingModeAttr) and \
                mode.data == RoundingMode.DOUBLE_ROUND:
            raise VerifyException("DOUBLE_ROUND is only allowed with scale32=true.")
