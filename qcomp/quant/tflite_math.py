"""The tables of TFLite's quantized SQRT, LOG (tensorflow/lite/kernels/elementwise.cc)
and DIV (reference/div.h), in NumPy.

    SQRT int8 / int16   clamp(int(sqrtf(f32(s_in (q - z_in))) / f32(s_out)) + z_out)
                        (SqrtEvalQuantized: the quotient truncated toward zero, as
                        x86's cvttss2si: INT32_MIN when out of the int32 range, the sum
                        wrapping; negative inputs are LiteRT's error)
    LOG int8            LUTPopulate<int8_t> of logf(v), v <= 0 -> f32((-128 - z_out) s_out)
    LOG int16           LUTPopulate<int16_t> (f32) of logf(v), v <= 0 -> f32(-32768 s_out)
    EXP int16           LUTPopulate<int16_t> (f32) of expf (exp.cc)

    DIV int8 / uint8    reference_ops::DivElementwise on (q_1, q_2): a = q_1 - z_1,
                        d = q_2 - z_2 (both negated when d < 0); r = GetReciprocal(d)
                        (gemmlowp's one_over_one_plus_x Newton-Raphson, Q0.31),
                        h = CountLeadingSignBits(a);
                        clamp(RDBPOT(SRDHM(SRDHM(a 2^h, r), M), -(shift - (31 - clz(d)) - h))
                        + z_out) with (M, shift) = QuantizeMultiplier(f32(s_1 / f32(s_2
                        s_out))): a 256 x 256 table (d = 0 is LiteRT's error: z_out there)

LOG's tables take logf from the C library (`qcomp.quant.tflite.libm_f32`), the function
LiteRT fills them with at Prepare (std::log on a float); NumPy's float32 log differs
from it by 1-2 ulp on a few percent of inputs.
"""

from __future__ import annotations

import numpy as np

from qcomp.quant.gemmlowp import NUMPY, one_over_one_plus_x_for_x_in_0_1
from qcomp.quant.tflite import libm_f32, lut_int8, quantize_multiplier, srdhm
from qcomp.quant.tflite16 import INT16_MAX, INT16_MIN, clz32, lut_lookup, lut_populate_int16


def exp_int16(q, s_in: float, s_out: float) -> np.ndarray:
    """EXP's int16 table (exp.cc: LUTPopulate<int16_t> (f32) of expf, zero points 0)
    looked up at `q`."""
    expf = libm_f32("expf")
    lut = lut_populate_int16(lambda v: np.float32(expf(np.array([v], np.float32))[0]),
                             s_in, 0, s_out, 0, single=True)
    return lut_lookup(q, lut)


def _cvtt_i32(x: np.ndarray) -> np.ndarray:
    """static_cast<int>(float) on x86: toward zero, INT32_MIN outside int32 (and NaN)."""
    x = np.asarray(x, np.float64)
    inside = np.isfinite(x) & (x > -2.0 ** 31 - 1) & (x < 2.0 ** 31)
    return np.where(inside, np.trunc(np.where(inside, x, 0)), -(2 ** 31)).astype(np.int64)


def _wrap32(x: np.ndarray) -> np.ndarray:
    return ((np.asarray(x, np.int64) + (1 << 31)) % (1 << 32)) - (1 << 31)


def sqrt_quantized(q, s_in: float, z_in: int, s_out: float, z_out: int, lo: int, hi: int
                   ) -> np.ndarray:
    """SqrtEvalQuantized on the stored values `q` (see the module docstring)."""
    q = np.asarray(q, np.int64)
    x = np.float32(s_in) * (q - z_in).astype(np.float32)
    with np.errstate(invalid="ignore"):
        y = np.sqrt(x) / np.float32(s_out)
    return np.clip(_wrap32(_cvtt_i32(y) + z_out), lo, hi)


def _log_transform(output_min: np.float32):
    logf = libm_f32("logf")

    def f(v):
        v = np.asarray(v, np.float32)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(v <= 0, output_min, logf(np.where(v > 0, v, 1)))
    return f


