"""Pretty parse/print of the StableHLO contractions (upstream's custom directives).

- `stablehlo.dot %a, %b[, precision = [HIGH, DEFAULT]] : (t, u) -> v`
- `stablehlo.dot_general %a, %b, [batching_dims = [0] x [0], ]contracting_dims = [2] x [1]
  [, precision = [...]][, algorithm = <...>] : (t, u) -> v`
- `stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f],
  window = {stride = [..], pad = [[lo, hi], ..], lhs_dilate = [..], rhs_dilate = [..],
  reverse = [false, true]} {batch_group_count = 1 : i64, ...} : (t, u) -> v`
"""

from __future__ import annotations

from typing import Any

from xdsl.ir import Attribute
from xdsl.parser import Parser
from xdsl.printer import Printer

from qcomp.dialects.stablehlo.attrs import (
    DotAlgorithmAttr,
    DotDimensionNumbersAttr,
    format_conv_dimensions,
    parse_conv_dimensions,
)
from qcomp.dialects.stablehlo.format import (
    array_values,
    bool_array,
    build_op,
    fmt_list,
    i64_array,
    padding_attr,
    padding_values,
    parse_functional_type,
    parse_i64_list,
    parse_operand_list,
    parse_precision_list,
    print_attr_dict,
    print_functional_type,
    print_operand_list,
    print_precision_config,
    resolve,
)
from qcomp.dialects.stablehlo.parse_errors import custom_parser, op_error

Op = Any


# ---------------------------------------------------------------------------
@custom_parser
def parse_dot(cls, parser: Parser) -> Op:
    operands = parse_operand_list(parser, 2)
    props: dict[str, Attribute] = {}
    if parser.parse_optional_punctuation(",") is not None:
        parser.parse_keyword("precision")
        parser.parse_punctuation("=")
        props["precision_config"] = parse_precision_list(parser)
    attrs = parser.parse_optional_attr_dict()
    parser.parse_punctuation(":")
    ins, outs = parse_functional_type(parser, 2)
    return build_op(cls, resolve(parser, operands, ins), outs, attrs, props)


def print_dot(op: Op, printer: Printer) -> None:
    printer.print_string(" ")
    print_operand_list(printer, op.operands)
    print_precision_config(printer, op.precision_config)
    print_attr_dict(printer, op, ["precision_config"])
    printer.print_string(" : ")
    print_functional_type(printer, op)


def _parse_lhs_rhs(parser: Parser) -> tuple[list[int], list[int]]:
    lhs = parse_i64_list(parser)
    if parser.parse_optional_identifier() != "x":
        op_error(parser, "expected 'x'")
    return lhs, parse_i64_list(parser)


@custom_parser
def parse_dot_general(cls, parser: Parser) -> Op:
    operands = parse_operand_list(parser, 2)
    parser.parse_punctuation(",")
    lb: list[int] = []
    rb: list[int] = []
    if parser.parse_optional_keyword("batching_dims") is not None:
        parser.parse_punctuation("=")
        lb, rb = _parse_lhs_rhs(parser)
        parser.parse_punctuation(",")
    parser.parse_keyword("contracting_dims")
    parser.parse_punctuation("=")
    lc, rc = _parse_lhs_rhs(parser)
    dims = DotDimensionNumbersAttr.get(lb, rb, lc, rc)
    props: dict[str, Attribute] = {"dot_dimension_numbers": dims}
    if parser.parse_optional_punctuation(",") is not None:
        if parser.parse_optional_keyword("algorithm") is None:
            parser.parse_keyword("precision")
            parser.parse_punctuation("=")
            props["precision_config"] = parse_precision_list(parser)
            if parser.parse_optional_punctuation(",") is not None:
                parser.parse_keyword("algorithm")
                parser.parse_punctuation("=")
                props["algorithm"] = _parse_algorithm(parser)
        else:
            parser.parse_punctuation("=")
            props["algorithm"] = _parse_algorithm(parser)
    attrs = parser.parse_optional_attr_dict()
    parser.parse_punctuation(":")
    ins, outs = parse_functional_type(parser, 2)
    return build_op(cls, resolve(parser, operands, ins), outs, attrs, props)


