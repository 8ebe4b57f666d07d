"""Upstream StableHLO's quantized numerics (`stablehlo-legalize-quant-to-math`).

The StableHLO reference interpreter (and IREE) evaluate quantized programs by
lowering them to integer/float math first; these functions compute what that
lowering computes, bit for bit. qcomp runs them under `--semantics stablehlo`, and
the lowering pass emits the same formulas. All float math is f32 (the lowering
makes f32 constants of every scale); integer math is i32 and wraps.

Where they depart from the spec (`qcomp.quant.uniform`), see REFERENCE.md §2:
add rounds each operand separately, dot/conv rescales truncate and wrap.

Unsigned storage: upstream lowers `u8` storage to the signless `i8` (MLIR's
`getStorageType()`), so every float -> storage conversion saturates to the signed
range (u8 values above 127 become 127) and storage integers are read back as signed
(`signless_view`: a stored 200 is -56).
"""

from __future__ import annotations

import numpy as np

from qcomp.quant.ieee import ieee
from qcomp.quant.ranges import signed_view, storage_range, wrap
from qcomp.quant.uniform import float_to_int
from qcomp.quant.uniform import quantize as _quantize

I32_MIN, I32_MAX = storage_range(32, True)
F32 = np.float32


def signless_range(bitwidth: int) -> tuple[int, int]:
    """Range of the signless iN upstream converts storage to: [-2^(N-1), 2^(N-1) - 1]."""
    return storage_range(bitwidth, True)


def signless_view(q, bitwidth: int) -> np.ndarray:
    """Storage integers as upstream reads them: the N-bit pattern as a signed value (int64)."""
    return signed_view(q, bitwidth)


@ieee
def quantize(x, scales, zero_points, storage_min: int, storage_max: int,
             storage_bitwidth: int | None = None) -> np.ndarray:
    """f32 -> storage: convert(round_half_to_even(clamp(f32(min), x / f32(s) + f32(zp), f32(max)))).

    Upstream lowers uniform_quantize this way for f32 operands only. `convert` goes to
    the signless iN of `storage_bitwidth` (saturating), so unsigned storage tops out
    at 2^(N-1) - 1. Returns int64.
    """
    r = _quantize(x, scales, zero_points, storage_min, storage_max, "f32")
    if storage_bitwidth is not None:
        lo, hi = signless_range(storage_bitwidth)
        r = np.clip(r, lo, hi)
    return r


@ieee
def dequantize(q, scales, zero_points) -> np.ndarray:
    """storage -> f32: f32(i32(q) - i32(zp)) * f32(s) (the i32 subtraction wraps)."""
    d = wrap(np.asarray(q).astype(np.int64) - np.asarray(zero_points).astype(np.int64), 32, True)
    return d.astype(F32) * np.asarray(scales).astype(F32)


@ieee
def merged_scale_and_zero_point(in_scales, in_zero_points, out_scales, out_zero_points):
    """(f32(s_in / s_out), f32(zp_out - zp_in * (s_in / s_out))), computed in f64 then rounded."""
    ms = np.asarray(in_scales, np.float64) / np.asarray(out_scales, np.float64)
    mz = np.asarray(out_zero_points, np.float64) - np.asarray(in_zero_points, np.float64) * ms
    return ms.astype(F32), mz.astype(F32)


@ieee
def requantize(q, in_scales, in_zero_points, out_scales, out_zero_points, storage_min: int,
               storage_max: int, out_bitwidth: int, same_type: bool = False) -> np.ndarray:
    """q -> q': round_half_to_even(f32(q) * f32(s_in/s_out) + f32(zp_out - zp_in*s_in/s_out)).

    Clamped to [f32(storage_min), f32(storage_max)] only when the output is narrower
    than 32 bits; then converted (toward zero, saturating) to the signless output
    integer iN (see `signless_range`). `q` holds signless values (`signless_view`).
    `same_type`: input and output types are equal, and upstream just converts.
    Returns int64 values.
    """
    qa = np.asarray(q)
    if same_type:
        return qa.astype(np.int64)
    ms, mz = merged_scale_and_zero_point(in_scales, in_zero_points, out_scales, out_zero_points)
    f = qa.astype(F32) * ms + mz
    if out_bitwidth < 32:
        f = np.minimum(np.maximum(f, F32(storage_min)), F32(storage_max))
    f = np.rint(f)
    lo, hi = signless_range(min(out_bitwidth, 32))
    return float_to_int(f, lo, hi)


@ieee
def add(lhs, rhs, lhs_params, rhs_params, res_params, storage_min: int, storage_max: int,
        res_is_i32: bool, lhs_same: bool = False, rhs_same: bool = False) -> np.ndarray:
    """Per-tensor quantized add: l' + r' - zp_res in i32, each operand requantized to the result.

    `*_params` are (scales, zero_points); l' and r' are `requantize(..., out_bitwidth=32)`
    (rounded separately, not clamped). The sum is clamped to the storage range unless
    the result storage is i32. `*_same`: operand type equals the result type.
    """
    rs, rz = res_params
    l32 = requantize(lhs, *lhs_params, rs, rz, I32_MIN, I32_MAX, 32, lhs_same)
    r32 = requantize(rhs, *rhs_params, rs, rz, I32_MIN, I32_MAX, 32, rhs_same)
    s = wrap(wrap(l32 + r32, 32, True).astype(np.int64) - np.asarray(rz, np.int64), 32, True)
    s = s.astype(np.int64)
    if res_is_i32:
        return s
    return np.clip(s, storage_min, storage_max)


