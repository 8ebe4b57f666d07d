"""What the rowwise kernels of both backends share: float32 constants, the float32 fused
multiply-add in NumPy (`fma_f32`) and the NaN-operand rule (`nan_first`), and the
random format's constants (`qcomp.quant.rowwise_rand` has its formulas)."""

from __future__ import annotations

import numpy as np

F32 = np.float32
FLT_MAX = F32(np.finfo(np.float32).max)
EPSILON_8BIT = F32(1e-8)
"""fbgemm's `kEpsilon` in the 8-bit inverse scale."""

HEADER = 10
"""Bytes before a random-format row's data: bitwidth, tail, min f32, max f32."""
QEPSILON = 1e-8
"""Caffe2's `QEPSILON`, added to the random format's gap in float64."""
GOLDEN = 0x9E3779B97F4A7C15
MIX1 = 0xBF58476D1CE4E5B9
MIX2 = 0x94D049BB133111EB
"""SplitMix64's increment and multipliers."""


def fma_f32(a, b, c, integer_factor: bool = False) -> np.ndarray:
    """float32 `a * b + c` rounded once (C's `fmaf`), for float32 operands (broadcast).

    The product is exact in float64 (24 + 24 bits); `s = p + c` in float64 is rounded
    once. Rounding `s` to float32 is then correct unless `s` is exactly halfway between
    two float32 values while `p + c` is not (double rounding): only there the exact
    error `e = (p + c) - s` (Knuth's TwoSum) moves `s` one float64 ulp toward the true
    sum (round to odd), which float32 rounding then resolves correctly. Candidates are
    the float32 midpoints (the low 29 of 52 fraction bits are 1000...0) and, unless
    `integer_factor` (`a` or `b` holds integers: then `p + c` is a multiple of 2^-149
    and exact wherever it is below 2^-126), the float32 subnormal range.

    NaN: the first NaN operand of a, b, c (quieted: `nan_first`), else the default NaN
    of an invalid `0 * inf` or `inf - inf` (the x86 FMA's and fbgemm's choice)."""
    operands = (a, b, c)
    # same-dtype ufuncs: NumPy's mixed-dtype loops are several times slower
    with np.errstate(invalid="ignore", over="ignore"):
        a, b, c = (np.asarray(v).astype(np.float64) for v in (a, b, c))
        s = np.multiply(a, b)
        s = np.add(s, c, out=s) if np.broadcast_shapes(s.shape, c.shape) == s.shape else s + c
        bits = s.view(np.int64)
        tmp = np.bitwise_and(bits, 0x1FFFFFFF)
        cand = tmp == 0x10000000
        if not integer_factor:
            cand |= (np.abs(s) < 2.0 ** -126) & (s != 0)
        idx = np.flatnonzero(cand)
        if idx.size:
            where = np.unravel_index(idx, s.shape)
            pa = np.broadcast_to(a, s.shape)[where]
            pb = np.broadcast_to(b, s.shape)[where]
            cc = np.broadcast_to(c, s.shape)[where]
            pc = pa * pb
            sc = s[where]
            bb = sc - pc
            err = (pc - (sc - bb)) + (cc - bb)
            b64 = sc.view(np.int64)
            fix = (err != 0) & np.isfinite(sc)
            up = (err > 0) == (sc > 0)
            s[where] = np.where(fix, np.where(up, b64 + 1, b64 - 1), b64).view(np.float64)
        return nan_first(s.astype(F32), *operands)


def nan_first(result: np.ndarray, *operands) -> np.ndarray:
    """`result` (float32), but where it is NaN the first NaN among `operands` (float32,
    broadcast), quieted: what x86 arithmetic does with NaN operands in source order
    (torch's kernels). NumPy's and LLVM's loops may swap the operands of an add or a
    multiply, which changes only which NaN comes out: this fixes it."""
    nan = np.isnan(result)
    if not nan.any():
        return result
    out = result.copy() if result.ndim else np.array(result)
    for x in reversed(operands):
        x = np.broadcast_to(np.asarray(x, F32), out.shape)
        hit = nan & np.isnan(x)
        out[hit] = (x[hit].view(np.uint32) | np.uint32(0x00400000)).view(F32)
    return out
