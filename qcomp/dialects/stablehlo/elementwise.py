"""StableHLO elementwise ops: the op families, the unary ops, reduce_precision (binary
ops, clamp, select and compare are in `binary.py`).

`%r = stablehlo.add %a, %b : tensor<4xi8>` when every operand type equals the result
type, else the functional form `: (t, u) -> v` (upstream's SameOperandsAndResultType).
Quantized operands mean `dequantize → op → quantize` (the StableHLO spec).
"""

from __future__ import annotations

from xdsl.dialects.builtin import FloatData, IntAttr, IntegerAttr, i32
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
from xdsl.traits import NoMemoryEffect

from qcomp.dialects.facts import NO_QUANTIZATION, XLA_APPROXIMATION, dq_op_q, own_lowering
from qcomp.dialects.stablehlo import kernels
from qcomp.dialects.stablehlo import syntax as syntax
from qcomp.dialects.stablehlo import verify as check
from qcomp.dialects.stablehlo.assembly import (
    REDUCE_PRECISION,
    SAME_OPERANDS_AND_RESULT_TYPE,
    ExponentMantissa,
    SameOperandsAndResultType,
)
from qcomp.dialects.stablehlo.attrs import (
    ResultAccuracyAttr,
    ResultAccuracyMode,
    ResultAccuracyModeAttr,
)
from qcomp.dialects.stablehlo.kinds import (
    FP,
    FP_COMPLEX_Q,
    FP_Q,
    INT,
    INT_FP_COMPLEX_Q,
    NON_QUANTIZED,
    PRED_INT,
    QUANTIZED_SUB,
    SINT_FP_COMPLEX_Q,
    ElementKinds,
)
from qcomp.ir.lazy_format import irdl_op_definition


# ---------------------------------------------------------------------------
# Elementwise families
# ---------------------------------------------------------------------------
class UnaryElementwiseOp(IRDLOperation):
    """`%r = stablehlo.<op> %x : t` (or `: (t_in) -> t_out`)."""

    operand = operand_def()
    result = result_def()
    traits = traits_def(NoMemoryEffect())

    def __init__(self, operand, result_type: Attribute | None = None):
        super().__init__(operands=[operand],
                         result_types=[result_type or operand.type])

    assembly_format = SAME_OPERANDS_AND_RESULT_TYPE
    custom_directives = (SameOperandsAndResultType,)
    irdl_options = (ParsePropInAttrDict(),)

    def verify_(self) -> None:
        check.verify_elementwise(self)


DEFAULT_ACCURACY = ResultAccuracyAttr(FloatData(0.0), FloatData(0.0), IntAttr(0),
                                      ResultAccuracyModeAttr(ResultAccuracyMode.DEFAULT))
"""`#stablehlo.result_accuracy<atol = 0.0, rtol = 0.0, ulps = 0, mode = DEFAULT>`: elided
when printed, as upstream does."""


class AccurateUnaryOp(UnaryElementwiseOp):
    """A transcendental unary op with an optional `result_accuracy`."""

    result_accuracy = opt_prop_def(ResultAccuracyAttr, default_value=DEFAULT_ACCURACY)


class BinaryElementwiseOp(IRDLOperation):
    """`%r = stablehlo.<op> %a, %b : t` (or the functional type)."""

    lhs = operand_def()
    rhs = operand_def()
    result = result_def()
    traits = traits_def(NoMemoryEffect())

    def __init__(self, lhs, rhs, result_type: Attribute | None = None):
        super().__init__(operands=[lhs, rhs], result_types=[result_type or lhs.type])

    assembly_format = SAME_OPERANDS_AND_RESULT_TYPE
    custom_directives = (SameOperandsAndResultType,)
    irdl_options = (ParsePropInAttrDict(),)

    def verify_(self) -> None:
        check.verify_elementwise(self)


@irdl_op_definition
class AbsOp(UnaryElementwiseOp):
    """`|x|`."""

    name = "stablehlo.abs"
    traits = traits_def(
        NoMemoryEffect(),
        ElementKinds.unary(SINT_FP_COMPLEX_Q, ("SI", "F", "Q")),
        dq_op_q(),
        kernels.ABS)

    def verify_(self) -> None:
        check.verify_abs(self)



@irdl_op_definition
class CbrtOp(AccurateUnaryOp):
    """`x ** (1/3)`."""

    name = "stablehlo.cbrt"
    traits = traits_def(
        NoMemoryEffect(),
        ElementKinds.unary(FP_COMPLEX_Q, FP_COMPLEX_Q),
        dq_op_q(),
        kernels.CBRT, XLA_APPROXIMATION)


@irdl_op_definition
class CeilOp(UnaryElementwiseOp):
    """`stablehlo.ceil`."""

    name = "stablehlo.ceil"
    traits = traits_def(
        NoMemoryEffect(),
        ElementKinds.unary(FP_Q, FP_Q),
        dq_op_q(),
        kernels.CEIL)


