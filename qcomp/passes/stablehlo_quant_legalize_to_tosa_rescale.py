"""The `stablehlo-quant-legalize-to-tosa-rescale` pass: quantized ops via `tosa.rescale`."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import (
    BoolAttr,
    DenseIntOrFPElementsAttr,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    TensorType,
    i1,
    i32,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)

from qcomp.dialects import stablehlo as shlo
from qcomp.dialects.quant import UniformQuantizedType, quantized_element
from qcomp.dialects.stablehlo.attrs import (
    ComparisonDirection,
    ComparisonDirectionAttr,
    ComparisonType,
    ComparisonTypeAttr,
)
from qcomp.dialects.tosa import ClampOp, ConstOp, RescaleOp, RoundingMode, RoundingModeAttr
from qcomp.passes.utils.builder import Builder
from qcomp.passes.utils.diagnostics import PassDiagnostic, short_name
from qcomp.passes.utils.float_storage import refuse_float_storage
from qcomp.quant.fixed_point import RescaleError, multiplier_and_shift, tosa_rescale
from qcomp.quant.ranges import storage_range

PASS = "stablehlo-quant-legalize-to-tosa-rescale"
I32_MIN, I32_MAX = storage_range(32, True)
I16_MIN, I16_MAX = storage_range(16, True)
Range = tuple[int, int]


def shift_base(storage_bitwidth: int, same_grid: bool = False) -> int:
    """The extra input precision S: upstream's 15 for 16-bit storage, else 20.

    `same_grid` (maximum, minimum, compare: operands rescaled by s/max(s_l, s_r) * 2^S,
    up to 2^S itself) uses 14 for 16-bit: 2^15 has shift 15, and TOSA's
    |x| < 2^(shift-1) = 2^14 would reject half of the i16 range (upstream emits that)."""
    if storage_bitwidth == 16:
        return 14 if same_grid else 15
    return 20


def _fail(b: Builder, message: str) -> PassDiagnostic:
    assert b.anchor is not None
    return PassDiagnostic(b.anchor, f"{PASS}: {message}")


def _tosa_const(b: Builder, value: int, element: IntegerType) -> SSAValue:
    return b.emit(ConstOp(_dense1(value, element)))


# Every `tosa.rescale` is emitted only if the TOSA spec's REQUIREs (2 <= shift <= 62,
# -2^(shift-1) <= value < 2^(shift-1)) hold over the whole range of its input, and the
# ranges of all i32 intermediates are tracked exactly (M >= 0 makes a rescale
# monotone, so the end points suffice).


def emit_rescale(b: Builder, value: SSAValue, scale: float, izp: int, ozp: int,
                 result_type: TensorType, in_range: Range, what: str, *,
                 input_unsigned: bool = False, output_unsigned: bool = False
                 ) -> tuple[SSAValue, Range]:
    """`tosa.rescale` by `scale` (SINGLE_ROUND, scale32, per-tensor); returns the
    result and its exact range (after the rescale's clamp to the output type)."""
    try:
        m, s = multiplier_and_shift(scale)
    except ValueError as e:
        raise _fail(b, f"{what}: {e}") from None
    out_e = _storage(result_type.element_type)
    if not 2 <= s <= 62:
        raise _fail(b, f"{what}: scale {scale!r} needs shift {s}, outside [2, 62]")
    try:
        ends = tosa_rescale(np.array(in_range, np.int64), m, s, izp, ozp,
                            out_bitwidth=out_e.width.data, output_unsigned=output_unsigned)
    except RescaleError:
        raise _fail(b, f"{what}: scale {scale!r} is multiplier {m}, shift {s}, but "
                    f"x - zp spans [{in_range[0] - izp}, {in_range[1] - izp}] and TOSA "
                    f"requires -2^{s - 1} <= x - zp < 2^{s - 1}") from None
    in_e = _storage(_tensor(value).element_type)
    operands = [value, _tosa_const(b, m, i32), _tosa_const(b, s, IntegerType(8)),
                _tosa_const(b, izp, in_e), _tosa_const(b, ozp, out_e)]
    new = RescaleOp.create(operands=operands, result_types=[result_type],
                           properties=_rescale_props(input_unsigned, output_unsigned))
    return b.emit(new), (int(ends[0]), int(ends[1]))


def to_i32(b: Builder, value: SSAValue, q: UniformQuantizedType, scale: float,
           what: str) -> tuple[SSAValue, Range]:
    """`value`'s storage minus its zero point, times `scale`, as i32. Unsigned
    storage goes through i16 first (TOSA has no unsigned -> i32 rescale):
    u8/u16 -> i16 by 1.0 (zero point removed, exact), then i16 -> i32 by `scale`."""
    shape = _tensor(value).get_shape()
    rng = (q.storage_min, q.storage_max)
    if not q.is_signed:
        wide = (rng[0] - q.zero_point, rng[1] - q.zero_point)
        if wide[0] < I16_MIN or wide[1] > I16_MAX:
            raise _fail(b, f"{what}: unsigned storage minus zero point {q.zero_point} "
                        f"spans [{wide[0]}, {wide[1]}], outside the i16 that TOSA "
                        "needs between an unsigned type and i32")
        value, rng = emit_rescale(b, value, 1.0, q.zero_point, 0,
                                  TensorType(IntegerType(16), shape), rng,
                                  f"{what} (unsigned to i16)", input_unsigned=True)
        return emit_rescale(b, value, scale, 0, 0, TensorType(i32, shape), rng, what)
    return emit_rescale(b, value, scale, q.zero_point, 0, TensorType(i32, shape), rng, what)


def from_i32(b: Builder, value: SSAValue, rng: Range, scale: float,
             result_type: TensorType) -> SSAValue:
    """Rescale the i32 `value` to the quantized result. Unsigned storage goes through
    i16: i32 -> i16 by `scale`, then i16 -> u8/u16 by 1.0 adding the zero point;
    the i16 clamp must not change the final value (checked at the range ends)."""
    q = quantized_element(result_type)
    assert q is not None
    if q.is_signed:
        out, out_rng = emit_rescale(b, value, scale, 0, q.zero_point, result_type, rng,
                                    "result rescale")
    else:
        shape = result_type.get_shape()
        mid, mid_rng = emit_rescale(b, value, scale, 0, 0,
                                    TensorType(IntegerType(16), shape), rng,
                                    "result rescale (to i16)")
        exact = tosa_rescale(np.array(rng, np.int64), *multiplier_and_shift(scale), 0,
                             q.zero_point, out_bitwidth=64)
        final = np.clip(np.array(mid_rng) + q.zero_point, q.storage_min, q.storage_max)
        if final.tolist() != np.clip(exact, q.storage_min, q.storage_max).tolist():
            raise _fail(b, "result rescale: the i16 step between i32 and the unsigned "
                        f"result would clamp values that zero point {q.zero_point} "
                        "brings back into range")
        out, out_rng = emit_rescale(b, mid, 1.0, 0, q.zero_point, result_type, mid_rng,
                                    "result rescale (i16 to unsigned)",
                                    output_unsigned=True)
    lo, hi = q.storage_min, q.storage_max
    if out_rng[0] < lo or out_rng[1] > hi:     # narrowed storage range, e.g. i8<-127:127>
        st = q.storage
        out = b.emit(ClampOp(out, result_type, IntegerAttr(lo, st), IntegerAttr(hi, st)))
    return out


def _splat(b: Builder, value: int, like: SSAValue) -> SSAValue:
    """A rank-0 i32 constant broadcast to the (static) shape of `like`."""
    shape = tuple(_tensor(like).get_shape())
    if any(d < 0 for d in shape):
        raise _fail(b, "divide: dynamic dimensions are not supported")
    return b.broadcast_in_dim(b.constant(np.array(value), i32), shape, [])


@lru_cache(maxsize=4096)
def _dense1(value: int, element: IntegerType) -> DenseIntOrFPElementsAttr:
    """`dense<value> : tensor<1xelement>`, built once (attributes are immutable and
    building one is the bulk of this pass's time)."""
    return DenseIntOrFPElementsAttr.from_list(TensorType(element, [1]), [value])


@lru_cache(maxsize=8)
def _rescale_props(input_unsigned: bool, output_unsigned: bool) -> dict[str, Attribute]:
    """scale32, SINGLE_ROUND, per-tensor."""
    return {
        "input_unsigned": BoolAttr.from_bool(input_unsigned),
        "output_unsigned": BoolAttr.from_bool(output_unsigned),
        "per_channel": BoolAttr.from_bool(False),
        "rounding_mode": RoundingModeAttr(RoundingMode.SINGLE_ROUND),
        "scale32": BoolAttr.from_bool(True),
    }


def _tensor(v: SSAValue) -> TensorType:
    assert isinstance(v.type, TensorType)
    return v.type


def _storage(e: Attribute) -> IntegerType:
    if isinstance(e, UniformQuantizedType):
        return e.storage
    assert isinstance(e, IntegerType)
    return e


# -- scale formulas (the rescale scales of each op family) ----------------------------


def add_sub_scales(s_l: float, s_r: float, s_res: float, bits: int) -> tuple[float, float, float]:
    """m = 2 max(s_l, s_r): inputs s/m * 2^S, output m / (s_res 2^S)."""
    S = 1 << shift_base(bits)
    m = 2.0 * max(s_l, s_r)
    return s_l / m * S, s_r / m * S, m / (s_res * S)


def max_min_scales(s_l: float, s_r: float, s_res: float, bits: int) -> tuple[float, float, float]:
    """m = max(s_l, s_r): inputs s/m * 2^S, output m / (s_res 2^S)."""
    S = 1 << shift_base(bits, same_grid=True)
    m = max(s_l, s_r)
    return s_l / m * S, s_r / m * S, m / (s_res * S)


def divide_quotient_scale(s_l: float, s_r: float, s_res: float, k: int) -> float:
    """The output rescale of divide: (s_l / s_r) / (s_res 2^K)."""
    return (s_l / s_r) / (s_res * float(1 << k))


def saturating_quotient(m: int, s: int, zp: int, lo: int, hi: int) -> int:
    """The least Q > 0 with rescale(Q) >= hi and rescale(-Q) <= lo (rescale = (q M +
    2^(s-1)) >> s + zp): the i32 quotient stands for +-inf when the divisor is 0."""
    half = 1 << (s - 1)
    q_pos = -(-((hi - zp) * (1 << s) - half) // m)           # ceil
    q_neg = (half - (lo - zp + 1) * (1 << s)) // m + 1
    return max(1, q_pos, q_neg)


def _quotient_for_storage(b: Builder, m: int, s: int, q: UniformQuantizedType) -> int:
    """An i32 quotient that the result rescale (m, s, zero point) maps to the storage
    integer nearest 0, which is what a NaN quantizes to."""
    target = min(max(0, q.storage_min), q.storage_max)
    half = 1 << (s - 1)
    cand = -(-((target - q.zero_point) * (1 << s) - half) // m)   # least q reaching target
    got = tosa_rescale(np.array([cand]), m, s, 0, q.zero_point, out_bitwidth=64)[0]
    if got != target or abs(cand) > I32_MAX:
        raise _fail(b, "divide: no i32 quotient rescales to the storage value of 0/0")
    return int(cand)


# -- the rewrite ----------------------------------------------------------------------


def _check_tosa_storage(b: Builder, q: UniformQuantizedType) -> None:
    """TOSA 1.0 rescales 8- and 16-bit values; zero points other than 0 only for i8/u8
    and 32768 for u16."""
    bits = q.storage_bitwidth
    name = f"{'i' if q.is_signed else 'u'}{bits}"
    if bits not in (8, 16):
        raise _fail(b, f"{name} storage: TOSA rescales only 8- and 16-bit quantized values")
    if bits == 16 and q.is_signed and q.zero_point != 0:
        raise _fail(b, f"i16 storage needs zero point 0 in TOSA, got {q.zero_point}")
    if bits == 16 and not q.is_signed and q.zero_point not in (0, 32768):
        raise _fail(b, f"u16 storage needs zero point 0 or 32768 in TOSA, got {q.zero_point}")


_BINARY: dict[type[Operation], str] = {
    shlo.AddOp: "add", shlo.SubtractOp: "add",
    shlo.MaximumOp: "maxmin", shlo.MinimumOp: "maxmin",
    shlo.MultiplyOp: "mul", shlo.DivideOp: "div",
}


class LegalizeQuantElementwise(RewritePattern):
    """Rewrites one quantized abs/add/subtract/multiply/divide/maximum/minimum/compare."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if type(op) not in _BINARY and not isinstance(op, shlo.AbsOp | shlo.CompareOp):
            return
        types = [o.type for o in op.operands] + [r.type for r in op.results]
        quants = [quantized_element(t) if isinstance(t, TensorType) else None for t in types]
        if not any(quants):
            return
        b = Builder(rewriter, op)
        operand_q = quants[:len(op.operands)]
        result_q = quants[len(op.operands):]
        if isinstance(op, shlo.CompareOp):
            result_q = []  # the i1 result is not quantized
        if not all(operand_q + result_q):
            raise _fail(b, "operands and result must be all quantized (hybrid ops are not "
                        "supported)")
        for q in operand_q + result_q:
            if not q.is_per_tensor:
                raise _fail(b, "only per-tensor quantized types are supported")
            _check_tosa_storage(b, q)
        if isinstance(op, shlo.AbsOp):
            new = self._abs(b, op, operand_q[0], result_q[0])
        elif isinstance(op, shlo.CompareOp):
            new = self._compare(b, op, operand_q[0], operand_q[1])
        else:
            new = self._binary(b, op, operand_q[0], operand_q[1], result_q[0])
        rewriter.replace(op, [], [new])

    @staticmethod
    def _abs(b: Builder, op: Operation, q_in: UniformQuantizedType,
             q_res: UniformQuantizedType) -> SSAValue:
        v, (lo, hi) = to_i32(b, op.operands[0], q_in, 1.0, "operand rescale")
        a = b.op(shlo.AbsOp, [v], i32)
        rng = (0 if lo <= 0 <= hi else min(abs(lo), abs(hi)), max(abs(lo), abs(hi)))
        return from_i32(b, a, rng, q_in.scale / q_res.scale, _tensor(op.results[0]))

    @staticmethod
    def _compare(b: Builder, op: Operation, q_l: UniformQuantizedType,
                 q_r: UniformQuantizedType) -> SSAValue:
        S = 1 << shift_base(q_l.storage_bitwidth, same_grid=True)
        m = max(q_l.scale, q_r.scale)
        l, _ = to_i32(b, op.operands[0], q_l, q_l.scale / m * S, "lhs rescale")
        r, _ = to_i32(b, op.operands[1], q_r, q_r.scale / m * S, "rhs rescale")
        props = {"comparison_direction": op.properties["comparison_direction"]}
        if "compare_type" in op.properties:
            props["compare_type"] = ComparisonTypeAttr(ComparisonType.SIGNED)
        return b.op(shlo.CompareOp, [l, r], i1, **props)

    def _binary(self, b: Builder, op: Operation, q_l: UniformQuantizedType,
                q_r: UniformQuantizedType, q_res: UniformQuantizedType) -> SSAValue:
        kind = _BINARY[type(op)]
        result_type = _tensor(op.results[0])
        if kind == "div":
            return self._divide(b, op, q_l, q_r, q_res)
        bits = q_res.storage_bitwidth
        if kind == "mul":
            sl = sr = 1.0
            so = q_l.scale * q_r.scale / q_res.scale
        elif kind == "add":
            sl, sr, so = add_sub_scales(q_l.scale, q_r.scale, q_res.scale, bits)
        else:
            sl, sr, so = max_min_scales(q_l.scale, q_r.scale, q_res.scale, bits)
        l, (l_lo, l_hi) = to_i32(b, op.operands[0], q_l, sl, "lhs rescale")
        r, (r_lo, r_hi) = to_i32(b, op.operands[1], q_r, sr, "rhs rescale")
        if isinstance(op, shlo.AddOp):
            rng = (l_lo + r_lo, l_hi + r_hi)
        elif isinstance(op, shlo.SubtractOp):
            rng = (l_lo - r_hi, l_hi - r_lo)
        elif kind == "mul":
            ps = (l_lo * r_lo, l_lo * r_hi, l_hi * r_lo, l_hi * r_hi)
            rng = (min(ps), max(ps))
        else:  # maximum/minimum stay within the hull of both ranges
            rng = (min(l_lo, r_lo), max(l_hi, r_hi))
        if rng[0] < I32_MIN or rng[1] > I32_MAX:
            raise _fail(b, f"the i32 {short_name(op)} can overflow (range {rng})")
        v = b.op(type(op), [l, r], i32)
        return from_i32(b, v, rng, so, result_type)

    @staticmethod
    def _divide(b: Builder, op: Operation, q_l: UniformQuantizedType,
                q_r: UniformQuantizedType, q_res: UniformQuantizedType) -> SSAValue:
        """lhs * 2^K / rhs in i32 (truncating), then one rescale by s_l / (s_r s_res 2^K).

        K is the largest value (at most 29) for which every rescale is valid and the
        quotient standing for a zero divisor fits i32."""
        lo_l = q_l.storage_min - q_l.zero_point
        hi_l = q_l.storage_max - q_l.zero_point
        for k in range(29, -1, -1):
            try:
                m_in, s_in = multiplier_and_shift(float(1 << k))
                tosa_rescale(np.array([lo_l, hi_l]), m_in, s_in, 0, 0, out_bitwidth=32)
                so = divide_quotient_scale(q_l.scale, q_r.scale, q_res.scale, k)
                m_out, s_out = multiplier_and_shift(so)
                if not 2 <= s_out <= 62 or m_out == 0:  # 0: the scale underflows 2^-62
                    continue
                big = saturating_quotient(m_out, s_out, q_res.zero_point,
                                          q_res.storage_min, q_res.storage_max)
                bound = max(big, abs(lo_l) << k, abs(hi_l) << k)
                if bound > I32_MAX:
                    continue
                tosa_rescale(np.array([-bound, bound]), m_out, s_out, 0, 0, out_bitwidth=32)
            except (RescaleError, ValueError):
                continue
            break
        else:
            raise _fail(b, "divide: no pre-scale 2^K makes every rescale valid for these scales")
        l, _ = to_i32(b, op.operands[0], q_l, float(1 << k), f"lhs rescale (2^{k})")
        r, _ = to_i32(b, op.operands[1], q_r, 1.0, "rhs rescale")
        zero, one = _splat(b, 0, r), _splat(b, 1, r)
        eq = ComparisonTypeAttr(ComparisonType.SIGNED)
        is_zero = b.op(shlo.CompareOp, [r, zero], i1,
                       comparison_direction=ComparisonDirectionAttr(ComparisonDirection.EQ),
                       compare_type=eq)
        safe = b.op(shlo.SelectOp, [is_zero, one, r], i32)
        quotient = b.op(shlo.DivideOp, [l, safe], i32)
        nonneg = b.op(shlo.CompareOp, [l, zero], i1,
                      comparison_direction=ComparisonDirectionAttr(ComparisonDirection.GE),
                      compare_type=eq)
        inf = b.op(shlo.SelectOp, [nonneg, _splat(b, big, r), _splat(b, -big, r)], i32)
        # 0/0 = NaN: the interpreters quantize it to the storage integer 0 (clamped)
        nan_q = _quotient_for_storage(b, m_out, s_out, q_res)
        l_zero = b.op(shlo.CompareOp, [l, zero], i1,
                      comparison_direction=ComparisonDirectionAttr(ComparisonDirection.EQ),
                      compare_type=eq)
        is_nan = b.op(shlo.AndOp, [is_zero, l_zero], i1)
        inf = b.op(shlo.SelectOp, [is_nan, _splat(b, nan_q, r), inf], i32)
        v = b.op(shlo.SelectOp, [is_zero, inf, quotient], i32)
        return from_i32(b, v, (-bound, bound), so, _tensor(op.results[0]))


@dataclass(frozen=True)
class StablehloQuantLegalizeToTosaRescalePass(ModulePass):
    """Per-tensor quantized elementwise ops as i32 ops between `tosa.rescale`s.

    Covers abs, add, subtract, multiply, divide, maximum, minimum and compare.
    Per-tensor quantized operands are rescaled to i32 (zero point removed, output zero
    point 0), the op runs on i32, and the i32 result is rescaled to the quantized
    result type. Every `tosa.rescale` is `scale32 = true`, `SINGLE_ROUND`,
    `per_channel = false`, with (multiplier, shift) = `multiplier_and_shift(scale)`
    (MLIR's computeMultiplierAndShift). S = 20 for 8-bit result storage; for 16-bit
    S = 15 for add/subtract (upstream) and 14 for maximum/minimum/compare (upstream's 15
    gives the larger-scale operand multiplier 2^15, shift 15, which TOSA's REQUIRE
    |x| < 2^14 rejects for half the i16 range):

        add, subtract:    m = 2 max(s_l, s_r); inputs s_l/m 2^S, s_r/m 2^S; output m/(s_res 2^S)
        maximum, minimum: m = max(s_l, s_r);   same input/output formulas
        compare:          inputs as maximum (S from the lhs storage); no output rescale
        multiply:         inputs 1.0; output s_l s_r / s_res
        abs:              input 1.0; output s_in / s_res
        divide:           lhs 2^K, rhs 1.0; q = trunc(lhs' / rhs') in i32;
                          output (s_l / s_r) / (s_res 2^K)

    maximum, minimum and compare see each operand in steps of max(s_l, s_r) 2^-S (the
    larger-scale operand exactly, the other rounded to that grid), so reals closer than
    half a step compare equal; add and subtract use steps of 2 max(s_l, s_r) 2^-S.

    Divide (upstream rescales the quotient by s_l s_r / s_res, the multiply formula,
    and divides the raw integers, which is wrong twice: the real quotient is
    (s_l v_l)/(s_r v_r) = (s_l/s_r)(v_l/v_r), and v_l/v_r truncated to an integer loses
    the fraction): the dividend is pre-scaled by 2^K so the truncated quotient keeps K
    fractional bits, q = trunc(v_l 2^K / v_r); its real value is q (s_l/s_r) 2^-K, so
    the output multiplier is (s_l/s_r)/(s_res 2^K). The truncation error is below one
    unit of q, i.e. below (s_l/s_r)/(s_res 2^K) output steps, so the result is the
    correctly rounded quantized quotient except within that distance of a rounding tie.
    K is the largest value <= 29 for which every rescale meets the TOSA REQUIREs
    (K = 21 for 8-bit storage, 14 for 16-bit, less when s_l/(s_r s_res) is tiny). A zero
    divisor (v_r = 0) gives +Q for v_l > 0 and -Q for v_l < 0, Q the least i32 quotient
    that the output rescale saturates (+-inf quantized to storage_max/storage_min);
    0/0 (NaN) gives the quotient that rescales to storage integer 0, which is how
    qcomp's interpreter and upstream's reference interpreter quantize NaN (the
    conformance goldens of div_singularity_0_by_0 and _negative_by_0 rely on it).

    Unsigned storage (u8, u16; upstream emits signed rescales for it): TOSA 1.0 has no
    unsigned <-> i32 rescale, so an operand goes u8 -> i16 by 1.0 (`input_unsigned`,
    zero point removed, exact) then i16 -> i32 by its scale, and the result i32 -> i16
    by the result scale then i16 -> u8 by 1.0 (`output_unsigned`, zero point added);
    the i16 clamp is checked not to change the result.

    Rounding is TOSA's (ties toward +inf) where the StableHLO spec rounds half to even,
    so results can differ from the un-rewritten program by one step at exact ties.

    Every rescale is checked over its whole input range against the TOSA spec's
    REQUIREs (2 <= shift <= 62, |value| < 2^(shift-1)) and each i32 op against
    overflow; a result type with a narrowed storage range gets a `tosa.clamp`.

    Errors: per-axis types, hybrid ops (some operands not quantized), storage other
    than 8 or 16 bits, i16 with a zero point and u16 with one other than 0 or 32768
    (TOSA's rules), scales for which a rescale would break a REQUIRE (e.g. a result
    scale >= 2^29), divide on dynamic shapes. Ops without quantized types are left
    alone.
    """

    name = "stablehlo-quant-legalize-to-tosa-rescale"

    def numerics_contract(self) -> tuple[str, int]:
        """For `qcomp-opt --verify-numerics`: the spec within one storage step (each
        `tosa.rescale` rounds its scale to a 32-bit multiplier and shift)."""
        return ("spec", 1)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        refuse_float_storage(op, self.name)
        PatternRewriteWalker(LegalizeQuantElementwise(), apply_recursively=False).rewrite_module(op)
