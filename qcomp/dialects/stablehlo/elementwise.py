"""StableHLO elementwise ops: unary, binary, clamp, select, compare, reduce_precision.

`%r = stablehlo.add %a, %b : tensor<4xi8>` when every operand type equals the result
type, else the functional form `: (t, u) -> v` (upstream's SameOperandsAndResultType).
Quantized operands mean `dequantize → op → quantize` (the StableHLO spec).
"""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerAttr, TensorType, i1, i32
from xdsl.ir import Attribute
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Commutative, NoMemoryEffect

from qcomp.dialects.stablehlo import syntax as syntax
from qcomp.dialects.stablehlo import verify as check
from qcomp.dialects.stablehlo.attrs import (
    ComparisonDirection,
    ComparisonDirectionAttr,
    ComparisonType,
    ComparisonTypeAttr,
    ResultAccuracyAttr,
)


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

    parse = classmethod(syntax.parse_elementwise)
    print = syntax.print_elementwise

    def verify_(self) -> None:
        check.verify_elementwise(self)


class AccurateUnaryOp(UnaryElementwiseOp):
    """A transcendental unary op with an optional `result_accuracy`."""

    result_accuracy = opt_prop_def(ResultAccuracyAttr)


class BinaryElementwiseOp(IRDLOperation):
    """`%r = stablehlo.<op> %a, %b : t` (or the functional type)."""

    lhs = operand_def()
    rhs = operand_def()
    result = result_def()
    traits = traits_def(NoMemoryEffect())

    def __init__(self, lhs, rhs, result_type: Attribute | None = None):
        super().__init__(operands=[lhs, rhs], result_types=[result_type or lhs.type])

    parse = classmethod(syntax.parse_elementwise)
    print = syntax.print_elementwise

    def verify_(self) -> None:
        check.verify_elementwise(self)


def _unary(op_name: str, cls_name: str, base: type = UnaryElementwiseOp, doc: str = ""):
    cls = type(cls_name, (base,), {"name": f"stablehlo.{op_name}", "__module__": __name__,
                                   "__qualname__": cls_name,
                                   "__doc__": doc or f"`stablehlo.{op_name}`."})
    return irdl_op_definition(cls)


AbsOp = _unary("abs", "AbsOp", doc="`|x|`.")
CbrtOp = _unary("cbrt", "CbrtOp", AccurateUnaryOp, "`x ** (1/3)`.")
CeilOp = _unary("ceil", "CeilOp")
ConvertOp = _unary("convert", "ConvertOp", doc="Element type conversion (float→int truncates).")
CosineOp = _unary("cosine", "CosineOp", AccurateUnaryOp)
ExponentialOp = _unary("exponential", "ExponentialOp", AccurateUnaryOp, "`e ** x`.")
ExponentialMinusOneOp = _unary("exponential_minus_one", "ExponentialMinusOneOp", AccurateUnaryOp,
                               "`e ** x - 1`.")
FloorOp = _unary("floor", "FloorOp")
LogOp = _unary("log", "LogOp", AccurateUnaryOp)
LogPlusOneOp = _unary("log_plus_one", "LogPlusOneOp", AccurateUnaryOp, "`log(1 + x)`.")
LogisticOp = _unary("logistic", "LogisticOp", AccurateUnaryOp, "`1 / (1 + e ** -x)`.")
NotOp = _unary("not", "NotOp")
NegateOp = _unary("negate", "NegateOp", doc="`-x`.")
PopulationCountOp = _unary("popcnt", "PopulationCountOp")
CountLeadingZerosOp = _unary("count_leading_zeros", "CountLeadingZerosOp")
RoundNearestAfzOp = _unary("round_nearest_afz", "RoundNearestAfzOp",
                           doc="Round half away from zero.")
RoundNearestEvenOp = _unary("round_nearest_even", "RoundNearestEvenOp",
                            doc="Round half to even.")
RsqrtOp = _unary("rsqrt", "RsqrtOp", AccurateUnaryOp, "`1 / sqrt(x)`.")
SignOp = _unary("sign", "SignOp")
SineOp = _unary("sine", "SineOp", AccurateUnaryOp)
SqrtOp = _unary("sqrt", "SqrtOp", AccurateUnaryOp)
TanOp = _unary("tan", "TanOp", AccurateUnaryOp)
TanhOp = _unary("tanh", "TanhOp", AccurateUnaryOp)
UniformQuantizeOp = _unary(
    "uniform_quantize", "UniformQuantizeOp",
    doc="Float → quantized (or requantize): `q = clamp(round_even(x / scale + zp))`.")