@irdl_op_definition
class ConvertOp(UnaryElementwiseOp):
    """Element type conversion (float→int truncates)."""

    name = "stablehlo.convert"
    traits = traits_def(
        NoMemoryEffect(),
        ElementKinds.unary(NON_QUANTIZED, NON_QUANTIZED),
        NO_QUANTIZATION)

    def verify_(self) -> None:
        check.verify_convert(self)



@irdl_op_definition
class CosineOp(AccurateUnaryOp):
    """`stablehlo.cosine`."""

    name = "stablehlo.cosine"
    traits = traits_def(
        NoMemoryEffect(),
        ElementKinds.unary(FP_COMPLEX_Q, FP_COMPLEX_Q),
        dq_op_q(),
        kernels.COSINE, XLA_APPROXIMATION)


@irdl_op_definition
class ExponentialOp(AccurateUnaryOp):
    """`e ** x`."""

    name = "stablehlo.exponential"
    traits = traits_def(
        NoMemoryEffect(),
        ElementKinds.unary(FP_COMPLEX_Q, FP_COMPLEX_Q),
        dq_op_q(),
        kernels.EXPONENTIAL, XLA_APPROXIMATION)


@irdl_op_definition
class ExponentialMinusOneOp(AccurateUnaryOp):
    """`e ** x - 1`."""

    name = "stablehlo.exponential_minus_one"
    traits = traits_def(
        NoMemoryEffect(),
        ElementKinds.unary(FP_COMPLEX_Q, FP_COMPLEX_Q),
        dq_op_q(),
        kernels.EXPONENTIAL_MINUS_ONE, XLA_APPROXIMATION)


@irdl_op_definition
class FloorOp(UnaryElementwiseOp):
    """`stablehlo.floor`."""

    name = "stablehlo.floor"
    traits = traits_def(
        NoMemoryEffect(),
        ElementKinds.unary(FP_Q, FP_Q),
        dq_op_q(),
        kernels.FLOOR)


@irdl_op_definition
class LogOp(AccurateUnaryOp):
    """`stablehlo.log`."""

    name = "stablehlo.log"
    traits = traits_def(
        NoMemoryEffect(),
        ElementKinds.unary(FP_COMPLEX_Q, FP_COMPLEX_Q),
        dq_op_q(),
        kernels.LOG, XLA_APPROXIMATION)


@irdl_op_definition
class LogPlusOneOp(AccurateUnaryOp):
    """`log(1 + x)`."""

    name = "stablehlo.log_plus_one"
    traits = traits_def(
        NoMemoryEffect(),
        ElementKinds.unary(FP_COMPLEX_Q, FP_COMPLEX_Q),
        dq_op_q(),
        kernels.LOG_PLUS_ONE, XLA_APPROXIMATION)


@irdl_op_definition
class LogisticOp(AccurateUnaryOp):
    """`1 / (1 + e ** -x)`."""

    name = "stablehlo.logistic"
    traits = traits_def(
        NoMemoryEffect(),
        ElementKinds.unary(FP_COMPLEX_Q, FP_COMPLEX_Q),
        dq_op_q(),
        kernels.LOGISTIC, XLA_APPROXIMATION)


@irdl_op_definition
class NotOp(UnaryElementwiseOp):
    """`stablehlo.not`."""

    name = "stablehlo.not"
    traits = traits_def(
        NoMemoryEffect(),
        ElementKinds.unary(PRED_INT, PRED_INT),
        NO_QUANTIZATION,
        kernels.NOT)


@irdl_op_definition
class NegateOp(UnaryElementwiseOp):
    """`-x`."""

    name = "stablehlo.negate"
    traits = traits_def(
        NoMemoryEffect(),
        ElementKinds.unary(INT_FP_COMPLEX_Q, INT_FP_COMPLEX_Q),
        dq_op_q(),
        kernels.NEGATE)


@irdl_op_definition
class PopulationCountOp(UnaryElementwiseOp):
    """`stablehlo.popcnt`."""

    name = "stablehlo.popcnt"
    traits = traits_def(
        NoMemoryEffect(),
        ElementKinds.unary(INT, INT),
        NO_QUANTIZATION,
        kernels.POPCNT)


@irdl_op_definition
class CountLeadingZerosOp(UnaryElementwiseOp):
    """`stablehlo.count_leading_zeros`."""

    name = "stablehlo.count_leading_zeros"
    traits = traits_def(
        NoMemoryEffect(),
        ElementKinds.unary(INT, INT),
        NO_QUANTIZATION,
        kernels.COUNT_LEADING_ZEROS)


