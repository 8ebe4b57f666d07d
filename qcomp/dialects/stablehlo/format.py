"""Custom assembly pieces shared by the StableHLO and CHLO ops.

Each `print_*`/`parse_*` pair mirrors one of upstream's `custom<...>` directives
(stablehlo/dialect/AssemblyFormat.cpp) so that text round-trips with `stablehlo-opt`:

- `custom<SameOperandsAndResultType>`: one type when every operand type equals the
  result type, else the functional type `(a, b) -> c`.
- `custom<SelectOpType>`: `pred_type, result_type` or the functional type.
- attr-dict: inherent attributes (our properties) and discardable ones, merged and
  sorted by name, minus the ones the format already prints.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, TypeVar

from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    FunctionType,
    IntegerAttr,
    TensorType,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.parser import AttrParser, Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.utils.str_enum import StrEnum

from qcomp.dialects.stablehlo.attrs import Precision, PrecisionAttr
from qcomp.dialects.stablehlo.parse_errors import op_error
from qcomp.ir.splat import Repeated, dense_values

if TYPE_CHECKING:
    from xdsl.irdl import IRDLOperation

OpT = TypeVar("OpT", bound="IRDLOperation")


def parse_enum(parser: Parser | AttrParser, enum: type[StrEnum], cpp_name: str):
    """An enum case spelled by name; upstream's message when it is not one."""
    pos = parser.pos
    word = parser.parse_optional_identifier()
    values = [e.value for e in enum]
    if word not in values:
        op_error(parser, f"expected ::mlir::stablehlo::{cpp_name} to be one of: "
                 + ", ".join(values), pos)
    return enum(word)


# ---------------------------------------------------------------------------
# attr-dict
# ---------------------------------------------------------------------------
def print_attr_dict(printer: Printer, op: Operation, elided: Iterable[str] = ()) -> None:
    """` {a = ..., b = ...}` of properties and attributes not in `elided` (sorted)."""
    skip = set(elided)
    merged = {**op.attributes, **op.properties}
    items = {k: merged[k] for k in sorted(merged) if k not in skip}
    if items:
        printer.print_string(" ")
        printer.print_attr_dict(items)


def property_names(cls: type[IRDLOperation]) -> set[str]:
    return set(cls.get_irdl_definition().properties)


def split_attr_dict(cls: type[IRDLOperation], attrs: dict[str, Attribute],
                    ) -> tuple[dict[str, Attribute], dict[str, Attribute]]:
    """(properties, attributes): names the op declares become properties."""
    names = property_names(cls)
    props = {k: v for k, v in attrs.items() if k in names}
    rest = {k: v for k, v in attrs.items() if k not in names}
    return props, rest


def build_op(cls: type[OpT], operands: Sequence[SSAValue | Sequence[SSAValue]],
             result_types: Sequence[Attribute | Sequence[Attribute]],
             attrs: dict[str, Attribute], extra_props: dict[str, Attribute] | None = None,
             regions: Sequence = ()) -> OpT:
    """Create `cls` from parsed pieces, sorting the attr-dict into properties."""
    props, rest = split_attr_dict(cls, attrs)
    props.update(extra_props or {})
    props = {k: props[k] for k in sorted(props)}
    return cls.build(operands=list(operands), result_types=list(result_types),
                     properties=props, attributes=rest, regions=list(regions))


# ---------------------------------------------------------------------------
# operands and types
# ---------------------------------------------------------------------------
def parse_operand_list(parser: Parser, n: int | None = None) -> list[UnresolvedOperand]:
    """`%a, %b, ...` (exactly n when given, else one or more)."""
    ops = [parser.parse_unresolved_operand()]
    while (n is None or len(ops) < n):
        if n is not None:
            parser.parse_punctuation(",")
        elif parser.parse_optional_punctuation(",") is None:
            break
        ops.append(parser.parse_unresolved_operand())
    return ops


def print_operand_list(printer: Printer, values: Iterable[SSAValue]) -> None:
    printer.print_list(values, printer.print_operand)


