"""Pieces shared by the tosa ops (qcomp/dialects/tosa/ops.py): upstream's text for ops with
enum properties, shape and element-type checks in upstream's words, type text for
diagnostics."""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    FunctionType,
    IntegerType,
    Signedness,
    TensorType,
    UnrankedTensorType,
)
from xdsl.dialects.tosa import NanMode, NanModeAttr, RoundingMode, RoundingModeAttr
from xdsl.ir import Attribute
from xdsl.irdl import IRDLOperation
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from qcomp.dialects.quant import UniformQuantizedType
from qcomp.ir import QcompPrinter

# -- types and shapes --------------------------------------------------------------------------

DYN = DYNAMIC_INDEX


def type_text(t: Attribute) -> str:
    """An attribute or type as qcomp prints it (MLIR's float text)."""
    out = io.StringIO()
    QcompPrinter(stream=out).print_attribute(t)
    return out.getvalue()


def quoted_type(t: Attribute) -> str:
    """A type quoted as MLIR quotes it in diagnostics: `'tensor<4xi8>'`."""
    return f"'{type_text(t)}'"


def element_of(t: Attribute) -> Attribute:
    return t.element_type if isinstance(t, TensorType | UnrankedTensorType) else t


def storage_element(t: Attribute) -> Attribute:
    """Element type with a quantized element replaced by its storage type."""
    e = element_of(t)
    return e.storage if isinstance(e, UniformQuantizedType) else e


def shape_of(t: Attribute) -> tuple[int, ...] | None:
    """Static-or-dynamic shape of a ranked tensor (-1 for `?`), None if unranked."""
    if isinstance(t, TensorType):
        return tuple(t.get_shape())
    return None


def shape_text(shape: Sequence[int]) -> str:
    """`2x3`, as upstream's broadcast diagnostics write a shape."""
    return "x".join("?" if d == DYN else str(d) for d in shape)


def shape_list_text(shape: Sequence[int]) -> str:
    """`2, 3`, as upstream's shape-inference diagnostics write a shape."""
    return ", ".join("?" if d == DYN else str(d) for d in shape)


def int_width(t: Attribute) -> int | None:
    return t.width.data if isinstance(t, IntegerType) else None


def is_signless_int(t: Attribute, width: int | None = None) -> bool:
    return (isinstance(t, IntegerType) and t.signedness.data == Signedness.SIGNLESS
            and (width is None or t.width.data == width))


def broadcast_shape(a: Sequence[int], b: Sequence[int]) -> list[int] | None:
    """MLIR's `getBroadcastedShape`: NumPy-style (right-aligned, 1 stretches; a dynamic
    size takes the other side's size when that is > 1), None if incompatible."""
    rank = max(len(a), len(b))
    a = [1] * (rank - len(a)) + list(a)
    b = [1] * (rank - len(b)) + list(b)
    out = []
    for x, y in zip(a, b):
        if DYN in (x, y):
            out.append(x if x > 1 else y if y > 1 else y if x == 1 else x if y == 1 else DYN)
        elif x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        else:
            return None
    return out


def compatible(a: Sequence[int], b: Sequence[int]) -> bool:
    return len(a) == len(b) and all(x == y or DYN in (x, y) for x, y in zip(a, b))


# -- text: operands {attr-dict with bare enums} : functional-type --------------------

