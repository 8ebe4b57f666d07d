"""TFLite's integer arithmetic (tensorflow/lite/kernels/internal/common.h,
quantization_util.cc and the int8 reference kernels), in NumPy int64.

What `stablehlo-legalize-quant-to-math{rescale=fixed-point}` emits, and what its tables
are computed with:

    QuantizeMultiplier(m):  (q, e) = frexp(m); M = round_half_away(q * 2^31);
                            M == 2^31 -> (M / 2, e + 1); e < -31 -> (0, 0)
    SRDHM(a, b)          =  trunc((a*b + (a*b >= 0 ? 2^30 : 1 - 2^30)) / 2^31)
    RDBPOT(x, e)         =  (x >> e) + ((x & (2^e - 1)) > ((2^e - 1) >> 1) + (x < 0))
    MBQM(x, M, shift)    =  RDBPOT(SRDHM(x * 2^max(shift, 0), M), max(-shift, 0))

The int8 kernels LiteRT 2.3's reference resolver (BUILTIN_REF) runs, as computed here:

    QUANTIZE f32 -> int8   clamp(round_half_away(f32(x / f32(s))) + z)   (AffineQuantize)
    SOFTMAX int8           T[k] = expf(f32(-s_in * beta) * k), k = max - q in [0, 255];
                           S = f32 Σ T[k_j] (in order); p = T[k] * f32(1 / f32(S / 256));
                           clamp(round_half_away(p) - 128)  (optimized_ops::Softmax's table,
                           which the reference kernel uses for int8 too)
    MEAN int8              (M, e) = QuantizeMultiplier(s_in / s_out); k = min(floor(log2 n),
                           32, 31 + e); M' = (M << k) / n; clamp(MBQM(Σ q - z_in n, M',
                           e - k) + z_out)  (reference_ops::QuantizedMeanOrSum)
    FULLY_CONNECTED int8   clamp(round_half_away(f64(acc) * (s_in * s_w[c] / s_out)) + z_out)
                           in f64 (reference_integer_ops::FullyConnected{,PerChannel}'s
                           float-scale overloads; not MBQM, and not the f32 product
                           s_in * s_w that GetQuantizedConvolutionMultipler forms)
    CONV_2D / DEPTHWISE    MBQM with QuantizeMultiplier(s_in * s_w[c] / s_out) (f64)
"""

from __future__ import annotations

import math

import numpy as np


def quantize_multiplier(m: float) -> tuple[int, int]:
    """TFLite's QuantizeMultiplier: m ~= M * 2^(shift - 31), M in [2^30, 2^31)."""
    if m == 0.0:
        return 0, 0
    q, e = math.frexp(m)
    fixed = math.floor(abs(q) * (1 << 31) + 0.5) * (1 if q >= 0 else -1)
    if fixed == 1 << 31:
        fixed //= 2
        e += 1
    if e < -31:
        return 0, 0
    return fixed, e


def quantize_multipliers(ms) -> tuple[np.ndarray, np.ndarray]:
    """`quantize_multiplier` of each element: (M, shift) arrays of `ms`'s shape."""
    m = np.asarray(ms, np.float64)
    pairs = [quantize_multiplier(float(v)) for v in m.reshape(-1)]
    return (np.array([p[0] for p in pairs], np.int64).reshape(m.shape),
            np.array([p[1] for p in pairs], np.int64).reshape(m.shape))


def srdhm(a, b) -> np.ndarray:
    """SaturatingRoundingDoublingHighMul of int32 values (saturates INT32_MIN * INT32_MIN)."""
    a = np.asarray(a, np.int64)
    b = np.asarray(b, np.int64)
    ab = a * b
    nudge = np.where(ab >= 0, np.int64(1 << 30), np.int64(1 - (1 << 30)))
    s = ab + nudge
    high = np.where(s >= 0, s >> 31, -((-s) >> 31))  # C++ division: toward zero
    return np.where((a == b) & (a == -(1 << 31)), np.int64((1 << 31) - 1), high)


def rdbpot(x, exponent) -> np.ndarray:
    """RoundingDivideByPOT: x / 2^exponent rounded to nearest, ties away from zero."""
    x = np.asarray(x, np.int64)
    e = np.asarray(exponent, np.int64)
    mask = (np.int64(1) << e) - 1
    remainder = x & mask
    threshold = (mask >> 1) + (x < 0)
    return (x >> e) + (remainder > threshold)


def mbqm(x, multiplier, shift) -> np.ndarray:
    """MultiplyByQuantizedMultiplier (TFLite's default double rounding)."""
    shift = np.asarray(shift, np.int64)
    left = np.maximum(shift, 0)
    right = np.maximum(-shift, 0)
    return rdbpot(srdhm(np.asarray(x, np.int64) << left, multiplier), right)


def requantize(q, s_in: float, z_in: int, s_out: float, z_out: int, lo: int, hi: int):
    """TFLite's int8 QUANTIZE (requantize): clamp(MBQM(q - z_in, s_in / s_out) + z_out)."""
    m, sh = quantize_multiplier(float(s_in) / float(s_out))
    return np.clip(mbqm(np.asarray(q, np.int64) - z_in, m, sh) + z_out, lo, hi)


