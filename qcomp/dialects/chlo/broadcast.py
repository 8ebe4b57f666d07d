"""`chlo.broadcast_*`: client HLO ops with implicit (numpy-style) broadcasting.

`%r = chlo.broadcast_add %a, %b {broadcast_dimensions = array<i64: 1>} : (t, u) -> v`.
Without `broadcast_dimensions` the lower-rank operand aligns with the trailing
dimensions of the other; with it, operand dimension i maps to result dimension
`broadcast_dimensions[i]`. Sizes must match or be 1 (`?` is accepted); like upstream, the verifier only checks
the result against shapes it can infer.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import ComplexType, DenseArrayBase, TensorType, i1
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, SpacedOpaqueSyntaxAttribute
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from qcomp.dialects.chlo.kinds import BOOL, COMPLEX, FP, INT, check_kinds, compatible_shapes, incompatible
from qcomp.dialects.chlo.ops import NextAfterOp, PolygammaOp, ZetaOp
from qcomp.dialects.facts import NO_QUANTIZATION, Broadcasting, broadcasting_twin
from qcomp.dialects.quant import element_type, quantized_element
from qcomp.dialects.stablehlo import binary
from qcomp.dialects.stablehlo import complex as shcomplex
from qcomp.dialects.stablehlo.attrs import ComparisonDirection, ComparisonType
from qcomp.dialects.stablehlo.format import (
    array_values,
    build_op,
    parse_functional_type,
    parse_operand_list,
    print_attr_dict,
    print_functional_type,
    print_operand_list,
    resolve,
)


@irdl_attr_definition
class ChloComparisonDirectionAttr(EnumAttribute[ComparisonDirection], SpacedOpaqueSyntaxAttribute):
    """`#chlo<comparison_direction LT>`."""

    name = "chlo.comparison_direction"


@irdl_attr_definition
class ChloComparisonTypeAttr(EnumAttribute[ComparisonType], SpacedOpaqueSyntaxAttribute):
    """`#chlo<comparison_type TOTALORDER>`."""

    name = "chlo.comparison_type"


def broadcast_shapes(lhs: tuple[int, ...], rhs: tuple[int, ...],
                     dims: tuple[int, ...] | None = None) -> tuple[int, ...]:
    """Result shape of broadcasting `lhs` with `rhs` (-1 is a dynamic size)."""
    if dims is not None:
        small, big = (lhs, rhs) if len(lhs) < len(rhs) else (rhs, lhs)
        if len(dims) != len(small):
            raise VerifyException(
                f"broadcast_dimensions size ({len(dims)}) does not match operand rank "
                f"({len(small)})")
        aligned = [1] * len(big)
        for i, d in enumerate(dims):
            if not 0 <= d < len(big):
                raise VerifyException(f"broadcast dimension {d} out of range")
            aligned[d] = small[i]
        small = tuple(aligned)
        lhs, rhs = (small, big) if len(lhs) < len(rhs) else (big, small)
    rank = max(len(lhs), len(rhs))
    lhs = (1,) * (rank - len(lhs)) + tuple(lhs)
    rhs = (1,) * (rank - len(rhs)) + tuple(rhs)
    out = []
    for a, b in zip(lhs, rhs):
        if a == b or b == 1:
            out.append(a)
        elif a == 1:
            out.append(b)
        elif a == -1 or b == -1:
            out.append(max(a, b))
        else:
            raise VerifyException(f"cannot broadcast sizes {a} and {b}")
    return tuple(out)


class BroadcastBinaryOp(IRDLOperation):
    """`chlo.<op> %a, %b attr-dict : (t, u) -> v`."""

    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)
    broadcast_dimensions_attr = opt_prop_def(DenseArrayBase, prop_name="broadcast_dimensions")
    traits = traits_def(Pure(), NO_QUANTIZATION)

    def __init__(self, lhs, rhs, result_type: Attribute,
                 broadcast_dimensions: DenseArrayBase | None = None):
        props = {"broadcast_dimensions": broadcast_dimensions} if broadcast_dimensions else {}
        super().__init__(operands=[lhs, rhs], result_types=[result_type], properties=props)

    @property
    def broadcast_dimensions(self) -> tuple[int, ...] | None:
        return array_values(self.broadcast_dimensions_attr)

    @classmethod
    def parse(cls, parser: Parser):
        operands = parse_operand_list(parser, 2)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        parser.parse_punctuation("(")
        lt = parser.parse_type()
        parser.parse_punctuation(",")
        rt = parser.parse_type()
        parser.parse_punctuation(")")
        parser.parse_punctuation("->")
        out = parser.parse_type()
        return build_op(cls, resolve(parser, operands, [lt, rt]), [out], attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        print_operand_list(printer, self.operands)
        print_attr_dict(printer, self)
        printer.print_string(" : (")
        printer.print_attribute(self.lhs.type)
        printer.print_string(", ")
        printer.print_attribute(self.rhs.type)
        printer.print_string(") -> ")
        printer.print_attribute(self.result.type)

    KINDS: ClassVar[tuple[str, ...] | None] = None
    """Operand kinds (`chlo.kinds`); None: any tensor."""
    RESULT_KINDS: ClassVar[tuple[str, ...] | None] = None
    ELEMENT_RULE: ClassVar[str] = "same"
    """`same` (SameOperandsAndResultElementType), `compatible` (HLO's compatible element
    types), `operands` (operands alike, result inferred: compare, complex, logical)."""

    def inferred_element(self) -> Attribute:
        return element_type(self.lhs.type)

    def verify_(self) -> None:
        lt, rt, ot = self.lhs.type, self.rhs.type, self.result.type
        assert isinstance(lt, TensorType) and isinstance(rt, TensorType)
        assert isinstance(ot, TensorType)
        if self.KINDS is not None:
            check_kinds(lt, "operand #0", self.KINDS)
            check_kinds(rt, "operand #1", self.KINDS)
        if self.RESULT_KINDS is not None:
            check_kinds(ot, "result #0", self.RESULT_KINDS)
        quantized = quantized_element(lt) is not None or quantized_element(ot) is not None
        types = (element_type(lt), element_type(rt), element_type(ot))
        if self.ELEMENT_RULE == "same" and len(set(types)) != 1:
            raise VerifyException("requires the same element type for all operands and results")
        if self.ELEMENT_RULE == "compatible" and not quantized and len(set(types)) != 1:
            raise VerifyException("requires compatible element types for all operands and results")
        if self.ELEMENT_RULE == "operands" and types[0] != types[1]:
            raise VerifyException("mismatched operand types")
        try:
            shape = broadcast_shapes(tuple(lt.get_shape()), tuple(rt.get_shape()),
                                     self.broadcast_dimensions)
        except VerifyException:
            # Upstream infers nothing for unbroadcastable operands and accepts the op;
            # the mismatch surfaces when the op runs.
            shape = None
        res = tuple(ot.get_shape())
        element = self.inferred_element() if self.ELEMENT_RULE == "operands" else ot.element_type
        if shape is not None and (element != ot.element_type or len(res) != len(shape) or any(
                a != b and a != -1 and b != -1 for a, b in zip(res, shape))):
            raise incompatible([TensorType(element, shape)], [ot])


@irdl_op_definition
class BroadcastAddOp(BroadcastBinaryOp):
    """Broadcasting `a + b`."""

    name = "chlo.broadcast_add"
    traits = traits_def(Pure(), NO_QUANTIZATION, *broadcasting_twin(binary.AddOp))
    ELEMENT_RULE: ClassVar = "compatible"


@irdl_op_definition
class BroadcastSubtractOp(BroadcastBinaryOp):
    """Broadcasting `a - b`."""

    name = "chlo.broadcast_subtract"
    traits = traits_def(Pure(), NO_QUANTIZATION, *broadcasting_twin(binary.SubtractOp))


@irdl_op_definition
class BroadcastMultiplyOp(BroadcastBinaryOp):
    """Broadcasting `a * b`."""

    name = "chlo.broadcast_multiply"
    traits = traits_def(Pure(), NO_QUANTIZATION, *broadcasting_twin(binary.MultiplyOp))


@irdl_op_definition
class BroadcastDivideOp(BroadcastBinaryOp):
    """Broadcasting `a / b`."""

    name = "chlo.broadcast_divide"
    traits = traits_def(Pure(), NO_QUANTIZATION, *broadcasting_twin(binary.DivideOp))


@irdl_op_definition
class BroadcastMaximumOp(BroadcastBinaryOp):
    """Broadcasting max."""

    name = "chlo.broadcast_maximum"
    traits = traits_def(Pure(), NO_QUANTIZATION, *broadcasting_twin(binary.MaximumOp))
    ELEMENT_RULE: ClassVar = "compatible"


@irdl_op_definition
class BroadcastMinimumOp(BroadcastBinaryOp):
    """Broadcasting min."""

    name = "chlo.broadcast_minimum"
    traits = traits_def(Pure(), NO_QUANTIZATION, *broadcasting_twin(binary.MinimumOp))
    ELEMENT_RULE: ClassVar = "compatible"


@irdl_op_definition
class BroadcastRemainderOp(BroadcastBinaryOp):
    """Broadcasting remainder (C's fmod / %)."""

    name = "chlo.broadcast_remainder"
    traits = traits_def(Pure(), NO_QUANTIZATION, *broadcasting_twin(binary.RemainderOp))


@irdl_op_definition
class BroadcastPowerOp(BroadcastBinaryOp):
    """Broadcasting `a ** b`."""

    name = "chlo.broadcast_power"
    traits = traits_def(Pure(), NO_QUANTIZATION, *broadcasting_twin(binary.PowerOp))


@irdl_op_definition
class BroadcastAtan2Op(BroadcastBinaryOp):
    """Broadcasting `atan2(a, b)`."""

    name = "chlo.broadcast_atan2"
    traits = traits_def(Pure(), NO_QUANTIZATION, *broadcasting_twin(binary.Atan2Op))


@irdl_op_definition
class BroadcastShiftLeftOp(BroadcastBinaryOp):
    """Broadcasting `a << b`."""

    name = "chlo.broadcast_shift_left"
    traits = traits_def(Pure(), NO_QUANTIZATION, *broadcasting_twin(binary.ShiftLeftOp))


@irdl_op_definition
class BroadcastShiftRightArithmeticOp(BroadcastBinaryOp):
    """Broadcasting arithmetic `a >> b`."""

    name = "chlo.broadcast_shift_right_arithmetic"
    traits = traits_def(Pure(), NO_QUANTIZATION, *broadcasting_twin(binary.ShiftRightArithmeticOp))


@irdl_op_definition
class BroadcastShiftRightLogicalOp(BroadcastBinaryOp):
    """Broadcasting logical `a >> b`."""

    name = "chlo.broadcast_shift_right_logical"
    traits = traits_def(Pure(), NO_QUANTIZATION, *broadcasting_twin(binary.ShiftRightLogicalOp))


@irdl_op_definition
class BroadcastAndOp(BroadcastBinaryOp):
    """Broadcasting and."""

    name = "chlo.broadcast_and"
    traits = traits_def(Pure(), NO_QUANTIZATION, *broadcasting_twin(binary.AndOp))
    KINDS: ClassVar = (BOOL, INT)
    ELEMENT_RULE: ClassVar = "operands"


@irdl_op_definition
class BroadcastOrOp(BroadcastBinaryOp):
    """Broadcasting or."""

    name = "chlo.broadcast_or"
    traits = traits_def(Pure(), NO_QUANTIZATION, *broadcasting_twin(binary.OrOp))
    KINDS: ClassVar = (BOOL, INT)
    ELEMENT_RULE: ClassVar = "operands"


@irdl_op_definition
class BroadcastXorOp(BroadcastBinaryOp):
    """Broadcasting xor."""

    name = "chlo.broadcast_xor"
    traits = traits_def(Pure(), NO_QUANTIZATION, *broadcasting_twin(binary.XorOp))
    KINDS: ClassVar = (BOOL, INT)
    ELEMENT_RULE: ClassVar = "operands"


@irdl_op_definition
class BroadcastNextAfterOp(BroadcastBinaryOp):
    """Broadcasting `chlo.next_after`."""

    name = "chlo.broadcast_next_after"
    traits = traits_def(Pure(), NO_QUANTIZATION, *broadcasting_twin(NextAfterOp))


@irdl_op_definition
class BroadcastPolygammaOp(BroadcastBinaryOp):
    """Broadcasting `chlo.polygamma`."""

    name = "chlo.broadcast_polygamma"
    traits = traits_def(Pure(), NO_QUANTIZATION, *broadcasting_twin(PolygammaOp))


@irdl_op_definition
class BroadcastZetaOp(BroadcastBinaryOp):
    """Broadcasting `chlo.zeta`."""

    name = "chlo.broadcast_zeta"
    traits = traits_def(Pure(), NO_QUANTIZATION, *broadcasting_twin(ZetaOp))
    KINDS: ClassVar = (FP,)
    RESULT_KINDS: ClassVar = (FP,)


class _Complex(BroadcastBinaryOp):
    KINDS: ClassVar = (FP,)
    RESULT_KINDS: ClassVar = (COMPLEX,)
    ELEMENT_RULE: ClassVar = "operands"

    def inferred_element(self) -> Attribute:
        return ComplexType(element_type(self.lhs.type))


@irdl_op_definition
class BroadcastComplexOp(_Complex):
    """Broadcasting `complex(re, im)`."""

    name = "chlo.broadcast_complex"
    traits = traits_def(Pure(), NO_QUANTIZATION, *broadcasting_twin(shcomplex.ComplexOp))


class _Compare(BroadcastBinaryOp):
    """`chlo.broadcast_compare %a, %b {comparison_direction = #chlo<comparison_direction LT>}`."""

    comparison_direction = prop_def(ChloComparisonDirectionAttr)
    compare_type = opt_prop_def(ChloComparisonTypeAttr)
    RESULT_KINDS: ClassVar = (BOOL,)
    ELEMENT_RULE: ClassVar = "operands"

    def __init__(self, lhs, rhs, result_type: Attribute, direction: str,
                 broadcast_dimensions: DenseArrayBase | None = None):
        super().__init__(lhs, rhs, result_type, broadcast_dimensions)
        self.properties["comparison_direction"] = ChloComparisonDirectionAttr(
            ComparisonDirection(direction))

    def inferred_element(self) -> Attribute:
        return i1


@irdl_op_definition
class BroadcastCompareOp(_Compare):
    """Broadcasting `stablehlo.compare`."""

    name = "chlo.broadcast_compare"
    traits = traits_def(Pure(), NO_QUANTIZATION, *broadcasting_twin(binary.CompareOp))


@irdl_op_definition
class BroadcastSelectOp(IRDLOperation):
    """`chlo.broadcast_select %p, %t, %f : (p, t, f) -> r`: NumPy broadcasting of all three."""

    name = "chlo.broadcast_select"
    pred = operand_def(TensorType)
    on_true = operand_def(TensorType)
    on_false = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure(), NO_QUANTIZATION, *broadcasting_twin(binary.SelectOp))

    @classmethod
    def parse(cls, parser: Parser):
        operands = parse_operand_list(parser, 3)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        ins, outs = parse_functional_type(parser, 3)
        return build_op(cls, resolve(parser, operands, ins), outs, attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        print_operand_list(printer, self.operands)
        print_attr_dict(printer, self)
        printer.print_string(" : ")
        print_functional_type(printer, self)

    def verify_(self) -> None:
        check_kinds(self.pred.type, "operand #0", (BOOL,), prefix="ranked tensor")
        if element_type(self.on_true.type) != element_type(self.on_false.type):
            raise VerifyException("mismatched operand types")
        try:
            shape = broadcast_shapes(tuple(self.pred.type.get_shape()),
                                     broadcast_shapes(tuple(self.on_true.type.get_shape()),
                                                      tuple(self.on_false.type.get_shape())))
        except VerifyException:
            return
        ot = self.result.type
        inferred = TensorType(element_type(self.on_true.type), shape)
        if element_type(ot) != inferred.element_type or not compatible_shapes(inferred, ot):
            raise incompatible([inferred], [ot])


BROADCAST_OPS = [BroadcastAddOp, BroadcastSubtractOp, BroadcastMultiplyOp, BroadcastDivideOp,
                 BroadcastMaximumOp, BroadcastMinimumOp, BroadcastRemainderOp, BroadcastPowerOp,
                 BroadcastAtan2Op, BroadcastShiftLeftOp, BroadcastShiftRightArithmeticOp,
                 BroadcastShiftRightLogicalOp, BroadcastAndOp, BroadcastOrOp, BroadcastXorOp,
                 BroadcastNextAfterOp, BroadcastPolygammaOp, BroadcastZetaOp, BroadcastComplexOp,
                 BroadcastCompareOp, BroadcastSelectOp]
BROADCASTING_TWIN = {op.get_trait(Broadcasting).of: op for op in BROADCAST_OPS}
"""The `chlo.broadcast_*` op broadcasting each op (`stablehlo.add` -> `chlo.broadcast_add`),
from the ops' `Broadcasting` declarations."""
