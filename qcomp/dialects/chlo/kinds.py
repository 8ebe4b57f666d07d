"""Element-kind checks of the `chlo` ops, with upstream's ODS wording
(`operand #0 must be tensor of 4/6/8/16/32/64-bit float values, but got '...'`)."""

from __future__ import annotations

from xdsl.dialects.builtin import AnyFloat, ComplexType, Float32Type, Float64Type, IntegerType, Signedness, TensorType
from xdsl.ir import Attribute
from xdsl.utils.exceptions import VerifyException

from qcomp.dialects.stablehlo.kinds import type_text

FP = "4/6/8/16/32/64-bit float"
COMPLEX = "complex type with 32/64-bit float elements"
BOOL = "bool"
INT = "2/4/8/16/32/64-bit integer"


def kinds_of(t: Attribute) -> set[str]:
    """The chlo kinds (FP, COMPLEX, BOOL, INT) of a tensor's element type."""
    e = t.get_element_type() if isinstance(t, TensorType) else getattr(t, "element_type", t)
    if isinstance(e, AnyFloat):
        return {FP}
    if isinstance(e, ComplexType) and isinstance(e.element_type, Float32Type | Float64Type):
        return {COMPLEX}
    if isinstance(e, IntegerType):
        width, sign = e.width.data, e.signedness.data
        if width == 1 and sign == Signedness.SIGNLESS:
            return {BOOL}
        if width in (2, 4, 8, 16, 32, 64) and sign != Signedness.SIGNED:
            return {INT}
    return set()


def check_kinds(t: Attribute, what: str, kinds: tuple[str, ...], prefix: str = "tensor") -> None:
    """`what` (e.g. `operand #0`) is a tensor of one of `kinds`, else upstream's message."""
    if not (kinds_of(t) & set(kinds)) or not hasattr(t, "get_element_type"):
        raise VerifyException(f"{what} must be {prefix} of {' or '.join(kinds)} values, "
                              f"but got '{type_text(t)}'")


def compatible_shapes(a: Attribute, b: Attribute) -> bool:
    """MLIR's verifyCompatibleShape: equal ranks (or an unranked side), sizes equal or `?`."""
    if not isinstance(a, TensorType) or not isinstance(b, TensorType):
        return True
    sa, sb = a.get_shape(), b.get_shape()
    return len(sa) == len(sb) and all(x == y or x < 0 or y < 0 for x, y in zip(sa, sb))


def incompatible(inferred: list[Attribute], actual: list[Attribute]) -> VerifyException:
    """MLIR's InferTypeOpInterface message for result types that differ from the inferred."""
    return VerifyException(
        "inferred type(s) " + ", ".join(f"'{type_text(t)}'" for t in inferred)
        + " are incompatible with return type(s) of operation "
        + ", ".join(f"'{type_text(t)}'" for t in actual))
