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


def leaky_relu_int8(q, s_in: float, z_in: int, alpha: float, s_out: float, z_out: int,
                    lo: int = -128, hi: int = 127) -> np.ndarray:
    """TFLite's quantized LEAKY_RELU (reference_ops::QuantizeLeakyRelu): c = q - z_in;
    clamp(MBQM(c, s_in / s_out) + z_out) for c >= 0, clamp(MBQM(c, f32(f32(s_in alpha) /
    s_out)) + z_out) below (LeakyReluPrepare's products are f32)."""
    c = np.asarray(q, np.int64) - z_in
    f = np.float32
    mi, si = quantize_multiplier(float(f(s_in) / f(s_out)))
    ma, sa = quantize_multiplier(float(f(f(s_in) * f(alpha)) / f(s_out)))
    r = np.where(c >= 0, mbqm(c, mi, si), mbqm(c, ma, sa))
    return np.clip(r + z_out, lo, hi)


def _i16(x) -> np.ndarray:
    """Two's-complement wrap to int16 (a C++ static_cast<int16_t>)."""
    return ((np.asarray(x, np.int64) + (1 << 15)) & 0xFFFF) - (1 << 15)


def _srdhm16(a, b) -> np.ndarray:
    """gemmlowp's SaturatingRoundingDoublingHighMul on int16."""
    a, b = np.asarray(a, np.int64), np.asarray(b, np.int64)
    ab = a * b
    nudge = np.where(ab >= 0, 1 << 14, 1 - (1 << 14))
    s = ab + nudge
    high = _i16(np.where(s >= 0, s >> 15, -((-s) >> 15)))
    return np.where((a == b) & (a == -(1 << 15)), (1 << 15) - 1, high)


def _sdhm16(a, b) -> np.ndarray:
    """TFLite's SaturatingDoublingHighMul on int16 (no rounding: ab / 2^15 toward zero)."""
    a, b = np.asarray(a, np.int64), np.asarray(b, np.int64)
    ab = a * b
    high = _i16(np.where(ab >= 0, ab >> 15, -((-ab) >> 15)))
    return np.where((a == b) & (a == -(1 << 15)), (1 << 15) - 1, high)


def _to_int16_multiplier(m32: int) -> int:
    """DownScaleInt32ToInt16Multiplier: (M + 2^15) >> 16, saturated at 2^15 - 1."""
    return (1 << 15) - 1 if m32 >= (1 << 31) - 1 - (1 << 15) else (m32 + (1 << 15)) >> 16


def hard_swish_int8(q, s_in: float, z_in: int, s_out: float, z_out: int,
                    lo: int = -128, hi: int = 127) -> np.ndarray:
    """TFLite's int8 HARD_SWISH (reference_ops::HardSwish with HardSwishPrepare's
    int16 multipliers): x = (q - z_in) * 2^7 at the "hires" scale s_in / 128;
    y = SRDHM16(x, M_out); r = x rescaled by (s_in / 128) / (3 / 2^15) (M_relu, e:
    a saturating left shift by e - 1, SRDHM16, a left shift by 1; or RDBPOT by -e), then
    (r + 2^15) >> 1; out = clamp(RDBPOT(SDHM16(r, y), -e_out) + z_out)."""
    f = np.float32
    hires = f(f(1.0 / 128.0) * f(s_in))
    m_out, e_out = quantize_multiplier(float(f(hires / f(s_out))))
    m_relu, e_relu = quantize_multiplier(float(f(hires / f(3.0 / 32768.0))))
    m_out, m_relu = _to_int16_multiplier(m_out), _to_int16_multiplier(m_relu)
    x = (np.asarray(q, np.int64) - z_in) * (1 << 7)
    y = _srdhm16(x, m_out)
    r = x
    if e_relu > 0:
        r = np.clip(r * (1 << (e_relu - 1)), -(1 << 15), (1 << 15) - 1)
    r = _srdhm16(r, m_relu)
    if e_relu > 0:
        r = np.clip(r * 2, -(1 << 15), (1 << 15) - 1)
    if e_relu < 0:
        r = rdbpot(r, -e_relu)
    r = (r + (1 << 15)) >> 1
    out = rdbpot(_sdhm16(r, y), -e_out)
    return np.clip(_i16(out) + z_out, lo, hi)


