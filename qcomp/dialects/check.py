"""StableHLO's `check` dialect (stablehlo/tests/CheckOps.td): assertions the interpreter
tests end with, printed and parsed as upstream spells them.

- `check.expect_eq %a, %b : T` / `check.expect_eq_const %a, dense<...> : T`: bit-exact;
- `check.expect_almost_eq[_const] ..., tolerance = 1.000000e-03`: `|a - b| <= tolerance`
  element-wise (default tolerance 1e-4, left out of the text when default);
- `check.expect_close %a, %b, max_ulp_difference = N[, min_ulp_difference = M] : T, T`:
  `M <= ulp_distance(a, b) <= N`;
- `check.expect_serialized_eq %a, probe_id = "p"[, iter = K] : T`.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    AnyFloat,
    ComplexType,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    Signedness,
    StringAttr,
    TensorType,
    f64,
)
from xdsl.ir import Attribute, Dialect, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from qcomp.dialects.facts import NO_QUANTIZATION
from qcomp.ir import QcompPrinter

DEFAULT_TOLERANCE = 1e-4
"""Upstream's default `tolerance` of the almost-equal checks."""

_ui64 = IntegerType(64, Signedness.UNSIGNED)
_ui32 = IntegerType(32, Signedness.UNSIGNED)


def _text(a: Attribute) -> str:
    out = io.StringIO()
    QcompPrinter(stream=out).print_attribute(a)
    return out.getvalue()


def _elements_type(value: Attribute) -> Attribute | None:
    """Type of an elements attribute (`dense<...> : T`), None for other attributes."""
    get_type = getattr(value, "get_type", None)
    t = get_type() if callable(get_type) else None
    return t if isinstance(t, TensorType) else None


def _is_float_or_complex_tensor(t: Attribute) -> bool:
    return isinstance(t, TensorType) and isinstance(t.element_type, AnyFloat | ComplexType)


def _require_float_tensor(op: IRDLOperation, index: int) -> None:
    t = op.operands[index].type
    if not _is_float_or_complex_tensor(t):
        raise VerifyException(
            f"operand #{index} must be tensor of floating-point or complex-type values, "
            f"but got '{_text(t)}'")


def _require_ranked_tensor(op: IRDLOperation, index: int) -> None:
    t = op.operands[index].type
    if not isinstance(t, TensorType):
        raise VerifyException(
            f"operand #{index} must be ranked tensor, but got '{_text(t)}'")


# -- shared text ----------------------------------------------------------------------

_Keywords = Sequence[tuple[str, str, Attribute | None]]


