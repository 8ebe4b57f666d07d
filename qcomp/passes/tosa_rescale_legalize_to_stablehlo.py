"""The `tosa-rescale-legalize-to-stablehlo` pass: `tosa.rescale` as StableHLO integer ops."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    IntegerType,
    ModuleOp,
    Signedness,
    TensorType,
    UnrealizedConversionCastOp,
    i1,
    i64,
)
from xdsl.ir import Attribute, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from qcomp.dialects import stablehlo as shlo
from qcomp.dialects.quant import UniformQuantizedType
from qcomp.dialects.stablehlo import BitcastConvertOp, ConstantOp
from qcomp.dialects.stablehlo.attrs import (
    ComparisonDirection,
    ComparisonDirectionAttr,
    ComparisonType,
    ComparisonTypeAttr,
)
from qcomp.dialects.tosa import ConstOp, RescaleOp
from qcomp.passes.utils.builder import Builder, tensor_type
from qcomp.passes.utils.diagnostics import PassDiagnostic
from qcomp.passes.utils.float_storage import refuse_float_storage
from qcomp.quant.ranges import storage_range

PASS = "tosa-rescale-legalize-to-stablehlo"
_GE_SIGNED = {"comparison_direction": ComparisonDirectionAttr(ComparisonDirection.GE),
              "compare_type": ComparisonTypeAttr(ComparisonType.SIGNED)}


def _constant_ints(value: SSAValue) -> list[int] | None:
    """The integers of a `tosa.const` / `stablehlo.constant` operand, else None."""
    owner = value.owner
    if isinstance(owner, ConstOp):
        attr = owner.values
    elif isinstance(owner, ConstantOp):
        attr = owner.value
    else:
        return None
    if not isinstance(attr, DenseIntOrFPElementsAttr) or not isinstance(
            attr.get_element_type(), IntegerType):
        return None
    # a splat held as one element (qcomp.ir.splat) gives its one value: equal values
    # are lowered as one value anyway (`_params`)
    return [int(v) for v in attr.get_values()]


def _storage(e: Attribute) -> IntegerType:
    return e.storage if isinstance(e, UniformQuantizedType) else e  # type: ignore[return-value]


def _unsigned_twin(e: IntegerType) -> IntegerType:
    return IntegerType(e.width.data, Signedness.UNSIGNED)


def _is_unsigned(e: IntegerType) -> bool:
    return e.signedness.data == Signedness.UNSIGNED


@dataclass
class RescaleParams:
    """The constant operands of one `tosa.rescale`, zero points as TOSA reads them."""

    multiplier: np.ndarray      # int64, one per channel (or one)
    shift: np.ndarray           # int64, same length
    input_zp: int               # zero-extended when input_unsigned
    output_zp: int              # zero-extended when output_unsigned
    out_min: int
    out_max: int


def _constant(b: Builder, values: list[int]) -> SSAValue:
    """An i64 constant: rank 0 for one value, rank 1 otherwise."""
    return b.constant(np.array(values if len(values) != 1 else values[0], np.int64), i64)


def _params(b: Builder, values: np.ndarray, shape: tuple[int, ...]) -> SSAValue:
    """Per-tensor (one value) or per-channel (one per last-axis index) i64 values,
    broadcast to `shape`: a rank-0 or rank-1 constant and one broadcast_in_dim."""
    vals = [int(v) for v in values]
    if len(set(vals)) == 1:
        vals = vals[:1]
    dims = [] if len(vals) == 1 else [len(shape) - 1]
    return b.broadcast_in_dim(_constant(b, vals), shape, dims)


def rounding_terms(shift: np.ndarray, rounding_mode: str, scale32: bool
                   ) -> tuple[np.ndarray, np.ndarray]:
    """The rounding addend for value >= 0 and for value < 0 (per channel).

    round = 2^(shift-1); with DOUBLE_ROUND, scale32 and shift > 31 it is
    2^(shift-1) + 2^30 for value >= 0 and 2^(shift-1) - 2^30 for value < 0."""
    half = np.left_shift(np.int64(1), shift - 1)
    if rounding_mode == "DOUBLE_ROUND" and scale32:
        extra = np.where(shift > 31, np.int64(1 << 30), np.int64(0))
        return half + extra, half - extra
    return half, half


class LegalizeRescale(RewritePattern):
    """One `tosa.rescale` with constant parameters → convert (an unrealized cast for
    i48), subtract, multiply, add, shift_right_arithmetic, add, clamp, convert (in i64)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: RescaleOp, rewriter: PatternRewriter) -> None:
        params = self._params(op)
        in_t, out_t = op.input.type, op.output.type
        assert isinstance(in_t, TensorType) and isinstance(out_t, TensorType)
        shape = tuple(in_t.get_shape())
        b = Builder(rewriter, op)
        in_e = _storage(in_t.element_type)
        out_e = _storage(out_t.element_type)

        def broadcast(values: np.ndarray) -> SSAValue:
            return _params(b, values, shape)

        x = op.input
        if isinstance(in_t.element_type, UniformQuantizedType):
            x = b.op(BitcastConvertOp, [x], in_e)
        if op.is_input_unsigned and not _is_unsigned(in_e):
            x = b.op(BitcastConvertOp, [x], _unsigned_twin(in_e))   # read as unsigned
        if in_e.width.data == 48:
            # no StableHLO type holds i48: widen it at the type-system boundary
            value = b.emit(UnrealizedConversionCastOp(
                operands=[x], result_types=[tensor_type(i64, shape)]))
        else:
            value = b.op(shlo.ConvertOp, [x], i64)
        if params.input_zp != 0:
            value = b.op(shlo.SubtractOp, [value, broadcast(np.array([params.input_zp]))], i64)
        rnd_pos, rnd_neg = rounding_terms(params.shift, op.rounding_mode.data, op.is_scale32)
        r = b.op(shlo.MultiplyOp, [value, broadcast(params.multiplier)], i64)
        if np.array_equal(rnd_pos, rnd_neg):
            rnd = broadcast(rnd_pos)
        else:
            zero = broadcast(np.array([0]))
            nonneg = b.op(shlo.CompareOp, [value, zero], i1, **_GE_SIGNED)
            rnd = b.op(shlo.SelectOp, [nonneg, broadcast(rnd_pos), broadcast(rnd_neg)], i64)
        r = b.op(shlo.AddOp, [r, rnd], i64)
        r = b.op(shlo.ShiftRightArithmeticOp, [r, broadcast(params.shift)], i64)
        if params.output_zp != 0:
            r = b.op(shlo.AddOp, [r, broadcast(np.array([params.output_zp]))], i64)
        r = b.op(shlo.ClampOp, [_constant(b, [params.out_min]), r,
                                _constant(b, [params.out_max])], i64, shape)
        if op.is_output_unsigned and not _is_unsigned(out_e):
            r = b.op(shlo.ConvertOp, [r], _unsigned_twin(out_e))
            r = b.op(BitcastConvertOp, [r], out_e)
        else:
            r = b.op(shlo.ConvertOp, [r], out_e)
        if isinstance(out_t.element_type, UniformQuantizedType):
            r = b.op(BitcastConvertOp, [r], out_t.element_type)
        owners = {v.owner for v in (op.multiplier, op.shift, op.input_zp, op.output_zp)}
        rewriter.replace(op, [], [r])
        for const in owners:   # parameter constants left without uses
            if isinstance(const, ConstOp) and not const.results[0].uses:
                rewriter.erase(const)

    @staticmethod
    def _params(op: RescaleOp) -> RescaleParams:
        def fail(message: str) -> PassDiagnostic:
            return PassDiagnostic(op, f"{PASS}: {message}")

        in_t, out_t = op.input.type, op.output.type
        if not isinstance(in_t, TensorType) or not isinstance(out_t, TensorType):
            raise fail("unranked tensors are not supported")
        if any(d < 0 for d in in_t.get_shape()) or any(d < 0 for d in out_t.get_shape()):
            raise fail("dynamic dimensions are not supported")
        values = {}
        for what, v in (("multiplier", op.multiplier), ("shift", op.shift),
                        ("input_zp", op.input_zp), ("output_zp", op.output_zp)):
            ints = _constant_ints(v)
            if ints is None:
                raise fail(f"{what} must be a constant (tosa.const or stablehlo.constant)")
            values[what] = ints
        in_e = _storage(in_t.element_type)
        out_e = _storage(out_t.element_type)
        in_w, out_w = in_e.width.data, out_e.width.data
        if in_w not in (8, 16, 32, 48) or out_w not in (8, 16, 32):
            raise fail(f"i{in_w} -> i{out_w}: only 8-, 16-, 32- and 48-bit inputs and 8-, "
                       "16- and 32-bit outputs can be legalized")
        if in_w == 48 and op.is_scale32:
            raise fail("a 48-bit input needs scale32 = false (a 16-bit multiplier), so that "
                       "value * multiplier fits i64")
        mult = np.array(values["multiplier"], np.int64)
        shift = np.array(values["shift"], np.int64)
        if np.any(shift < 2) or np.any(shift > 62):
            raise fail(f"shift must be in [2, 62], got {values['shift']}")
        mult_bits = 32 if op.is_scale32 else 16
        if np.any(mult < 0) or np.any(mult > storage_range(mult_bits, True)[1]):
            raise fail(f"multiplier must be in [0, 2^{mult_bits - 1}), got {values['multiplier']}")
        izp = values["input_zp"][0]
        ozp = values["output_zp"][0]
        if in_w == 48 and izp != 0:
            raise fail(f"a 48-bit input needs input_zp 0, got {izp}")
        if op.is_input_unsigned:
            izp &= (1 << in_w) - 1
        if op.is_output_unsigned:
            ozp &= (1 << out_w) - 1
        lo, hi = storage_range(out_w, not (op.is_output_unsigned or _is_unsigned(out_e)))
        return RescaleParams(mult, shift, izp, ozp, lo, hi)


