"""Uniform (affine) quantization as the StableHLO spec defines it.

    real      = (q - zero_point) * scale
    quantize  = convert(round_half_to_even(clamp(storage_min, x / scale + zero_point, storage_max)))
    dequantize= convert(q - zero_point, expressed) * scale
    requantize= quantize(dequantize(q))

All float arithmetic happens in the expressed type's precision: `scale` and
`zero_point` are first converted to it (f32 scales are the f64 type parameter
rounded to f32), each operation rounds to it (bf16/f16 through ml_dtypes).
`scales`/`zero_points` are arrays already broadcastable against the tensor
(`UniformQuantizedType.broadcast_scales(shape)`), so per-tensor, per-axis and
sub-channel parameters are one code path.
"""

from __future__ import annotations

import numpy as np

from qcomp.quant.ieee import ieee
from qcomp.quant.ranges import container_dtype
from qcomp.quant.rounding import round_half_to_even

_KIND_DTYPES = {"f64": "float64", "f32": "float32", "f16": "float16"}


def expressed_numpy_dtype(kind) -> np.dtype:
    """NumPy dtype of an expressed type given as 'f16'/'bf16'/'f32'/'f64' or a dtype."""
    if isinstance(kind, str) and kind == "bf16":
        import ml_dtypes

        return np.dtype(ml_dtypes.bfloat16)
    if isinstance(kind, str) and kind in _KIND_DTYPES:
        return np.dtype(_KIND_DTYPES[kind])
    return np.dtype(kind)


@ieee
def float_to_int(x, lo: int, hi: int, dtype=np.int64) -> np.ndarray:
    """Float -> integer conversion toward zero, saturating to [lo, hi], NaN -> 0.

    This is what MLIR's APFloat::convertToInteger (used by the StableHLO reference
    interpreter's `convert`) does with out-of-range values and NaN.
    """
    a = np.asarray(x)
    if a.dtype.kind in "iub":
        return np.clip(a, lo, hi).astype(dtype)
    f = np.asarray(a, dtype=np.float64)
    f = np.where(np.isnan(f), 0.0, np.trunc(f))
    f = np.clip(f, float(lo), float(hi))
    # float(hi) may round up to 2^63 for 64-bit types: clip again in the integer domain.
    if hi >= (1 << 53) or lo <= -(1 << 53):
        big = f >= float(hi)
        small = f <= float(lo)
        out = np.where(big | small, 0, f).astype(np.int64 if lo < 0 else np.uint64)
        out = np.where(big, np.array(hi, dtype=out.dtype), out)
        out = np.where(small, np.array(lo, dtype=out.dtype), out)
        return out.astype(dtype)
    return f.astype(dtype)


@ieee
def quantize(x, scales, zero_points, storage_min: int, storage_max: int, expressed_dtype,
             storage_dtype=None) -> np.ndarray:
    """convert(round_half_to_even(clamp(storage_min, x / scale + zero_point, storage_max))).

    Computed in `expressed_dtype`; the result is saturated to [storage_min, storage_max]
    in the integer domain too (the float bounds of wide storage may round outward,
    e.g. f32(2^31 - 1) = 2^31). NaN quantizes to 0 (then clamped into range).
    Returns `storage_dtype` (default int64).
    """
    dt = expressed_numpy_dtype(expressed_dtype)
    xs = np.asarray(x).astype(dt, copy=False)
    v = np.asarray(xs / np.asarray(scales).astype(dt, copy=False))  # never a scalar
    zp = np.asarray(zero_points)
    native = dt.kind == "f" and v.dtype == dt  # float16/32/64: NumPy's own ufunc loops
    if not native or zp.ndim > v.ndim or np.any(zp):
        v += zp.astype(dt, copy=False)  # (+ 0.0 changes no rounded value: skipped)
    if native:  # clip and rint in place (NaN stays NaN, as through maximum / minimum)
        np.clip(v, dt.type(storage_min), dt.type(storage_max), out=v)
        r = np.rint(v, out=v)
        has_nan = bool(np.isnan(np.max(r, initial=0)))
    else:
        np.maximum(v, dt.type(storage_min), out=v)
        np.minimum(v, dt.type(storage_max), out=v)
        r = round_half_to_even(v)
        has_nan = bool(np.isnan(r).any())
    if dt.itemsize >= 4 and max(-storage_min, storage_max) < (1 << 24) and not has_nan:
        # r is integral and already inside [storage_min, storage_max], exactly representable
        return r.astype(storage_dtype or np.int64)
    return float_to_int(r, storage_min, storage_max, storage_dtype or np.int64)