class _CheckOp(IRDLOperation):
    """MLIR's declarative formats of these ops, written out by hand:

    `$operands [, $value] (, keyword = $prop)* attr-dict [: types]`, where
    `_VALUE`: a constant elements attribute follows the operands (`, dense<...> : T`);
    `_KEYWORDS`: `(keyword, property, default)` groups, printed when the property is
    set to a non-default value (the first is required when `_FIRST_KEYWORD_REQUIRED`);
    `_TYPES`: how many operand types follow `:` (0 when the value carries the type);
    `_TYPES_AFTER_COLON_FIRST`: `: attr-dict types` (expect_close's order).
    """

    traits = traits_def(NO_QUANTIZATION)

    _VALUE: ClassVar[bool] = False
    _KEYWORDS: ClassVar[_Keywords] = ()
    _FIRST_KEYWORD_REQUIRED: ClassVar[bool] = False
    _TYPES_AFTER_COLON_FIRST: ClassVar[bool] = False
    _TYPES: ClassVar[int] = 1

    @classmethod
    def parse(cls, parser: Parser):
        pos = parser.pos
        n_operands = len(cls.get_irdl_definition().operands)
        operands = [parser.parse_unresolved_operand()]
        for _ in range(n_operands - 1):
            parser.parse_punctuation(",")
            operands.append(parser.parse_unresolved_operand())
        props: dict[str, Attribute] = {}
        if cls._VALUE:
            parser.parse_punctuation(",")
            props["value"] = parser.parse_attribute()
        for i, (keyword, prop, _default) in enumerate(cls._KEYWORDS):
            required = i == 0 and cls._FIRST_KEYWORD_REQUIRED
            if required:
                parser.parse_punctuation(",")
            elif parser.parse_optional_punctuation(",") is None:
                break
            parser.parse_keyword(keyword)
            parser.parse_punctuation("=")
            props[prop] = cls._parse_keyword_value(parser, prop)
        attrs: dict[str, Attribute] = {}
        if cls._TYPES_AFTER_COLON_FIRST:
            parser.parse_punctuation(":")
            attrs = parser.parse_optional_attr_dict()
        else:
            attrs = parser.parse_optional_attr_dict()
            if cls._TYPES:
                parser.parse_punctuation(":")
        types: list[Attribute] = []
        if cls._TYPES:
            types = [parser.parse_type()]
            for _ in range(cls._TYPES - 1):
                parser.parse_punctuation(",")
                types.append(parser.parse_type())
        if len(types) < n_operands:
            # one type for all operands (`: type($lhs)` with SameTypeOperands) or the
            # type of the constant value
            source = types[0] if types else _elements_type(props.get("value", f64))
            if source is None:
                parser.raise_error("expected an elements attribute with a tensor type", pos,
                                   parser.pos)
            types = [source] * n_operands
        inherent = cls.get_irdl_definition().properties
        for key in [k for k in attrs if k in inherent]:
            props[key] = attrs.pop(key)
        return cls.create(operands=parser.resolve_operands(operands, types, pos),
                          properties=dict(sorted(props.items())), attributes=attrs)

    @classmethod
    def _parse_keyword_value(cls, parser: Parser, prop: str) -> Attribute:
        raise NotImplementedError

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list(self.operands, printer.print_operand)
        if self._VALUE:
            printer.print_string(", ")
            printer.print_attribute(self.properties["value"])
        shown = {"value"}
        for i, (keyword, prop, default) in enumerate(self._KEYWORDS):
            value = self.properties.get(prop)
            shown.add(prop)
            required = i == 0 and self._FIRST_KEYWORD_REQUIRED
            if value is None or (not required and value == default):
                continue
            printer.print_string(f", {keyword} = ")
            self._print_keyword_value(printer, value)
        extra = dict(sorted({**{k: v for k, v in self.properties.items() if k not in shown},
                             **self.attributes}.items()))
        if self._TYPES_AFTER_COLON_FIRST:
            printer.print_string(" :")
            printer.print_op_attributes(extra)
        else:
            printer.print_op_attributes(extra)
            if self._TYPES:
                printer.print_string(" :")
        if self._TYPES:
            printer.print_string(" ")
            printer.print_list([o.type for o in self.operands][: self._TYPES],
                               printer.print_attribute)

    @staticmethod
    def _print_keyword_value(printer: Printer, value: Attribute) -> None:
        if isinstance(value, FloatAttr | IntegerAttr):
            text = _text(value)
            printer.print_string(text.rsplit(" : ", 1)[0])
        else:
            printer.print_attribute(value)


def _parse_f64(parser: Parser) -> Attribute:
    start = parser.pos
    value = parser.parse_optional_number()
    if value is None:
        parser.raise_error("expected floating point literal", start, parser.pos)
    return FloatAttr(float(value), f64)


def _parse_uint(parser: Parser, t: IntegerType) -> Attribute:
    start = parser.pos
    value = parser.parse_optional_integer(allow_boolean=False, allow_negative=True)
    if value is None:
        parser.raise_error("expected integer value", start, parser.pos)
    if value < 0 or value >= 1 << t.width.data:
        parser.raise_error("integer constant out of range for attribute", start, parser.pos)
    return IntegerAttr(value, t)


def _verify_tolerance(op: IRDLOperation) -> None:
    tol = op.properties.get("tolerance")
    if tol is not None and not (isinstance(tol, FloatAttr) and tol.type == f64):
        raise VerifyException(
            "attribute 'tolerance' failed to satisfy constraint: 64-bit float attribute")


