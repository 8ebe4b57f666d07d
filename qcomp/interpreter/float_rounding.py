"""Rounding float64 values to narrower float types exactly once.

NumPy's float64 -> float32/float16 casts round once (to nearest even); ml_dtypes'
float64 -> bfloat16 / float8 casts go through float32 and so round twice, which can
turn a value just above a tie into a tie and round it the wrong way.

Where MLIR's APFloat (and so StableHLO's reference interpreter) converts special
values unlike ml_dtypes, these functions follow APFloat (checked with jaxlib):
f4E2M1FN / f6E2M3FN / f6E3M2FN have no inf or NaN: ±inf and NaN become ±0 (the
sign kept; finite overflow saturates to ±max, as in ml_dtypes); f8E8M0FNU: ±0
becomes the smallest value 2^-127 (encoding 0x00), and `convert` widens its 0xFF
encoding to +inf (arithmetic reads it as NaN, as ml_dtypes does).
"""

from __future__ import annotations

import numpy as np


def round_float64(f: np.ndarray, dt: np.dtype) -> np.ndarray:
    """float64 -> an ml_dtypes float type (bf16, f8) with one rounding to nearest even.

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
E8M0 = "float8_e8m0fnu"


def widen(x: np.ndarray) -> np.ndarray:
    """Values of any float dtype as float64 (f8E8M0FNU's 0xFF as +inf)."""
    a = np.asarray(x)
    f = a.astype(np.float64)
    if a.dtype.name == E8M0:
        f = np.where(a.view(np.uint8) == 0xFF, np.inf, f)
    return f


def _narrow_specials(a: np.ndarray, out: np.ndarray, dt: np.dtype) -> np.ndarray:
    if dt.name in NO_INF_NAN:
        f = np.asarray(a, np.float64)
        zero = np.where(np.signbit(f), -0.0, 0.0).astype(dt)
        return np.where(np.isfinite(f), out, zero).astype(dt)
    if dt.name == E8M0:
        return np.where(np.asarray(a) == 0, np.uint8(0).view(dt), out).astype(dt)
    return out


def to_float(f: np.ndarray, dt: np.dtype) -> np.ndarray:
    """float64 (or narrower) values as dtype `dt`, rounded once (APFloat's specials)."""
    a = np.asarray(f)
    dt = np.dtype(dt)
    if dt.kind == "V" and a.dtype == np.float64:
        return _narrow_specials(a, round_float64(a, dt), dt)
    with np.errstate(all="ignore"):
        out = a.astype(dt)
    return _narrow_specials(a, out, dt) if dt.kind == "V" else out
