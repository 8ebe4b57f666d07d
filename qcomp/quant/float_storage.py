"""Narrow float types as quantized storage (`!quant.uniform<f8E4M3FN:f32, 2.0:3>`) and
the one rounding rule every conversion into them uses.

    round_to_float(x, kind)  = the value of `kind` nearest to x, ties to even mantissa,
                               |x| > max -> ±max (saturate), NaN -> NaN
    quantize_float(x)        = round_to_float(clamp(storage_min, x / scale + zero_point,
                                                    storage_max), storage)
    dequantize_float(q)      = (convert(q, expressed) - zero_point) * scale

The arithmetic before the rounding happens in the expressed type, as for integer
storage (`uniform.quantize`); the rounding itself is exact from float64, in one step
(`round_float64`): ml_dtypes' own casts from float64 pass through float32 first and
so round twice (1.0625 + 2^-40 -> f8E4M3FN gives 1.0, the nearest value is 1.125).
A kind with no NaN (f4E2M1FN) maps NaN to a zero of its sign, as MLIR's APFloat
converts it (`narrow_float`).
"""

from __future__ import annotations

import numpy as np

from qcomp.quant.ieee import ieee
from qcomp.quant.uniform import expressed_numpy_dtype

FLOAT_STORAGE_KINDS = {"f8E5M2": "float8_e5m2", "f8E4M3FN": "float8_e4m3fn", "f4E2M1FN": "float4_e2m1fn"}
"""The float types MLIR takes as quantized storage: MLIR spelling -> ml_dtypes' name."""


def float_kind_dtype(kind) -> np.dtype:
    """The NumPy dtype of a float storage type given by MLIR spelling, ml_dtypes' name
    or as a dtype."""
    import ml_dtypes  # here: a program without narrow floats does not load ml_dtypes

    name = FLOAT_STORAGE_KINDS.get(kind) if isinstance(kind, str) else None
    return np.dtype(getattr(ml_dtypes, name) if name is not None else kind)


def round_float64(f, dt) -> np.ndarray:
    """float64 -> an ml_dtypes float type (bf16, f8, f6, f4) with one rounding to
    nearest even, IEEE overflow (the type's inf, or NaN where it has none).

    ml_dtypes casts float64 through float32, rounding twice; rounding to odd at float32
    first (truncate toward zero, set the last bit when inexact) keeps enough bits for
    the final rounding to be the correct one."""
    f = np.asarray(f, np.float64)
    with np.errstate(all="ignore"):
        f32 = f.astype(np.float32)
        back = f32.astype(np.float64)
        inexact = (back != f) & np.isfinite(f)
        trunc = np.where(np.abs(back) > np.abs(f), np.nextafter(f32, np.float32(0)), f32)
        odd = (np.asarray(trunc, np.float32).view(np.uint32) | np.uint32(1)).view(np.float32)
        return np.asarray(np.where(inexact, odd, f32).astype(dt))


NO_INF_NAN = ("float4_e2m1fn", "float6_e2m3fn", "float6_e3m2fn")
"""ml_dtypes names of the float types with neither inf nor NaN."""
E8M0 = "float8_e8m0fnu"


@ieee
def narrow_float(a, dt) -> np.ndarray:
    """Float values as the ml_dtypes type `dt`, rounded once (`round_float64` from
    float64), with MLIR's APFloat where it converts special values unlike ml_dtypes
    (checked with jaxlib): f4E2M1FN / f6E2M3FN / f6E3M2FN have no inf or NaN, so ±inf
    and NaN become ±0 (the sign kept; finite overflow saturates to ±max, as in
    ml_dtypes); f8E8M0FNU has no zero: ±0 becomes its smallest value 2^-127 (0x00)."""
    a = np.asarray(a)
    dt = np.dtype(dt)
    out = round_float64(a, dt) if a.dtype == np.float64 else np.asarray(a.astype(dt))
    if dt.name in NO_INF_NAN and a.dtype.kind not in "iub":
        f = np.asarray(a, np.float64)
        zero = np.where(np.signbit(f), -0.0, 0.0).astype(dt)
        return np.where(np.isfinite(f), out, zero).astype(dt)
    if dt.name == E8M0:
        return np.where(a == 0, np.uint8(0).view(dt), out).astype(dt)
    return out


def to_float(f: np.ndarray, dt: np.dtype) -> np.ndarray:
    """float64 (or narrower) values as dtype `dt`, rounded once (APFloat's specials)."""
    a = np.asarray(f)
    dt = np.dtype(dt)
    if dt.kind == "V":
        return narrow_float(a, dt)
    with np.errstate(all="ignore"):
        return a.astype(dt)


@ieee
def round_to_float(x, kind, saturate: bool = True) -> np.ndarray:
    """`x` rounded to the nearest value of float type `kind`, ties to even, in one step.

    Out of the finite range: ±max when `saturate` (infinities too; clamping before
    rounding equals saturating after it, max being a value of the type), else ±inf
    where the type has infinities and NaN where it has only NaN. NaN stays NaN
    (a zero of its sign in a type without NaN).
    """
    import ml_dtypes

    dt = float_kind_dtype(kind)
    x = np.asarray(x)
    if saturate:
        finite_max = float(ml_dtypes.finfo(dt).max)
        x = np.clip(x.astype(np.float64), -finite_max, finite_max)  # NaN stays NaN
    return narrow_float(x, dt)


@ieee
def quantize_float(x, scales, zero_points, kind, expressed_dtype,
                   storage_min: int | None = None, storage_max: int | None = None) -> np.ndarray:
    """round_to_float(clamp(storage_min, x / scale + zero_point, storage_max), kind):
    the division, addition and clamp in the expressed type (the clamp only where the
    type narrows the range, `f8E5M2<-8:8>`; the full range is saturation); a `kind`
    array (ml_dtypes). A zero point of 0 is not added, as the lowering does not add
    it (-0 + 0 would be +0)."""
    dt = expressed_numpy_dtype(expressed_dtype)
    v = np.asarray(np.asarray(x).astype(dt) / np.asarray(scales).astype(dt))
    if np.any(zero_points):
        v = np.asarray(v + np.asarray(zero_points).astype(dt))
    if storage_min is not None and storage_max is not None:
        v = np.clip(v, dt.type(storage_min), dt.type(storage_max))  # NaN stays NaN
        if storage_min == 0:  # IEEE maximum(-0, +0) is +0; np.clip keeps -0
            v = np.where(v == 0, dt.type(0), v)
    return round_to_float(v, kind)


@ieee
def dequantize_float(q, scales, zero_points, expressed_dtype) -> np.ndarray:
    """(convert(q, expressed) - zero_point) * scale, in the expressed type (the
    conversion is exact: f16, bf16 and wider hold every float storage value)."""
    dt = expressed_numpy_dtype(expressed_dtype)
    d = np.asarray(q).astype(np.float32).astype(dt)
    zp = np.asarray(zero_points)
    if np.any(zp):
        d = np.asarray(d - zp.astype(dt))
    return np.asarray(d * np.asarray(scales).astype(dt))
