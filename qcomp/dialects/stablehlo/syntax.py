"""Pretty parse/print methods of the StableHLO ops, one pair per assembly format.

Each `parse_*(cls, parser)` is installed as the op's `parse` classmethod and each
`print_*(op, printer)` as its `print`; they follow upstream's declarative formats
in StablehloOps.td (the text after the op name, starting with a space).
"""

from __future__ import annotations

from typing import Any

from xdsl.dialects.builtin import (
    FunctionType,
    ShapedType,
    StringAttr,
)
from xdsl.ir import Attribute
from xdsl.parser import Parser
from xdsl.printer import Printer

from qcomp.dialects.stablehlo.attrs import (
    ComparisonDirection,
    ComparisonDirectionAttr,
    ComparisonType,
    ComparisonTypeAttr,
)
from qcomp.dialects.stablehlo.format import (
    array_values,
    build_op,
    fmt_list,
    i64_array,
    i64_attr,
    parse_enum,
    parse_functional_type,
    parse_i64_list,
    parse_operand_list,
    print_attr_dict,
    print_functional_type,
    print_operand_list,
    resolve,
)
from qcomp.dialects.stablehlo.parse_errors import custom_parser, op_error

Op = Any  # an IRDLOperation of the class being parsed/printed


# ---------------------------------------------------------------------------
# select: `operands attr-dict : pred_type, type` or functional
# ---------------------------------------------------------------------------
@custom_parser
def parse_select(cls, parser: Parser) -> Op:
    operands = parse_operand_list(parser)
    attrs = parser.parse_optional_attr_dict()
    parser.parse_punctuation(":")
    pos = parser.pos
    first = parser.parse_type()
    if isinstance(first, FunctionType):
        ins, outs = list(first.inputs.data), list(first.outputs.data)
        if len(ins) != 3:
            op_error(parser, f"3 operands present, but expected {len(ins)}", pos)
        if len(outs) != 1:
            op_error(parser, "expected single output", pos)
        out = outs[0]
    else:
        if parser.parse_optional_punctuation(",") is None:
            op_error(parser, "expected functional type or list of two types", pos)
        out = parser.parse_type()
        ins = [first, out, out]
    if len(operands) != len(ins):
        op_error(parser, f"number of operands and types do not match: got {len(operands)} "
                 f"operands and {len(ins)} types", pos)
    return build_op(cls, resolve(parser, operands, ins), [out], attrs)


def print_select(op: Op, printer: Printer) -> None:
    printer.print_string(" ")
    print_operand_list(printer, op.operands)
    print_attr_dict(printer, op)
    printer.print_string(" : ")
    res = op.result.type
    if op.on_true.type != res or op.on_false.type != res:
        print_functional_type(printer, op)
    else:
        printer.print_attribute(op.pred.type)
        printer.print_string(", ")
        printer.print_attribute(res)


# ---------------------------------------------------------------------------
# compare: `GT, $lhs, $rhs (, FLOAT)? attr-dict : functional-type`
# ---------------------------------------------------------------------------
@custom_parser
def parse_compare(cls, parser: Parser) -> Op:
    direction = ComparisonDirectionAttr(
        parse_enum(parser, ComparisonDirection, "ComparisonDirection"))
    parser.parse_punctuation(",")
    operands = parse_operand_list(parser, 2)
    props: dict[str, Attribute] = {"comparison_direction": direction}
    if parser.parse_optional_punctuation(",") is not None:
        props["compare_type"] = ComparisonTypeAttr(
            parse_enum(parser, ComparisonType, "ComparisonType"))
    attrs = parser.parse_optional_attr_dict()
    parser.parse_punctuation(":")
    ins, outs = parse_functional_type(parser, 2)
    return build_op(cls, resolve(parser, operands, ins), outs, attrs, props)


def print_compare(op: Op, printer: Printer) -> None:
    printer.print_string(f" {op.comparison_direction}, ")
    print_operand_list(printer, op.operands)
    if op.compare_type is not None:
        printer.print_string(f", {op.compare_type.data.value}")
    print_attr_dict(printer, op, ["comparison_direction", "compare_type"])
    printer.print_string(" : ")
    print_functional_type(printer, op)


# ---------------------------------------------------------------------------
# constant
# ---------------------------------------------------------------------------
@custom_parser
def parse_constant(cls, parser: Parser) -> Op:
    if parser.parse_optional_punctuation("(") is not None:
        parser.parse_punctuation(")")
        props: dict[str, Attribute] = {}
        if parser.parse_optional_punctuation("<") is not None:
            props = parser.parse_optional_dictionary_attr_dict()
            parser.parse_punctuation(">")
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        parser.parse_punctuation("(")
        parser.parse_punctuation(")")
        parser.parse_punctuation("->")
        result_type = parser.parse_type()
        return build_op(cls, [], [result_type], attrs, props)
    attrs = parser.parse_optional_attr_dict()
    pos = parser.pos
    value = parser.parse_attribute()
    vtype = getattr(value, "type", None)
    if not isinstance(vtype, ShapedType):
        op_error(parser, "invalid kind of attribute specified", pos)
    return build_op(cls, [], [vtype], attrs, {"value": value})


