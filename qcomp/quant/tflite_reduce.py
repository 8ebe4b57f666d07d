"""TFLite's quantized REDUCE_PROD (reference_ops::QuantizedReduceProd, reduce.cc
PrepareProd), in NumPy int64.

    (M, shift) = QuantizeMultiplier(s_in / s_out^(1/n))   (GetQuantProdScaling, f64)
    c = q_0 - z_in;  c = int32(MBQM64(c (q_j - z_in), M, shift)) for j = 1..n-1
    out = clamp(MBQM64(c, M, shift) + z_out)

over the n reduced values of each output in row-major order (MBQM64: the int64
MultiplyByQuantizedMultiplier, `qcomp.quant.tflite16.mbqm64`); the scaling is applied n
times in all, so the result is s_in^n Π (q - z_in) / s_out."""

from __future__ import annotations

import math

import numpy as np

from qcomp.quant.tflite import quantize_multiplier
from qcomp.quant.tflite16 import mbqm64


def reduce_prod_multiplier(s_in: float, s_out: float, n: int) -> tuple[int, int]:
    """(M, shift) of s_in / s_out^(1/n) (f64, as GetQuantProdScaling computes it)."""
    return quantize_multiplier(float(s_in) / math.pow(float(s_out), 1.0 / n))


def reduce_prod_int(q, axes, s_in: float, z_in: int, s_out: float, z_out: int,
                    lo: int, hi: int) -> np.ndarray:
    """TFLite's int8 / int16 REDUCE_PROD over `axes` (kept as size 1)."""
    q = np.asarray(q, np.int64)
    axes = sorted(a % q.ndim for a in axes)
    kept = [a for a in range(q.ndim) if a not in axes]
    rows = np.transpose(q, kept + axes).reshape(*[q.shape[a] for a in kept], -1) - z_in
    m, e = reduce_prod_multiplier(s_in, s_out, rows.shape[-1])
    c = rows[..., 0]
    for j in range(1, rows.shape[-1]):
        c = mbqm64(c * rows[..., j], m, e)
    out = np.clip(mbqm64(c, m, e) + z_out, lo, hi)
    return out.reshape([1 if a in axes else d for a, d in enumerate(q.shape)])


__all__ = ["reduce_prod_int", "reduce_prod_multiplier"]