def _parse_algorithm(parser: Parser) -> Attribute:
    """The stripped `#stablehlo.dot_algorithm<...>` body."""
    return DotAlgorithmAttr.new(DotAlgorithmAttr.parse_parameters(parser))


def print_dot_general(op: Op, printer: Printer) -> None:
    d = op.dot_dimension_numbers
    printer.print_string(" ")
    print_operand_list(printer, op.operands)
    printer.print_string(", ")
    if d.lhs_batching_dimensions or d.rhs_batching_dimensions:
        printer.print_string(f"batching_dims = {fmt_list(d.lhs_batching_dimensions)} x "
                             f"{fmt_list(d.rhs_batching_dimensions)}, ")
    printer.print_string(f"contracting_dims = {fmt_list(d.lhs_contracting_dimensions)} x "
                         f"{fmt_list(d.rhs_contracting_dimensions)}")
    print_precision_config(printer, op.precision_config)
    if op.algorithm is not None:
        printer.print_string(", algorithm = ")
        op.algorithm.print_parameters(printer)
    print_attr_dict(printer, op, ["dot_dimension_numbers", "precision_config", "algorithm"])
    printer.print_string(" : ")
    print_functional_type(printer, op)


_WINDOW_KEYS = {"stride": "window_strides", "pad": "padding", "lhs_dilate": "lhs_dilation",
                "rhs_dilate": "rhs_dilation", "reverse": "window_reversal"}


@custom_parser
def parse_convolution(cls, parser: Parser) -> Op:
    parser.parse_punctuation("(")
    operands = parse_operand_list(parser, 2)
    parser.parse_punctuation(")")
    parser.parse_keyword("dim_numbers")
    parser.parse_punctuation("=")
    props: dict[str, Attribute] = {"dimension_numbers": parse_conv_dimensions(parser)}
    parser.parse_punctuation(",")
    parser.parse_keyword("window")
    parser.parse_punctuation("=")
    parser.parse_punctuation("{")
    allowed = dict(_WINDOW_KEYS)
    while (key := parser.parse_optional_identifier()) is not None:
        if key not in allowed:
            op_error(parser, f"Unexpected keyword {key}")
        prop = allowed.pop(key)
        parser.parse_punctuation("=")
        if key == "pad":
            def pair() -> list[int]:
                pos = parser.pos
                p = parse_i64_list(parser)
                if len(p) != 2:
                    op_error(parser, f"Expected array with 2 elements, got {len(p)} "
                                       "elements instead", pos)
                return p
            props[prop] = padding_attr(parser.parse_comma_separated_list(
                parser.Delimiter.SQUARE, pair))
        elif key == "reverse":
            vals = parser.parse_comma_separated_list(
                parser.Delimiter.SQUARE,
                lambda: bool(parser.parse_integer(allow_boolean=True)))
            props[prop] = bool_array(vals)
        else:
            props[prop] = i64_array(parse_i64_list(parser))
        if parser.parse_optional_punctuation(",") is None:
            break
    parser.parse_punctuation("}")
    attrs = parser.parse_optional_attr_dict()
    parser.parse_punctuation(":")
    ins, outs = parse_functional_type(parser, 2)
    return build_op(cls, resolve(parser, operands, ins), outs, attrs, props)


def print_convolution(op: Op, printer: Printer) -> None:
    printer.print_string("(")
    print_operand_list(printer, op.operands)
    printer.print_string(") dim_numbers = " + format_conv_dimensions(op.dimension_numbers))
    printer.print_string(", window = {")
    parts = []
    for key, prop in _WINDOW_KEYS.items():
        attr = op.properties.get(prop)
        if attr is None:
            continue
        if key == "pad":
            pads = padding_values(attr) or ()
            parts.append("pad = [" + ", ".join(f"[{lo}, {hi}]" for lo, hi in pads) + "]")
        elif key == "reverse":
            parts.append("reverse = " + fmt_list(
                "true" if v else "false" for v in (array_values(attr) or ())))
        else:
            parts.append(f"{key} = {fmt_list(array_values(attr) or ())}")
    printer.print_string(", ".join(parts) + "}")
    print_attr_dict(printer, op, ["dimension_numbers", *_WINDOW_KEYS.values()])
    printer.print_string(" : ")
    print_functional_type(printer, op)