UniformDequantizeOp = _unary(
    "uniform_dequantize", "UniformDequantizeOp",
    doc="Quantized → float: `x = (q - zp) * scale`.")


_COMMUTATIVE = {"add", "maximum", "minimum", "multiply", "and", "or", "xor"}


def _binary(op_name: str, cls_name: str, doc: str = ""):
    body = {"name": f"stablehlo.{op_name}", "__module__": __name__, "__qualname__": cls_name,
            "__doc__": doc or f"`stablehlo.{op_name}`."}
    if op_name in _COMMUTATIVE:
        body["traits"] = traits_def(NoMemoryEffect(), Commutative())
    return irdl_op_definition(type(cls_name, (BinaryElementwiseOp,), body))


AddOp = _binary("add", "AddOp", "`a + b`.")
Atan2Op = _binary("atan2", "Atan2Op")
DivideOp = _binary("divide", "DivideOp", "`a / b` (integers truncate toward zero).")
MaximumOp = _binary("maximum", "MaximumOp")
MinimumOp = _binary("minimum", "MinimumOp")
MultiplyOp = _binary("multiply", "MultiplyOp", "`a * b`.")
PowerOp = _binary("power", "PowerOp")
RemainderOp = _binary("remainder", "RemainderOp", "`a - b * trunc(a / b)`.")
ShiftLeftOp = _binary("shift_left", "ShiftLeftOp")
ShiftRightArithmeticOp = _binary("shift_right_arithmetic", "ShiftRightArithmeticOp")
ShiftRightLogicalOp = _binary("shift_right_logical", "ShiftRightLogicalOp")
SubtractOp = _binary("subtract", "SubtractOp", "`a - b`.")
AndOp = _binary("and", "AndOp")
OrOp = _binary("or", "OrOp")
XorOp = _binary("xor", "XorOp")


@irdl_op_definition
class ClampOp(IRDLOperation):
    """`stablehlo.clamp %min, %x, %max : t`: `min(max(x, min), max)`."""

    name = "stablehlo.clamp"
    min = operand_def()
    operand = operand_def()
    max = operand_def()
    result = result_def()
    traits = traits_def(NoMemoryEffect())

    def __init__(self, min, operand, max, result_type: Attribute | None = None):
        super().__init__(operands=[min, operand, max],
                         result_types=[result_type or operand.type])

    parse = classmethod(syntax.parse_elementwise)
    print = syntax.print_elementwise

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
    traits = traits_def(NoMemoryEffect())

    def __init__(self, pred, on_true, on_false, result_type: Attribute | None = None):
        super().__init__(operands=[pred, on_true, on_false],
                         result_types=[result_type or on_true.type])

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
    traits = traits_def(NoMemoryEffect())

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


@irdl_op_definition
class ReducePrecisionOp(IRDLOperation):
    """`stablehlo.reduce_precision %x, format = e5m10 : t`."""

    name = "stablehlo.reduce_precision"
    operand = operand_def()
    output = result_def()
    exponent_bits = prop_def(IntegerAttr)
    mantissa_bits = prop_def(IntegerAttr)
    traits = traits_def(NoMemoryEffect())

    def __init__(self, operand, exponent_bits: int, mantissa_bits: int):
        super().__init__(operands=[operand], result_types=[operand.type], properties={
            "exponent_bits": IntegerAttr(exponent_bits, i32),
            "mantissa_bits": IntegerAttr(mantissa_bits, i32)})

    parse = classmethod(syntax.parse_reduce_precision)
    print = syntax.print_reduce_precision

    def verify_(self) -> None:
        check.verify_reduce_precision(self)


ELEMENTWISE_OPS = [
    AbsOp, CbrtOp, CeilOp, ConvertOp, CosineOp, ExponentialOp, ExponentialMinusOneOp,
    FloorOp, LogOp, LogPlusOneOp, LogisticOp, NotOp, NegateOp, PopulationCountOp,
    CountLeadingZerosOp, RoundNearestAfzOp, RoundNearestEvenOp, RsqrtOp, SignOp, SineOp,
    SqrtOp, TanOp, TanhOp, UniformQuantizeOp, UniformDequantizeOp,
    AddOp, Atan2Op, DivideOp, MaximumOp, MinimumOp, MultiplyOp, PowerOp, RemainderOp,
    ShiftLeftOp, ShiftRightArithmeticOp, ShiftRightLogicalOp, SubtractOp, AndOp, OrOp, XorOp,
    ClampOp, SelectOp, CompareOp, ReducePrecisionOp,
]
