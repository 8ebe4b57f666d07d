"""LiteRT's (TFLite converter's) int8 quantization parameters, in NumPy.

    weights (symmetric, per axis):  s[c] = max|w[..c..]| / 127 (float32),
                                    q = clamp(round_half_away(w / s[c]), -127, 127)
    activations (asymmetric):       [lo, hi] widened to hold 0,
                                    s = (hi - lo) / 255 (float32),
                                    z = clamp(round_half_away(-128 - lo / s), -128, 127)
    bias (int32, symmetric):        s_b[c] = s_in * s_w[c] (float32 product),
                                    q = clamp(round_half_away(b / s_b[c]), int32)

As TFLite's `SymmetricPerChannelQuantization`, `GetAsymmetricQuantizationParams` and
`SymmetricPerChannelBiasQuantize` compute them, except that a channel of zeros gets
scale 1 (TFLite writes 0, which no `!quant.uniform` type holds; its values are 0
either way) and the values divide by the scale in float64 (TFLite multiplies by the
float32 reciprocal: the two can differ only at values within float32 rounding of a
half-integer).
"""

from __future__ import annotations

import numpy as np

from qcomp.quant.rounding import round_half_away_from_zero

WEIGHT_MAX = 127
INT32 = (-(1 << 31), (1 << 31) - 1)


def weight_scales(w, axis: int | None) -> np.ndarray:
    """float32 scales max|w| / 127, one per index of `axis` (one in all for None)."""
    a = np.abs(np.asarray(w, dtype=np.float32))
    if axis is None:
        m = np.array([a.max(initial=0.0)], dtype=np.float32)
    else:
        others = tuple(d for d in range(a.ndim) if d != axis)
        m = a.max(axis=others, initial=0.0).astype(np.float32).reshape(-1)
    s = (m / np.float32(WEIGHT_MAX)).astype(np.float32)
    return np.where(m == 0, np.float32(1.0), s).astype(np.float32)


def quantize_weights(w, scales, axis: int | None) -> np.ndarray:
    """int8 values round_half_away(w / s) clamped to [-127, 127]."""
    w = np.asarray(w, dtype=np.float64)
    s = np.asarray(scales, dtype=np.float64)
    if axis is not None:
        shape = [1] * w.ndim
        shape[axis] = s.size
        s = s.reshape(shape)
    q = round_half_away_from_zero(w / s)
    return np.clip(q, -WEIGHT_MAX, WEIGHT_MAX).astype(np.int8)


def activation_params(lo: float, hi: float, bits: int = 8) -> tuple[float, int]:
    """(scale, zero_point) of an asymmetric signed `bits`-bit activation over [lo, hi]."""
    qmin, qmax = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    lo32, hi32 = np.float32(min(lo, 0.0)), np.float32(max(hi, 0.0))
    if hi32 == lo32:
        return 1.0, 0
    scale = np.float32((hi32 - lo32) / np.float32(qmax - qmin))
    z = float(qmin) - float(lo32) / float(scale)
    zp = int(np.clip(round_half_away_from_zero(np.float64(z)), qmin, qmax))
    return float(scale), zp


def bias_scales(input_scale: float, w_scales) -> np.ndarray:
    """float32 products input scale * weight scale[c]."""
    return (np.float32(input_scale) * np.asarray(w_scales, dtype=np.float32)).astype(np.float32)


def quantize_bias(b, scales) -> np.ndarray:
    """int32 values round_half_away(b / s[c]) (b along its last axis) saturated."""
    q = round_half_away_from_zero(np.asarray(b, np.float64) / np.asarray(scales, np.float64))
    return np.clip(q, *INT32).astype(np.int32)
