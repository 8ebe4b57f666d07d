"""The rowwise loop kernels as NumPy array code: the twins of `rowwise_kernels`,
`rowwise_bag_kernels` and `rowwise_rand_kernels` (same names, same arguments, same
bytes), used when numba is not installed or `QCOMP_ROWWISE_KERNELS=numpy`.

Each works on rows (or bags) [start, stop) as whole arrays: the reference orders that
decide a signed zero or drop a NaN (fbgemm's 8 lanes, a first-wins scalar loop) are
loops over columns on [rows] vectors, run only for the rows that need them; the
fused multiply-add is `rowwise.fma_f32`; float16 conversions are `astype` (NumPy's
rounding, which the numba helpers copy). 10-50x slower than the numba loops
(docs/rowwise.md).
"""

from __future__ import annotations

import numpy as np

from qcomp.quant.rowwise_base import (
    EPSILON_8BIT,
    F32,
    FLT_MAX,
    GOLDEN,
    HEADER,
    MIX1,
    MIX2,
    QEPSILON,
    fma_f32,
    nan_first,
)

_TWO31 = F32(2.0 ** 31)
_TWO63 = 2.0 ** 63


# ---------------------------------------------------------------------------
# Extremes
# ---------------------------------------------------------------------------
def _fbgemm_in_order(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`rowwise_kernels._fbgemm_in_order` on every row of float32 x [n, C]."""
    n, c = x.shape
    v = c - c % 8
    lo, hi = np.full((n, 8), FLT_MAX, F32), np.full((n, 8), -FLT_MAX, F32)
    for j in range(0, v, 8):
        a = x[:, j:j + 8]
        lo = np.where(lo < a, lo, a)
        hi = np.where(hi > a, hi, a)
    mn, mx = np.full(n, FLT_MAX, F32), np.full(n, -FLT_MAX, F32)
    for lane in range(8):
        mn = np.where(lo[:, lane] < mn, lo[:, lane], mn)
        mx = np.where(mx < hi[:, lane], hi[:, lane], mx)
    for j in range(v, c):
        a = x[:, j]
        mn = np.where(a < mn, a, mn)
        mx = np.where(mx < a, a, mx)
    return mn, mx


def _first_in_order(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`rowwise_kernels._first_in_order` on every row of float32 x [n, C >= 1]."""
    mn, mx = x[:, 0].copy(), x[:, 0].copy()
    for j in range(x.shape[1]):
        a = x[:, j]
        mn = np.where(a < mn, a, mn)
        mx = np.where(mx < a, a, mx)
    nan = np.isnan(x)
    rows = np.flatnonzero(nan.any(axis=1))
    first = x[rows, nan[rows].argmax(axis=1)]
    mn[rows], mx[rows] = first, first
    return mn, mx


def _extremes(x: np.ndarray, fbgemm: bool) -> tuple[np.ndarray, np.ndarray]:
    """Row extremes: NumPy's reductions decide every row without a NaN or a zero
    extreme; the others go through the reference order."""
    n, c = x.shape
    if c == 0:
        if fbgemm:
            return np.full(n, FLT_MAX, F32), np.full(n, -FLT_MAX, F32)
        return np.zeros(n, F32), np.zeros(n, F32)
    with np.errstate(invalid="ignore"):
        mn, mx = x.min(axis=1), x.max(axis=1)
    odd = np.isnan(mn) | np.isnan(mx) | (mn == 0) | (mx == 0)
    if fbgemm:
        mn, mx = np.minimum(mn, FLT_MAX), np.maximum(mx, -FLT_MAX)
    rows = np.flatnonzero(odd)
    if rows.size:
        a, b = (_fbgemm_in_order if fbgemm else _first_in_order)(x[rows])
        mn[rows], mx[rows] = a, b
    return mn, mx


def fbgemm_min_max_rows(x, ib, mn, mx, start, stop):
    mn[start:stop], mx[start:stop] = _extremes(x[start:stop], True)


def first_min_max_rows(x, ib, mn, mx, start, stop):
    mn[start:stop], mx[start:stop] = _extremes(x[start:stop], False)


# ---------------------------------------------------------------------------
# Rounding as fbgemm's vector blocks and scalar tails do it
# ---------------------------------------------------------------------------
def _saturated(t: np.ndarray, top: float) -> np.ndarray:
    """`rowwise_kernels._saturated`."""
    r = np.rint(t)
    r = np.where(r < _TWO31, r, 0)
    return np.clip(np.where(r > 0, r, 0), 0, top).astype(np.uint8)


def _low_byte(t: np.ndarray) -> np.ndarray:
    """`rowwise_kernels._low_byte`."""
    r = np.rint(t)
    r = np.where((r < _TWO31) & (r >= -_TWO31), r, 0)
    return (r.astype(np.int64) & 0xFF).astype(np.uint8)


def _lrint_clamped(t: np.ndarray, top: int) -> np.ndarray:
    """`rowwise_kernels._lrint_clamped`."""
    r = np.rint(t.astype(np.float64))
    r = np.where((r >= -_TWO63) & (r < _TWO63), r, 0)
    v = r.astype(np.int64) & 0xFFFFFFFF
    v = np.where(v >= 1 << 31, v - (1 << 32), v)
    return np.clip(v, 0, top).astype(np.uint8)


def _round_clamp(t: np.ndarray, top: float) -> np.ndarray:
    """`rowwise_kernels._round_clamp`: clamp(rint(t), 0, top), NaN -> 0."""
    r = np.rint(t)
    return np.where(r > 0, np.minimum(r, top), 0).astype(np.uint8)


def _bytes_of(v: np.ndarray) -> np.ndarray:
    """[n] float32 / float16 -> [n, 4 or 2] little-endian bytes."""
    return np.ascontiguousarray(v).view(np.uint8).reshape(len(v), -1)


def _field(data: np.ndarray, at: int, dtype) -> np.ndarray:
    """The little-endian float `dtype` at byte `at` of each row of data, as float32."""
    n = np.dtype(dtype).itemsize
    return np.ascontiguousarray(data[:, at:at + n]).view(dtype)[:, 0].astype(F32)


# ---------------------------------------------------------------------------
# Quantize
# ---------------------------------------------------------------------------
def quantize_8bit(x, ib, out, start, stop):
    rows = x[start:stop]
    c = rows.shape[1]
    with np.errstate(all="ignore"):
        mn, mx = _extremes(rows, True)
        rng = mx - mn
        inverse = F32(255) / (rng + EPSILON_8BIT)
        t = (rows - mn[:, None]) * inverse[:, None]
        blocks = c // 32 * 32
        out[start:stop, :blocks] = _saturated(t[:, :blocks], 255)
        out[start:stop, blocks:c] = _low_byte(t[:, blocks:])
        out[start:stop, c:c + 4] = _bytes_of(rng / F32(255))
    out[start:stop, c + 4:c + 8] = _bytes_of(mn)


def _pack(q: np.ndarray, bits: int, nb: int) -> np.ndarray:
    """[n, C] values -> [n, nb] bytes, column c in byte c // k at bit (c % k) * bits."""
    k = 8 // bits
    padded = np.zeros((len(q), nb * k), np.uint8)
    padded[:, :q.shape[1]] = q
    out = np.zeros((len(q), nb), np.uint8)
    for s in range(k):
        out |= padded[:, s::k] << np.uint8(s * bits)
    return out


def quantize_nbit(x, ib, out, bits, start, stop):
    rows = x[start:stop]
    c = rows.shape[1]
    nb = out.shape[1] - 4
    top = (1 << bits) - 1
    with np.errstate(all="ignore"):
        mn, mx = _extremes(rows, True)
        bias16 = mn.astype(np.float16)
        m = bias16.astype(F32)
        rng = mx - m
        scale16 = np.where(rng == 0, F32(1), rng / F32(top)).astype(np.float16)
        scale = scale16.astype(F32)
        zero = scale == 0
        scale16[zero], scale[zero] = 1, 1
        inverse = F32(1) / scale
        inf = np.isinf(inverse)
        scale16[inf], inverse[inf] = 1, 1
        t = (rows - m[:, None]) * inverse[:, None]
        blocks = c // 32 * 32
        q = np.concatenate([_saturated(t[:, :blocks], top), _lrint_clamped(t[:, blocks:], top)], 1)
    out[start:stop, :nb] = _pack(q, bits, nb)
    out[start:stop, nb:nb + 2] = _bytes_of(scale16)
    out[start:stop, nb + 2:nb + 4] = _bytes_of(bias16)


def quantize_fake(x, ib, out, bits, start, stop):
    rows = x[start:stop]
    c = rows.shape[1]
    top = F32((1 << bits) - 1)
    with np.errstate(all="ignore"):
        mn, mx = _extremes(rows, False)
        m = mn.astype(np.float16).astype(F32)
        rng = mx - m
        scale = np.where(rng == 0, F32(1), (rng / top).astype(np.float16).astype(F32))
        inverse = F32(1) / scale
        t = (rows - m[:, None]) * inverse[:, None]
        out[start:stop, :c] = np.where(np.isfinite(t), _round_clamp(t, top), 0)
    out[start:stop, c:c + 4] = _bytes_of(scale)
    out[start:stop, c + 4:c + 8] = _bytes_of(m)


# ---------------------------------------------------------------------------
# Dequantize
# ---------------------------------------------------------------------------
def dequantize_8bit(data, out, start, stop):
    rows = data[start:stop]
    c = out.shape[1]
    scale, bias = _field(rows, c, "<f4"), _field(rows, c + 4, "<f4")
    out[start:stop] = fma_f32(rows[:, :c].astype(F32), scale[:, None], bias[:, None], True)


def _unpack(packed: np.ndarray, bits: int, cols: int) -> np.ndarray:
    """Inverse of `_pack`: [n, nb] bytes -> [n, cols] float32 values."""
    k = 8 // bits
    q = np.empty((len(packed), packed.shape[1] * k), np.uint8)
    for s in range(k):
        q[:, s::k] = (packed >> np.uint8(s * bits)) & np.uint8((1 << bits) - 1)
    return q[:, :cols].astype(F32)


def dequantize_nbit(data, bits, out, start, stop):
    rows = data[start:stop]
    nb = data.shape[1] - 4
    scale, bias = _field(rows, nb, "<f2"), _field(rows, nb + 2, "<f2")
    out[start:stop] = fma_f32(scale[:, None], _unpack(rows[:, :nb], bits, out.shape[1]),
                              bias[:, None], True)


# ---------------------------------------------------------------------------
# Bags
# ---------------------------------------------------------------------------
def _bags(data, idx, starts, lengths, weights, weighted, mean, out, start, stop, decode):
    """out[m] for bags [start, stop): step k adds entry k of every bag longer than k,
    `acc = fma(w * scale, q, acc + w * bias)`, so each bag sums in its entries' order."""
    starts, lengths = starts[start:stop], lengths[start:stop]
    acc = np.zeros((stop - start, out.shape[1]), F32)
    with np.errstate(all="ignore"):
        for k in range(int(lengths.max(initial=0))):
            live = np.flatnonzero(lengths > k)
            pos = starts[live] + k
            q, scale, bias = decode(data[idx[pos]])
            if weighted:
                w = weights[pos]
                scale, bias = nan_first(w * scale, w, scale), nan_first(w * bias, w, bias)
            a = acc[live]
            acc[live] = fma_f32(scale[:, None], q, nan_first(a + bias[:, None], a, bias[:, None]),
                                True)
        if mean:
            live = lengths > 0
            acc[live] *= (F32(1) / lengths[live].astype(F32))[:, None]
    out[start:stop] = acc


def bag_8bit(data, idx, starts, lengths, weights, weighted, mean, out, start, stop):
    c = out.shape[1]

    def decode(rows):
        return rows[:, :c].astype(F32), _field(rows, c, "<f4"), _field(rows, c + 4, "<f4")
    _bags(data, idx, starts, lengths, weights, weighted, mean, out, start, stop, decode)


def bag_nbit(data, idx, starts, lengths, bits, weights, weighted, mean, out, start, stop):
    nb = data.shape[1] - 4

    def decode(rows):
        return (_unpack(rows[:, :nb], bits, out.shape[1]), _field(rows, nb, "<f2"),
                _field(rows, nb + 2, "<f2"))
    _bags(data, idx, starts, lengths, weights, weighted, mean, out, start, stop, decode)


def first_outside(idx, rows):
    bad = np.flatnonzero((idx < 0) | (idx >= rows))
    return int(bad[0]) if bad.size else -1


def starts_of(lengths, starts):
    starts[:] = np.cumsum(lengths) - lengths
    negative = np.flatnonzero(lengths < 0)
    return int(lengths.sum()), int(negative[0]) if negative.size else -1


# ---------------------------------------------------------------------------
# The random format
# ---------------------------------------------------------------------------
def _uniforms(seed, first: int, shape: tuple[int, int]) -> np.ndarray:
    """`rowwise_rand_kernels._uniform` of the flat indices first, first + 1, ..."""
    n = np.arange(first, first + shape[0] * shape[1], dtype=np.uint64).reshape(shape)
    with np.errstate(over="ignore"):
        z = np.uint64(seed) + (n + np.uint64(1)) * np.uint64(GOLDEN)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(MIX1)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(MIX2)
        z = z ^ (z >> np.uint64(31))
    return (z >> np.uint64(40)).astype(F32) * F32(2.0 ** -24)


def rand_quantize_rows(x, ib, out, bits, random, seed, start, stop):
    rows = x[start:stop]
    n, c = rows.shape
    k = 8 // bits
    s = (c + k - 1) // k
    top = F32((1 << bits) - 1)
    with np.errstate(all="ignore"):
        mn, mx = _extremes(rows, False)
        gap = (mx - mn) / top
        gap_inv = (1.0 / (gap.astype(np.float64) + QEPSILON)).astype(F32)
        t = (rows - mn[:, None]) * gap_inv[:, None]
        if random:
            t = np.floor(t + _uniforms(seed, start * c, (n, c)))
        t = np.clip(np.where(np.isnan(t), top, t), F32(0), top)
        q = (t if random else np.rint(t)).astype(np.uint8)
    padded = np.zeros((n, k * s), np.uint8)
    padded[:, :c] = q
    data = np.zeros((n, s), np.uint8)
    for b in range(k):
        data |= padded[:, b * s:(b + 1) * s] << np.uint8(b * bits)
    out[start:stop, 0] = bits
    out[start:stop, 1] = (k - c % k) % k
    out[start:stop, 2:6] = _bytes_of(mn)
    out[start:stop, 6:10] = _bytes_of(mx)
    out[start:stop, HEADER:] = data


def rand_dequantize_rows(data, bits, out, start, stop):
    rows = data[start:stop]
    c = out.shape[1]
    s = data.shape[1] - HEADER
    top = F32((1 << bits) - 1)
    mn, mx = _field(rows, 2, "<f4"), _field(rows, 6, "<f4")
    with np.errstate(all="ignore"):
        gap = ((mx - mn) / top).astype(np.float64) + QEPSILON
    q = np.empty((len(rows), (8 // bits) * s), np.uint8)
    for b in range(8 // bits):
        q[:, b * s:(b + 1) * s] = (rows[:, HEADER:] >> np.uint8(b * bits)) & np.uint8((1 << bits) - 1)
    out[start:stop] = fma_f32(q[:, :c].astype(F32), gap.astype(F32)[:, None], mn[:, None], True)
