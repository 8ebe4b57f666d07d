"""StableHLO binary elementwise ops, clamp, select and compare.

`%r = stablehlo.add %a, %b : tensor<4xi8>` when every operand type equals the result
type, else the functional form `: (t, u) -> v`. Quantized operands mean
`dequantize -> op -> quantize` (the StableHLO spec) unless the op declares otherwise.
"""

from __future__ import annotations

from xdsl.dialects.builtin import TensorType, i1
from xdsl.ir import Attribute
from xdsl.irdl import (
    IRDLOperation,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.irdl.operations import ParsePropInAttrDict
from xdsl.traits import Commutative, NoMemoryEffect

from qcomp.dialects.facts import NO_QUANTIZATION, XLA_APPROXIMATION, UpstreamGeneric, dq_op_q
from qcomp.dialects.stablehlo import kernels
from qcomp.dialects.stablehlo import syntax as syntax
from qcomp.dialects.stablehlo import verify as check
from qcomp.dialects.stablehlo.assembly import (
    SAME_OPERANDS_AND_RESULT_TYPE,
    SameOperandsAndResultType,
)
from qcomp.dialects.stablehlo.attrs import (
    ComparisonDirection,
    ComparisonDirectionAttr,
    ComparisonType,
    ComparisonTypeAttr,
)
from qcomp.dialects.stablehlo.elementwise import BinaryElementwiseOp
from qcomp.dialects.stablehlo.kinds import (
    FP_COMPLEX_Q,
    INT,
    INT_FP_COMPLEX_Q,
    PRED,
    PRED_INT,
    RANKED,
    TENSOR,
    TENSOR_PA,
    ElementKinds,
)
from qcomp.ir.lazy_format import irdl_op_definition

MONOTONE = dq_op_q(same_types_pass_through=True, upstream_generic=UpstreamGeneric.SAME_TYPES)
"""maximum / minimum: on equal quantized types the stored integers order as the reals."""


@irdl_op_definition
class AddOp(BinaryElementwiseOp):
    """`a + b`."""

    name = "stablehlo.add"
    traits = traits_def(
        NoMemoryEffect(),
        Commutative(),
        ElementKinds.same(TENSOR_PA, 2),
        dq_op_q(per_axis=True),
        kernels.ADD)

    def verify_(self) -> None:
        check.verify_add(self)



@irdl_op_definition
class Atan2Op(BinaryElementwiseOp):
    """`stablehlo.atan2`."""

    name = "stablehlo.atan2"
    traits = traits_def(
        NoMemoryEffect(),
        ElementKinds.same(FP_COMPLEX_Q, 2),
        dq_op_q(),
        kernels.ATAN2, XLA_APPROXIMATION)


@irdl_op_definition
class DivideOp(BinaryElementwiseOp):
    """`a / b` (integers truncate toward zero)."""

    name = "stablehlo.divide"
    traits = traits_def(
        NoMemoryEffect(),
        ElementKinds.same(INT_FP_COMPLEX_Q, 2),
        dq_op_q(),
        kernels.DIVIDE)


@irdl_op_definition
class MaximumOp(BinaryElementwiseOp):
    """`stablehlo.maximum`."""

    name = "stablehlo.maximum"
    traits = traits_def(
        NoMemoryEffect(),
        Commutative(),
        ElementKinds.same(TENSOR, 2),
        MONOTONE,
        kernels.MAXIMUM)


@irdl_op_definition
class MinimumOp(BinaryElementwiseOp):
    """`stablehlo.minimum`."""

    name = "stablehlo.minimum"
    traits = traits_def(
        NoMemoryEffect(),
        Commutative(),
        ElementKinds.same(TENSOR, 2),
        MONOTONE,
        kernels.MINIMUM)


@irdl_op_definition
class MultiplyOp(BinaryElementwiseOp):
    """`a * b`."""

    name = "stablehlo.multiply"
    traits = traits_def(
        NoMemoryEffect(),
        Commutative(),
        ElementKinds.same(TENSOR, 2),
        dq_op_q(),
        kernels.MULTIPLY)


@irdl_op_definition
class PowerOp(BinaryElementwiseOp):
    """`stablehlo.power`."""

    name = "stablehlo.power"
    traits = traits_def(
        NoMemoryEffect(),
        ElementKinds.same(INT_FP_COMPLEX_Q, 2),
        dq_op_q(),
        kernels.POWER, XLA_APPROXIMATION)


@irdl_op_definition
class RemainderOp(BinaryElementwiseOp):
    """`a - b * trunc(a / b)`."""

    name = "stablehlo.remainder"
    traits = traits_def(
        NoMemoryEffect(),
        ElementKinds.same(INT_FP_COMPLEX_Q, 2),
        dq_op_q(),
        kernels.REMAINDER)


@irdl_op_definition
class ShiftLeftOp(BinaryElementwiseOp):
    """`stablehlo.shift_left`."""

    name = "stablehlo.shift_left"
    traits = traits_def(
        NoMemoryEffect(),
        ElementKinds.same(INT, 2),
        NO_QUANTIZATION,
        kernels.SHIFT_LEFT)


@irdl_op_definition
class ShiftRightArithmeticOp(BinaryElementwiseOp):
    """`stablehlo.shift_right_arithmetic`."""

    name = "stablehlo.shift_right_arithmetic"
    traits = traits_def(
        NoMemoryEffect(),
        ElementKinds.same(INT, 2),
        NO_QUANTIZATION,
        kernels.SHIFT_RIGHT_ARITHMETIC)


@irdl_op_definition
class ShiftRightLogicalOp(BinaryElementwiseOp):
    """`stablehlo.shift_right_logical`."""

    name = "stablehlo.shift_right_logical"
    traits = traits_def(
        NoMemoryEffect(),
        ElementKinds.same(INT, 2),
        NO_QUANTIZATION,
        kernels.SHIFT_RIGHT_LOGICAL)


@irdl_op_definition
class SubtractOp(BinaryElementwiseOp):
    """`a - b`."""

    name = "stablehlo.subtract"
    traits = traits_def(
        NoMemoryEffect(),
        ElementKinds.same(INT_FP_COMPLEX_Q, 2),
        dq_op_q(),
        kernels.SUBTRACT)


@irdl_op_definition
class AndOp(BinaryElementwiseOp):
    """`stablehlo.and`."""

    name = "stablehlo.and"
    traits = traits_def(
        NoMemoryEffect(),
        Commutative(),
        ElementKinds.same(PRED_INT, 2),
        NO_QUANTIZATION,
        kernels.AND)


@irdl_op_definition
class OrOp(BinaryElementwiseOp):
    """`stablehlo.or`."""

    name = "stablehlo.or"
    traits = traits_def(
        NoMemoryEffect(),
        Commutative(),
        ElementKinds.same(PRED_INT, 2),
        NO_QUANTIZATION,
        kernels.OR)


@irdl_op_definition
class XorOp(BinaryElementwiseOp):
    """`stablehlo.xor`."""

    name = "stablehlo.xor"
    traits = traits_def(
        NoMemoryEffect(),
        Commutative(),
        ElementKinds.same(PRED_INT, 2),
        NO_QUANTIZATION,
        kernels.XOR)


@irdl_op_definition
class ClampOp(IRDLOperation):
    """`stablehlo.clamp %min, %x, %max : t`: `min(max(x, min), max)`."""

    name = "stablehlo.clamp"
    min = operand_def()
    operand = operand_def()
    max = operand_def()
    result = result_def()
    traits = traits_def(NoMemoryEffect(), ElementKinds.same(TENSOR, 3), dq_op_q())

    def __init__(self, min, operand, max, result_type: Attribute | None = None):
        super().__init__(operands=[min, operand, max],
                         result_types=[result_type or operand.type])

    assembly_format = SAME_OPERANDS_AND_RESULT_TYPE
    custom_directives = (SameOperandsAndResultType,)
    irdl_options = (ParsePropInAttrDict(),)

    def verify_(self) -> None:
        check.verify_clamp(self)


@irdl_op_definition
class SelectOp(IRDLOperation):
    """`stablehlo.select %pred, %t, %f : pred_type, type`."""

    name = "stablehlo.select"
    pred = operand_def()
    on_true = operand_def()
    on_false = operand_def()
    result = result_def()
    traits = traits_def(
        NoMemoryEffect(),
        ElementKinds(((RANKED, PRED), (RANKED, TENSOR), (RANKED, TENSOR)), (RANKED, TENSOR)),
        dq_op_q(fusable=False, same_types_pass_through=True,
                upstream_generic=UpstreamGeneric.ALWAYS))

    def __init__(self, pred, on_true, on_false, result_type: Attribute | None = None):
        super().__init__(operands=[pred, on_true, on_false],
                         result_types=[result_type or on_true.type])

    # upstream: `operands attr-dict : custom<SelectOpType>(...)`; written out because
    # xDSL's `operands` directive checks the operand count before the directive can
    # word upstream's "number of operands and types do not match"
    parse = classmethod(syntax.parse_select)
    print = syntax.print_select

    def verify_(self) -> None:
        check.verify_select(self)


@irdl_op_definition
class CompareOp(IRDLOperation):
    """`stablehlo.compare GT, %a, %b[, FLOAT] : (t, t) -> tensor<..xi1>`."""

    name = "stablehlo.compare"
    lhs = operand_def()
    rhs = operand_def()
    result = result_def()
    comparison_direction_attr = prop_def(ComparisonDirectionAttr, prop_name="comparison_direction")
    compare_type = opt_prop_def(ComparisonTypeAttr)
    traits = traits_def(NoMemoryEffect(),
                        ElementKinds(((RANKED, TENSOR),) * 2, (RANKED, PRED)),
                        dq_op_q(fusable=False))

    def __init__(self, lhs, rhs, direction: str, compare_type: str | None = None,
                 result_type: Attribute | None = None):
        """`result_type` defaults to an `i1` tensor shaped like `lhs`."""
        props: dict[str, Attribute] = {
            "comparison_direction": ComparisonDirectionAttr(ComparisonDirection(direction))}
        if compare_type is not None:
            props["compare_type"] = ComparisonTypeAttr(ComparisonType(compare_type))
        if result_type is None:
            result_type = TensorType(i1, lhs.type.get_shape())
        super().__init__(operands=[lhs, rhs], result_types=[result_type], properties=props)

    parse = classmethod(syntax.parse_compare)
    print = syntax.print_compare

    @property
    def comparison_direction(self) -> str:
        """`EQ`, `NE`, `GE`, `GT`, `LE` or `LT`."""
        return self.comparison_direction_attr.data.value

    def verify_(self) -> None:
        check.verify_compare(self)
