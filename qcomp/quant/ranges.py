"""Integer storage ranges, NumPy containers and two's-complement wrapping.

A `b`-bit signed type holds [-2^(b-1), 2^(b-1) - 1]; unsigned [0, 2^b - 1]; a
signless literal may use either spelling, [-2^(b-1), 2^b - 1].
Narrow widths (i2, i4, u2, ...) live in the smallest NumPy integer dtype that
holds them; `wrap` reduces any int64 value modulo 2^b into that range and
`signed_view` reads a b-bit pattern as a signed value.
"""

from __future__ import annotations

import functools

import numpy as np


def storage_range(bitwidth: int, signed: bool) -> tuple[int, int]:
    """(lo, hi) of a `bitwidth`-bit integer: signed [-2^(b-1), 2^(b-1)-1], unsigned [0, 2^b-1]."""
    if bitwidth < 1 or bitwidth > 64:
        raise ValueError(f"unsupported integer bitwidth {bitwidth}")
    if signed:
        return -(1 << (bitwidth - 1)), (1 << (bitwidth - 1)) - 1
    return 0, (1 << bitwidth) - 1


FLOAT_STORAGE_MAX = {"f8E5M2": 57344, "f8E4M3FN": 448, "f4E2M1FN": 6}
"""Largest finite value of each float type MLIR takes as quantized storage."""


def float_storage_range(kind: str) -> tuple[int, int]:
    """(lo, hi) of a float storage type as MLIR's quant types give it: its finite range,
    [-max, max] (f8E5M2 [-57344, 57344], f8E4M3FN [-448, 448], f4E2M1FN [-6, 6])."""
    return -FLOAT_STORAGE_MAX[kind], FLOAT_STORAGE_MAX[kind]


def literal_range(bitwidth: int, signed: bool | None) -> tuple[int, int]:
    """Integers a `bitwidth`-bit literal may spell: `storage_range` when signed or
    unsigned; signless (None) either spelling, [-2^(b-1), 2^b - 1]. A 0-bit type
    holds only 0 (signed: nothing, the empty range (0, -1))."""
    if bitwidth == 0:
        return (0, -1) if signed else (0, 0)
    lo, hi = -(1 << (bitwidth - 1)), (1 << (bitwidth - 1)) - 1
    if signed:
        return lo, hi
    return (0 if signed is not None else lo), (1 << bitwidth) - 1


@functools.cache
def container_dtype(bitwidth: int, signed: bool) -> np.dtype:
    """Smallest NumPy integer dtype holding every `bitwidth`-bit value (i4 -> int8, u2 -> uint8)."""
    if bitwidth < 1 or bitwidth > 64:
        raise ValueError(f"unsupported integer bitwidth {bitwidth}")
    for bits in (8, 16, 32, 64):
        if bitwidth <= bits:
            return np.dtype(f"{'int' if signed else 'uint'}{bits}")
    raise AssertionError("unreachable")


def wrap(x, bitwidth: int, signed: bool) -> np.ndarray:
    """`x` reduced modulo 2^bitwidth into the type's range (two's complement), in its container dtype.

    `x` is any integer array (int64 or uint64 or narrower); only its low `bitwidth`
    bits matter, so wrapping composes with int64 arithmetic that itself wrapped.
    """
    out_dtype = container_dtype(bitwidth, signed)
    a = np.asarray(x)
    if a.dtype.kind not in "iub":
        raise TypeError(f"wrap expects integers, got {a.dtype}")
    if bitwidth in (8, 16, 32, 64):
        # NumPy integer casts keep the low bits (two's complement), which is the wrap
        return a.astype(out_dtype)
    u = a.astype(np.uint64) if a.dtype.kind == "u" else a.astype(np.int64).astype(np.uint64)
    u = u & np.uint64((1 << bitwidth) - 1)
    if signed:
        sign = np.uint64(1 << (bitwidth - 1))
        v = u.astype(np.int64) - ((u & sign) != 0).astype(np.int64) * (1 << bitwidth)
        return v.astype(out_dtype)
    return u.astype(out_dtype)


def signed_view(x, bitwidth: int) -> np.ndarray:
    """The low `bitwidth` bits of each integer of `x` read as a two's-complement signed
    value, in int64: x mod 2^b, minus 2^b when that is >= 2^(b-1) (u8 200 is -56).
    `x` may be an object array of Python integers (values of 64-bit types)."""
    a = np.asarray(x)
    if a.dtype == object:
        low = [int(v) & ((1 << 64) - 1) for v in a.reshape(-1).tolist()]
        a = np.array(low, dtype=np.uint64).reshape(a.shape)
    return wrap(a, bitwidth, True).astype(np.int64)


def saturate(x, lo: int, hi: int, dtype=None) -> np.ndarray:
    """`x` clamped to [lo, hi] (NaN-free numeric input), cast to `dtype` when given."""
    a = np.clip(np.asarray(x), lo, hi)
    return a.astype(dtype) if dtype is not None else a
