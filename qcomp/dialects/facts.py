"""What an op declares about itself, as xDSL traits: the passes and the interpreter read
these instead of keeping their own lists of op names.

- `Quantization`: what quantized operands mean to the op (the StableHLO spec's
  wording), whether the spec allows per-axis quantization on it, and how upstream's
  passes treat it;
- `Elementwise`: the op's NumPy implementation per element family, for ops that apply
  one function element by element (the interpreter broadcasts, widens and rounds);
- `XlaInexact`: XLA computes the op's float results differently (the reason);
- `WorkingMemory`: the interpreter's scratch bytes for the op beyond its results;
- `Broadcasting`: the op is another with implicit broadcasting (chlo's twins);
- the element kinds each operand and result accepts are StableHLO's ODS constraints,
  declared with `qcomp.dialects.stablehlo.kinds.ElementKinds`.

Every op qcomp defines declares a `Quantization` trait (`NO_QUANTIZATION` when it has no
quantized form); `tests/dialects/test_op_facts.py` walks the registered ops to hold that.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.ir import Operation
from xdsl.traits import OpTrait
from xdsl.utils.str_enum import StrEnum


class QuantSemantics(StrEnum):
    """What a quantized operand or result means to the op."""

    DEQUANTIZE_OP_QUANTIZE = "dequantize-op-quantize"
    """`quantize(op(dequantize(x)...))`: the spec's `dequantize_op_quantize` (a result
    that is not quantized, as compare's `i1`, is the float op's)."""
    TYPE_ONLY = "type-only"
    """The op moves or copies elements: the stored integers pass through unchanged."""
    OWN_LOWERING = "own-lowering"
    """The op has quantization-specific formulas of its own (uniform_quantize and
    uniform_dequantize, the integer contractions; hybrid float x quantized forms)."""
    NONE = "none"
    """The op has no quantized form."""


class UpstreamGeneric(StrEnum):
    """Whether upstream's `stablehlo-legalize-quant-to-math` lowers the quantized op
    generically (its `ConvertGenericOp`: quantized types replaced by their storage
    types, the op unchanged)."""

    NEVER = "never"
    ALWAYS = "always"
    SAME_TYPES = "same-types"
    """Only when every quantized type on the op is the same."""


@dataclass(frozen=True)
class Quantization(OpTrait):
    """The op's quantization facts.

    - `semantics`: what quantized values mean to it (`QuantSemantics`);
    - `per_axis`: the spec allows per-axis quantized operands/results on it;
    - `fusable`: `stablehlo-legalize-qdq-to-quantized-op` may turn `dq -> op -> q` into
      the quantized op (checking the spec's constraints);
    - `same_types_pass_through`: when every quantized type on the op is the same, the
      stored integers are the answer (maximum, minimum, select);
    - `upstream_qdq`: in upstream's `stablehlo-legalize-quantized-op-to-qdq` list (and
      upstream quant-to-math's dequantize -> op -> quantize fallback);
    - `upstream_generic`: see `UpstreamGeneric`."""

    semantics: QuantSemantics = QuantSemantics.NONE
    per_axis: bool = False
    fusable: bool = False
    same_types_pass_through: bool = False
    upstream_qdq: bool = False
    upstream_generic: UpstreamGeneric = UpstreamGeneric.NEVER

    @property
    def dequantize_op_quantize(self) -> bool:
        return self.semantics == QuantSemantics.DEQUANTIZE_OP_QUANTIZE

    @property
    def type_only(self) -> bool:
        return self.semantics == QuantSemantics.TYPE_ONLY


NO_QUANTIZATION = Quantization()
"""Ops without a quantized form (tosa integer ops, checks, ...)."""


def dq_op_q(per_axis: bool = False, *, fusable: bool = True, same_types_pass_through=False,
            upstream_generic: UpstreamGeneric = UpstreamGeneric.NEVER) -> Quantization:
    """A dequantize-op-quantize op (the spec's `dequantize_op_quantize`), one that
    upstream decomposes."""
    return Quantization(QuantSemantics.DEQUANTIZE_OP_QUANTIZE, per_axis, fusable,
                        same_types_pass_through, True, upstream_generic)


def type_only(per_axis: bool = False, *, fusable: bool = True,
              upstream_generic: UpstreamGeneric = UpstreamGeneric.ALWAYS) -> Quantization:
    """An op that moves stored integers unchanged."""
    return Quantization(QuantSemantics.TYPE_ONLY, per_axis, fusable,
                        upstream_generic=upstream_generic)


def own_lowering(per_axis: bool = True, *, upstream_qdq: bool = False) -> Quantization:
    """An op with quantization formulas of its own."""
    return Quantization(QuantSemantics.OWN_LOWERING, per_axis, upstream_qdq=upstream_qdq)


@dataclass(frozen=True)
class Elementwise(OpTrait):
    """The op's NumPy implementation, per element family of its operands.

    `float(x, ...)` and `complex(x, ...)` take float64 / complex128 arrays (the
    interpreter rounds the result once to the result type); `int(x, ..., width,
    signed)` takes int64 (uint64 for ui64) arrays and may overflow: the interpreter
    wraps to the result width; `bool(x, ...)` takes bool arrays. A family left `None`
    is not defined for the op.

    `positive_nan`: the op's NaN results have a clear sign bit (upstream's interpreter
    makes them so for log, divide and remainder; NumPy's, like x86's default NaN, have
    it set). The sign survives only as the sign of the zero a NaN becomes in the types
    without NaN (f4 / f6), so it is fixed only there (checked with jaxlib); a fact of the
    kernel, so every op declaring it (`stablehlo.divide`, its broadcasting twin) agrees.

    `in_element_type`: the kernels take the operands in their own dtype and round every
    step there (chlo's special functions, computed as chlo-legalize-to-stablehlo
    decomposes them); their result is taken as it is. A kernel raises
    `UndefinedOperands` for operands the op is not defined on."""

    float: Callable | None = None
    complex: Callable | None = None
    int: Callable | None = None
    bool: Callable | None = None
    positive_nan: bool = False
    in_element_type: bool = False


class UndefinedOperands(ValueError):
    """A kernel's operands are outside what the op defines (`on f8E4M3FN: ...`); the
    interpreter reports `'<op name>' <message>`."""


@dataclass(frozen=True)
class Broadcasting(OpTrait):
    """The op is `of` with implicit (NumPy-style) broadcasting of its operands: chlo's
    `broadcast_*` twins of StableHLO's binary ops. Passes that meet a dynamic operand
    build the twin (`qcomp.dialects.chlo.BROADCASTING_TWIN`, derived from these)."""

    of: type[Operation]


def broadcasting_twin(of: type[Operation]) -> tuple[OpTrait, ...]:
    """The traits of `of`'s broadcasting twin: `Broadcasting(of)` and `of`'s own
    `Elementwise` kernel, so the two compute alike by construction."""
    kernel = of.get_trait(Elementwise)
    return (Broadcasting(of),) if kernel is None else (Broadcasting(of), kernel)


@dataclass(frozen=True)
class XlaInexact(OpTrait):
    """XLA computes the op's float results differently from the interpreter, for
    `reason`; `sums`: the op sums floats (in XLA's order), so it counts only with float
    results and the comparison allows an error relative to the sum
    (`qcomp.backends.xla_compare.tolerance_for`)."""

    reason: str
    sums: bool = False


XLA_APPROXIMATION = XlaInexact("XLA's own approximation (within a few ulp; qcomp rounds the "
                               "float64 result once)")
XLA_SUM_ORDER = XlaInexact("float sums in XLA's order (blocked, vectorised, fused "
                           "multiply-adds); qcomp sums in float64 (spec) or term by term "
                           "(stablehlo)", sums=True)
XLA_EXPANSION = XlaInexact("XLA's expansion (its own order of float operations); qcomp "
                           "computes in float64 and rounds once")


@dataclass(frozen=True)
class WorkingMemory(OpTrait):
    """Bytes the interpreter holds while it runs the op besides the results:
    `scratch(op)` (0 when a shape is dynamic), counted against `--max-memory`."""

    scratch: Callable[[Operation], int]


def quantization(op: Operation | type[Operation]) -> Quantization | None:
    """The op's declared `Quantization` (None when it declares none)."""
    return op.get_trait(Quantization)


def elementwise(op: Operation | type[Operation]) -> Elementwise | None:
    """The op's declared NumPy implementation (None when it is not elementwise)."""
    return op.get_trait(Elementwise)
