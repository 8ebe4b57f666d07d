"""The ops of MLIR's `tensor` dialect that `lower-quant-ops` emits for unranked tensors
(as upstream's LowerQuantOps.cpp does), with MLIR's text and verifier messages:

    %from_elements = tensor.from_elements %0, %c4 : tensor<2xindex>
    %reshape = tensor.reshape %arg0(%from_elements) : (tensor<*xf32>, tensor<2xindex>) -> tensor<?x4xf32>

qcomp's `tensor` dialect takes the place of xDSL's (whose `tensor.reshape` takes no
unranked tensor) in qcomp's contexts.
"""

from __future__ import annotations

import math

from xdsl.dialects.builtin import IndexType, IntegerType, TensorType, UnrankedTensorType
from xdsl.ir import Dialect
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from qcomp.dialects.facts import NO_QUANTIZATION


@irdl_op_definition
class FromElementsOp(IRDLOperation):
    """`tensor.from_elements`: a static tensor of the given scalars, row-major."""

    name = "tensor.from_elements"
    elements = var_operand_def()
    result = result_def(TensorType)
    traits = traits_def(Pure(), NO_QUANTIZATION)

    def __init__(self, elements, result_type: TensorType):
        super().__init__(operands=[list(elements)], result_types=[result_type])

    def asm_result_names(self) -> list[str]:
        return ["from_elements"]

    @classmethod
    def parse(cls, parser: Parser) -> FromElementsOp:
        start = parser._current_token.span.start  # pyright: ignore[reportPrivateUsage]
        elements = parser.parse_optional_undelimited_comma_separated_list(
            parser.parse_optional_unresolved_operand, parser.parse_unresolved_operand) or []
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        result_type = parser.parse_type()
        # MLIR's messages (its parser derives the operand types from the result type)
        if not isinstance(result_type, TensorType) or any(d < 0 for d in result_type.get_shape()):
            parser.raise_error(
                f"custom op '{cls.name}' 'result' must be statically shaped tensor of any "
                f"non-token type values, but got '{result_type}'", start, start + 1)
        count = math.prod(result_type.get_shape())
        if count != len(elements):
            parser.raise_error(
                f"custom op '{cls.name}' number of operands and types do not match: got "
                f"{len(elements)} operands and {count} types", start, start + 1)
        values = [parser.resolve_operand(e, result_type.element_type) for e in elements]
        op = cls(values, result_type)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        if self.elements:
            printer.print_string(" ")
            printer.print_list(self.elements, printer.print_operand)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        t = self.result.type
        assert isinstance(t, TensorType)
        shape = t.get_shape()
        if any(d < 0 for d in shape):
            raise VerifyException(
                f"result #0 must be statically shaped tensor of any type values, but got "
                f"'{t}'")
        if len(self.elements) != math.prod(shape):
            raise VerifyException(
                f"number of operands and types do not match: got {len(self.elements)} "
                f"operands and {math.prod(shape)} types")
        for v in self.elements:
            if v.type != t.element_type:
                raise VerifyException(
                    "failed to verify that operand types match result element type")


@irdl_op_definition
class ReshapeOp(IRDLOperation):
    """`tensor.reshape`: `source` with the extents in `shape`."""

    name = "tensor.reshape"
    source = operand_def(TensorType | UnrankedTensorType)
    shape = operand_def(TensorType)
    result = result_def(TensorType | UnrankedTensorType)
    traits = traits_def(Pure(), NO_QUANTIZATION)
    assembly_format = ("$source `(` $shape `)` attr-dict `:` "
                       "`(` type($source) `,` type($shape) `)` `->` type($result)")

    def __init__(self, source, shape, result_type):
        super().__init__(operands=[source, shape], result_types=[result_type])

    def asm_result_names(self) -> list[str]:
        return ["reshape"]

    def verify_(self) -> None:
        """MLIR's ReshapeOp::verify (TensorOps.cpp)."""
        src, out, shape = self.source.type, self.result.type, self.shape.type
        assert isinstance(shape, TensorType)
        if not (isinstance(shape.element_type, IndexType | IntegerType)
                and len(shape.get_shape()) == 1):
            raise VerifyException(
                f"operand #1 must be 1D tensor of signless integer or index values, but "
                f"got '{shape}'")
        if src.element_type != out.element_type:
            raise VerifyException(
                "element types of source and destination tensor types should be the same")
        size = shape.get_shape()[0]
        if isinstance(out, TensorType):
            if isinstance(src, TensorType) and all(d >= 0 for d in src.get_shape()) and \
                    all(d >= 0 for d in out.get_shape()) and \
                    math.prod(src.get_shape()) != math.prod(out.get_shape()):
                raise VerifyException(
                    "source and destination tensor should have the same number of elements")
            if size < 0:
                raise VerifyException(
                    "cannot use shape operand with dynamic length to reshape to "
                    "statically-ranked tensor type")
            if size != len(out.get_shape()):
                raise VerifyException(
                    "length of shape operand differs from the result's tensor rank")


Tensor = Dialect("tensor", [FromElementsOp, ReshapeOp], [])
