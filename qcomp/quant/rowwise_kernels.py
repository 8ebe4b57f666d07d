"""The row loops of the fused rowwise formats (numba: compiled once, cached on disk).

Every kernel takes its tables as 2-d arrays (`x`: float32 [R, C], `ib`: the same
memory as int32, `out` / `data`: uint8 [R, W]) and a row range [start, stop), so that
`qcomp.quant.threads` can hand blocks of rows to threads: the kernels release the GIL
and no row depends on another, so the split never changes a bit. Loops index `x[r, j]`
with j from 0: a flat index `r * C + j` costs LLVM its proof that the index is not
negative (and with it the vectorized loop), and a row view `x[r]` costs an atomic
reference count per row (a quarter of the time of the extremes' pass).

Row extremes: one vectorized pass over the float bits as integer keys
`u ^ ((u >> 31) & 0x7FFFFFFF)` (ordered as the floats compare, -0 < +0) decides every
row but one holding a NaN (a key beyond +-inf's) or a zero extreme (keys 0 and -1),
where the sign of zero depends on the loop order; those rows run again in the
reference kernels' own order (`_fbgemm_in_order`, `_first_in_order`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from qcomp.quant.rowwise_base import EPSILON_8BIT, F32, FLT_MAX
from qcomp.quant.rowwise_jit import (
    f16_bits,
    f16_round,
    f16_value,
    f32_from_bits,
    fma32,
    get_f16,
    get_f32,
    put_f32,
    put_u16,
)

_ONE = F32(1)
_ZERO = F32(0)
_INF = F32(np.inf)
_255 = F32(255)
_TWO31 = F32(2.0 ** 31)
_F16_ONE = 0x3C00
_JIT = {"cache": True, "error_model": "numpy", "nogil": True}
"""IEEE division (no ZeroDivisionError), cached next to the module, the GIL released."""


def _key_of(x: float) -> np.int32:
    u = int(np.float32(x).view(np.int32))
    return np.int32(u ^ ((u >> 31) & 0x7FFFFFFF))


_KEY_FLT_MAX, _KEY_NEG_FLT_MAX = _key_of(FLT_MAX), _key_of(-FLT_MAX)
_KEY_INF, _KEY_NEG_INF = _key_of(np.inf), _key_of(-np.inf)


@njit(inline="always", **_JIT)
def _unkey(k):
    """The float32 of an int32 key."""
    k = np.int64(k)
    return f32_from_bits(np.uint32((k ^ ((k >> 31) & 0x7FFFFFFF)) & 0xFFFFFFFF))


@njit(inline="always", **_JIT)
def _row_keys(ib, r, kmin, kmax):
    """(min, max) of the keys of row r of int32 ib, starting from kmin and kmax: int32
    selects only, so LLVM vectorizes the loop."""
    for j in range(ib.shape[1]):
        u = ib[r, j]
        k = np.int32(u ^ ((u >> np.int32(31)) & np.int32(0x7FFFFFFF)))
        kmin = k if k < kmin else kmin
        kmax = k if k > kmax else kmax
    return kmin, kmax


@njit(inline="always", **_JIT)
def _ambiguous(kmin, kmax):
    """A NaN in the row (a key past +-inf's) or a zero extreme (keys 0 and -1)."""
    return (kmax > _KEY_INF or kmin < _KEY_NEG_INF or kmin == 0 or kmin == -1
            or kmax == 0 or kmax == -1)


@njit(**_JIT)
def _first_nan_index(row):
    for j in range(row.shape[0]):
        if row[j] != row[j]:
            return j
    return -1


@njit(**_JIT)
def _fbgemm_in_order(row, lanes):
    """(min, max) of a float32 row in fbgemm's AVX2 order (`lanes`: a float32 [2, 8]
    scratch): 8 lanes over the first C - C % 8 columns from FLT_MAX / -FLT_MAX (lane
    l holds columns l, l + 8, ...; `_mm256_min_ps(acc, x)` = `acc < x ? acc : x` keeps
    the newer of two equal values and takes a NaN x, which the lane's next value
    replaces), the lanes folded in order with `std::min(acc, lane)` = `lane < acc ?
    lane : acc` (skips a NaN lane), then the remaining columns one by one the same way
    (skipping NaN). So a NaN drops itself and the values before it in its lane; a row
    of NaN gives FLT_MAX, -FLT_MAX (torch's bytes)."""
    c = row.shape[0]
    v = c - c % 8
    lo, hi = lanes[0], lanes[1]
    for lane in range(8):
        lo[lane] = FLT_MAX
        hi[lane] = -FLT_MAX
    for j in range(0, v, 8):
        for lane in range(8):
            a = row[j + lane]
            lo[lane] = lo[lane] if lo[lane] < a else a
            hi[lane] = hi[lane] if hi[lane] > a else a
    mn, mx = FLT_MAX, -FLT_MAX
    for lane in range(8):
        mn = lo[lane] if lo[lane] < mn else mn
        mx = hi[lane] if mx < hi[lane] else mx
    for j in range(v, c):
        a = row[j]
        mn = a if a < mn else mn
        mx = a if mx < a else mx
    return mn, mx


@njit(**_JIT)
def _first_in_order(row):
    """(min, max) of a float32 row (C >= 1) keeping the first of equal values
    (`std::min_element` / `std::max_element`); NaN, NaN for a row holding a NaN."""
    n = _first_nan_index(row)
    if n >= 0:
        return row[n], row[n]
    mn = mx = row[0]
    for j in range(row.shape[0]):
        a = row[j]
        mn = a if a < mn else mn
        mx = a if mx < a else mx
    return mn, mx


@njit(inline="always", **_JIT)
def _fbgemm_extremes(x, ib, r, lanes):
    """fbgemm's (min(FLT_MAX, row min), max(-FLT_MAX, row max)) of row r of float32 x
    (`ib`: its int32 bits)."""
    kmin, kmax = _row_keys(ib, r, _KEY_FLT_MAX, _KEY_NEG_FLT_MAX)
    if _ambiguous(kmin, kmax):
        mn, mx = _fbgemm_in_order(x[r], lanes)
    else:
        mn, mx = _unkey(kmin), _unkey(kmax)
    return mn, mx


@njit(inline="always", **_JIT)
def _first_extremes(x, ib, r):
    """`std::min_element` / `std::max_element` of row r of float32 x (C >= 1; `ib`:
    its int32 bits)."""
    kmin, kmax = _row_keys(ib, r, _KEY_INF, _KEY_NEG_INF)
    if _ambiguous(kmin, kmax):
        mn, mx = _first_in_order(x[r])
    else:
        mn, mx = _unkey(kmin), _unkey(kmax)
    return mn, mx


@njit(inline="always", **_JIT)
def _round_clamp(t, top):
    """clamp(rint(t), 0, top) as an int32, NaN -> 0 (fbgemm's cvtps/packus saturation
    and lrintf's integer indefinite value both give 0); selects only, so it vectorizes."""
    t = np.rint(t)
    t = t if t > _ZERO else _ZERO
    return np.int32(t if t < top else top)


@njit(inline="always", **_JIT)
def _saturated(t, top):
    """fbgemm's blocks of 32 columns: `_mm256_cvtps_epi32` (rint; NaN and |t| >= 2^31
    give INT_MIN), saturating packs to [0, 255], then `min(., top)`: 0 for NaN and
    t >= 2^31."""
    t = np.rint(t)
    t = t if t < _TWO31 else _ZERO
    t = t if t > _ZERO else _ZERO
    return np.int32(t if t < top else top)


@njit(inline="always", **_JIT)
def _low_byte(t):
    """fbgemm's 8-bit columns past the blocks of 32: the low byte of `rint(t)` as an
    int32 (`_mm256_shuffle_epi8` of cvtps, or `(uint8_t)lrintf(t)`: both 0 for NaN and
    |t| >= 2^31, where the float is a multiple of 256)."""
    t = np.rint(t)
    t = t if t < _TWO31 else _ZERO
    t = t if t >= -_TWO31 else _ZERO
    return np.int32(t) & np.int32(0xFF)


@njit(inline="always", **_JIT)
def _lrint_clamped(t, top):
    """fbgemm's n-bit columns past the blocks of 32: `max(0, min<int>(lrintf(t), top))`,
    the long (LONG_MIN for NaN and out of range) truncated to int first."""
    r = np.rint(np.float64(t))
    if not (r >= -9.223372036854775808e18 and r < 9.223372036854775808e18):
        return np.int32(0)
    v = np.int64(r) & np.int64(0xFFFFFFFF)
    v = v - np.int64(1 << 32) if v >= np.int64(1 << 31) else v
    return np.int32(min(max(v, np.int64(0)), np.int64(top)))


# ---------------------------------------------------------------------------
# Extremes
# ---------------------------------------------------------------------------
@njit(**_JIT)
def fbgemm_min_max_rows(x, ib, mn, mx, start, stop):
    """mn[r], mx[r] = `_fbgemm_extremes` of rows [start, stop)."""
    lanes = np.empty((2, 8), F32)
    for r in range(start, stop):
        a, b = _fbgemm_extremes(x, ib, r, lanes)
        mn[r] = a
        mx[r] = b


@njit(**_JIT)
def first_min_max_rows(x, ib, mn, mx, start, stop):
    """mn[r], mx[r] = `_first_extremes` of rows [start, stop)."""
    for r in range(start, stop):
        a, b = _first_extremes(x, ib, r)
        mn[r] = a
        mx[r] = b


# ---------------------------------------------------------------------------
# Quantize
# ---------------------------------------------------------------------------
@njit(**_JIT)
def quantize_8bit(x, ib, out, start, stop):
    """Fused 8-bit rows [start, stop) of x [R, C] into out [R, C + 8]::

        range = max - min    inverse = 255 / (range + 1e-8)
        q = rint((x - min) * inverse); then f32 range / 255, f32 min

    q is clamped to [0, 255] in the blocks of 32 columns, its low byte after them
    (fbgemm's AVX2 code: they differ for values outside [min, max], which a NaN in the
    row can leave out of the extremes; `_saturated`, `_low_byte`)."""
    lanes = np.empty((2, 8), F32)
    c = x.shape[1]
    blocks = c // 32 * 32
    for r in range(start, stop):
        mn, mx = _fbgemm_extremes(x, ib, r, lanes)
        rng = mx - mn
        inverse = _255 / (rng + EPSILON_8BIT)
        for j in range(blocks):
            out[r, j] = _saturated((x[r, j] - mn) * inverse, _255)
        for j in range(blocks, c):
            out[r, j] = _low_byte((x[r, j] - mn) * inverse)
        put_f32(out, r, c, rng / _255)
        put_f32(out, r, c + 4, mn)


@njit(**_JIT)
def quantize_nbit(x, ib, out, bits, start, stop):
    """Fused n-bit rows [start, stop) of x [R, C] into out [R, ceil(C * bits / 8) + 4]::

        bias = f16(min)    m = f32(bias)    range = max - m
        scale = f16(range == 0 ? 1 : range / (2^bits - 1)); 0 -> 1; 1/scale inf -> 1
        q = clamp(rint((x - m) * (1 / scale)), 0, 2^bits - 1), packed from the low bits

    (q as fbgemm computes it in its blocks of 32 columns and after them: `_saturated`,
    `_lrint_clamped`). The values go to a byte scratch row first (one vectorized loop),
    then the pairs or quads of bytes, read as one uint16 / uint32, shift into their
    byte."""
    lanes = np.empty((2, 8), F32)
    c = x.shape[1]
    blocks = c // 32 * 32
    nb = out.shape[1] - 4
    top = F32((1 << bits) - 1)
    q = np.zeros(4 * nb, np.uint8)         # a row's values; slots past C stay 0
    q16, q32 = q.view(np.uint16), q.view(np.uint32)      # little-endian pairs, quads
    for r in range(start, stop):
        mn, mx = _fbgemm_extremes(x, ib, r, lanes)
        bias16 = f16_bits(mn)
        m = f16_value(bias16)
        rng = mx - m
        scale16 = f16_bits(_ONE if rng == 0 else rng / top)
        scale = f16_value(scale16)
        if scale == 0:
            scale, scale16 = _ONE, _F16_ONE
        inverse = _ONE / scale
        if np.isinf(inverse):
            scale16, inverse = _F16_ONE, _ONE
        for j in range(blocks):
            q[j] = _saturated((x[r, j] - m) * inverse, top)
        for j in range(blocks, c):
            q[j] = _lrint_clamped((x[r, j] - m) * inverse, top)
        if bits == 4:      # byte b = q[2b] | q[2b + 1] << 4, from the pairs as uint16
            for b in range(nb):
                v = q16[b]
                out[r, b] = (v & np.uint16(0x0F)) | ((v >> np.uint16(4)) & np.uint16(0xF0))
        else:              # q[4b] | q[4b + 1] << 2 | ..., from the quads as uint32
            for b in range(nb):
                v = q32[b]
                out[r, b] = ((v & np.uint32(0x3)) | ((v >> np.uint32(6)) & np.uint32(0xC))
                             | ((v >> np.uint32(12)) & np.uint32(0x30))
                             | ((v >> np.uint32(18)) & np.uint32(0xC0)))
        put_u16(out, r, nb, scale16)
        put_u16(out, r, nb + 2, bias16)


@njit(**_JIT)
def quantize_fake(x, ib, out, bits, start, stop):
    """Fake n-bit rows [start, stop) of x [R, C] into out [R, C + 8]: the n-bit values
    one per byte from `std::min_element` extremes, then f32 scale and f32 bias::

        m = f32(f16(min))   scale = range == 0 ? 1 : f32(f16((max - m) / (2^bits - 1)))
        q = clamp(rint((x - m) * (1 / scale)), 0, 2^bits - 1) (non-finite -> 0)"""
    c = x.shape[1]
    top = F32((1 << bits) - 1)
    for r in range(start, stop):
        mn = mx = _ZERO
        if c:
            mn, mx = _first_extremes(x, ib, r)
        m = f16_round(mn)
        rng = mx - m
        scale = _ONE if rng == 0 else f16_round(rng / top)
        inverse = _ONE / scale
        for j in range(c):
            t = (x[r, j] - m) * inverse
            out[r, j] = _round_clamp(t, top) if np.isfinite(t) else 0
        put_f32(out, r, c, scale)
        put_f32(out, r, c + 4, m)


# ---------------------------------------------------------------------------
# Dequantize
# ---------------------------------------------------------------------------
@njit(**_JIT)
def dequantize_8bit(data, out, start, stop):
    """out[r, c] = fma(q, scale, bias) of fused 8-bit rows [start, stop) of data
    [R, C + 8] (one rounding: `fma32`)."""
    c = out.shape[1]
    for r in range(start, stop):
        scale, bias = get_f32(data, r, c), get_f32(data, r, c + 4)
        for j in range(c):
            out[r, j] = fma32(F32(data[r, j]), scale, bias)


@njit(**_JIT)
def dequantize_nbit(data, bits, out, start, stop):
    """out[r, c] = fma(scale, q, bias) of fused n-bit rows [start, stop) of data [R, W]
    (float16 scale and bias in the last 4 bytes): the first out.shape[1] values."""
    k = 8 // bits
    cols = out.shape[1]
    nb = data.shape[1] - 4
    for r in range(start, stop):
        scale, bias = get_f16(data, r, nb), get_f16(data, r, nb + 2)
        if bits == 4:
            for b in range(cols // 2):
                v = data[r, b]
                out[r, 2 * b] = fma32(scale, F32(v & 0xF), bias)
                out[r, 2 * b + 1] = fma32(scale, F32(v >> 4), bias)
        else:
            for b in range(cols // 4):
                v = data[r, b]
                out[r, 4 * b] = fma32(scale, F32(v & 0x3), bias)
                out[r, 4 * b + 1] = fma32(scale, F32((v >> 2) & 0x3), bias)
                out[r, 4 * b + 2] = fma32(scale, F32((v >> 4) & 0x3), bias)
                out[r, 4 * b + 3] = fma32(scale, F32(v >> 6), bias)
        for j in range(cols - cols % k, cols):
            v = (data[r, j // k] >> ((j % k) * bits)) & ((1 << bits) - 1)
            out[r, j] = fma32(scale, F32(v), bias)