def print_constant(op: Op, printer: Printer) -> None:
    value = op.value
    if getattr(value, "type", None) != op.output.type:
        printer.print_string("()")
        printer.print_string(" <")
        printer.print_attr_dict({k: op.properties[k] for k in sorted(op.properties)})
        printer.print_string(">")
        if op.attributes:
            printer.print_string(" ")
            printer.print_attr_dict(op.attributes)
        printer.print_string(" : () -> ")
        printer.print_attribute(op.output.type)
        return
    print_attr_dict(printer, op, ["value"])
    printer.print_string(" ")
    printer.print_attribute(value)


# ---------------------------------------------------------------------------
# iota: `dim = 0 attr-dict : type`
# ---------------------------------------------------------------------------
@custom_parser
def parse_iota(cls, parser: Parser) -> Op:
    parser.parse_keyword("dim")
    parser.parse_punctuation("=")
    dim = parser.parse_integer()
    attrs = parser.parse_optional_attr_dict()
    parser.parse_punctuation(":")
    t = parser.parse_type()
    return build_op(cls, [], [t], attrs, {"iota_dimension": i64_attr(dim)})


def print_iota(op: Op, printer: Printer) -> None:
    printer.print_string(f" dim = {op.iota_dimension}")
    print_attr_dict(printer, op, ["iota_dimension"])
    printer.print_string(" : ")
    printer.print_attribute(op.output.type)


# transpose / broadcast_in_dim: `$x, dims = [..] attr-dict : functional`; the op names
# the property `dims` stands for in its `DIMS_PROPERTY`


@custom_parser
def parse_dims_op(cls, parser: Parser) -> Op:
    operand = parser.parse_unresolved_operand()
    parser.parse_punctuation(",")
    parser.parse_keyword("dims")
    parser.parse_punctuation("=")
    dims = parse_i64_list(parser)
    attrs = parser.parse_optional_attr_dict()
    parser.parse_punctuation(":")
    ins, outs = parse_functional_type(parser, 1)
    return build_op(cls, resolve(parser, [operand], ins), outs, attrs,
                    {cls.DIMS_PROPERTY: i64_array(dims)})


def print_dims_op(op: Op, printer: Printer) -> None:
    prop = op.DIMS_PROPERTY
    printer.print_string(" ")
    printer.print_operand(op.operand)
    printer.print_string(f", dims = {fmt_list(array_values(op.properties[prop]) or ())}")
    print_attr_dict(printer, op, [prop])
    printer.print_string(" : ")
    print_functional_type(printer, op)


# concatenate: `%a, %b, dim = 0 attr-dict : functional`
@custom_parser
def parse_concatenate(cls, parser: Parser) -> Op:
    operands = []
    while (o := parser.parse_optional_unresolved_operand()) is not None:
        operands.append(o)
        parser.parse_punctuation(",")
    parser.parse_keyword("dim")
    parser.parse_punctuation("=")
    dim = parser.parse_integer()
    attrs = parser.parse_optional_attr_dict()
    parser.parse_punctuation(":")
    ins, outs = parse_functional_type(parser, len(operands))
    return build_op(cls, [resolve(parser, operands, ins)], outs, attrs,
                    {"dimension": i64_attr(dim)})


def print_concatenate(op: Op, printer: Printer) -> None:
    printer.print_string(" ")
    print_operand_list(printer, op.operands)
    printer.print_string(f", dim = {op.dimension}")
    print_attr_dict(printer, op, ["dimension"])
    printer.print_string(" : ")
    print_functional_type(printer, op)


# slice: `$x [0:2, 1:4:2] attr-dict : functional`
@custom_parser
def parse_slice(cls, parser: Parser) -> Op:
    operand = parser.parse_unresolved_operand()
    starts: list[int] = []
    limits: list[int] = []
    strides: list[int] = []

    def one() -> None:
        starts.append(parser.parse_integer())
        parser.parse_punctuation(":")
        limits.append(parser.parse_integer())
        strides.append(parser.parse_integer() if parser.parse_optional_punctuation(":") else 1)

    parser.parse_comma_separated_list(parser.Delimiter.SQUARE, one)
    attrs = parser.parse_optional_attr_dict()
    parser.parse_punctuation(":")
    ins, outs = parse_functional_type(parser, 1)
    return build_op(cls, resolve(parser, [operand], ins), outs, attrs,
                    {"start_indices": i64_array(starts), "limit_indices": i64_array(limits),
                     "strides": i64_array(strides)})