def log_int8(q, s_in: float, z_in: int, s_out: float, z_out: int) -> np.ndarray:
    """LOG's int8 table (LogLUTPrepare, LUTPopulate<int8_t>) looked up at `q`."""
    out_min = np.float32(np.float32(-128 - z_out) * np.float32(s_out))
    f = _log_transform(out_min)
    table = lut_int8(lambda x: f(x.astype(np.float32)).astype(np.float64),
                     s_in, z_in, s_out, z_out)
    return table[np.asarray(q, np.int64) + 128]


def log_int16(q, s_in: float, s_out: float) -> np.ndarray:
    """LOG's int16 table (LUTPopulate<int16_t>, zero points 0) looked up at `q`."""
    out_min = np.float32(np.float32(INT16_MIN) * np.float32(s_out))
    f = _log_transform(out_min)
    lut = lut_populate_int16(lambda v: np.float32(f(np.array([v], np.float32))[0]),
                             s_in, 0, s_out, 0, single=True)
    return np.clip(lut_lookup(q, lut), INT16_MIN, INT16_MAX)




def get_reciprocal(x) -> tuple[np.ndarray, np.ndarray]:
    """TFLite's GetReciprocal(x, 31): (Q0.31 raw of 2^k / x, k = 31 - clz(x)) for x > 0."""
    x = np.asarray(x, np.int64)
    h = clz32(x)
    shifted = ((x << h) & 0xFFFFFFFF) - (1 << 31)
    return one_over_one_plus_x_for_x_in_0_1(NUMPY, shifted), 31 - h


def _leading_sign_bits(x) -> np.ndarray:
    """CountLeadingSignBits of int32 values (31 for 0)."""
    x = np.asarray(x, np.int64)
    return np.where(x >= 0, clz32(x), clz32(~x & 0xFFFFFFFF)) - 1


def _rdbpot_x86(x, e) -> np.ndarray:
    """gemmlowp's RoundingDivideByPOT on int32 as x86 runs it, also for e >= 32 (which
    DivElementwise reaches: undefined in C++): the mask (1 << e) - 1 truncated to 32 bits,
    the shift by e mod 32."""
    x = np.asarray(x, np.int64)
    e = np.asarray(e, np.int64)
    mask = np.where(e >= 32, -1, (np.int64(1) << np.minimum(e, 31)) - 1)
    threshold = (mask >> 1) + (x < 0)
    return (x >> (e & 31)) + ((x & mask) > threshold)


def div_8bit(s1: float, z1: int, s2: float, z2: int, so: float, zo: int, lo: int = -128
             ) -> np.ndarray | None:
    """TFLite's int8 (`lo` -128) or uint8 (`lo` 0) DIV as a (256, 256) table indexed by
    (q_1 - lo, q_2 - lo); None when a shift LiteRT takes for a right shift is positive
    (its behaviour undefined)."""
    hi = lo + 255
    m, shift = quantize_multiplier(float(np.float32(np.float32(s1) / np.float32(
        np.float32(s2) * np.float32(so)))))
    q1, q2 = np.meshgrid(np.arange(lo, hi + 1), np.arange(lo, hi + 1), indexing="ij")
    a, d = q1 - z1, q2 - z2
    a = np.where(d < 0, -a, a)
    d = np.where(d == 0, 1, np.abs(d))
    inv, recip_shift = get_reciprocal(d)
    h = _leading_sign_bits(a)
    quotient = srdhm(a << h, inv)
    total = shift - recip_shift - h
    if np.any(total > 0):
        return None
    out = _rdbpot_x86(srdhm(quotient, m), -total) + zo
    return np.where(q2 - z2 == 0, zo, np.clip(out, lo, hi))


__all__ = ["div_8bit", "exp_int16", "get_reciprocal", "log_int8", "log_int16", "sqrt_quantized"]