def lut_int8(fn, s_in: float, z_in: int, s_out: float, z_out: int) -> np.ndarray:
    """TFLite's LUTPopulate<int8_t> (logistic, tanh): for q in [-128, 127],
    clamp(int(round_half_away(f32(fn(f32(s_in * (q - z_in))) * f32(1 / s_out)))) + z_out);
    fn is evaluated in float64 and rounded to f32 (a correctly rounded expf/tanhf)."""
    q = np.arange(-128, 128, dtype=np.int64)
    x = np.float32(s_in) * (q - z_in).astype(np.float32)
    y = fn(x.astype(np.float64)).astype(np.float32)
    inv = np.float32(1.0) / np.float32(s_out)
    r = (y * inv).astype(np.float32)
    rounded = np.sign(r) * np.floor(np.abs(r).astype(np.float64) + 0.5)
    return np.clip(rounded.astype(np.int64) + z_out, -128, 127)


def logistic_f(x: np.ndarray) -> np.ndarray:
    """1 / (1 + exp(-x)) as TFLite's table computes it (f32 steps)."""
    with np.errstate(over="ignore"):
        e = np.exp(-x).astype(np.float32)
    return (np.float32(1.0) / (np.float32(1.0) + e)).astype(np.float64)


def round_half_away(x) -> np.ndarray:
    """TfLiteRound / std::round: to nearest, ties away from zero (exact for floats)."""
    x = np.asarray(x, np.float64)
    r = np.floor(np.abs(x) + 0.5)
    # |x| + 0.5 is exact below 2^52; just below a half it may round up: correct that
    r = np.where(r - np.abs(x) > 0.5, r - 1, r)
    return np.copysign(r, x)


def quantize_f32(x, scale: float, zero_point: int, lo: int = -128, hi: int = 127):
    """TFLite's AffineQuantize (float -> int8): clamp(round_half_away(x / f32(s)) + z)."""
    q = np.asarray(x, np.float32) / np.float32(scale)
    return np.clip(round_half_away(q.astype(np.float32)).astype(np.int64) + zero_point, lo, hi)


def fully_connected_rescale(acc, s_in: float, s_w, s_out: float, z_out: int,
                            lo: int = -128, hi: int = 127) -> np.ndarray:
    """TFLite's int8 FULLY_CONNECTED output (reference kernels): the i32 accumulator
    `acc` [..., channels] times s_in * s_w[c] / s_out in f64, rounded half away from
    zero, plus z_out, clamped."""
    m = float(s_in) * np.asarray(s_w, np.float64) / float(s_out)
    r = round_half_away(np.asarray(acc, np.float64) * m).astype(np.int64)
    return np.clip(r + z_out, lo, hi)


def softmax_table(s_in: float, beta: float) -> np.ndarray:
    """PopulateSoftmaxLookupTable: T[k] = expf(f32(-s_in * beta) * k), k = 0..255 (the
    distance below the row's maximum; expf as a correctly rounded f32 exp)."""
    scale = np.float32(-np.float32(s_in) * np.float32(beta))
    x = (scale * np.arange(256, dtype=np.float32)).astype(np.float32)
    return np.exp(x.astype(np.float64)).astype(np.float32)


def softmax_int8(q, s_in: float, beta: float, s_out: float, z_out: int) -> np.ndarray:
    """TFLite's int8 SOFTMAX along the last axis (`softmax_table`, an in-order f32 sum,
    p = T * f32(1 / (S * s_out)), clamp(round_half_away(p) + z_out))."""
    q = np.asarray(q, np.int64)
    t = softmax_table(s_in, beta)
    e = t[q.max(axis=-1, keepdims=True) - q]
    total = np.zeros(q.shape[:-1], np.float32)
    for j in range(q.shape[-1]):
        total = (total + e[..., j]).astype(np.float32)
    inv = (np.float32(1.0) / (total * np.float32(s_out)).astype(np.float32)).astype(np.float32)
    p = (e * inv[..., None]).astype(np.float32)
    return np.clip(round_half_away(p).astype(np.int64) + z_out, -128, 127)


def mean_multiplier(s_in: float, s_out: float, count: int) -> tuple[int, int]:
    """QuantizedMeanOrSum's multiplier of a mean over `count` values: (M, e) of
    s_in / s_out, then M' = (M << k) / count, e' = e - k, k = min(floor(log2 count), 32,
    31 + e)."""
    m, e = quantize_multiplier(float(s_in) / float(s_out))
    k = min(count.bit_length() - 1, 32, 31 + e)
    return (m << k) // count, e - k


def mean_int8(q, axes, s_in: float, z_in: int, s_out: float, z_out: int) -> np.ndarray:
    """TFLite's int8 MEAN (reference): clamp(MBQM(Σ q - z_in n, M', e') + z_out) over
    `axes` (kept as size 1)."""
    q = np.asarray(q, np.int64)
    n = int(np.prod([q.shape[a] for a in axes]))
    m, e = mean_multiplier(s_in, s_out, n)
    total = q.sum(axis=tuple(axes), keepdims=True) - z_in * n
    return np.clip(mbqm(total, m, e) + z_out, -128, 127)


def average_pool(window_sum, count) -> np.ndarray:
    """TFLite's int8 average pool division: (sum +- count/2) / count, toward zero."""
    s = np.asarray(window_sum, np.int64)
    c = np.asarray(count, np.int64)
    num = np.where(s > 0, s + c // 2, s - c // 2)
    return np.where(num >= 0, num // c, -((-num) // c))


__all__ = [
    "average_pool",
    "fully_connected_rescale",
    "logistic_f",
    "lut_int8",
    "mbqm",
    "mean_int8",
    "mean_multiplier",
    "quantize_f32",
    "quantize_multiplier",
    "quantize_multipliers",
    "rdbpot",
    "requantize",
    "round_half_away",
    "softmax_int8",
    "softmax_table",
    "srdhm",
]
