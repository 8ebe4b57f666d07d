"""The pretty form shared by many StableHLO ops: operands, then `, keyword = value`
fields, then the types, e.g.

    stablehlo.dynamic_iota %shape, dim = 0 : (tensor<1xi32>) -> tensor<?xf32>
    stablehlo.dynamic_slice %x, %i, %j, sizes = [2, 2] : (...) -> tensor<2x2xf32>
    stablehlo.fft %x, type = RFFT, length = [4] : (...) -> tensor<3xcomplex<f32>>
    stablehlo.reverse %x, dims = [0] : tensor<3xf32>
    stablehlo.replica_id : tensor<ui32>

An op declares `PRETTY_FIELDS` (keyword, property, kind) and `PRETTY_TYPES`: `functional`
(functional-type(operands, results)), `same` (upstream's SameOperandsAndResultType) or
`results` (`type(results)`). Kinds: `list` (array<i64>), `int` (i64), `bool`, or an
enum attribute class (its case's name). A field whose kind ends in `?` is optional:
printed only when set.
"""

from __future__ import annotations

from typing import Any, ClassVar

from xdsl.dialects.builtin import BoolAttr, FunctionType, IntegerAttr, i1
from xdsl.ir import Attribute
from xdsl.irdl import IRDLOperation
from xdsl.irdl.operations import VariadicDef
from xdsl.parser import Parser
from xdsl.printer import Printer

from qcomp.dialects.stablehlo.format import (
    array_values,
    build_op,
    fmt_list,
    i64_array,
    i64_attr,
    parse_enum,
    parse_functional_type,
    parse_i64_list,
    print_attr_dict,
    print_functional_type,
    print_same_operands_and_result_type,
    resolve,
)
from qcomp.dialects.stablehlo.parse_errors import custom_parser, op_error

Op = Any


def _parse_value(parser: Parser, kind) -> Attribute:
    if kind == "list":
        return i64_array(parse_i64_list(parser))
    if kind == "int":
        return i64_attr(parser.parse_integer())
    if kind == "bool":
        pos = parser.pos
        word = parser.parse_optional_identifier()
        if word not in ("true", "false"):
            op_error(parser, "expected 'true' or 'false'", pos)
        return BoolAttr(word == "true", i1)
    enum = kind.enum_type
    return kind(parse_enum(parser, enum, enum.__name__))


def _value_text(attr: Attribute, kind) -> str:
    if kind == "list":
        return fmt_list(array_values(attr) or ())
    if kind == "int":
        assert isinstance(attr, IntegerAttr)
        return str(attr.value.data)
    if kind == "bool":
        assert isinstance(attr, IntegerAttr)
        return "true" if attr.value.data else "false"
    return attr.data.value  # type: ignore[attr-defined]


def _fields(cls) -> list[tuple[str, str, Any, bool]]:
    out = []
    for keyword, prop, kind in cls.PRETTY_FIELDS:
        optional = isinstance(kind, str) and kind.endswith("?")
        out.append((keyword, prop, kind.rstrip("?") if optional else kind, optional))
    return out


@custom_parser
def parse_keyword_op(cls, parser: Parser) -> Op:
    operands = []
    props: dict[str, Attribute] = {}
    fields = _fields(cls)
    first = parser.parse_optional_unresolved_operand()
    if first is not None:
        operands.append(first)
    index = 0
    while parser.parse_optional_punctuation(",") is not None:
        o = parser.parse_optional_unresolved_operand()
        if o is not None and not props:
            operands.append(o)
            continue
        pos = parser.pos
        word = parser.parse_optional_identifier()
        while index < len(fields) and fields[index][0] != word and fields[index][3]:
            index += 1
        if index >= len(fields) or fields[index][0] != word:
            expected = fields[index][0] if index < len(fields) else "':'"
            op_error(parser, f"expected '{expected}'", pos)
        _, prop, kind, _ = fields[index]
        parser.parse_punctuation("=")
        props[prop] = _parse_value(parser, kind)
        index += 1
    missing = [f for f in fields[index:] if not f[3]]
    if missing:
        parser.parse_punctuation(",")  # MLIR's "expected ','"
    attrs = parser.parse_optional_attr_dict()
    parser.parse_punctuation(":")
    pos = parser.pos
    if cls.PRETTY_TYPES == "results":
        outs = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
        ins: list[Attribute] = []
    elif cls.PRETTY_TYPES == "same":
        t = parser.parse_type()
        if isinstance(t, FunctionType):
            ins, outs = list(t.inputs.data), list(t.outputs.data)
        else:
            ins, outs = [t] * len(operands), [t]
    else:
        ins, outs = parse_functional_type(parser)
    resolved = resolve(parser, operands, ins, pos)
    return build_op(cls, _group(cls, resolved), outs, attrs, props)


def _group(cls, values: list) -> list:
    """Operands grouped per operand definition (a variadic one takes the rest)."""
    defs = [d for _, d in cls.get_irdl_definition().operands]
    fixed = sum(1 for d in defs if not isinstance(d, VariadicDef))
    out, i = [], 0
    for d in defs:
        n = len(values) - fixed if isinstance(d, VariadicDef) else 1
        out.append(values[i:i + n] if isinstance(d, VariadicDef) else values[i])
        i += n
    return out


def print_keyword_op(op: Op, printer: Printer) -> None:
    if op.operands:
        printer.print_string(" ")
        printer.print_list(op.operands, printer.print_operand)
    printed = []
    for keyword, prop, kind, optional in _fields(type(op)):
        attr = op.properties.get(prop)
        if attr is None:
            continue
        if optional and kind == "bool" and not attr.value.data:
            printed.append(prop)
            continue
        sep = ", " if op.operands or printed else " "
        printer.print_string(f"{sep}{keyword} = {_value_text(attr, kind)}")
        printed.append(prop)
    print_attr_dict(printer, op, [p for _, p, _, _ in _fields(type(op))])
    printer.print_string(" : ")
    if type(op).PRETTY_TYPES == "results":
        printer.print_list([r.type for r in op.results], printer.print_attribute)
    elif type(op).PRETTY_TYPES == "same":
        print_same_operands_and_result_type(printer, op)
    else:
        print_functional_type(printer, op)


class KeywordOp(IRDLOperation):
    """Base of the ops in this pretty form: they set `PRETTY_FIELDS` / `PRETTY_TYPES`."""

    PRETTY_FIELDS: ClassVar[tuple] = ()
    PRETTY_TYPES: ClassVar[str] = "functional"
    parse = classmethod(parse_keyword_op)
    print = print_keyword_op