def bilinear_weights(n_in: int, n_out: int, align_corners: bool, half_pixel: bool
                     ) -> np.ndarray:
    """ResizeBilinearInteger's interpolation along one dimension as an [n_out, n_in]
    int64 matrix of 10-bit weights (each row sums to 2^10): scale = (2^10 n_in +
    n_out / 2) / n_out (align_corners: (2^10 (n_in - 1) + (n_out - 1) / 2) / (n_out - 1));
    v = i scale (+ scale / 2 - 2^9 with half-pixel centres); lo = max(v / 2^10, 0)
    (C++ division), hi = min(ceil(v / 2^10), n_in - 1); row i: 2^10 - (v - 2^10 lo) at
    lo, v - 2^10 lo at hi."""
    def cdiv(a: int, b: int) -> int:  # C++ integer division: toward zero
        return abs(a) // b * (1 if a >= 0 else -1)
    scale = ((1 << 10) * n_in + n_out // 2) // n_out
    if align_corners and n_out > 1:
        scale = ((1 << 10) * (n_in - 1) + (n_out - 1) // 2) // (n_out - 1)
    w = np.zeros((n_out, n_in), np.int64)
    for i in range(n_out):
        v = i * scale + (scale // 2 - (1 << 9) if half_pixel else 0)
        lo = max(cdiv(v, 1 << 10), 0)
        hi = min(cdiv(v + (1 << 10) - 1, 1 << 10), n_in - 1)
        frac = v - (1 << 10) * lo
        w[i, lo] += (1 << 10) - frac
        w[i, hi] += frac
    return w


def _sat_shift_left(x: int, e: int) -> int:
    """gemmlowp's SaturatingRoundingMultiplyByPOT<e> for e > 0 on one int32."""
    t = (1 << (31 - e)) - 1
    return (1 << 31) - 1 if x > t else -(1 << 31) if x < -t else x << e


def inv_sqrt_multiplier(x: int) -> tuple[int, int]:
    """TFLite's GetInvSqrtQuantizedMultiplierExp(x, reverse_shift=-1): 1 / sqrt(x) as
    (M, shift) for MBQM, by five Newton-Raphson steps in gemmlowp's Q3.28 (x <= 1:
    (2^31 - 1, 0))."""
    if x <= 1:
        return (1 << 31) - 1, 0
    shift = 11
    while x >= 1 << 29:
        x //= 4
        shift += 1
    pairs = ((32 - x.bit_length()) - 1) // 2 - 1
    shift -= pairs
    x <<= 2 * pairs

    def mul(a: int, b: int) -> int:
        return int(srdhm(a, b))
    half_input = int(rdbpot(x >> 1, 1))
    half_three = (1 << 28) + (1 << 27)
    v = 1 << 28
    for _ in range(5):
        v3 = _sat_shift_left(mul(mul(v, v), v), 6)
        v = _sat_shift_left(mul(half_three, v) - mul(half_input, v3), 3)
    v = mul(v, 1518500250)
    if shift < 0:
        v <<= -shift
        shift = 0
    return v, -shift


def rsqrt_int8(q, s_in: float, z_in: int, s_out: float, z_out: int) -> np.ndarray:
    """TFLite's int8 RSQRT (elementwise.cc RsqrtEvalQuantized): v = q - z_in; v = 0 ->
    127; else d = MBQM(1, inv_sqrt_multiplier(v) with shift + 20), out =
    clamp(MBQM(d, QuantizeMultiplier(1 / f32(sqrtf(s_in) s_out)), shift - 20) + z_out)
    (v < 0 is an error in LiteRT: 127 here)."""
    f = np.float32
    m, e = quantize_multiplier(1.0 / float(f(np.sqrt(f(s_in), dtype=f) * f(s_out))))
    out = []
    for v in (np.asarray(q, np.int64) - z_in).reshape(-1):
        if v <= 0:
            out.append(127)
            continue
        im, ie = inv_sqrt_multiplier(int(v))
        d = int(mbqm(1, im, ie + 20))
        out.append(int(np.clip(int(mbqm(d, m, e - 20)) + z_out, -128, 127)))
    return np.array(out, np.int64).reshape(np.shape(q))


def libm_f32(name: str):
    """The C library's f32 function `name` (`tanhf`, `erfcf`: what TFLite's float
    transforms call, std::tanh / std::erfc on float) over an array; where there is no
    C math library to load, the double function rounded to f32."""
    import ctypes
    import ctypes.util

    try:
        fn = getattr(ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6"), name)
        fn.restype, fn.argtypes = ctypes.c_float, [ctypes.c_float]
    except (OSError, AttributeError):
        fn = getattr(math, name[:-1])
    return lambda x: np.array([fn(float(v)) for v in np.asarray(x).reshape(-1)],
                              np.float32).reshape(np.shape(x))


def gelu_f(approximate: bool):
    """TFLite's GeluTransform / GeluTransformApproximate in f32 steps (erfc and tanh the
    C library's f32 ones, `libm_f32`): 0.5x erfc(-x / sqrt 2), or 0.5x (1 + tanh(
    sqrt(2/pi) (x + 0.044715 x^3)))."""
    f = np.float32
    tanhf, erfcf = libm_f32("tanhf"), libm_f32("erfcf")

    def fn(x: np.ndarray) -> np.ndarray:
        x = x.astype(f)
        half = (f(0.5) * x).astype(f)
        if approximate:
            cube = (((f(0.044715) * x).astype(f) * x).astype(f) * x).astype(f)
            inner = (f(np.sqrt(2.0 / np.pi)) * (x + cube).astype(f)).astype(f)
            return (half * (f(1.0) + tanhf(inner)).astype(f)).astype(f).astype(np.float64)
        arg = (x * f(-np.sqrt(0.5))).astype(f)
        return (half * erfcf(arg)).astype(f).astype(np.float64)
    return fn


def squared_difference_int8(q1, q2, s1: float, z1: int, s2: float, z2: int, s_out: float,
                            z_out: int) -> np.ndarray:
    """TFLite's int8 SQUARED_DIFFERENCE: x_i = MBQM((q_i - z_i) 2^7, s_i / 2max(s_1, s_2));
    clamp(MBQM((x_1 - x_2)^2, (2max)^2 / (2^14 s_out)) + z_out)."""
    twice = 2.0 * max(float(np.float32(s1)), float(np.float32(s2)))
    xs = []
    for q, z, s in ((q1, z1, s1), (q2, z2, s2)):
        m, e = quantize_multiplier(float(s) / twice)
        xs.append(mbqm((np.asarray(q, np.int64) - z) << 7, m, e))
    m, e = quantize_multiplier(twice * twice / ((1 << 14) * float(s_out)))
    d = xs[0] - xs[1]
    return np.clip(mbqm(d * d, m, e) + z_out, -128, 127)


def abs_int8(q, s_in: float, z_in: int, s_out: float, z_out: int) -> np.ndarray:
    """TFLite's int8 ABS (elementwise.cc AbsEvalQuantized): v = |q - z_in|; clamp(v +
    z_out) when the scales are equal, else clamp(MBQM(v, QuantizeMultiplier(f32(s_in /
    s_out))) + z_out)."""
    v = np.abs(np.asarray(q, np.int64) - z_in)
    if np.float32(s_in) != np.float32(s_out):
        m, e = quantize_multiplier(float(np.float32(s_in) / np.float32(s_out)))
        v = mbqm(v, m, e)
    return np.clip(v + z_out, -128, 127)


__all__ = [
    "abs_int8",
    "average_pool",
    "bilinear_weights",
    "fully_connected_rescale",
    "gelu_f",
    "hard_swish_int8",
    "inv_sqrt_multiplier",
    "leaky_relu_int8",
    "libm_f32",
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
    "rsqrt_int8",
    "softmax_int8",
    "softmax_table",
    "squared_difference_int8",
    "srdhm",
]
