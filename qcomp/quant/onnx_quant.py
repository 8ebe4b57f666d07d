"""ONNX's QuantizeLinear, DequantizeLinear and DynamicQuantizeLinear on NumPy arrays.

Element types are ONNX names (`uint8`, `int4`, `float8e4m3fn`, `float4e2m1`, ...).

    granularity:  scale shape () or (1,) -> per tensor; (D[axis],) and block_size 0 -> per
                  axis; x's shape with D[axis] -> ceil(D[axis] / B) -> blocked, each scale
                  repeated B times along axis (the last block may be short)
    quantize:     integer y = clamp(round_half_even(x / s) + zp, lo, hi)
                  float8 y = cast(x / s + zp) (saturate: ±inf and |v| > max -> ±max)
                  float4 y = cast(x / s + zp) (always saturating: float4e2m1 has no inf/NaN)
    dequantize:   y = (x - zp) * s, computed in the scale's type (float32 for integer and
                  float8 storage; e8m0 scales in float32)
    dynamic:      s = (max(0, max x) - min(0, min x)) / 255,
                  zp = clamp(round_half_even(-min(0, min x) / s), 0, 255),
                  y = clamp(round_half_even(x / s) + zp, 0, 255)

`x / s` is NumPy's division of the two arrays as given (`precision`: both first cast to
that type), as ONNX's reference evaluator divides.
"""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np

from qcomp.quant.onnx_cast import FLOAT8_NAMES, cast_array, onnx_numpy_dtype

INT_RANGES = {
    "uint8": (0, 255), "int8": (-128, 127), "uint16": (0, 65535), "int16": (-32768, 32767),
    "uint4": (0, 15), "int4": (-8, 7), "uint2": (0, 3), "int2": (-2, 1),
    "int32": (-(2 ** 31), 2 ** 31 - 1),
}


class LayoutError(ValueError):
    """A scale shape that no granularity of the input's shape admits."""


def scale_layout(x_shape: tuple[int, ...], s_shape: tuple[int, ...], axis: int,
                 block_size: int) -> tuple[str, int]:
    """("tensor" | "axis" | "block", normalized axis) for a scale of `s_shape` on an
    input of `x_shape`, or LayoutError saying why none fits."""
    rank = len(x_shape)
    if block_size < 0:
        raise LayoutError(f"block_size must be non-negative, got {block_size}")
    if len(s_shape) == 0 or (len(s_shape) == 1 and s_shape[0] == 1 and block_size == 0):
        return "tensor", axis
    if not -rank <= axis < rank:
        raise LayoutError(f"axis {axis} is out of range [{-rank}, {rank - 1}]")
    a = axis % rank
    if block_size == 0:
        if len(s_shape) != 1:
            raise LayoutError("scale must be a scalar or a 1-D tensor without block_size, "
                              f"got shape {list(s_shape)}")
        if s_shape[0] != x_shape[a]:
            raise LayoutError(f"scale has {s_shape[0]} elements, the input's dimension "
                              f"{a} has {x_shape[a]}")
        return "axis", a
    if len(s_shape) != rank:
        raise LayoutError(f"blocked scale must have the input's rank {rank}, got shape "
                          f"{list(s_shape)}")
    for d, (xd, sd) in enumerate(zip(x_shape, s_shape)):
        if d != a and xd != sd:
            raise LayoutError(f"blocked scale shape {list(s_shape)} must equal the input "
                              f"shape {list(x_shape)} except at axis {a}")
    if s_shape[a] != math.ceil(x_shape[a] / block_size):
        raise LayoutError(f"blocked scale needs ceil({x_shape[a]} / {block_size}) = "
                          f"{math.ceil(x_shape[a] / block_size)} entries along axis {a}, "
                          f"got {s_shape[a]}")
    return "block", a


def expand(p: np.ndarray, x_shape: tuple[int, ...], axis: int, block_size: int) -> np.ndarray:
    """A scale or zero point broadcast to `x_shape` by its granularity."""
    p = np.asarray(p)
    kind, a = scale_layout(tuple(x_shape), tuple(p.shape), axis, block_size)
    if kind == "tensor":
        return p.reshape(())
    if kind == "axis":
        dims = [1] * len(x_shape)
        dims[a] = p.size
        return p.reshape(dims)
    return np.repeat(p, block_size, axis=a).take(range(x_shape[a]), axis=a)


