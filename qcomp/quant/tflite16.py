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
                       output_zero_point: int, single: bool = False) -> np.ndarray:
    """LUTPopulateInt16<double> (common.h): the 513-entry table of `f` (a double ->
    double function: `math.exp`, ...), every step in double as TFLite computes it; with
    `single`, LUTPopulateInt16<float> (`f` then takes and returns f32 values)."""
    t = np.float32 if single else float
    in_min = t(input_scale) * t(INT16_MIN - input_zero_point)
    in_max = t(input_scale) * t(INT16_MAX - input_zero_point)
    out_min = t(output_scale) * t(INT16_MIN - output_zero_point)
    out_max = t(output_scale) * t(INT16_MAX - output_zero_point)
    steps = 512
    step = (in_max - in_min) / t(steps)
    half = step / t(2)
    inv = t(INT16_MAX - INT16_MIN + 1) / (out_max - out_min)

    def rnd(x):
        return t(_round(float(x)))
    lut = np.zeros(steps + 1, np.int64)
    for i in range(steps):
        val = t(f(in_min + t(i) * step))
        mid = t(f(in_min + t(i) * step + half))
        nxt = t(f(in_min + t(i + 1) * step))
        sample = rnd(val * inv)
        interp = rnd((nxt * inv + rnd(val * inv)) / t(2))
        err = interp - rnd(mid * inv)
        bias = rnd(err / t(2))
        lut[i] = int(min(max(sample - bias, t(INT16_MIN)), t(INT16_MAX)))
    lut[steps] = int(min(max(rnd(t(f(in_max)) * inv), t(INT16_MIN)), t(INT16_MAX)))
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


SIGMOID_TABLE_UINT16 = np.array([
    32768, 33451, 34133, 34813, 35493, 36169, 36843, 37513, 38180, 38841, 39498,
    40149, 40794, 41432, 42064, 42688, 43304, 43912, 44511, 45102, 45683, 46255,
    46817, 47369, 47911, 48443, 48964, 49475, 49975, 50464, 50942, 51409, 51865,
    52311, 52745, 53169, 53581, 53983, 54374, 54755, 55125, 55485, 55834, 56174,
    56503, 56823, 57133, 57433, 57724, 58007, 58280, 58544, 58800, 59048, 59288,
    59519, 59743, 59959, 60168, 60370, 60565, 60753, 60935, 61110, 61279, 61441,
    61599, 61750, 61896, 62036, 62172, 62302, 62428, 62549, 62666, 62778, 62886,
    62990, 63090, 63186, 63279, 63368, 63454, 63536, 63615, 63691, 63765, 63835,
    63903, 63968, 64030, 64090, 64148, 64204, 64257, 64308, 64357, 64405, 64450,
    64494, 64536, 64576, 64614, 64652, 64687, 64721, 64754, 64786, 64816, 64845,
    64873, 64900, 64926, 64950, 64974, 64997, 65019, 65039, 65060, 65079, 65097,
    65115, 65132, 65149, 65164, 65179, 65194, 65208, 65221, 65234, 65246, 65258,
    65269, 65280, 65291, 65301, 65310, 65319, 65328, 65337, 65345, 65352, 65360,
    65367, 65374, 65381, 65387, 65393, 65399, 65404, 65410, 65415, 65420, 65425,
    65429, 65433, 65438, 65442, 65445, 65449, 65453, 65456, 65459, 65462, 65465,
    65468, 65471, 65474, 65476, 65479, 65481, 65483, 65485, 65488, 65489, 65491,
    65493, 65495, 65497, 65498, 65500, 65501, 65503, 65504, 65505, 65507, 65508,
    65509, 65510, 65511, 65512, 65513, 65514, 65515, 65516, 65517, 65517, 65518,
    65519, 65520, 65520, 65521, 65522, 65522, 65523, 65523, 65524, 65524, 65525,
    65525, 65526, 65526, 65526, 65527, 65527, 65528, 65528, 65528, 65529, 65529,
    65529, 65529, 65530, 65530, 65530, 65530, 65531, 65531, 65531, 65531, 65531,
    65532, 65532, 65532, 65532, 65532, 65532, 65533, 65533, 65533, 65533, 65533,
    65533, 65533, 65533, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65534,
    65534, 65534, 65535], np.int64)
"""common.h's sigmoid_table_uint16: sigmoid(k / 24) in 0.16 fixed point, k = 0..255."""