def print_slice(op: Op, printer: Printer) -> None:
    printer.print_string(" ")
    printer.print_operand(op.operand)
    s, lim, st = op.start_indices, op.limit_indices, op.strides
    if len(s) == len(lim) == len(st):
        parts = [f"{a}:{b}" + (f":{c}" if c != 1 else "") for a, b, c in zip(s, lim, st)]
        printer.print_string(" [" + ", ".join(parts) + "]")
    else:
        printer.print_string(f" [start_indices: {', '.join(map(str, s))}, limit_indices: "
                             f"{', '.join(map(str, lim))}, strides: {', '.join(map(str, st))}]")
    print_attr_dict(printer, op, ["start_indices", "limit_indices", "strides"])
    printer.print_string(" : ")
    print_functional_type(printer, op)


# pad: `$x, $v, low = [..], high = [..], interior = [..] attr-dict : functional`
@custom_parser
def parse_pad(cls, parser: Parser) -> Op:
    operands = parse_operand_list(parser, 2)
    props = {}
    for key, prop in (("low", "edge_padding_low"), ("high", "edge_padding_high"),
                      ("interior", "interior_padding")):
        parser.parse_punctuation(",")
        parser.parse_keyword(key)
        parser.parse_punctuation("=")
        props[prop] = i64_array(parse_i64_list(parser))
    attrs = parser.parse_optional_attr_dict()
    parser.parse_punctuation(":")
    ins, outs = parse_functional_type(parser, 2)
    return build_op(cls, resolve(parser, operands, ins), outs, attrs, props)


def print_pad(op: Op, printer: Printer) -> None:
    printer.print_string(" ")
    print_operand_list(printer, op.operands)
    printer.print_string(f", low = {fmt_list(op.edge_padding_low)}, high = "
                         f"{fmt_list(op.edge_padding_high)}, interior = {fmt_list(op.interior_padding)}")
    print_attr_dict(printer, op, ["edge_padding_low", "edge_padding_high", "interior_padding"])
    printer.print_string(" : ")
    print_functional_type(printer, op)


# ---------------------------------------------------------------------------
# return / optimization_barrier / custom_call
# ---------------------------------------------------------------------------
@custom_parser
def parse_return(cls, parser: Parser) -> Op:
    operands = []
    if (o := parser.parse_optional_unresolved_operand()) is not None:
        operands = [o]
        while parser.parse_optional_punctuation(",") is not None:
            operands.append(parser.parse_unresolved_operand())
    attrs = parser.parse_optional_attr_dict()
    types: list[Attribute] = []
    pos = parser.pos
    if operands:
        parser.parse_punctuation(":")
        pos = parser.pos
        types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
    return build_op(cls, [resolve(parser, operands, types, pos)], [], attrs)


def print_return(op: Op, printer: Printer) -> None:
    printer.print_string(" ")  # upstream's format prints the space also before no operands
    if op.operands:
        print_operand_list(printer, op.operands)
    print_attr_dict(printer, op)
    if op.operands:
        printer.print_string(" : ")
        printer.print_list([o.type for o in op.operands], printer.print_attribute)


@custom_parser
def parse_optimization_barrier(cls, parser: Parser) -> Op:
    attrs = parser.parse_optional_attr_dict()
    if parser.parse_optional_punctuation("(") is not None:
        parser.parse_punctuation(")")
        return build_op(cls, [[]], [[]], attrs)
    operands = parse_operand_list(parser)
    parser.parse_punctuation(":")
    pos = parser.pos
    types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
    return build_op(cls, [resolve(parser, operands, types, pos)], [types], attrs)


def print_optimization_barrier(op: Op, printer: Printer) -> None:
    print_attr_dict(printer, op)
    if not op.operands:
        printer.print_string("()")
        return
    printer.print_string(" ")
    print_operand_list(printer, op.operands)
    printer.print_string(" : ")
    printer.print_list([o.type for o in op.operands], printer.print_attribute)


@custom_parser
def parse_custom_call(cls, parser: Parser) -> Op:
    target = parser.parse_optional_symbol_name()
    if target is None:
        op_error(parser, "expected valid '@'-identifier for symbol name")
    operands = parser.parse_comma_separated_list(parser.Delimiter.PAREN,
                                                 parser.parse_unresolved_operand)
    attrs = parser.parse_optional_attr_dict()
    parser.parse_punctuation(":")
    ins, outs = parse_functional_type(parser, len(operands))
    return build_op(cls, [resolve(parser, operands, ins)], [outs], attrs,
                    {"call_target_name": StringAttr(target.data)})


def print_custom_call(op: Op, printer: Printer) -> None:
    printer.print_string(" ")
    printer.print_symbol_name(op.call_target_name)
    printer.print_string("(")
    print_operand_list(printer, op.operands)
    printer.print_string(")")
    print_attr_dict(printer, op, ["call_target_name"])
    printer.print_string(" : ")
    print_functional_type(printer, op)