def positive_scales(x, scale, zero_point, lo: int, hi: int, *, axis: int = 1,
                    block_size: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The same reals with positive scales: where s < 0, (x - zp) * s = (x' - zp') * -s
    with x' = lo + hi - x and zp' = lo + hi - zp (the storage range [lo, hi] reflected:
    exact, and lo <= lo + hi - v <= hi). onnxruntime's symmetric blockwise quantizer
    gives a block the sign that maps its largest magnitude to -2^(bits-1)."""
    x, s, z = np.asarray(x, np.int64), np.asarray(scale), np.asarray(zero_point, np.int64)
    neg = s < 0
    flip = expand(neg, x.shape, axis, block_size)
    return np.where(flip, lo + hi - x, x), np.abs(s), np.where(neg, lo + hi - z, z)


def _divide(x: np.ndarray, s: np.ndarray, precision: str | None) -> np.ndarray:
    if precision:
        dt = onnx_numpy_dtype(precision)
        x, s = x.astype(dt), s.astype(dt)
    elif s.dtype == ml_dtypes.float8_e8m0fnu:
        s = s.astype(np.float32)
    with np.errstate(all="ignore"):
        return np.asarray(x / s)


def quantize_linear(x, scale, zero_point, out: str, *, axis: int = 1, block_size: int = 0,
                    saturate: bool = True, precision: str | None = None) -> np.ndarray:
    """ONNX QuantizeLinear into storage type `out` (see the module docstring)."""
    x = np.asarray(x)
    s = expand(scale, x.shape, axis, block_size)
    q = _divide(x, s, precision)
    zp = None if zero_point is None else expand(zero_point, x.shape, axis, block_size)
    if out in INT_RANGES:
        lo, hi = INT_RANGES[out]
        zpi = 0 if zp is None else zp.astype(np.int64)
        f = np.asarray(q, np.float64)
        # clamp before rounding: the same for every value in range, defined for the rest
        f = np.clip(np.nan_to_num(f, nan=0.0), lo - np.float64(2) ** 33, hi + np.float64(2) ** 33)
        r = np.rint(f).astype(np.int64) + zpi
        return np.clip(r, lo, hi).astype(onnx_numpy_dtype(out))
    if out in FLOAT8_NAMES or out == "float4e2m1":
        if zp is not None:
            with np.errstate(all="ignore"):
                q = q.astype(np.float32) + zp.astype(np.float32)
        return cast_array(q, out, saturate=saturate or out == "float4e2m1")
    raise ValueError(f"QuantizeLinear cannot produce {out}")


def dequantize_linear(x, scale, zero_point, out: str | None = None, *, axis: int = 1,
                      block_size: int = 0) -> np.ndarray:
    """ONNX DequantizeLinear: `(x - zp) * scale` in `out` (default: the scale's type)."""
    x = np.asarray(x)
    s = expand(scale, x.shape, axis, block_size)
    if s.dtype == ml_dtypes.float8_e8m0fnu:
        s = s.astype(np.float32)
    out_dt = onnx_numpy_dtype(out) if out else s.dtype
    if x.dtype.kind in "iu" or x.dtype in (ml_dtypes.int4, ml_dtypes.uint4, ml_dtypes.int2,
                                           ml_dtypes.uint2):
        d = x.astype(np.int64)
        if zero_point is not None:
            d = d - expand(zero_point, x.shape, axis, block_size).astype(np.int64)
        d = d.astype(np.float32)
    else:
        d = x.astype(np.float32)
        if zero_point is not None:
            d = d - expand(zero_point, x.shape, axis, block_size).astype(np.float32)
    with np.errstate(all="ignore"):
        return np.asarray(d.astype(s.dtype) * s).astype(out_dt)


def dynamic_quantize_linear(x) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """ONNX DynamicQuantizeLinear (uint8): (y, y_scale, y_zero_point)."""
    x = np.asarray(x, np.float32)
    lo = np.minimum(np.float32(0), x.min(initial=np.float32(0)))
    hi = np.maximum(np.float32(0), x.max(initial=np.float32(0)))
    s = np.float32((hi - lo) / np.float32(255))
    with np.errstate(all="ignore"):
        zpf = np.float32(0) - lo / s if s != 0 else np.float32(0)
    zp = np.uint8(np.clip(np.rint(zpf), 0, 255))
    if s == 0:
        y = np.full(x.shape, zp, np.uint8)
    else:
        y = quantize_linear(x, np.asarray(s), np.asarray(zp), "uint8")
    return y, np.asarray(s, np.float32), np.asarray(zp, np.uint8)
