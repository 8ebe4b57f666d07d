"""Upstream StableHLO's `custom<...>` assembly directives, as xDSL custom directives for
the ops' declarative `assembly_format`s (one class per upstream directive).

`custom<SameOperandsAndResultType>(type(operands), type(results))` prints `t` when every
operand and the result have type `t`, else the functional type `(t1, t2) -> t3`; it
reads either form (upstream's `printSameOperandsAndResultType` /
`parseSameOperandsAndResultType`, with its messages).

The `keyword = value` fields of upstream's formats (`dims = [0, 1]`, `dim = 0`,
`type = RFFT`, `, lower = true`) are a value directive after the literal keyword and
`=`: `custom<I64List>` (an `array<i64>` written `[0, 1]`), `custom<I64>` (an i64
written bare), `custom<EnumCase>` (an enum attribute written by its case) and
`custom<TrueKeyword>` (a bool property written `, name = true` only when true).
"""

from __future__ import annotations

import re

from xdsl.dialects.builtin import BoolAttr, FunctionType, IntegerAttr, i1, i32
from xdsl.irdl import IRDLOperation
from xdsl.irdl.declarative_assembly_format import (
    AttributeVariable,
    CustomDirective,
    ParsingState,
    PrintingState,
    TypeDirective,
    VariadicOperandVariable,
    irdl_custom_directive,
)
from xdsl.parser import Parser
from xdsl.printer import Printer

from qcomp.dialects.stablehlo.format import (
    array_values,
    fmt_list,
    i64_array,
    i64_attr,
    parse_enum,
    parse_i64_list,
    print_same_operands_and_result_type,
)
from qcomp.dialects.stablehlo.parse_errors import parsing_op


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


FUNCTIONAL_TAIL = "attr-dict `:` functional-type(operands, results)"
"""The end of a format whose types are `(t) -> u`."""
FUNCTIONAL = "operands " + FUNCTIONAL_TAIL
"""`%a attr-dict : (t) -> u` (upstream's `functional-type(operands, results)`)."""
SAME_TYPE_TAIL = "attr-dict `:` custom<SameOperandsAndResultType>(type(operands), type(results))"
"""The end of a format whose types are `t` (or the functional type when they differ)."""
REDUCE_PRECISION = ("$operand `,` `format` `=` custom<ExponentMantissa>($exponent_bits, "
                    "$mantissa_bits) attr-dict `:` "
                    "custom<SameOperandsAndResultType>(type(operands), type(results))")


@irdl_custom_directive
class I64List(CustomDirective):
    """`custom<I64List>($prop)`: an `array<i64>` property written `[0, 1]`."""

    values: AttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> bool:
        self.values.set(state, i64_array(parse_i64_list(parser)))
        return True

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        state.print_whitespace(printer)
        printer.print_string(fmt_list(array_values(self.values.get(op)) or ()))


@irdl_custom_directive
class I64(CustomDirective):
    """`custom<I64>($prop)`: an i64 property written bare (`0`)."""

    value: AttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> bool:
        self.value.set(state, i64_attr(parser.parse_integer()))
        return True

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        state.print_whitespace(printer)
        attr = self.value.get(op)
        assert isinstance(attr, IntegerAttr)
        printer.print_string(str(attr.value.data))


@irdl_custom_directive
class EnumCase(CustomDirective):
    """`custom<EnumCase>($prop)`: an enum attribute property written by its case
    (`RFFT`); upstream's message for a word that is none."""

    value: AttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> bool:
        constraint = state.op_type.get_irdl_definition().properties[self.value.name].constr
        (attr_type,) = constraint.get_bases()
        enum = attr_type.enum_type
        with parsing_op(state.op_type):
            self.value.set(state, attr_type(parse_enum(parser, enum, enum.__name__)))
        return True

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        state.print_whitespace(printer)
        printer.print_string(self.value.get(op).data.value)


@irdl_custom_directive
class TrueKeyword(CustomDirective):
    """`custom<TrueKeyword>($prop)`: `, prop = true` when the bool property is true,
    nothing otherwise; reads an optional `, prop = true|false`."""

    flag: AttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> bool:
        if parser.parse_optional_punctuation(",") is None:
            return True
        parser.parse_keyword(self.flag.name)
        parser.parse_punctuation("=")
        pos = parser.pos
        word = parser.parse_optional_identifier()
        if word not in ("true", "false"):
            _error(parser, state, "expected 'true' or 'false'", pos)
        self.flag.set(state, BoolAttr(word == "true", i1))
        return True

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        flag = self.flag.get(op)
        if flag is None or not flag.value.data:
            return
        printer.print_string(f", {self.flag.name} = true")
        state.last_was_punctuation = False
        state.should_emit_space = True


@irdl_custom_directive
class VariadicOperandWithAttribute(CustomDirective):
    """`custom<VariadicOperandWithAttribute>($operands)`: `%a, %b, ` (each operand and
    its comma), before a `keyword = value` field (upstream's directive)."""

    operands: VariadicOperandVariable

    def parse(self, parser: Parser, state: ParsingState) -> bool:
        values = []
        while (value := parser.parse_optional_unresolved_operand()) is not None:
            values.append(value)
            parser.parse_punctuation(",")
        self.operands.set(state, values)
        return True

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        state.print_whitespace(printer)
        for value in self.operands.get(op):
            printer.print_ssa_value(value)
            printer.print_string(", ")
        state.last_was_punctuation = True
        state.should_emit_space = False


FIELD_DIRECTIVES = (I64List, I64, EnumCase, TrueKeyword, SameOperandsAndResultType,
                    VariadicOperandWithAttribute)
"""The directives of the `keyword = value` formats (an op's `custom_directives`)."""
