"""`stablehlo.bitcast_convert` between element types of any widths, bit by bit.

Upstream's reference interpreter: one wide element is made of several narrow ones,
the first narrow element in the least significant bits (and split the same way), so an
`i1` tensor of 64 elements is an `i64` whose bit i is element i.
"""

from __future__ import annotations

import numpy as np


def element_bits(x: np.ndarray, width: int) -> np.ndarray:
    """The `width` low bits of each element (floats: their IEEE bits), LSB first,
    shape x.shape + (width,)."""
    a = np.ascontiguousarray(x)
    if a.dtype == np.bool_:
        words = a.astype(np.uint64)
    else:
        words = a.view(f"u{a.dtype.itemsize}").astype(np.uint64)
    shifts = np.arange(width, dtype=np.uint64)
    return ((words[..., None] >> shifts) & np.uint64(1)).astype(np.uint8)


def from_bits(bits: np.ndarray, width: int, dtype: np.dtype) -> np.ndarray:
    """Elements of `dtype` from their `width` bits (last axis, LSB first); signed
    integers of a width below their container are sign-extended."""
    words = (bits.astype(np.uint64) << np.arange(width, dtype=np.uint64)).sum(
        axis=-1, dtype=np.uint64)
    if dtype == np.bool_:
        return words != 0
    unsigned = np.dtype(f"u{dtype.itemsize}")
    out = words.astype(unsigned).view(dtype)
    if dtype.kind == "i" and width < dtype.itemsize * 8:
        sign = np.asarray(1 << (width - 1), dtype=np.int64)
        out = ((out.astype(np.int64) ^ sign) - sign).astype(dtype)
    return out


def bitcast(x: np.ndarray, in_width: int, out_width: int, out_shape, dtype: np.dtype) -> np.ndarray:
    """`x`'s bits regrouped into elements of `out_width` bits, shaped `out_shape`."""
    bits = element_bits(x, in_width).reshape(-1, out_width)
    return from_bits(bits, out_width, dtype).reshape(out_shape)
