"""ONNX's ReduceMin / ReduceMax, Min / Max and Round on NumPy arrays.

    ReduceMin / ReduceMax: min / max over `axes` (negative counted from the end; all
        axes when none are given unless noop_with_empty_axes: then the input itself),
        reduced axes kept with size 1 when keepdims; over an empty set: +inf / -inf for
        floats, the type's largest / smallest value for integers, True / False for bool
    Min / Max: elementwise over the inputs with NumPy broadcasting; NaN wins
    Round: round half to even
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def _identity(dtype: np.dtype, kind: str):
    """The value a min (`kind` "min") / max over no elements gives."""
    if dtype == np.bool_:
        return kind == "min"
    if dtype.kind == "f":
        return np.inf if kind == "min" else -np.inf
    info = np.iinfo(dtype)
    return info.max if kind == "min" else info.min


def reduce_min_max(data, kind: str, axes: Sequence[int] | None = None, keepdims: int = 1,
                   noop_with_empty_axes: int = 0) -> np.ndarray:
    """ReduceMin (`kind` "min") or ReduceMax ("max") of `data`."""
    x = np.asarray(data)
    if axes is None or len(axes) == 0:
        if noop_with_empty_axes:
            return x.copy()
        ax = tuple(range(x.ndim))
    else:
        ax = tuple(sorted({int(a) % x.ndim if x.ndim else 0 for a in axes}))
        for a in axes:
            if not -x.ndim <= int(a) < max(x.ndim, 1):
                raise ValueError(f"axis {a} is out of range for rank {x.ndim}")
    f = np.min if kind == "min" else np.max
    y = f(x, axis=ax, keepdims=bool(keepdims), initial=_identity(x.dtype, kind))
    return np.asarray(y, x.dtype)


def min_max(inputs: Sequence, kind: str) -> np.ndarray:
    """Min (`kind` "min") or Max ("max") of the inputs, broadcast."""
    f = np.minimum if kind == "min" else np.maximum
    y = np.asarray(inputs[0])
    for x in inputs[1:]:
        y = f(y, np.asarray(x))
    return np.broadcast_to(y, np.broadcast_shapes(*(np.shape(x) for x in inputs))).copy()


def round_half_even(x) -> np.ndarray:
    x = np.asarray(x)
    return np.rint(x).astype(x.dtype)
