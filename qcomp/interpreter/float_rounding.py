"""Rounding float64 values to narrower float types exactly once.

NumPy's float64 -> float32/float16 casts round once (to nearest even); ml_dtypes'
float64 -> bfloat16 / float8 casts go through float32 and so round twice, which can
turn a value just above a tie into a tie and round it the wrong way
(`qcomp.quant.float_storage.round_float64` rounds once).

Where MLIR's APFloat (and so StableHLO's reference interpreter) converts special
values unlike ml_dtypes, the conversions follow APFloat (checked with jaxlib; the rule
is `qcomp.quant.float_storage.narrow_float`'s): f4E2M1FN / f6E2M3FN / f6E3M2FN have no
inf or NaN: ±inf and NaN become ±0; f8E8M0FNU: ±0 becomes the smallest value 2^-127
(encoding 0x00), and `convert` widens its 0xFF encoding to +inf (arithmetic reads it as
NaN, as ml_dtypes does).
"""

from __future__ import annotations

import numpy as np

from qcomp.quant.float_storage import E8M0, NO_INF_NAN, round_float64, to_float

__all__ = ["NO_INF_NAN", "round_float64", "to_float", "widen"]


def widen(x: np.ndarray) -> np.ndarray:
    """Values of any float dtype as float64 (f8E8M0FNU's 0xFF as +inf)."""
    a = np.asarray(x)
    f = a.astype(np.float64)
    if a.dtype.name == E8M0:
        f = np.where(a.view(np.uint8) == 0xFF, np.inf, f)
    return f
