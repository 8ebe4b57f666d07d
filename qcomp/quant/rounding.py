"""Rounding of float arrays to integral values (results stay floats, same dtype)."""

from __future__ import annotations

import numpy as np


def round_half_to_even(x) -> np.ndarray:
    """Nearest integer, ties to the even one (IEEE roundTiesToEven): 0.5 -> 0, 1.5 -> 2, -2.5 -> -2."""
    a = np.asarray(x)
    if a.dtype.kind in "iub":
        return a
    return np.rint(a)


def round_half_away_from_zero(x) -> np.ndarray:
    """Nearest integer, ties away from zero: 0.5 -> 1, -2.5 -> -3.

    Computed as trunc(x) + sign(x)*(|x - trunc(x)| >= 0.5); `x - trunc(x)` is exact,
    so values just under a tie (0.49999999999999994) are not rounded up.
    """
    a = np.asarray(x)
    if a.dtype.kind in "iub":
        return a
    t = np.trunc(a)
    frac = np.abs(a - t)
    step = np.where(frac >= 0.5, np.sign(a), np.zeros_like(a))
    return (t + step).astype(a.dtype)
