"""gemmlowp's int32 fixed-point functions (fixedpoint/fixedpoint.h) and TFLite's
log_x_for_x_greater_than_or_equal_to_1 (kernels/internal/common.h), written once over
an arithmetic backend `f` so that the same steps run on NumPy (`NUMPY`, here) and as
StableHLO integer ops (`qcomp.tflite.fixed_ir.FixedIR`).

A Qm value (`FixedPoint<int32, m>`) is a raw int32 r standing for r / 2^(31 - m). The
backend's primitives, on int32 values held in int64:

    srdhm(a, b)      SaturatingRoundingDoublingHighMul (the product of a Qm and a Qn: Qm+n)
    rdbpot(x, e)     RoundingDivideByPOT: x / 2^e to nearest, ties away from zero
    shl_sat(x, e)    SaturatingRoundingMultiplyByPOT(Param) for e >= 0: x 2^e, saturated
                     to int32 (|x| > 2^(31 - e) - 1 -> INT32_MAX / INT32_MIN)
    half_sum(a, b)   RoundingHalfSum: (a + b + sign(a + b)) / 2 toward zero
    clz(x)           CountLeadingZeros(uint32(x))
    sat(x)           clamp to int32;  wrap(x): two's-complement wrap to int32

Rescale<n>(Qm x) is shl_sat(x, m - n) for m > n and rdbpot(x, n - m) for m < n.
"""

from __future__ import annotations

import math

import numpy as np

from qcomp.quant.tflite import mbqm, quantize_multiplier, rdbpot, srdhm

INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1

# exp(-2^k) in Q0.31 for k = -2..4 (GEMMLOWP_EXP_BARREL_SHIFTER)
_EXP_BARREL = ((-2, 1672461947), (-1, 1302514674), (0, 790015084), (1, 290630308),
               (2, 39332535), (3, 720401), (4, 242))


