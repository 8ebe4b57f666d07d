"""TFLite's 16x8 integer arithmetic (int16 activations, int8 weights, int64 bias;
tensorflow/lite/kernels/internal/common.{h,cc} and the int16 reference kernels), in
NumPy int64.

    MBQM64(x, M, shift)  =  (x * M' + 2^(t - 1)) >> t,  M' = M < 0x7FFF0000 ?
                            (M + 2^15) >> 16 : 0x7FFF,  t = 15 - shift
                            (MultiplyByQuantizedMultiplier(int64_t x, ...): the
                            multiplier reduced to 16 bits, one rounding)

The 16x8 contractions as LiteRT's reference kernels compute them:

    CONV_2D / DEPTHWISE    acc = Σ q_x q_w + bias (int64); clamp(MBQM64(acc, M[c],
                           shift[c])), (M, shift) = QuantizeMultiplier(s_x s_w[c] / s_out)
                           in f64 (reference_integer_ops::ConvPerChannel<int64_t>,
                           DepthwiseConvPerChannel for int16)
    FULLY_CONNECTED        acc = Σ q_x q_w + bias (int64); clamp(round_half_away(f64(acc)
                           * (s_x s_w[c] / s_out))) (the float-scale FullyConnected,
                           as for int8: `qcomp.quant.tflite.fully_connected_rescale`)

Its int16 lookup tables (SOFTMAX, and through them LOGISTIC / TANH where LiteRT uses
them):

    LUTPopulate<int16_t>   513 samples of f on [in_min, in_max] (512 steps), each
                           round(f(x) * 65536 / (out_max - out_min)) less half the
                           rounded error of linear interpolation at the step's midpoint
    LUTLookup(v, lut)      base = lut[256 + (v >> 7)], slope = next - base (int16);
                           int16(base + ((slope * (v & 0x7f) + 64) >> 7))
    SOFTMAX int16          e = LUTLookup(clamp(MBQM(q - max, M, shift) + 32767), exp_lut),
                           (M, shift) = QuantizeMultiplier(f32(s_in * beta) / (10 / 65535));
                           S = Σ e (int32), h = clz(S), r = LUTLookup(clamp(((S << (h - 1))
                           + 2^13 >> 14) - 98304), one_over_one_plus_x_lut);
                           clamp((e r + 2^(30 - h)) >> (31 - h), 0, 32767)
                           (reference_ops::SoftmaxInt16)
"""

from __future__ import annotations

import math

import numpy as np

from qcomp.quant.tflite import mbqm, quantize_multiplier

INT16_MIN, INT16_MAX = -(1 << 15), (1 << 15) - 1


def reduced_multiplier(m) -> np.ndarray:
    """MBQM64's 16-bit multiplier: (M + 2^15) >> 16, or 0x7FFF for M >= 0x7FFF0000."""
    m = np.asarray(m, np.int64)
    return np.where(m < 0x7FFF0000, (m + (1 << 15)) >> 16, np.int64(0x7FFF))


def mbqm64(x, multiplier, shift) -> np.ndarray:
    """MultiplyByQuantizedMultiplier(int64_t x, M, shift): (x * M' + 2^(t-1)) >> t with
    M' = `reduced_multiplier(M)`, t = 15 - shift; the result wraps to int32 as TFLite's
    cast does."""
    x = np.asarray(x, np.int64)
    t = 15 - np.asarray(shift, np.int64)
    r = (x * reduced_multiplier(multiplier) + (np.int64(1) << (t - 1))) >> t
    return ((r + (1 << 31)) & 0xFFFFFFFF) - (1 << 31)


def _round(x: float) -> float:
    """TfLiteRound (std::round): half away from zero."""
    return math.floor(abs(x) + 0.5) * (1.0 if x >= 0 else -1.0)


