"""Fixed-point scaling: multiplier/shift pairs and TOSA 1.0 `RESCALE` arithmetic.

A real scale s is represented as multiplier * 2^-shift with a 31-bit (or 15-bit)
normalised multiplier; `tosa_rescale` applies it with integer-only arithmetic.
"""

from __future__ import annotations

import math

import numpy as np

from qcomp.quant.ranges import storage_range


def _round_half_away(v: float) -> int:
    """std::round on a non-negative exact double."""
    return math.floor(abs(v) + 0.5) * (1 if v >= 0 else -1)


def multiplier_and_shift(scale: float, bits: int = 32) -> tuple[int, int]:
    """MLIR computeMultiplierAndShift: scale ~= M * 2^-shift with M in [2^(bits-2), 2^(bits-1)).

    (mant, e) = frexp(scale); M = round(mant * 2^(bits-1)); if M == 2^(bits-1): M /= 2, e += 1;
    shift = (bits - 1) - e; if shift > 62: M >>= min(31, shift - 62), shift = 62.
    Examples: 1.0 -> (1073741824, 30); 0.025/0.15*2^20 -> (1431655765, 13).
    """
    if bits not in (16, 32):
        raise ValueError("bits must be 16 or 32")
    if not (scale > 0 and math.isfinite(scale)):
        raise ValueError(f"scale must be positive and finite, got {scale}")
    mant, e = math.frexp(scale)
    top = 1 << (bits - 1)
    m = _round_half_away(mant * top)
    if m == top:
        m //= 2
        e += 1
    shift = (bits - 1) - e
    if shift > 62:
        m >>= min(31, shift - 62)
        shift = 62
    return m, shift


ROUNDING_MODES = ("SINGLE_ROUND", "INEXACT_ROUND", "DOUBLE_ROUND")


class RescaleError(ValueError):
    """A TOSA RESCALE precondition (REQUIRE) does not hold."""


def _per_element(param, shape, per_channel: bool) -> np.ndarray:
    p = np.asarray(param, dtype=np.int64).reshape(-1)
    if per_channel:
        if len(shape) == 0 or p.size != shape[-1]:
            raise RescaleError(f"per-channel parameter has {p.size} values for shape {tuple(shape)}")
        return p
    if p.size != 1:
        raise RescaleError(f"per-tensor parameter has {p.size} values")
    return p[0]


def tosa_rescale(x, multiplier, shift, input_zp: int, output_zp: int, *,
                 rounding_mode: str = "SINGLE_ROUND", scale32: bool = True,
                 per_channel: bool = False, input_unsigned: bool = False,
                 output_unsigned: bool = False, out_bitwidth: int = 8,
                 out_signed: bool = True) -> np.ndarray:
    """TOSA 1.0 RESCALE, elementwise over the integer array `x` (values as stored, any int dtype).

    value = x - input_zp (x zero-extended when input_unsigned);
    scale32:  r = (value * M + round) >> shift, round = 2^(shift-1), and with DOUBLE_ROUND
              and shift > 31 round += +-2^30 (sign of value); requires |value| < 2^(shift-1);
    scale16:  r = (value * M + 2^(shift-1)) >> shift (M a 16-bit multiplier);
    INEXACT_ROUND is computed as SINGLE_ROUND (the spec lets it be less exact, never more).
    out = clip(r + output_zp) to the output type's range (unsigned when output_unsigned,
    else the signed range of `out_bitwidth`). `>>` is arithmetic (floor).
    Per-channel parameters index the last dimension. Returns int64.
    Raises RescaleError when a spec REQUIRE fails (shift range, multiplier sign, value range).
    """
    if rounding_mode not in ROUNDING_MODES:
        raise RescaleError(f"unknown rounding_mode {rounding_mode}")
    a = np.asarray(x)
    v = a.astype(np.int64)
    if input_unsigned and a.dtype.kind == "i":
        bits = a.dtype.itemsize * 8
        v = v & ((1 << bits) - 1)
    m = _per_element(multiplier, a.shape, per_channel)
    s = _per_element(shift, a.shape, per_channel)
    if np.any(np.asarray(m) < 0):
        raise RescaleError("multiplier must be >= 0")
    if np.any(np.asarray(m) > storage_range(32 if scale32 else 16, True)[1]):
        raise RescaleError(f"multiplier out of {32 if scale32 else 16}-bit range")
    if np.any(np.asarray(s) < 2) or np.any(np.asarray(s) > 62):
        raise RescaleError("shift must be in [2, 62]")
    value = v - np.int64(input_zp)
    half = np.left_shift(np.int64(1), np.asarray(s, np.int64) - 1)
    if scale32:
        if np.any((value < -half) | (value >= half)):
            raise RescaleError("value out of range for the shift (|value| must be < 2^(shift-1))")
        rnd = half
        if rounding_mode == "DOUBLE_ROUND":
            extra = np.where(np.asarray(s) > 31, np.int64(1 << 30), np.int64(0))
            rnd = half + np.where(value >= 0, extra, -extra)
    else:
        rnd = half
    prod = _mul_add_shift(value, np.asarray(m, np.int64), rnd, np.asarray(s, np.int64))
    i32_min, i32_max = storage_range(32, True)
    if (not scale32) and np.any((prod < i32_min) | (prod > i32_max)):
        raise RescaleError("16-bit scaled result out of i32 range")
    r = prod + np.int64(output_zp)
    if output_unsigned:
        lo, hi = storage_range(out_bitwidth, False)
    else:
        lo, hi = storage_range(out_bitwidth, out_signed)
    return np.clip(r, lo, hi)


def _mul_add_shift(value: np.ndarray, m: np.ndarray, rnd, s: np.ndarray) -> np.ndarray:
    """floor((value * m + rnd) / 2^s) without int64 overflow.

    value * m can need up to ~2^78 (48-bit value, 31-bit multiplier); split value
    into high and low 24-bit halves: value = hi * 2^24 + lo (0 <= lo < 2^24), so
    value*m + rnd = hi*m*2^24 + (lo*m + rnd). Each part fits int64; we shift
    the sum exactly by combining floor divisions.
    """
    value = np.asarray(value, np.int64)
    hi = value >> 24
    lo = value & ((1 << 24) - 1)
    low_part = lo * m + rnd                      # < 2^55 + 2^62: fits
    high_part = hi * m
    # |value| < 2^48 (i48 input is the widest), so |hi| < 2^24; with m < 2^31
    # |high_part| < 2^55 and every intermediate below fits int64.
    # result = floor((high_part * 2^24 + low_part) / 2^s)
    s = np.broadcast_to(s, np.broadcast(value, s).shape)
    out = np.empty(np.broadcast(value, m, s).shape, np.int64)
    big = s >= 24
    # s >= 24: floor((H*2^24 + L) / 2^s) = floor((H + floor(L / 2^24)) / 2^(s-24))
    sb = np.where(big, s - 24, 0)
    tmp = high_part + (low_part >> 24)
    out_big = tmp >> sb
    # s < 24: H*2^(24-s) + floor(L/2^s); H*2^(24-s) < 2^61 for |H| < 2^39
    ss = np.where(big, 0, s)
    out_small = (high_part << (24 - ss)) + (low_part >> ss)
    out[...] = np.where(big, out_big, out_small)
    return out