def _verify_value_matches(op: IRDLOperation, operand: str) -> None:
    value = op.properties["value"]
    t = _elements_type(value)
    if t is None:
        raise VerifyException(
            "attribute 'value' failed to satisfy constraint: constant vector/tensor attribute")
    if t != op.operands[0].type:
        raise VerifyException(f"failed to verify that all of {{{operand}, value}} have same type")


def _verify_same_type_operands(op: IRDLOperation) -> None:
    if op.operands[0].type != op.operands[1].type:
        raise VerifyException("requires all operands to have the same type")


# -- ops ----------------------------------------------------------------------------------

@irdl_op_definition
class ExpectEqOp(_CheckOp):
    """`check.expect_eq %lhs, %rhs : T`: the operands are bit-for-bit equal."""

    name = "check.expect_eq"
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)

    def __init__(self, lhs: SSAValue | Operation, rhs: SSAValue | Operation):
        super().__init__(operands=[lhs, rhs])

    def verify_(self) -> None:
        _verify_same_type_operands(self)


@irdl_op_definition
class ExpectEqConstOp(_CheckOp):
    """`check.expect_eq_const %lhs, dense<...> : T`: the operand equals the constant."""

    name = "check.expect_eq_const"
    lhs = operand_def(TensorType)
    value = prop_def(Attribute)
    _VALUE: ClassVar[bool] = True
    _TYPES: ClassVar[int] = 0

    def __init__(self, lhs: SSAValue | Operation, value: Attribute):
        super().__init__(operands=[lhs], properties={"value": value})

    def verify_(self) -> None:
        _verify_value_matches(self, "lhs")


class _AlmostEq(_CheckOp):
    _KEYWORDS: ClassVar[_Keywords] = (
        ("tolerance", "tolerance", FloatAttr(DEFAULT_TOLERANCE, f64)),)

    @classmethod
    def _parse_keyword_value(cls, parser: Parser, prop: str) -> Attribute:
        return _parse_f64(parser)

    @property
    def tolerance_value(self) -> float:
        tol = self.properties.get("tolerance")
        return tol.value.data if isinstance(tol, FloatAttr) else DEFAULT_TOLERANCE


@irdl_op_definition
class ExpectAlmostEqOp(_AlmostEq):
    """`check.expect_almost_eq %lhs, %rhs[, tolerance = t] : T`: `|lhs - rhs| <= t`."""

    name = "check.expect_almost_eq"
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    tolerance = opt_prop_def(FloatAttr)

    def __init__(self, lhs: SSAValue | Operation, rhs: SSAValue | Operation,
                 tolerance: float | None = None):
        props = {} if tolerance is None else {"tolerance": FloatAttr(tolerance, f64)}
        super().__init__(operands=[lhs, rhs], properties=props)

    def verify_(self) -> None:
        _require_float_tensor(self, 0)
        _require_float_tensor(self, 1)
        _verify_tolerance(self)
        _verify_same_type_operands(self)


@irdl_op_definition
class ExpectAlmostEqConstOp(_AlmostEq):
    """`check.expect_almost_eq_const %lhs, dense<...> : T[, tolerance = t]`."""

    name = "check.expect_almost_eq_const"
    lhs = operand_def(TensorType)
    value = prop_def(Attribute)
    tolerance = opt_prop_def(FloatAttr)
    _VALUE: ClassVar[bool] = True
    _TYPES: ClassVar[int] = 0

    def __init__(self, lhs: SSAValue | Operation, value: Attribute,
                 tolerance: float | None = None):
        props: dict[str, Attribute] = {"value": value}
        if tolerance is not None:
            props["tolerance"] = FloatAttr(tolerance, f64)
        super().__init__(operands=[lhs], properties=dict(sorted(props.items())))

    def verify_(self) -> None:
        _require_float_tensor(self, 0)
        _verify_tolerance(self)
        _verify_value_matches(self, "lhs")