def lut_populate_int16(f, input_scale: float, input_zero_point: int, output_scale: float,
                       output_zero_point: int) -> np.ndarray:
    """LUTPopulateInt16<double> (common.h): the 513-entry table of `f` (a double ->
    double function: `math.exp`, ...), every step in double as TFLite computes it."""
    in_min = input_scale * (INT16_MIN - input_zero_point)
    in_max = input_scale * (INT16_MAX - input_zero_point)
    out_min = output_scale * (INT16_MIN - output_zero_point)
    out_max = output_scale * (INT16_MAX - output_zero_point)
    steps = 512
    step = (in_max - in_min) / steps
    half = step / 2
    inv = float(INT16_MAX - INT16_MIN + 1) / (out_max - out_min)
    lut = np.zeros(steps + 1, np.int64)
    for i in range(steps):
        val = f(in_min + i * step)
        mid = f(in_min + i * step + half)
        nxt = f(in_min + (i + 1) * step)
        sample = _round(val * inv)
        interp = _round((nxt * inv + _round(val * inv)) / 2)
        err = interp - _round(mid * inv)
        bias = _round(err / 2)
        lut[i] = int(min(max(sample - bias, INT16_MIN), INT16_MAX))
    lut[steps] = int(min(max(_round(f(in_max) * inv), INT16_MIN), INT16_MAX))
    return lut


def _wrap16(x) -> np.ndarray:
    return ((np.asarray(x, np.int64) + (1 << 15)) & 0xFFFF) - (1 << 15)


def lut_lookup(v, lut) -> np.ndarray:
    """LUTLookup(int16 v, 513-entry lut): interpolated between lut[256 + (v >> 7)] and
    the next entry by v's low 7 bits."""
    v = np.asarray(v, np.int64)
    lut = np.asarray(lut, np.int64)
    index = 256 + (v >> 7)
    base = lut[index]
    slope = _wrap16(lut[index + 1] - base)
    return _wrap16(base + ((slope * (v & 0x7F) + 64) >> 7))


SOFTMAX_EXP_LUT = ((10.0 / 65535, INT16_MAX, 2.0 / 65535, 0), math.exp)
SOFTMAX_RECIPROCAL_LUT = ((1.0 / 65535, INT16_MIN, 2.0 / 65535, 0), lambda v: 1.0 / (1.0 + v))


def softmax16_tables(s_in: float, beta: float) -> tuple[np.ndarray, np.ndarray]:
    """(E, R): E[d + 65535] = SoftMaxCalculateExp of the difference d = q - max in
    [-65535, 0]; R[v + 32768] = the 1/(1 + x) LUTLookup of every int16 v."""
    scaled = float(np.float32(np.float32(s_in) * np.float32(beta)))
    m, shift = quantize_multiplier(scaled / (10.0 / 65535.0))
    d = np.arange(-65535, 1, dtype=np.int64)
    diff = np.clip(mbqm(d, m, shift) + 32767, INT16_MIN, INT16_MAX)
    (params, f) = SOFTMAX_EXP_LUT
    e = lut_lookup(diff, lut_populate_int16(f, *params))
    (params, f) = SOFTMAX_RECIPROCAL_LUT
    r = lut_lookup(np.arange(INT16_MIN, INT16_MAX + 1), lut_populate_int16(f, *params))
    return e, r


def clz32(x) -> np.ndarray:
    """Leading zero bits of positive int32 values."""
    x = np.asarray(x, np.int64)
    n = np.zeros_like(x)
    for bit in range(31, -1, -1):
        n = np.where((x < (1 << bit)) & (n == 31 - bit), n + 1, n)
    return n


def softmax_int16(q, s_in: float, beta: float) -> np.ndarray:
    """TFLite's int16 SOFTMAX along the last axis (reference_ops::SoftmaxInt16)."""
    q = np.asarray(q, np.int64)
    e_tab, r_tab = softmax16_tables(s_in, beta)
    e = e_tab[q - q.max(axis=-1, keepdims=True) + 65535]
    total = e.sum(axis=-1, keepdims=True)
    h = clz32(total)
    shifted = ((total << (h - 1)) + (1 << 13)) >> 14
    r = r_tab[np.clip(shifted - ((1 << 15) + (1 << 16)), INT16_MIN, INT16_MAX) + 32768]
    rs = 31 - h
    return np.clip((e * r + (np.int64(1) << (rs - 1))) >> rs, 0, INT16_MAX)


__all__ = ["INT16_MAX", "INT16_MIN", "clz32", "lut_lookup", "lut_populate_int16", "mbqm64",
           "reduced_multiplier", "softmax16_tables", "softmax_int16"]