def resolve(parser: Parser, operands: Sequence[UnresolvedOperand], types: Sequence[Attribute],
            pos: int | None = None) -> list[SSAValue]:
    if len(operands) != len(types):
        op_error(parser, f"number of operands and types do not match: got {len(operands)} "
                 f"operands and {len(types)} types", pos)
    return [parser.resolve_operand(o, t) for o, t in zip(operands, types)]


def print_functional_type(printer: Printer, op: Operation) -> None:
    printer.print_function_type([o.type for o in op.operands], [r.type for r in op.results])


def parse_functional_type(parser: Parser, n_operands: int | None = None,
                          ) -> tuple[list[Attribute], list[Attribute]]:
    pos = parser.pos
    t = parser.parse_type()
    if not isinstance(t, FunctionType):
        op_error(parser, "expected a function type", pos)
    ins, outs = list(t.inputs.data), list(t.outputs.data)
    if n_operands is not None and len(ins) != n_operands:
        op_error(parser, f"{n_operands} operands present, but expected {len(ins)}", pos)
    return ins, outs


def print_same_operands_and_result_type(printer: Printer, op: Operation) -> None:
    """`t` when all operand types equal the single result type, else `(..) -> t`."""
    result = op.results[0].type
    if all(o.type == result for o in op.operands):
        printer.print_attribute(result)
    else:
        print_functional_type(printer, op)


# ---------------------------------------------------------------------------
# attribute pieces
# ---------------------------------------------------------------------------
def i64_array(values: Sequence[int]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, [int(v) for v in values])


def bool_array(values: Sequence[bool]) -> DenseArrayBase:
    from xdsl.dialects.builtin import i1

    return DenseArrayBase.from_list(i1, [1 if v else 0 for v in values])


def array_values(attr: Attribute | None) -> tuple[int, ...] | None:
    """Python ints of a `array<i64: ...>` (or `array<i1: ...>`), None when absent."""
    if attr is None:
        return None
    assert isinstance(attr, DenseArrayBase)
    return tuple(int(v) for v in attr.get_values())


def i64_attr(value: int) -> IntegerAttr:
    return IntegerAttr(value, i64)


def int_value(attr: Attribute | None, default: int = 0) -> int:
    if attr is None:
        return default
    assert isinstance(attr, IntegerAttr)
    return attr.value.data


def padding_attr(pairs: Sequence[Sequence[int]]) -> DenseIntOrFPElementsAttr:
    """`dense<[[lo, hi], ...]> : tensor<Nx2xi64>`."""
    flat = [int(v) for p in pairs for v in p]
    return DenseIntOrFPElementsAttr.from_list(TensorType(i64, [len(pairs), 2]), flat)


def padding_values(attr: Attribute | None) -> tuple[tuple[int, int], ...] | None:
    if attr is None:
        return None
    assert isinstance(attr, DenseIntOrFPElementsAttr)
    vals = dense_values(attr)
    if isinstance(vals, Repeated):  # a splat held as one element: nothing copied
        return Repeated((int(vals.value), int(vals.value)), len(vals) // 2)  # type: ignore
    vals = [int(v) for v in vals]
    return tuple((vals[2 * i], vals[2 * i + 1]) for i in range(len(vals) // 2))


def parse_i64_list(parser: Parser) -> list[int]:
    return parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_integer)


def fmt_list(values: Iterable[object]) -> str:
    return "[" + ", ".join(str(v) for v in values) + "]"


def print_precision_config(printer: Printer, precision: Attribute | None) -> None:
    """`, precision = [DEFAULT, HIGH]` (nothing when absent)."""
    if precision is None:
        return
    assert isinstance(precision, ArrayAttr)
    names = [p.data.value if isinstance(p, PrecisionAttr) else str(p) for p in precision.data]
    printer.print_string(", precision = " + fmt_list(names))


def parse_precision_list(parser: Parser) -> ArrayAttr:
    """`[DEFAULT, HIGH]` after `precision =`."""
    def one() -> PrecisionAttr:
        return PrecisionAttr(parse_enum(parser, Precision, "Precision"))

    return ArrayAttr(parser.parse_comma_separated_list(parser.Delimiter.SQUARE, one))


