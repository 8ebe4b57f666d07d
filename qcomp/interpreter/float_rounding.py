"""Rounding float64 values to narrower float types exactly once.

NumPy's float64 -> float32/float16 casts round once (to nearest even); ml_dtypes'
float64 -> bfloat16 / float8 casts go through float32 and so round twice, which can
turn a value just above a tie into a tie and round it the wrong way
(`qcomp.quant.float_storage.round_float64` rounds once).
"""

from __future__ import annotations

import numpy as np

from qcomp.quant.float_storage import narrow_float, round_float64


def to_float(f: np.ndarray, dt: np.dtype) -> np.ndarray:
    """float64 (or narrower) values as dtype `dt`, rounded once."""
    a = np.asarray(f)
    dt = np.dtype(dt)
    if dt.kind == "V" and a.dtype.kind == "f":
        return narrow_float(a, dt)
    with np.errstate(all="ignore"):
        return a.astype(dt)
