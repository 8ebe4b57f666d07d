"""The `chlo` ops JAX emits besides the broadcasting ones: unary special functions,
`next_after` / `polygamma` / `zeta`, `top_k`, `constant`, `constant_like`.

Text (upstream's assembly formats):
`%r = chlo.erf %x : tensor<4xf32> -> tensor<4xf32>`,
`%r = chlo.zeta %x, %q : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>`,
`%values, %indices = chlo.top_k(%x, k = 2) : tensor<3x8xf32> -> (tensor<3x2xf32>, tensor<3x2xi32>)`,
`%c = chlo.constant dense<1.0> : tensor<4xf32>`; `chlo.constant_like` has only the
generic form. The elementwise ops declare their kernels (`Elementwise`, computed step by
step in the element type: `stepwise`): the functions chlo-legalize-to-stablehlo
decomposes them into (`special.py`, `gamma.py`, `complex_special.py`).
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from xdsl.dialects.builtin import BoolAttr, DenseIntOrFPElementsAttr, IntegerAttr, IntegerType, TensorType, i64
from xdsl.ir import Attribute
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from qcomp.dialects.chlo import complex_special, gamma, special
from qcomp.dialects.chlo.kinds import BOOL, COMPLEX, FP, check_kinds, compatible_shapes, incompatible
from qcomp.dialects.facts import NO_QUANTIZATION, Elementwise
from qcomp.dialects.stablehlo.format import (
    build_op,
    parse_operand_list,
    print_attr_dict,
    print_operand_list,
    resolve,
)
from qcomp.dialects.stablehlo.parse_errors import op_error


def stepwise(float, complex=None) -> Elementwise:
    """The kernels of a chlo op, computed step by step in the operands' own type
    (`Elementwise.in_element_type`)."""
    return Elementwise(float=float, complex=complex, in_element_type=True)


def in_own_type(fn):
    """A function of `special.Steps` run in the operand's own type."""
    return lambda x: fn(special.Steps(x.dtype), x)


def upcast(fn):
    """A function of `special.Steps` run in f32 for narrower types (`special.upcast`)."""
    return lambda x: special.upcast(fn, x)


def _element(t: Attribute) -> Attribute:
    return t.get_element_type() if isinstance(t, TensorType) else t