@dataclass(frozen=True)
class TosaRescaleLegalizeToStablehloPass(ModulePass):
    """`tosa.rescale` with constant parameters as StableHLO integer ops, exactly TOSA 1.0 RESCALE.

    Mirrors `qcomp.quant.fixed_point.tosa_rescale` (one formula), computed in i64 on
    tensors of the input's static shape:

        value  = convert<i64>(x) - input_zp      (x read as unsigned when input_unsigned;
                                                  zero points zero-extended when unsigned)
        round  = 2^(shift-1); DOUBLE_ROUND with scale32 and shift > 31 adds +2^30 for
                 value >= 0 and -2^30 for value < 0 (a select on value >= 0)
        result = clamp(out_min, ((value * multiplier + round) >> shift) + output_zp, out_max)
        out    = convert<out storage>(result)   (then bitcast to the quantized type)

    `>>` is `shift_right_arithmetic` (floor); out_min/out_max are the output type's full
    range, unsigned when `output_unsigned`. Multiplier, shift and rounding addends are
    rank-0 constants broadcast to the shape, or, per channel, rank-1 constants broadcast
    along the last axis. scale16 (`scale32 = false`, i16 multiplier) uses the same
    formula; INEXACT_ROUND is lowered as SINGLE_ROUND (the spec allows it). The i64
    sum cannot overflow: with 8/16/32-bit inputs |value| < 2^33 and the multiplier
    < 2^31; with a 48-bit input |value| <= 2^47 and the multiplier < 2^15, so
    |value * multiplier| < 2^62 and round <= 2^61.

    48-bit input (TOSA's accumulator type; TOSA requires scale32 = false and
    input_zp = 0): StableHLO has no i48, and `stablehlo.convert` rejects it, so the
    input is widened with `builtin.unrealized_conversion_cast` (tensor<..xi48> to
    tensor<..xi64>, a sign-extension) in place of the convert, the usual bridge of a
    partial lowering; it resolves once the producer of the i48 value is lowered too.

    Beyond upstream (which accepts only per-tensor, SINGLE_ROUND, scale32, signed):
    per-channel, DOUBLE_ROUND, INEXACT_ROUND, scale16, unsigned input and output, with
    8-, 16-, 32- and 48-bit inputs. Inputs that break a TOSA REQUIRE (|value| >= 2^(shift-1)
    with scale32; a scale16 result outside i32) get the formula's value; the spec
    leaves them undefined.

    `tosa.const` parameters left without uses are erased.

    Errors: multiplier, shift or zero point not a constant; dynamic or unranked shapes;
    an input width other than 8/16/32/48 or output width other than 8/16/32; a 48-bit
    input with scale32 or a nonzero input_zp; shift outside [2, 62] or a negative or
    too wide multiplier.
    """

    name = "tosa-rescale-legalize-to-stablehlo"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        refuse_float_storage(op, self.name)
        PatternRewriteWalker(LegalizeRescale(), apply_recursively=False).rewrite_module(op)
