"""Upstream StableHLO's `custom<...>` assembly directives, as xDSL custom directives for
the ops' declarative `assembly_format`s (one class per upstream directive).

`custom<SameOperandsAndResultType>(type(operands), type(results))` prints `t` when every
operand and the result have type `t`, else the functional type `(t1, t2) -> t3`; it
reads either form (upstream's `printSameOperandsAndResultType` /
`parseSameOperandsAndResultType`, with its messages).
"""

from __future__ import annotations

import re

from xdsl.dialects.builtin import FunctionType, IntegerAttr, i32
from xdsl.irdl import IRDLOperation
from xdsl.irdl.declarative_assembly_format import (
    AttributeVariable,
    CustomDirective,
    ParsingState,
    PrintingState,
    TypeDirective,
    irdl_custom_directive,
)
from xdsl.parser import Parser
from xdsl.printer import Printer

from qcomp.dialects.stablehlo.format import (
    print_same_operands_and_result_type,
)


def _error(parser: Parser, state: ParsingState, message: str, pos: int) -> None:
    """A parse error worded as MLIR's custom-op parsers word it."""
    parser.raise_error(f"custom op '{state.op_type.name}' {message}", pos)


@irdl_custom_directive
class SameOperandsAndResultType(CustomDirective):
    """`custom<SameOperandsAndResultType>(type(operands), type(results))`."""

    operand_types: TypeDirective
    result_types: TypeDirective

    def parse(self, parser: Parser, state: ParsingState) -> bool:
        n = sum(len(o) for o in state.operands if o is not None)
        pos = parser.pos
        t = parser.parse_type()
        if isinstance(t, FunctionType):
            ins, outs = list(t.inputs.data), list(t.outputs.data)
            if len(ins) != n:
                _error(parser, state, f"{n} operands present, but expected {len(ins)}", pos)
            if len(outs) != 1:
                _error(parser, state, "expected single output", pos)
        else:
            ins, outs = [t] * n, [t]
        self.operand_types.set(state, ins)
        self.result_types.set(state, outs)
        return True

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        state.print_whitespace(printer)
        print_same_operands_and_result_type(printer, op)


SAME_OPERANDS_AND_RESULT_TYPE = (
    "operands attr-dict `:` custom<SameOperandsAndResultType>(type(operands), type(results))")
"""The elementwise ops' format: `%a, %b attr-dict : t`."""


@irdl_custom_directive
class ExponentMantissa(CustomDirective):
    """`custom<ExponentMantissa>($exponent_bits, $mantissa_bits)`: `e5m10`."""

    exponent_bits: AttributeVariable
    mantissa_bits: AttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> bool:
        pos = parser.pos
        word = parser.parse_identifier()
        m = re.fullmatch(r"e([0-9]+)m([0-9]+)", word)
        if m is None:
            _error(parser, state, f"expected exponent mantissa in format e#m#, saw {word}", pos)
        self.exponent_bits.set(state, IntegerAttr(int(m.group(1)), i32))
        self.mantissa_bits.set(state, IntegerAttr(int(m.group(2)), i32))
        return True

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        state.print_whitespace(printer)
        e, m = self.exponent_bits.get(op), self.mantissa_bits.get(op)
        printer.print_string(f"e{e.value.data}m{m.value.data}")


FUNCTIONAL = "operands attr-dict `:` functional-type(operands, results)"
"""`%a attr-dict : (t) -> u` (upstream's `functional-type(operands, results)`)."""
REDUCE_PRECISION = ("$operand `,` `format` `=` custom<ExponentMantissa>($exponent_bits, "
                    "$mantissa_bits) attr-dict `:` "
                    "custom<SameOperandsAndResultType>(type(operands), type(results))")