class _Numpy:
    """The backend on NumPy int64 arrays (int32 values)."""

    _CMP = {"EQ": np.equal, "NE": np.not_equal, "LT": np.less, "LE": np.less_equal,
            "GT": np.greater, "GE": np.greater_equal}

    def c(self, v):
        return np.int64(v)

    def add(self, x, y):
        return np.asarray(x, np.int64) + y

    def sub(self, x, y):
        return np.asarray(x, np.int64) - y

    def and_(self, x, y):
        return np.asarray(x, np.int64) & y

    def srdhm(self, x, y):
        return srdhm(x, y)

    def rdbpot(self, x, e: int):
        return rdbpot(x, e)

    def shl_sat(self, x, e):
        x, e = np.asarray(x, np.int64), np.asarray(e, np.int64)
        t = (np.int64(1) << (31 - e)) - 1
        return np.where(x > t, INT32_MAX, np.where(x < -t, INT32_MIN, x << e))

    def half_sum(self, x, y):
        s = np.asarray(x, np.int64) + y
        n = s + np.where(s >= 0, 1, -1)
        return np.where(n >= 0, n // 2, -((-n) // 2))

    def clz(self, x):
        u = np.asarray(x, np.int64) & 0xFFFFFFFF
        bits = np.array([int(v).bit_length() for v in u.reshape(-1)], np.int64)
        return 32 - bits.reshape(u.shape)

    def sat(self, x):
        return np.clip(np.asarray(x, np.int64), INT32_MIN, INT32_MAX)

    def wrap(self, x):
        return ((np.asarray(x, np.int64) - INT32_MIN) & 0xFFFFFFFF) + INT32_MIN

    def select(self, cond, x, y):
        return np.where(cond, x, y)

    def cmp(self, x, y, direction: str):
        return self._CMP[direction](x, y)

    def minimum(self, x, y):
        return np.minimum(x, y)

    def maximum(self, x, y):
        return np.maximum(x, y)


NUMPY = _Numpy()


def rescale(f, x, src_bits: int, dst_bits: int):
    """gemmlowp::Rescale<dst_bits> of a Q`src_bits` value."""
    e = src_bits - dst_bits
    return f.shl_sat(x, f.c(e)) if e > 0 else f.rdbpot(x, -e) if e < 0 else x


def _exp_on_quarter_interval(f, a):
    """exp(a) for a Q0 a in [-1/4, 0): Taylor's series around -1/8 (x = a + 1/8):
    e^(-1/8) (1 + x + RDBPOT(SRDHM(RDBPOT(x^4, 2) + x^3, 1/3) + x^2, 1))."""
    constant_term = f.c(1895147668)
    x = f.add(a, f.c(1 << 28))
    x2 = f.srdhm(x, x)
    x3 = f.srdhm(x2, x)
    x4 = f.srdhm(x2, x2)
    poly = f.rdbpot(f.add(f.srdhm(f.add(f.rdbpot(x4, 2), x3), f.c(715827883)), x2), 1)
    return f.add(constant_term, f.srdhm(constant_term, f.add(x, poly)))


def exp_on_negative_values(f, a, integer_bits: int):
    """gemmlowp's exp_on_negative_values of a Q`integer_bits` a <= 0, a Q0 result: the
    quarter-interval series at (a mod 1/4) - 1/4, times exp(-2^k) for each bit k of the
    remainder (k = -2..4 below `integer_bits`); a = 0 -> INT32_MAX."""
    frac = 31 - integer_bits
    quarter = 1 << (frac - 2)
    m = f.sub(f.and_(a, f.c(quarter - 1)), f.c(quarter))
    result = _exp_on_quarter_interval(f, rescale(f, m, integer_bits, 0))
    remainder = f.sub(m, a)
    for k, multiplier in _EXP_BARREL:
        if integer_bits > k:
            bit = f.and_(remainder, f.c(1 << (frac + k)))
            result = f.select(f.cmp(bit, f.c(0), "NE"), f.srdhm(result, f.c(multiplier)),
                              result)
    if integer_bits > 5:
        result = f.select(f.cmp(a, f.c(-(1 << (36 - integer_bits))), "LT"), f.c(0), result)
    return f.select(f.cmp(a, f.c(0), "EQ"), f.c(INT32_MAX), result)


def one_over_one_plus_x_for_x_in_0_1(f, a):
    """1 / (1 + a) for a Q0 a in [0, 1): three Newton-Raphson steps in Q2 from
    48/17 - 32/17 d (d = RoundingHalfSum(a, 1)), x <- x + Rescale<2>(x (1 - d x)); the Q0
    result Rescale<0>(x / 2)."""
    d = f.half_sum(a, f.c(INT32_MAX))
    x = f.add(f.c(1515870810), f.srdhm(d, f.c(-1010580540)))
    for _ in range(3):
        x = f.add(x, rescale(f, f.srdhm(x, f.sub(f.c(1 << 29), f.srdhm(d, x))), 4, 2))
    return rescale(f, x, 1, 0)


def log_x_for_x_greater_than_or_equal_to_1(f, z, output_bits: int, input_bits: int):
    """TFLite's log_x_for_x_greater_than_or_equal_to_1<output_bits>(Q`input_bits` z):
    z normalised two ways (r_a = z 2^(h_a - 1) sqrt(1/2) 2, r_b = z 2^(h_b), h the
    headrooms), r = min(r_a, r_b) in [sqrt(1/2), 1), the exponent part
    max(input_bits - h_a + 1/4, input_bits - h_b - 1/4) times log 2 plus a Padé
    approximant of log(r / 2^(-1/4)) (alpha_n, alpha_d, alpha_i, alpha_f), in
    Q(output_bits + 1), then Rescale<output_bits>."""
    accum = output_bits + 1
    log_2, sqrt_sqrt_half, sqrt_half = 1488522236, 1805811301, 1518500250
    alpha_n, alpha_d, alpha_i, alpha_f = 117049297, 127690142, 1057819769, 638450708
    quarter = f.c(int(rdbpot(536870912, accum)))
    h_a = f.clz(z)
    r_a = f.shl_sat(f.srdhm(f.shl_sat(z, f.sub(h_a, f.c(1))), f.c(sqrt_half)), f.c(1))
    adj_a = f.sat(f.add(f.shl_sat(f.sub(f.c(input_bits), h_a), f.c(31 - accum)), quarter))
    h_b = f.sub(f.clz(f.srdhm(z, f.c(sqrt_half))), f.c(1))
    r_b = f.shl_sat(z, h_b)
    adj_b = f.sat(f.sub(f.shl_sat(f.sub(f.c(input_bits), h_b), f.c(31 - accum)), quarter))
    r = f.minimum(r_a, r_b)
    adj = f.maximum(adj_a, adj_b)
    p = f.half_sum(r, f.c(sqrt_sqrt_half))
    q = f.sub(r, f.c(sqrt_sqrt_half))
    q = f.add(q, q)
    sq = f.srdhm(q, q)
    num = f.add(f.srdhm(q, r), f.srdhm(f.srdhm(q, sq), f.c(alpha_n)))
    den = f.add(f.srdhm(p, f.add(f.add(f.c(alpha_i), q), f.srdhm(f.c(alpha_d), sq))),
                f.srdhm(f.c(alpha_f), q))
    total = f.add(f.srdhm(adj, f.c(log_2)),
                  f.srdhm(rescale(f, num, 0, accum), one_over_one_plus_x_for_x_in_0_1(f, den)))
    return rescale(f, total, accum, output_bits)


LOG_SOFTMAX_DIFF_BITS = 5
"""kScaledDiffIntegerBits: the input differences are Q5.26."""


def log_softmax_params(s_in: float) -> tuple[int, int, int, int, int]:
    """LogSoftmaxPrepare (int8): PreprocessLogSoftmaxScalingExp(beta = 1, s_in, 5) and
    CalculateInputRadius: (M, e) = QuantizeMultiplier(min(s_in 2^26, 2^31 - 1)) (e >= 1);
    (M_r, e_r) = QuantizeMultiplier(2^(31 - e) / M); diff_min = -floor(31 2^26 / 2^e).
    Returns (M, e, M_r, e_r, diff_min)."""
    real = min(float(s_in) * float(1 << (31 - LOG_SOFTMAX_DIFF_BITS)), float(INT32_MAX))
    m, e = quantize_multiplier(real)
    rm, re = quantize_multiplier(float(1 << (31 - e)) / float(m))
    radius = ((1 << LOG_SOFTMAX_DIFF_BITS) - 1) * (1 << (31 - LOG_SOFTMAX_DIFF_BITS)) / (1 << e)
    return m, e, rm, re, -math.floor(radius)


def log_softmax_tables(s_in: float) -> tuple[np.ndarray, np.ndarray]:
    """The per-difference terms of the int8 LogSoftmax, k = max - q in [0, 255]:
    d[k] = MBQM(-k, M, e) (the Q5.26 difference) and x[k] = Rescale<12>(exp(d[k])) (0
    where -k < diff_min: not summed)."""
    m, e, _, _, diff_min = log_softmax_params(s_in)
    diff = -np.arange(256, dtype=np.int64)
    valid = diff >= diff_min
    d = np.where(valid, mbqm(np.where(valid, diff, 0), m, e), 0)
    x = rescale(NUMPY, exp_on_negative_values(NUMPY, d, LOG_SOFTMAX_DIFF_BITS), 0, 12)
    return d, np.where(valid, x, 0)


def log_softmax_row(f, total, rm: int, re: int, diff_min: int):
    """A row's terms of the int8 LogSoftmax from its sum `total` = Σ x[k]
    (`log_softmax_tables`): L = log_x(total) (Q12 in, Q5 out) and the limit
    a = max(diff_min - 1, MBQM(L + INT32_MIN, M_r, e_r)). Returns (L, a)."""
    log_sum = log_x_for_x_greater_than_or_equal_to_1(f, f.wrap(total), LOG_SOFTMAX_DIFF_BITS, 12)
    shifted = f.add(log_sum, f.c(INT32_MIN))
    return log_sum, f.maximum(f.c(diff_min - 1), f.rdbpot(f.srdhm(shifted, f.c(rm)), -re))


def log_softmax_out(f, d, diff, log_sum, limit):
    """An element of the int8 LogSoftmax (reference_integer_ops::LogSoftmax): diff > a ?
    clamp(RDBPOT(d - L, 22) + 127) : -128 (`diff` = q - max, `d` its Q5.26 form, (L, a)
    its row's `log_softmax_row`)."""
    out = f.add(f.rdbpot(f.wrap(f.sub(d, log_sum)), 31 - LOG_SOFTMAX_DIFF_BITS - 4), f.c(127))
    out = f.minimum(f.maximum(out, f.c(-128)), f.c(127))
    return f.select(f.cmp(diff, limit, "GT"), out, f.c(-128))


def log_softmax_int8(q, s_in: float) -> np.ndarray:
    """TFLite's int8 LOG_SOFTMAX along the last axis (output (16/256, 127)): with k =
    max - q, Σ x[k] per row (`log_softmax_tables`), then
    `log_softmax_row` and `log_softmax_out`."""
    q = np.asarray(q, np.int64)
    _, _, rm, re, diff_min = log_softmax_params(s_in)
    d_table, x_table = log_softmax_tables(s_in)
    k = q.max(axis=-1, keepdims=True) - q
    log_sum, limit = log_softmax_row(NUMPY, x_table[k].sum(axis=-1, keepdims=True), rm, re,
                                     diff_min)
    return log_softmax_out(NUMPY, d_table[k], -k, log_sum, limit)


__all__ = ["INT32_MAX", "INT32_MIN", "LOG_SOFTMAX_DIFF_BITS", "NUMPY", "exp_on_negative_values",
           "log_softmax_int8", "log_softmax_out", "log_softmax_params", "log_softmax_row",
           "log_softmax_tables",
           "log_x_for_x_greater_than_or_equal_to_1", "one_over_one_plus_x_for_x_in_0_1",
           "rescale"]