@irdl_op_definition
class RoundNearestAfzOp(UnaryElementwiseOp):
    """Round half away from zero."""

    name = "stablehlo.round_nearest_afz"
    traits = traits_def(
        NoMemoryEffect(),
        ElementKinds.unary(FP_Q, FP_Q),
        dq_op_q(),
        kernels.ROUND_NEAREST_AFZ)


@irdl_op_definition
class RoundNearestEvenOp(UnaryElementwiseOp):
    """Round half to even."""

    name = "stablehlo.round_nearest_even"
    traits = traits_def(
        NoMemoryEffect(),
        ElementKinds.unary(FP_Q, FP_Q),
        dq_op_q(),
        kernels.ROUND_NEAREST_EVEN)


@irdl_op_definition
class RsqrtOp(AccurateUnaryOp):
    """`1 / sqrt(x)`."""

    name = "stablehlo.rsqrt"
    traits = traits_def(
        NoMemoryEffect(),
        ElementKinds.unary(FP_COMPLEX_Q, FP_COMPLEX_Q),
        dq_op_q(),
        kernels.RSQRT, XLA_APPROXIMATION)


@irdl_op_definition
class SignOp(UnaryElementwiseOp):
    """`stablehlo.sign`."""

    name = "stablehlo.sign"
    traits = traits_def(
        NoMemoryEffect(),
        ElementKinds.unary(SINT_FP_COMPLEX_Q, SINT_FP_COMPLEX_Q),
        dq_op_q(),
        kernels.SIGN)


@irdl_op_definition
class SineOp(AccurateUnaryOp):
    """`stablehlo.sine`."""

    name = "stablehlo.sine"
    traits = traits_def(
        NoMemoryEffect(),
        ElementKinds.unary(FP_COMPLEX_Q, FP_COMPLEX_Q),
        dq_op_q(),
        kernels.SINE, XLA_APPROXIMATION)


@irdl_op_definition
class SqrtOp(AccurateUnaryOp):
    """`stablehlo.sqrt`."""

    name = "stablehlo.sqrt"
    traits = traits_def(
        NoMemoryEffect(),
        ElementKinds.unary(FP_COMPLEX_Q, FP_COMPLEX_Q),
        dq_op_q(),
        kernels.SQRT)


@irdl_op_definition
class TanOp(AccurateUnaryOp):
    """`stablehlo.tan`."""

    name = "stablehlo.tan"
    traits = traits_def(
        NoMemoryEffect(),
        ElementKinds.unary(FP_COMPLEX_Q, FP_COMPLEX_Q),
        dq_op_q(),
        kernels.TAN, XLA_APPROXIMATION)


@irdl_op_definition
class TanhOp(AccurateUnaryOp):
    """`stablehlo.tanh`."""

    name = "stablehlo.tanh"
    traits = traits_def(
        NoMemoryEffect(),
        ElementKinds.unary(FP_COMPLEX_Q, FP_COMPLEX_Q),
        dq_op_q(),
        kernels.TANH, XLA_APPROXIMATION)


@irdl_op_definition
class UniformQuantizeOp(UnaryElementwiseOp):
    """Float → quantized (or requantize): `q = clamp(round_even(x / scale + zp))`."""

    name = "stablehlo.uniform_quantize"
    traits = traits_def(
        NoMemoryEffect(),
        ElementKinds.unary(("F", "Q", "QA"), QUANTIZED_SUB),
        own_lowering())

    def verify_(self) -> None:
        check.verify_uniform_quantize(self)



@irdl_op_definition
class UniformDequantizeOp(UnaryElementwiseOp):
    """Quantized → float: `x = (q - zp) * scale`."""

    name = "stablehlo.uniform_dequantize"
    traits = traits_def(NoMemoryEffect(), ElementKinds.unary(QUANTIZED_SUB, FP), own_lowering())

    def verify_(self) -> None:
        check.verify_uniform_dequantize(self)



@irdl_op_definition
class ReducePrecisionOp(IRDLOperation):
    """`stablehlo.reduce_precision %x, format = e5m10 : t`."""

    name = "stablehlo.reduce_precision"
    operand = operand_def()
    output = result_def()
    exponent_bits = prop_def(IntegerAttr)
    mantissa_bits = prop_def(IntegerAttr)
    traits = traits_def(NoMemoryEffect(), ElementKinds.unary(FP_Q, FP_Q), dq_op_q())

    def __init__(self, operand, exponent_bits: int, mantissa_bits: int):
        super().__init__(operands=[operand], result_types=[operand.type], properties={
            "exponent_bits": IntegerAttr(exponent_bits, i32),
            "mantissa_bits": IntegerAttr(mantissa_bits, i32)})

    assembly_format = REDUCE_PRECISION
    custom_directives = (ExponentMantissa, SameOperandsAndResultType)
    irdl_options = (ParsePropInAttrDict(),)

    def verify_(self) -> None:
        check.verify_reduce_precision(self)