class UnaryOp(IRDLOperation):
    """`chlo.<op> %x attr-dict : t -> u`: elementwise, same shape (and type unless the
    result is a predicate)."""

    operand = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure(), NO_QUANTIZATION)
    KINDS: ClassVar[tuple[str, ...]] = (FP, COMPLEX)
    RESULT_KINDS: ClassVar[tuple[str, ...] | None] = None  # None: the operand's type

    def __init__(self, operand, result_type: Attribute | None = None):
        super().__init__(operands=[operand], result_types=[result_type or operand.type])

    @classmethod
    def parse(cls, parser: Parser):
        (x,) = parse_operand_list(parser, 1)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = parser.parse_type()
        parser.parse_punctuation("->")
        out = parser.parse_type()
        return build_op(cls, resolve(parser, [x], [t]), [out], attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.operand)
        print_attr_dict(printer, self)
        printer.print_string(" : ")
        printer.print_attribute(self.operand.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        check_kinds(self.operand.type, "operand #0", self.KINDS)
        if self.RESULT_KINDS is None:
            check_kinds(self.result.type, "result #0", self.KINDS)
            if _element(self.operand.type) != _element(self.result.type) or not compatible_shapes(
                    self.operand.type, self.result.type):
                raise VerifyException("requires compatible types for all operands and results")
            return
        check_kinds(self.result.type, "result #0", self.RESULT_KINDS)
        if not compatible_shapes(self.operand.type, self.result.type):
            raise VerifyException("all non-scalar operands/results must have the same shape and "
                                  "base type")


@irdl_op_definition
class AcosOp(UnaryOp):
    """`acos(x) = atan2(sqrt((1 - x)(1 + x)), x)`."""

    name = "chlo.acos"
    traits = traits_def(Pure(), NO_QUANTIZATION,
                        stepwise(in_own_type(special.acos), complex_special.acos))


@irdl_op_definition
class AcoshOp(UnaryOp):
    """`acosh(x) = log1p(sqrt(x - 1) (sqrt(x + 1) + sqrt(x - 1)))` (log 2 + log x for large x)."""

    name = "chlo.acosh"
    traits = traits_def(Pure(), NO_QUANTIZATION,
                        stepwise(in_own_type(special.acosh), complex_special.acosh))


@irdl_op_definition
class AsinOp(UnaryOp):
    """`asin(x) = 2 atan2(x, 1 + sqrt((1 - x)(1 + x)))`."""

    name = "chlo.asin"
    traits = traits_def(Pure(), NO_QUANTIZATION,
                        stepwise(in_own_type(special.asin), complex_special.asin))


@irdl_op_definition
class AsinhOp(UnaryOp):
    """`asinh(x) = sign(x) log1p(|x| + x^2 / (1 + sqrt(1 + x^2)))` (log 2 + log|x| for large |x|)."""

    name = "chlo.asinh"
    traits = traits_def(Pure(), NO_QUANTIZATION,
                        stepwise(in_own_type(special.asinh), complex_special.asinh))


@irdl_op_definition
class AtanOp(UnaryOp):
    """`atan(x) = atan2(x, 1)`."""

    name = "chlo.atan"
    traits = traits_def(Pure(), NO_QUANTIZATION,
                        stepwise(in_own_type(special.atan), complex_special.atan))


@irdl_op_definition
class AtanhOp(UnaryOp):
    """`atanh(x) = (log1p(x) - log1p(-x)) / 2`, NaN for |x| > 1."""

    name = "chlo.atanh"
    traits = traits_def(Pure(), NO_QUANTIZATION,
                        stepwise(in_own_type(special.atanh), complex_special.atanh))


@irdl_op_definition
class BesselI1eOp(UnaryOp):
    """`exp(-|x|) I1(x)` (Cephes' Chebyshev series)."""

    name = "chlo.bessel_i1e"
    traits = traits_def(Pure(), NO_QUANTIZATION, stepwise(special.bessel_i1e))


@irdl_op_definition
class CoshOp(UnaryOp):
    """`cosh(x) = e^(x + log 1/2) + e^(log 1/2 - x)`."""

    name = "chlo.cosh"
    traits = traits_def(Pure(), NO_QUANTIZATION, stepwise(upcast(special.cosh)))


@irdl_op_definition
class SinhOp(UnaryOp):
    """`sinh(x)`: `(e^(x + log 1/2) - e^(log 1/2 - x))`, near 0 from expm1."""

    name = "chlo.sinh"
    traits = traits_def(Pure(), NO_QUANTIZATION, stepwise(upcast(special.sinh)))


@irdl_op_definition
class TanOp(UnaryOp):
    """`tan(x)`."""

    name = "chlo.tan"
    traits = traits_def(Pure(), NO_QUANTIZATION, stepwise(in_own_type(special.tan)))


@irdl_op_definition
class DigammaOp(UnaryOp):
    """`psi(x) = d/dx log Gamma(x)` (Lanczos)."""

    name = "chlo.digamma"
    traits = traits_def(Pure(), NO_QUANTIZATION, stepwise(gamma.digamma))
    KINDS: ClassVar = (FP,)


@irdl_op_definition
class ErfOp(UnaryOp):
    """The error function (rational approximation)."""

    name = "chlo.erf"
    traits = traits_def(Pure(), NO_QUANTIZATION, stepwise(special.erf))
    KINDS: ClassVar = (FP,)


@irdl_op_definition
class ErfcOp(UnaryOp):
    """The complementary error function `1 - erf(x)` (Cephes approximations)."""

    name = "chlo.erfc"
    traits = traits_def(Pure(), NO_QUANTIZATION, stepwise(special.erfc))
    KINDS: ClassVar = (FP,)


@irdl_op_definition
class ErfInvOp(UnaryOp):
    """The inverse error function (Giles' polynomials)."""

    name = "chlo.erf_inv"
    traits = traits_def(Pure(), NO_QUANTIZATION, stepwise(special.erf_inv))
    KINDS: ClassVar = (FP,)


@irdl_op_definition
class LgammaOp(UnaryOp):
    """`log |Gamma(x)|` (Lanczos, reflection below 1/2)."""

    name = "chlo.lgamma"
    traits = traits_def(Pure(), NO_QUANTIZATION, stepwise(gamma.lgamma))
    KINDS: ClassVar = (FP,)


@irdl_op_definition
class IsInfOp(UnaryOp):
    """`|x| == inf`."""

    name = "chlo.is_inf"
    traits = traits_def(Pure(), NO_QUANTIZATION, stepwise(lambda x: np.isinf(x.astype(np.float64))))
    KINDS: ClassVar = (FP,)
    RESULT_KINDS: ClassVar = (BOOL,)


@irdl_op_definition
class IsNegInfOp(UnaryOp):
    """`x == -inf`."""

    name = "chlo.is_neg_inf"
    traits = traits_def(Pure(), NO_QUANTIZATION,
                        stepwise(lambda x: x.astype(np.float64) == -np.inf))
    KINDS: ClassVar = (FP,)
    RESULT_KINDS: ClassVar = (BOOL,)


@irdl_op_definition
class IsPosInfOp(UnaryOp):
    """`x == +inf`."""

    name = "chlo.is_pos_inf"
    traits = traits_def(Pure(), NO_QUANTIZATION, stepwise(lambda x: x.astype(np.float64) == np.inf))
    KINDS: ClassVar = (FP,)
    RESULT_KINDS: ClassVar = (BOOL,)


UNARY_OPS = [AcosOp, AcoshOp, AsinOp, AsinhOp, AtanOp, AtanhOp, BesselI1eOp, CoshOp, SinhOp,
             TanOp, DigammaOp, ErfOp, ErfcOp, ErfInvOp, LgammaOp, IsInfOp, IsNegInfOp, IsPosInfOp]


class BinaryOp(IRDLOperation):
    """`chlo.<op> %a, %b attr-dict : t, u -> v` on floats of one compatible type."""

    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure(), NO_QUANTIZATION)

    def __init__(self, lhs, rhs, result_type: Attribute | None = None):
        super().__init__(operands=[lhs, rhs], result_types=[result_type or lhs.type])

    @classmethod
    def parse(cls, parser: Parser):
        a, b = parse_operand_list(parser, 2)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        ta = parser.parse_type()
        parser.parse_punctuation(",")
        tb = parser.parse_type()
        parser.parse_punctuation("->")
        out = parser.parse_type()
        return build_op(cls, resolve(parser, [a, b], [ta, tb]), [out], attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        print_operand_list(printer, self.operands)
        print_attr_dict(printer, self)
        printer.print_string(" : ")
        printer.print_list([v.type for v in self.operands], printer.print_attribute)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        types = [self.lhs.type, self.rhs.type, self.result.type]
        for i, t in enumerate(types[:2]):
            check_kinds(t, f"operand #{i}", (FP,))
        check_kinds(types[2], "result #0", (FP,))
        if len({_element(t) for t in types}) != 1 or not all(
                compatible_shapes(types[0], t) for t in types[1:]):
            raise VerifyException("requires compatible types for all operands and results")


@irdl_op_definition
class NextAfterOp(BinaryOp):
    """The next float after `x` towards `y` (bit arithmetic)."""

    name = "chlo.next_after"
    traits = traits_def(Pure(), NO_QUANTIZATION, stepwise(special.next_after))


@irdl_op_definition
class PolygammaOp(BinaryOp):
    """`psi^(n)(x) = (-1)^(n+1) n! zeta(n + 1, x)`; digamma for n = 0; NaN for n not natural."""

    name = "chlo.polygamma"
    traits = traits_def(Pure(), NO_QUANTIZATION, stepwise(gamma.polygamma))


@irdl_op_definition
class ZetaOp(BinaryOp):
    """Hurwitz zeta `sum_k (q + k)^-x` (Euler-Maclaurin)."""

    name = "chlo.zeta"
    traits = traits_def(Pure(), NO_QUANTIZATION, stepwise(gamma.zeta))


@irdl_op_definition
class TopKOp(IRDLOperation):
    """The `k` largest entries along the last dimension, descending, and their indices
    (i32); equal entries keep their order (`is_stable`, true by default)."""

    name = "chlo.top_k"
    operand = operand_def(TensorType)
    k_attr = prop_def(IntegerAttr, prop_name="k")
    is_stable_attr = opt_prop_def(BoolAttr, prop_name="is_stable")
    values = result_def(TensorType)
    indices = result_def(TensorType)
    traits = traits_def(Pure(), NO_QUANTIZATION)

    @property
    def k(self) -> int:
        return self.k_attr.value.data

    def asm_result_names(self) -> list[str]:
        return ["values", "indices"]

    @classmethod
    def parse(cls, parser: Parser):
        parser.parse_punctuation("(")
        (x,) = parse_operand_list(parser, 1)
        parser.parse_punctuation(",")
        parser.parse_keyword("k")
        parser.parse_punctuation("=")
        k = parser.parse_integer()
        props: dict[str, Attribute] = {"k": IntegerAttr(k, i64)}
        if parser.parse_optional_punctuation(",") is not None:
            parser.parse_keyword("is_stable")
            parser.parse_punctuation("=")
            pos = parser.pos
            stable = parser.parse_optional_boolean()
            if stable is None:
                op_error(parser, "expected a boolean", pos)
            props["is_stable"] = BoolAttr.from_bool(stable)
        parser.parse_punctuation(")")
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = parser.parse_type()
        parser.parse_punctuation("->")
        parser.parse_punctuation("(")
        vt = parser.parse_type()
        parser.parse_punctuation(",")
        it = parser.parse_type()
        parser.parse_punctuation(")")
        return build_op(cls, resolve(parser, [x], [t]), [vt, it], attrs, props)

    def print(self, printer: Printer) -> None:
        printer.print_string("(")
        printer.print_operand(self.operand)
        printer.print_string(f", k = {self.k}")
        if self.is_stable_attr is not None and not self.is_stable_attr.value.data:
            printer.print_string(", is_stable = false")
        printer.print_string(")")
        print_attr_dict(printer, self, ["k", "is_stable"])
        printer.print_string(" : ")
        printer.print_attribute(self.operand.type)
        printer.print_string(" -> (")
        printer.print_attribute(self.values.type)
        printer.print_string(", ")
        printer.print_attribute(self.indices.type)
        printer.print_string(")")

    def verify_(self) -> None:
        t = self.operand.type
        assert isinstance(t, TensorType)
        shape = tuple(t.get_shape())
        if not shape:
            raise VerifyException("operand's rank must be at least 1")
        if shape[-1] >= 0 and shape[-1] < self.k:
            raise VerifyException(f"operand's last dimension must be at least {self.k}")
        out = shape[:-1] + (self.k,)
        inferred = [TensorType(t.element_type, out), TensorType(IntegerType(32), out)]
        actual = [self.values.type, self.indices.type]
        if any(_element(a) != _element(b) or not compatible_shapes(a, b)
               for a, b in zip(inferred, actual)):
            raise incompatible(inferred, actual)


@irdl_op_definition
class ConstantOp(IRDLOperation):
    """`chlo.constant dense<...> : t` (attr-dict first)."""

    name = "chlo.constant"
    value = prop_def(DenseIntOrFPElementsAttr)
    output = result_def(TensorType)
    traits = traits_def(Pure(), NO_QUANTIZATION)

    def __init__(self, value: DenseIntOrFPElementsAttr):
        super().__init__(properties={"value": value}, result_types=[value.get_type()])

    @classmethod
    def parse(cls, parser: Parser):
        attrs = parser.parse_optional_attr_dict()
        pos = parser.pos
        value = parser.parse_attribute()
        if not isinstance(value, DenseIntOrFPElementsAttr):
            op_error(parser, "invalid kind of attribute specified", pos)
        return build_op(cls, [], [value.get_type()], attrs, {"value": value})

    def print(self, printer: Printer) -> None:
        print_attr_dict(printer, self, ["value"])
        printer.print_string(" ")
        printer.print_attribute(self.value)

    def verify_(self) -> None:
        if self.value.get_type() != self.output.type:
            raise incompatible([self.value.get_type()], [self.output.type])


@irdl_op_definition
class ConstantLikeOp(IRDLOperation):
    """A splat of `value` shaped like the operand (generic form only)."""

    name = "chlo.constant_like"
    value = prop_def(Attribute)
    operand = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure(), NO_QUANTIZATION)

    def verify_(self) -> None:
        vt = getattr(self.value, "type", None)
        if vt != _element(self.result.type):
            raise VerifyException("value's type doesn't match element return type")
        if not compatible_shapes(self.operand.type, self.result.type):
            raise VerifyException("all non-scalar operands/results must have the same shape and "
                                  "base type")


OPS = [*UNARY_OPS, NextAfterOp, PolygammaOp, ZetaOp, TopKOp, ConstantOp, ConstantLikeOp]