@ieee
def dequantize(q, scales, zero_points, expressed_dtype) -> np.ndarray:
    """convert(q - zero_point, expressed) * scale, in `expressed_dtype`."""
    dt = expressed_numpy_dtype(expressed_dtype)
    q, zp = np.asarray(q), np.asarray(zero_points)
    if dt.itemsize >= 4 and q.dtype.kind in "iu" and not np.any(zp):
        d = q.astype(dt)  # convert(q - 0): one rounding, as the formula's
    elif dt.itemsize >= 4 and q.dtype.kind in "iu" and q.dtype.itemsize <= 2 and zp.dtype.kind in "iu" \
            and int(np.abs(zp).max()) < (1 << 16):
        # |q - zero_point| < 2^17: the difference is exact in float32 and float64
        d = q.astype(dt)
        if np.any(zp):
            d = np.asarray(d - zp.astype(dt))
    elif zp.size and int(np.abs(zp.astype(np.float64)).max()) >= 1 << 62:
        # a zero point far outside the storage range (types allow any int64): q - zp may
        # overflow int64, so subtract exactly in Python integers, then round once
        diff = q.astype(object) - zp.astype(np.int64).astype(object)
        d = np.asarray(np.vectorize(float, otypes=[np.float64])(diff)).astype(dt)
    else:
        d = np.asarray(q.astype(np.int64) - zp.astype(np.int64)).astype(dt)
    s = np.asarray(scales).astype(dt, copy=False)
    if np.broadcast_shapes(d.shape, s.shape) != d.shape:
        return np.asarray(d * s)
    d *= s
    return d


@ieee
def requantize(q, in_scales, in_zero_points, out_scales, out_zero_points, storage_min: int,
               storage_max: int, expressed_dtype, storage_dtype=None) -> np.ndarray:
    """quantize(dequantize(q, in), out): the spec's meaning of a quantized -> quantized uniform_quantize."""
    real = dequantize(q, in_scales, in_zero_points, expressed_dtype)
    return quantize(real, out_scales, out_zero_points, storage_min, storage_max, expressed_dtype,
                    storage_dtype)


def storage_container(bitwidth: int, signed: bool) -> np.dtype:
    """NumPy dtype holding the storage integers of a quantized tensor."""
    return container_dtype(bitwidth, signed)


def storage_round_trips(scales, zero_points, storage_min: int, storage_max: int,
                        expressed_dtype, limit: int = 1 << 22) -> bool:
    """Whether quantize(dequantize(q)) == q for every storage value q, in the expressed
    type (`scales` / `zero_points`: 1-d, one entry per channel). Then an op that only
    picks among its operands' values (maximum, minimum, select, ...) computes the same
    storage integers with or without the dequantize -> op -> quantize of the spec.
    Checked exhaustively; storage ranges too wide to enumerate within `limit` values in
    all are reported as not round-tripping (an i32 value above 2^24 does not survive f32)."""
    s = np.asarray(scales, np.float64).reshape(-1, 1)
    z = np.asarray(zero_points, np.int64).reshape(-1, 1)
    count = (storage_max - storage_min + 1) * s.shape[0]
    if count > limit:
        return False
    q = np.arange(storage_min, storage_max + 1, dtype=np.int64).reshape(1, -1)
    back = quantize(dequantize(q, s, z, expressed_dtype), s, z, storage_min, storage_max,
                    expressed_dtype)
    return bool(np.array_equal(back, np.broadcast_to(q, back.shape)))