class EnumAttrDictFormat(IRDLOperation):
    """Upstream's `parseWithEnumHandling` / `printWith*Handling` text:

    `tosa.rescale %a, %b, ... {per_channel = false, rounding_mode = SINGLE_ROUND} : (...) -> t`

    Enum properties are written as bare keywords (the qualified `#tosa.…<X>` form is
    read too); the dictionary prints sorted by name, properties and discardable
    attributes together; `nan_mode = PROPAGATE` (the default) is left out.
    """

    _DEFAULTS: ClassVar[Mapping[str, Attribute]] = {}

    @classmethod
    def create(cls, *, properties: Mapping[str, Attribute] = {},  # type: ignore[override]
               **kwargs):
        props = {**cls._DEFAULTS, **properties}
        return super().create(properties=dict(sorted(props.items())), **kwargs)

    @classmethod
    def parse(cls, parser: Parser):
        pos = parser.pos
        operands = parser.parse_comma_separated_list(
            parser.Delimiter.NONE, parser.parse_unresolved_operand)
        entries: dict[str, Attribute] = {}

        def entry() -> None:
            key = parser.parse_identifier()
            parser.parse_punctuation("=")
            entries[key] = cls._parse_entry_value(parser, key)

        if parser.parse_optional_punctuation("{") is not None:
            if parser.parse_optional_punctuation("}") is None:
                parser.parse_comma_separated_list(parser.Delimiter.NONE, entry)
                parser.parse_punctuation("}")
        parser.parse_punctuation(":")
        type_pos = parser.pos
        fn = parser.parse_type()
        if not isinstance(fn, FunctionType):
            parser.raise_error("expected a function type", type_pos, parser.pos)
        if len(fn.inputs.data) != len(operands):
            parser.raise_error(
                f"{len(operands)} operands present, but expected {len(fn.inputs.data)}",
                pos, parser.pos)
        if len(fn.outputs.data) != 1:
            parser.raise_error("expected a single result type", type_pos, parser.pos)
        props_def = cls.get_irdl_definition().properties
        props = {k: v for k, v in entries.items() if k in props_def}
        attrs = {k: v for k, v in entries.items() if k not in props_def}
        return cls.create(
            operands=parser.resolve_operands(operands, fn.inputs.data, pos),
            result_types=[fn.outputs.data[0]],
            properties=props,
            attributes=attrs,
        )

    @classmethod
    def _parse_entry_value(cls, parser: Parser, key: str) -> Attribute:
        enum = {"rounding_mode": (RoundingMode, RoundingModeAttr, "rounding_mode"),
                "nan_mode": (NanMode, NanModeAttr, "nan_mode")}.get(key)
        if enum is not None and key in cls.get_irdl_definition().properties:
            start = parser.pos
            word = parser.parse_optional_identifier()
            if word is not None:
                kind, attr_cls, label = enum
                if word not in kind.__members__:
                    parser.raise_error(
                        f"custom op '{cls.name}' invalid {label} value: {word}", start,
                        parser.pos)
                return attr_cls(kind(word))
        return parser.parse_attribute()

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list(self.operands, printer.print_operand)
        entries = dict(sorted({**self.properties, **self.attributes}.items()))
        nan = entries.get("nan_mode")
        if isinstance(nan, NanModeAttr) and nan.data == NanMode.PROPAGATE:
            del entries["nan_mode"]
        if entries:
            printer.print_string(" {")

            def one(item: tuple[str, Attribute]) -> None:
                key, value = item
                printer.print_identifier_or_string_literal(key)
                printer.print_string(" = ")
                if isinstance(value, RoundingModeAttr | NanModeAttr):
                    printer.print_string(value.data)
                else:
                    printer.print_attribute(value)

            printer.print_list(entries.items(), one)
            printer.print_string("}")
        printer.print_string(" : ")
        printer.print_attribute(FunctionType.from_lists(
            [o.type for o in self.operands], [r.type for r in self.results]))


FUNCTIONAL = "operands attr-dict `:` functional-type(operands, results)"


# -- verification pieces ---------------------------------------------------------------

def same_element_types(values: Sequence[Attribute], with_results: bool) -> None:
    elements = [element_of(t) for t in values]
    if any(e != elements[0] for e in elements):
        raise VerifyException(
            "requires the same element type for all operands"
            + (" and results" if with_results else ""))


def same_shapes(values: Sequence[Attribute]) -> None:
    shapes = [shape_of(t) for t in values]
    ranked = [s for s in shapes if s is not None]
    if any(not compatible(s, ranked[0]) for s in ranked):
        raise VerifyException("requires the same shape for all operands and results")


def verify_binary_broadcast(op: IRDLOperation) -> None:
    """Upstream's `ResultsBroadcastableShape` trait (NumPy-style broadcasting; the
    result's trailing sizes must fit), then TOSA's equal-rank rule."""
    a, b = shape_of(op.operands[0].type), shape_of(op.operands[1].type)
    out = shape_of(op.results[0].type)
    if a is None or b is None:
        return
    shape = broadcast_shape(a, b)
    if shape is None:
        raise VerifyException("operands don't have broadcast-compatible shapes")
    if out is not None and not compatible(shape, out[-len(shape):] if shape else ()):
        raise VerifyException(
            f"result type '{shape_text(out)}' not broadcast compatible with broadcasted "
            f"operands's shapes '{shape_text(shape)}'")
    if len(a) != len(b):
        raise VerifyException("operands don't have matching ranks")
    if out is not None and len(out) != len(a):
        raise VerifyException("result type has different rank than operands")


def verify_operand(op: IRDLOperation, index: int, ok: bool, what: str) -> None:
    if not ok:
        raise VerifyException(
            f"operand #{index} must be {what}, but got {quoted_type(op.operands[index].type)}")


def require_properties(op: IRDLOperation, kinds: Mapping[str, type | tuple[type, ...]]) -> None:
    """Upstream's inherent-attribute check, in its order (by name) and words: a missing
    property, or one of the wrong kind, is `requires attribute 'name'`."""
    for name in sorted(kinds):
        if not isinstance(op.properties.get(name), kinds[name]):
            raise VerifyException(f"requires attribute '{name}'")


def is_scalar_tensor(t: Attribute) -> bool:
    """Upstream `Tosa_ScalarTensor`: a rank-1 tensor of one element."""
    return isinstance(t, TensorType) and tuple(t.get_shape()) == (1,)
