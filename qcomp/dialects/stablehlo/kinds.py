"""Operand/result type constraints of the StableHLO ops (upstream's ODS constraints).

Each op declares (`ElementKinds`), per operand and result, which element kinds it accepts; a value of
another kind fails with upstream's message, e.g.

    operand #0 must be ranked tensor of 4/6/8/16/32/64-bit float or per-tensor
    integer quantized values, but got 'tensor<2x!quant.uniform<i8:f32:0, {...}>>'

Per-axis quantization (`QA`) is accepted only where the StableHLO spec allows it,
and only when its quantized dimension fits the tensor (`verify_for_shape`).
Sub-channel quantization (`QB`) is a qcomp extension for blockwise weights (constants,
uniform_quantize / uniform_dequantize, the rhs of dot_general and convolution); it is never named in
a message, so upstream's messages stay word for word.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from io import StringIO

from xdsl.dialects.builtin import (
    AnyFloat,
    ComplexType,
    Float32Type,
    Float64Type,
    IntegerType,
    NoneAttr,
    Signedness,
    TensorType,
)
from xdsl.ir import Attribute
from xdsl.printer import Printer
from xdsl.traits import OpTrait
from xdsl.utils.exceptions import VerifyException

from qcomp.dialects.quant import UniformQuantizedType
from qcomp.ir.errors import UnprefixedVerifyException

KIND_TEXT = {
    "F": "4/6/8/16/32/64-bit float",
    "B": "bool",
    "I": "2/4/8/16/32/64-bit integer",
    "SI": "2/4/8/16/32/64-bit signless integer",
    "C": "complex type with 32/64-bit float elements",
    "Q": "per-tensor integer quantized",
    "QA": "per-axis integer quantized",
    "QB": "",  # sub-channel: a qcomp extension, absent from upstream's messages
}

TENSOR = ("F", "B", "I", "C", "Q")                 # HLO_Tensor
TENSOR_PA = TENSOR + ("QA",)                       # HLO_TensorOrPerAxisQuantizedTensor
TENSOR_PA_SUB = TENSOR_PA + ("QB",)                # qcomp: also sub-channel (blockwise weights)
INT_FP_COMPLEX_Q = ("I", "F", "C", "Q")
SINT_FP_COMPLEX_Q = ("SI", "F", "C", "Q")
FP_COMPLEX_Q = ("F", "C", "Q")
FP_Q = ("F", "Q")
PRED_INT = ("B", "I")
INT = ("I",)
PRED = ("B",)
FP = ("F",)
NON_QUANTIZED = ("F", "B", "I", "C")
QUANTIZED = ("Q", "QA")
QUANTIZED_SUB = QUANTIZED + ("QB",)

RANKED = "ranked tensor"
STATIC = "statically shaped tensor"
STATIC_OR_BOUNDED = "statically shaped or single bounded dimension tensor"
ONE_D = "1D tensor"
ZERO_D = "0D tensor"

Constraint = tuple[str, tuple[str, ...]]
"""(shape prefix, accepted element kinds) of one operand or result."""


@dataclass(frozen=True)
class ElementKinds(OpTrait):
    """The element kinds each operand and result of the op accepts (upstream's ODS
    constraints); the last operand constraint repeats for variadic operands, and the
    result constraint applies to every result. `ElementKinds()` accepts anything."""

    operands: tuple[Constraint, ...] = ()
    result: Constraint | None = None

    @staticmethod
    def same(kinds: tuple[str, ...], arity: int, prefix: str = RANKED) -> ElementKinds:
        """`arity` operands and the result all of `kinds`."""
        return ElementKinds(((prefix, kinds),) * arity, (prefix, kinds))

    @staticmethod
    def unary(operand: tuple[str, ...], result: tuple[str, ...]) -> ElementKinds:
        return ElementKinds(((RANKED, operand),), (RANKED, result))


def type_text(t: Attribute) -> str:
    """`t` as MLIR prints it."""
    out = StringIO()
    Printer(stream=out).print_attribute(t)
    return out.getvalue()


def element_kinds(t: Attribute) -> set[str]:
    """The kinds (`F`, `B`, `I`, `SI`, `C`, `Q`, `QA`) the element type of `t` belongs to."""
    e = t.element_type if isinstance(t, TensorType) else t
    kinds: set[str] = set()
    if isinstance(e, AnyFloat):
        kinds.add("F")
    elif isinstance(e, IntegerType):
        width = e.width.data
        signless = e.signedness.data == Signedness.SIGNLESS
        if width == 1 and signless:
            kinds.add("B")
        if width in (2, 4, 8, 16, 32, 64) and e.signedness.data != Signedness.SIGNED:
            kinds.add("I")
            if signless:
                kinds.add("SI")
    elif isinstance(e, ComplexType):
        if isinstance(e.element_type, Float32Type | Float64Type):
            kinds.add("C")
    elif isinstance(e, UniformQuantizedType):
        if not stablehlo_quantized_element(e):
            pass
        elif e.is_per_tensor:
            kinds.add("Q")
        elif isinstance(t, TensorType):
            try:
                e.verify_for_shape(t.get_shape())
                kinds.add("QA" if e.is_per_axis else "QB")
            except VerifyException:
                pass
    return kinds


QUANTIZED_WIDTHS = (2, 4, 8, 16, 32)


def stablehlo_quantized_element(q: UniformQuantizedType) -> bool:
    """Whether StableHLO's ops take the quantized element type `q` (its
    StableHLO_UniformQuantized[Unsigned|Signed]Int<2/4/8/16/32> and
    isValidStablehloQuantizedElementType): integer storage of one of those widths,
    signed storage spelled signless (`i8`, not `si8`), unsigned storage either way
    (`u8`, `ui8`), and every zero point in [storage_min, storage_max] (the spec's
    quantized_type C7/C8; the quant type itself allows any)."""
    if q.is_float_storage or q.storage_bitwidth not in QUANTIZED_WIDTHS:
        return False
    t = q.storage_type
    if q.is_signed and not (isinstance(t, IntegerType)
                            and t.signedness.data == Signedness.SIGNLESS):
        return False
    lo, hi = q.storage_min, q.storage_max
    return all(lo <= z.data <= hi for z in q.zero_points_attr.data)


def describe(prefix: str, kinds: Sequence[str]) -> str:
    return f"{prefix} of {' or '.join(KIND_TEXT[k] for k in kinds if KIND_TEXT[k])} values"


def fits(t: Attribute, prefix: str, kinds: Sequence[str]) -> bool:
    """Whether `t` is a tensor of `prefix`'s shape with an element of `kinds` (found
    once per type object and constraint: every op verifies the types of its operands
    and results, and qcomp-opt verifies after each pass)."""
    if not isinstance(t, TensorType):
        return False
    memo = t.__dict__.get("_fits")
    if memo is None:
        memo = {}
        object.__setattr__(t, "_fits", memo)  # not a parameter: eq/hash ignore it
    key = (prefix, tuple(kinds))
    known = memo.get(key)
    if known is None:
        known = memo[key] = _fits(t, prefix, kinds)
    return known


def _fits(t: TensorType, prefix: str, kinds: Sequence[str]) -> bool:
    shape = t.get_shape()
    if prefix == STATIC and any(d < 0 for d in shape):
        return False
    if prefix == STATIC_OR_BOUNDED and any(d < 0 for d in shape):
        return False
    if prefix == ONE_D and len(shape) != 1:
        return False
    if prefix == ZERO_D and len(shape) != 0:
        return False
    return bool(element_kinds(t) & set(kinds))


def _bounds_error(t) -> str | None:
    """`op_attrs.bounds_error` for a type with an encoding (imported then: a program
    without `#stablehlo.bounds` does not load the op attributes' module)."""
    encoding = getattr(t, "encoding", None)
    if encoding is None or isinstance(encoding, NoneAttr):
        return None
    from qcomp.dialects.stablehlo.op_attrs import bounds_error

    return bounds_error(t)


def verify_value_kinds(op) -> None:
    """Check every operand and result against the op's accepted kinds."""
    for v in (*op.operands, *op.results):  # #stablehlo.bounds against its tensor
        if (bad := _bounds_error(v.type)) is not None:
            raise UnprefixedVerifyException(bad)
    declared = op.get_trait(ElementKinds)
    if declared is None:
        return
    spec = declared.operands
    if spec:
        for i, value in enumerate(op.operands):
            prefix, kinds = spec[min(i, len(spec) - 1)]
            if not fits(value.type, prefix, kinds):
                raise VerifyException(
                    f"operand #{i} must be {describe(prefix, kinds)}, but got "
                    f"'{type_text(value.type)}'")
    res = declared.result
    if res:
        prefix, kinds = res
        for i, value in enumerate(op.results):
            if not fits(value.type, prefix, kinds):
                raise VerifyException(
                    f"result #{i} must be {describe(prefix, kinds)}, but got "
                    f"'{type_text(value.type)}'")
