"""The numba loops of the random format (`qcomp.quant.rowwise_rand` has the formulas;
`qcomp.quant.rowwise_numpy` the NumPy twins): rows [start, stop) per call."""

from __future__ import annotations

import numpy as np
from numba import njit

from qcomp.quant.rowwise_base import F32, GOLDEN, HEADER, MIX1, MIX2, QEPSILON
from qcomp.quant.rowwise_jit import fma32, get_f32, put_f32
from qcomp.quant.rowwise_kernels import _first_extremes

_JIT = {"cache": True, "error_model": "numpy", "nogil": True}
_GOLDEN, _MIX1, _MIX2 = np.uint64(GOLDEN), np.uint64(MIX1), np.uint64(MIX2)
_U24 = F32(2.0 ** -24)


@njit(inline="always", **_JIT)
def _uniform(seed, n):
    """float32 in [0, 1): `(z >> 40) * 2^-24`, z the (n + 1)-th SplitMix64 output."""
    z = seed + (np.uint64(n) + np.uint64(1)) * _GOLDEN
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    z = z ^ (z >> np.uint64(31))
    return F32(z >> np.uint64(40)) * _U24


@njit(**_JIT)
def rand_quantize_rows(x, ib, out, bits, random, seed, start, stop):
    """Random-format rows [start, stop) of float32 x [R, C >= 1] into out [R, W]
    (the module docstring's formulas; the uniform of element (r, j) is number r*C + j)."""
    c = x.shape[1]
    k = 8 // bits
    s = (c + k - 1) // k
    top = F32((1 << bits) - 1)
    for r in range(start, stop):
        mn, mx = _first_extremes(x, ib, r)
        gap = (mx - mn) / top
        gap_inv = F32(1.0 / (np.float64(gap) + QEPSILON))
        out[r, 0] = bits
        out[r, 1] = (k - c % k) % k
        put_f32(out, r, 2, mn)
        put_f32(out, r, 6, mx)
        for i in range(HEADER, HEADER + s):
            out[r, i] = 0
        first = np.uint64(r) * np.uint64(c)
        for b in range(k):                     # segment b: values b*S ... into slot b
            shift = np.int32(b * bits)
            for j in range(b * s, min(c, b * s + s)):
                t = (x[r, j] - mn) * gap_inv
                if random:
                    t = np.floor(t + _uniform(seed, first + np.uint64(j)))
                if t != t:
                    t = top
                t = min(max(t, F32(0)), top)
                q = np.int32(t if random else np.rint(t))
                out[r, HEADER + j - b * s] |= q << shift


@njit(**_JIT)
def rand_dequantize_rows(data, bits, out, start, stop):
    """out[r, j] = fma(q, gap', min) of random-format rows [start, stop) of data."""
    c = out.shape[1]
    s = data.shape[1] - HEADER
    top = F32((1 << bits) - 1)
    mask = np.int32((1 << bits) - 1)
    for r in range(start, stop):
        mn, mx = get_f32(data, r, 2), get_f32(data, r, 6)
        gap = F32(np.float64((mx - mn) / top) + QEPSILON)
        for b in range((c + s - 1) // s if s else 0):
            shift = np.int32(b * bits)
            for j in range(b * s, min(c, b * s + s)):
                q = (np.int32(data[r, HEADER + j - b * s]) >> shift) & mask
                out[r, j] = fma32(F32(q), gap, mn)