def checked_log2(x: float) -> tuple[int, bool]:
    """CheckedLog2 (f32): (round(log2 x), |log2 x - round| < 1e-3)."""
    lg = np.float32(np.float32(np.log(np.float32(x))) * np.float32(1.0 / np.log(np.float32(2.0))))
    r = np.float32(_round(float(lg)))
    return int(r), bool(abs(np.float32(lg - r)) < np.float32(1e-3))


def sigmoid_tanh_input_params(s_in: float, tanh: bool) -> tuple[int, int]:
    """(input_multiplier, input_left_shift) of TanhPrepare / SigmoidPrepare for int16,
    as the kernel uses them: a power-of-two scale (shift (15 - 3) + log2 s_in of 0,
    or 1 for TANH) gives (3 << shift, 0); otherwise s_in * 4096 * 3 doubled while at most
    32767 / 2 (at most 31 times), truncated."""
    log2, pot = checked_log2(s_in)
    shift = 12 + log2
    if pot and (shift == 0 or (tanh and shift == 1)):
        return 3 << shift, 0
    m, shift = float(np.float32(s_in)) * 4096.0 * 3.0, 0
    while m <= 32767.0 / 2.0 and shift <= 30:
        shift += 1
        m *= 2.0
    return int(m), shift


def _scaled_input(q, s_in: float, tanh: bool) -> np.ndarray:
    mult, shift = sigmoid_tanh_input_params(s_in, tanh)
    half = (1 << (shift - 1)) if shift > 0 else 0
    x = (np.asarray(q, np.int64) * mult + half) >> shift
    return ((x + (1 << 31)) & 0xFFFFFFFF) - (1 << 31)  # int32 arithmetic


def _table_interpolation(x: np.ndarray, bits: int, saturated: int) -> np.ndarray:
    """(ua << bits) + frac(|x|) (ub - ua): sigmoid_table_uint16 at |x| >> bits and the
    next entry, interpolated by the low `bits` bits; `saturated` from entry 255 on."""
    a = np.abs(x)
    uh = a >> bits
    i = np.minimum(uh, 254)
    ua, ub = SIGMOID_TABLE_UINT16[i], SIGMOID_TABLE_UINT16[i + 1]
    return np.where(uh >= 255, np.int64(saturated),
                    (ua << bits) + (a & ((1 << bits) - 1)) * (ub - ua))


def logistic_int16(q, s_in: float) -> np.ndarray:
    """reference_integer_ops::Logistic (int16): interpolation in sigmoid_table_uint16 by
    |x| (9 fractional bits), x the input at scale 1/(3 * 4096), mirrored for x < 0."""
    x = _scaled_input(q, s_in, tanh=False)
    r = _table_interpolation(x, 9, 0x7FFF << 10)
    r = np.where(x >= 0, r + (1 << 9), (1 << 25) - r + (1 << 9) - 1) & 0xFFFFFFFF
    return _wrap16(r >> 10)


def tanh_int16(q, s_in: float) -> np.ndarray:
    """reference_integer_ops::Tanh (int16): 2 sigmoid(2x) - 1 from the same table by |x|
    (8 fractional bits)."""
    x = _scaled_input(q, s_in, tanh=True)
    r = _table_interpolation(x, 8, 0xFFFF << 8)
    r = np.where(x >= 0, r - (1 << 23) + (1 << 7), -r + (1 << 23) + (1 << 7) - 1)
    r = ((r + (1 << 31)) & 0xFFFFFFFF) - (1 << 31)
    return _wrap16(r >> 8)


def rsqrt_lut(s_in: float, s_out: float) -> np.ndarray:
    """RSQRT int16's table (elementwise.cc): LUTPopulate<int16_t> (f32) of 1 / sqrtf(x),
    32767 s_out for x <= 0."""
    def f(x):
        x = np.float32(x)
        if x <= 0:
            return np.float32(INT16_MAX) * np.float32(s_out)
        return np.float32(1.0) / np.float32(np.sqrt(x))
    return lut_populate_int16(f, s_in, 0, s_out, 0, single=True)


__all__ = [
    "INT16_MAX",
    "INT16_MIN",
    "SIGMOID_TABLE_UINT16",
    "checked_log2",
    "clz32",
    "logistic_int16",
    "lut_lookup",
    "lut_populate_int16",
    "mbqm64",
    "reduced_multiplier",
    "rsqrt_lut",
    "sigmoid_tanh_input_params",
    "softmax16_tables",
    "softmax_int16",
    "tanh_int16",
]
