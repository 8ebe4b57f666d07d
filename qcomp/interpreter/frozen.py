"""Work on constant data done once per constant, not once per run.

The interpreter hands out constant values as read-only arrays that own their data
(`run_constant` caches one per constant op). Preparation that depends only on such
data — the float32 copy of int8 weights that BLAS multiplies, their largest magnitude —
is kept here for as long as the array lives, keyed by the view's layout, as a runtime
prepacks weights. Arrays that are writable, or views of writable data, are never cached.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

_CACHE: dict[int, tuple[weakref.ref, dict]] = {}


def _frozen_root(a: np.ndarray) -> np.ndarray | None:
    root = a
    while isinstance(root.base, np.ndarray):
        root = root.base
    if root.flags.writeable or not root.flags.owndata:
        return None
    return root


def cached(a: np.ndarray, purpose: str, fn: Callable[[np.ndarray], Any]) -> Any:
    """`fn(a)`, computed once per frozen array and layout (`purpose` names what `fn` is)."""
    root = _frozen_root(a)
    if root is None:
        return fn(a)
    offset = a.__array_interface__["data"][0] - root.__array_interface__["data"][0]
    key = (purpose, a.dtype.str, a.shape, a.strides, offset)
    entry = _CACHE.get(id(root))
    if entry is None or entry[0]() is not root:
        ident = id(root)
        entry = (weakref.ref(root, lambda _ref: _CACHE.pop(ident, None)), {})
        _CACHE[ident] = entry
    table = entry[1]
    if key not in table:
        value = fn(a)
        if isinstance(value, np.ndarray):
            value.flags.writeable = False
        table[key] = value
    return table[key]