def add_per_axis_i32(lhs, rhs, zero_points) -> np.ndarray:
    """Per-axis add (operands and result of one i32 per-axis type): wrap32(l + r - zp)."""
    s = np.asarray(lhs, np.int64) + np.asarray(rhs, np.int64) - np.asarray(zero_points, np.int64)
    return wrap(s, 32, True).astype(np.int64)


def dot_zero_point_offset(lhs_sums, rhs_sums, lhs_zp: int, rhs_zp: int, k: int):
    """zp_offset = zp_r * Σlhs + zp_l * Σrhs - zp_l * zp_r * K, in wrapping i32 (None when both zps are 0).

    `lhs_sums`/`rhs_sums` are the operands summed over their contracting (and, for
    convolution, spatial) dimensions, already broadcast to the result shape; K is
    the number of products per output element.
    """
    if lhs_zp == 0 and rhs_zp == 0:
        return None
    acc = np.int64(0)
    if rhs_zp != 0:
        acc = wrap(wrap(np.asarray(lhs_sums, np.int64), 32, True).astype(np.int64) * rhs_zp, 32, True)
        acc = acc.astype(np.int64)
    if lhs_zp != 0:
        part = wrap(wrap(np.asarray(rhs_sums, np.int64), 32, True).astype(np.int64) * lhs_zp, 32, True)
        acc = wrap(acc + part.astype(np.int64), 32, True).astype(np.int64)
    if lhs_zp != 0 and rhs_zp != 0:
        const = int(wrap(np.int64(lhs_zp * rhs_zp * k), 32, True))
        acc = wrap(acc - const, 32, True).astype(np.int64)
    return acc


@ieee
def dot_rescale(acc, zp_offset, combined_scale: float, res_zero_point: int, out_bitwidth: int,
                out_signed: bool = True) -> np.ndarray:
    """Integer dot/convolution result -> storage, as upstream lowers it.

    cs = s_l * s_r / s_res (f64). If |cs - 1| > 0.001, both the i32 accumulator and
    the zero-point offset become i32(f32(v) * f32(cs)) (truncation toward zero).
    out = acc + (zp_res - zp_offset) in i32, then converted to the storage width
    without clamping (two's-complement wrap). Returns the storage container dtype.
    """
    a = wrap(np.asarray(acc, np.int64), 32, True).astype(np.int64)
    off = zp_offset
    if abs(combined_scale - 1.0) > 0.001:
        cs = F32(combined_scale)
        a = float_to_int(a.astype(F32) * cs, I32_MIN, I32_MAX)
        if off is not None:
            off = float_to_int(np.asarray(off, np.int64).astype(F32) * cs, I32_MIN, I32_MAX)
    czp = np.int64(res_zero_point)
    if off is not None:
        czp = wrap(czp - np.asarray(off, np.int64), 32, True).astype(np.int64)
    out = wrap(a + czp, 32, True).astype(np.int64)
    return wrap(out, out_bitwidth, out_signed)


def block_combined_scales(lhs_scale, rhs_block_scales, result_scales) -> list[np.ndarray]:
    """cs_j = f32(s_l * s_r,j / s_res) (in f64, then rounded), one array per block."""
    return [(np.float64(lhs_scale) * np.asarray(s, np.float64)
             / np.asarray(result_scales, np.float64)).astype(F32) for s in rhs_block_scales]


@ieee
def dot_rescale_blocks(accs, combined_scales, res_zero_points, out_bitwidth: int,
                       out_signed: bool = True) -> np.ndarray:
    """A blockwise rhs the way upstream rescales a dot (qcomp's extension, rescale=stablehlo):

        acc_j = Σ_block (q_l - z_l)(q_r - z_r,j)      in i32, wrapping
        v     = Σ_j f32(acc_j) * cs_j                 in f32, block order
        out   = convert(i32(v) + z_res)               i32(v) truncates toward zero
                                                      (saturating); the add wraps in i32,
                                                      the convert to storage wraps

    One truncation for all the blocks, never a clamp (as upstream's dot_rescale). Where
    the exact real / s_res + z_res lies in the storage range and the f32 error
    (n_blocks + 2) 2^-24 Σ_j |acc_j cs_j| stays below 1/2, the result is within one
    storage step of the spec's; outside the range it wraps."""
    v = None
    for acc, cs in zip(accs, combined_scales, strict=True):
        a = wrap(np.asarray(acc, np.int64), 32, True).astype(F32)
        term = a * np.asarray(cs, F32)
        v = term if v is None else (v + term).astype(F32)
    out = float_to_int(v, I32_MIN, I32_MAX) + np.asarray(res_zero_points, np.int64)
    return wrap(wrap(out, 32, True).astype(np.int64), out_bitwidth, out_signed)