@irdl_op_definition
class ExpectCloseOp(_CheckOp):
    """`check.expect_close %a, %e, max_ulp_difference = N[, min_ulp_difference = M] :
    T, T`: `M <= ulp_distance(a, e) <= N` element-wise."""

    name = "check.expect_close"
    actual = operand_def(TensorType)
    expected = operand_def(TensorType)
    max_ulp_difference = prop_def(IntegerAttr)
    min_ulp_difference = opt_prop_def(IntegerAttr)
    _KEYWORDS: ClassVar[_Keywords] = (
        ("max_ulp_difference", "max_ulp_difference", None),
                 ("min_ulp_difference", "min_ulp_difference", IntegerAttr(0, _ui64)))
    _FIRST_KEYWORD_REQUIRED: ClassVar[bool] = True
    _TYPES_AFTER_COLON_FIRST: ClassVar[bool] = True
    _TYPES: ClassVar[int] = 2

    def __init__(self, actual: SSAValue | Operation, expected: SSAValue | Operation,
                 max_ulp_difference: int = 1, min_ulp_difference: int | None = None):
        props: dict[str, Attribute] = {
            "max_ulp_difference": IntegerAttr(max_ulp_difference, _ui64)}
        if min_ulp_difference is not None:
            props["min_ulp_difference"] = IntegerAttr(min_ulp_difference, _ui64)
        super().__init__(operands=[actual, expected], properties=props)

    @classmethod
    def create(cls, *, properties: Mapping[str, Attribute] = {},  # type: ignore[override]
               **kwargs):
        # `max_ulp_difference` is default-valued (1): upstream always materializes it
        props = {"max_ulp_difference": IntegerAttr(1, _ui64), **properties}
        return super().create(properties=dict(sorted(props.items())), **kwargs)

    @classmethod
    def _parse_keyword_value(cls, parser: Parser, prop: str) -> Attribute:
        return _parse_uint(parser, _ui64)

    def verify_(self) -> None:
        _require_float_tensor(self, 0)
        _require_float_tensor(self, 1)
        for name in ("max_ulp_difference", "min_ulp_difference"):
            v = self.properties.get(name)
            if v is not None and not (isinstance(v, IntegerAttr) and v.type == _ui64):
                raise VerifyException(
                    f"attribute '{name}' failed to satisfy constraint: 64-bit unsigned "
                    "integer attribute")
        if self.actual.type != self.expected.type:
            raise VerifyException(
                "failed to verify that all of {actual, expected} have same type")


@irdl_op_definition
class ExpectSerializedEqOp(_CheckOp):
    """`check.expect_serialized_eq %e, probe_id = "p"[, iter = K] : T`: the value
    equals what probe `p` serialized at iteration K."""

    name = "check.expect_serialized_eq"
    expected = operand_def(TensorType)
    probe_id = prop_def(StringAttr)
    iteration = opt_prop_def(IntegerAttr)
    _KEYWORDS: ClassVar[_Keywords] = (
        ("probe_id", "probe_id", None), ("iter", "iteration", IntegerAttr(0, _ui32)))
    _FIRST_KEYWORD_REQUIRED: ClassVar[bool] = True

    def __init__(self, expected: SSAValue | Operation, probe_id: str, iteration: int = 0):
        props: dict[str, Attribute] = {"probe_id": StringAttr(probe_id)}
        if iteration:
            props["iteration"] = IntegerAttr(iteration, _ui32)
        super().__init__(operands=[expected], properties=dict(sorted(props.items())))

    @classmethod
    def _parse_keyword_value(cls, parser: Parser, prop: str) -> Attribute:
        if prop == "probe_id":
            start = parser.pos
            text = parser.parse_optional_str_literal()
            if text is None:
                parser.raise_error("expected string literal", start, parser.pos)
            return StringAttr(text)
        return _parse_uint(parser, _ui32)

    def verify_(self) -> None:
        _require_ranked_tensor(self, 0)


CHECK = Dialect(
    "check",
    [ExpectEqOp, ExpectEqConstOp, ExpectAlmostEqOp, ExpectAlmostEqConstOp, ExpectCloseOp,
     ExpectSerializedEqOp],
    [],
)
