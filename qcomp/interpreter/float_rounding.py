"""Rounding float64 values to narrower float types exactly once.

NumPy's float64 -> float32/float16 casts round once (to nearest even); ml_dtypes'
float64 -> bfloat16 / float8 casts go through float32 and so round twice, which can
turn a value just above a tie into a tie and round it the wrong way.
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


def to_float(f: np.ndarray, dt: np.dtype) -> np.ndarray:
    """float64 (or narrower) values as dtype `dt`, rounded once."""
    a = np.asarray(f)
    dt = np.dtype(dt)
    if dt.kind == "V" and a.dtype == np.float64:
        return round_float64(a, dt)
    with np.errstate(all="ignore"):
        return a.astype(dt)
