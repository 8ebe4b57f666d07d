"""The `chlo` dialect: client HLO ops with implicit (numpy-style) broadcasting.

`%r = chlo.broadcast_add %a, %b {broadcast_dimensions = array<i64: 1>} : (t, u) -> v`.
Without `broadcast_dimensions` the lower-rank operand aligns with the trailing
dimensions of the other; with it, operand dimension i maps to result dimension
`broadcast_dimensions[i]`. Sizes must match or be 1 (`?` is accepted); like upstream, the verifier only checks
the result against shapes it can infer.
"""

from __future__ import annotations

from xdsl.dialects.builtin import DenseArrayBase, TensorType
from xdsl.ir import Attribute, Dialect
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    result_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from qcomp.dialects.facts import NO_QUANTIZATION
from qcomp.dialects.quant import element_type, quantized_element
from qcomp.dialects.stablehlo import kernels
from qcomp.dialects.stablehlo.format import (
    array_values,
    build_op,
    parse_operand_list,
    print_attr_dict,
    print_operand_list,
    resolve,
)
from qcomp.dialects.stablehlo.kinds import type_text


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

    def verify_(self) -> None:
        lt, rt, ot = self.lhs.type, self.rhs.type, self.result.type
        assert isinstance(lt, TensorType) and isinstance(rt, TensorType)
        assert isinstance(ot, TensorType)
        try:
            shape = broadcast_shapes(tuple(lt.get_shape()), tuple(rt.get_shape()),
                                     self.broadcast_dimensions)
        except VerifyException:
            # Upstream infers nothing for unbroadcastable operands and accepts the op;
            # the mismatch surfaces when the op runs.
            shape = None
        res = tuple(ot.get_shape())
        if shape is not None and (len(res) != len(shape) or any(
                a != b and a != -1 and b != -1 for a, b in zip(res, shape))):
            inferred = TensorType(ot.element_type, shape)
            raise VerifyException(
                f"inferred type(s) '{type_text(inferred)}' are incompatible with return type(s) "
                f"of operation '{type_text(ot)}'")
        if quantized_element(lt) is None and quantized_element(ot) is None:
            if element_type(lt) != element_type(ot) or element_type(rt) != element_type(ot):
                raise VerifyException("requires compatible element types for all operands "
                                      "and results")


@irdl_op_definition
class BroadcastAddOp(BroadcastBinaryOp):
    """Broadcasting `a + b`."""

    name = "chlo.broadcast_add"
    traits = traits_def(Pure(), NO_QUANTIZATION, kernels.ADD)


@irdl_op_definition
class BroadcastSubtractOp(BroadcastBinaryOp):
    """Broadcasting `a - b`."""

    name = "chlo.broadcast_subtract"
    traits = traits_def(Pure(), NO_QUANTIZATION, kernels.SUBTRACT)


@irdl_op_definition
class BroadcastMultiplyOp(BroadcastBinaryOp):
    """Broadcasting `a * b`."""

    name = "chlo.broadcast_multiply"
    traits = traits_def(Pure(), NO_QUANTIZATION, kernels.MULTIPLY)


@irdl_op_definition
class BroadcastDivideOp(BroadcastBinaryOp):
    """Broadcasting `a / b`."""

    name = "chlo.broadcast_divide"
    traits = traits_def(Pure(), NO_QUANTIZATION, kernels.DIVIDE)


@irdl_op_definition
class BroadcastMaximumOp(BroadcastBinaryOp):
    """Broadcasting max."""

    name = "chlo.broadcast_maximum"
    traits = traits_def(Pure(), NO_QUANTIZATION, kernels.MAXIMUM)


@irdl_op_definition
class BroadcastMinimumOp(BroadcastBinaryOp):
    """Broadcasting min."""

    name = "chlo.broadcast_minimum"
    traits = traits_def(Pure(), NO_QUANTIZATION, kernels.MINIMUM)


CHLO = Dialect(
    "chlo",
    [BroadcastAddOp, BroadcastSubtractOp, BroadcastMultiplyOp, BroadcastDivideOp,
     BroadcastMaximumOp, BroadcastMinimumOp],
    [],
)
