"""NumPy references of the rowwise formats for the tests: whole-array formulas, written
apart from qcomp's numba kernels (`qcomp.quant.rowwise_kernels`, `rowwise_rand`), so
that the kernels are checked against a second reading of the layouts."""

from __future__ import annotations

import numpy as np

from qcomp.quant.rowwise import F32, first_min_max, packed_bytes, per_byte
from qcomp.quant.rowwise_rand import GOLDEN, HEADER, MIX1, MIX2, QEPSILON, rand_width, tail_of


def pack_consecutive(q: np.ndarray, bits: int) -> np.ndarray:
    """[R, C] values < 2^bits -> [R, ceil(C*bits/8)] bytes, column c in byte c // k at
    bit (c % k) * bits (k = 8 / bits values per byte; unused high slots are 0)."""
    k = per_byte(bits)
    r, c = q.shape
    padded = np.zeros((r, packed_bytes(c, bits) * k), np.uint8)
    padded[:, :c] = q
    out = np.zeros((r, padded.shape[1] // k), np.uint8)
    for s in range(k):
        out |= padded[:, s::k] << (s * bits)
    return out


def unpack_consecutive(packed: np.ndarray, bits: int, cols: int) -> np.ndarray:
    """Inverse of `pack_consecutive`: [R, nb] bytes -> [R, cols] values."""
    k = per_byte(bits)
    r, nb = packed.shape
    if k == 1:
        return packed[:, :cols].copy()
    if k == 2:
        p = packed.astype("<u2")
        v = (p & 0x0F) | ((p & 0xF0) << 4)
    else:
        p = packed.astype("<u4")
        v = (p & 0x03) | ((p & 0x0C) << 6) | ((p & 0x30) << 12) | ((p & 0xC0) << 18)
    return np.ascontiguousarray(v).view(np.uint8).reshape(r, nb * k)[:, :cols]


def splitmix64(seed: int, index: np.ndarray) -> np.ndarray:
    """The `index + 1`-th output of SplitMix64 seeded with `seed` (uint64)."""
    with np.errstate(over="ignore"):
        z = np.uint64(seed % (1 << 64)) + (np.asarray(index, np.uint64) + np.uint64(1)) * np.uint64(GOLDEN)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(MIX1)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(MIX2)
        return z ^ (z >> np.uint64(31))


def uniforms(seed: int, start: int, count: int) -> np.ndarray:
    """float32 in [0, 1): `(splitmix64(seed, n) >> 40) * 2^-24` for n in start..start+count."""
    z = splitmix64(seed, np.arange(start, start + count, dtype=np.uint64))
    return (z >> np.uint64(40)).astype(F32) * F32(2.0 ** -24)


def pack_segments(q: np.ndarray, bits: int) -> np.ndarray:
    """[R, C] values < 2^bits -> [R, S] bytes, S = ceil(C / k): slot b of byte i holds
    value b*S + i (module docstring)."""
    k = per_byte(bits)
    r, c = q.shape
    s = packed_bytes(c, bits)
    padded = np.zeros((r, k * s), np.uint8)
    padded[:, :c] = q
    seg = padded.reshape(r, k, s)
    out = seg[:, 0, :].copy()
    for b in range(1, k):
        out |= seg[:, b, :] << np.uint8(b * bits)
    return out


def unpack_segments(data: np.ndarray, bits: int, cols: int) -> np.ndarray:
    """Inverse of `pack_segments`: [R, S] bytes -> [R, cols] values."""
    k = per_byte(bits)
    r, s = data.shape
    mask = np.uint8((1 << bits) - 1)
    out = np.empty((r, k, s), np.uint8)
    for b in range(k):
        out[:, b, :] = (data >> np.uint8(b * bits)) & mask
    return out.reshape(r, k * s)[:, :cols]


def float_to_fused_rand(x: np.ndarray, bits: int, random: bool = True, seed: int = 0
                        ) -> np.ndarray:
    """`qcomp.quant.rowwise_rand`'s quantization, whole arrays at a time (float32 [R, C];
    no argument checks)."""
    rows = np.ascontiguousarray(x, F32)
    r, c = rows.shape
    mn, mx = first_min_max(rows)
    top = F32((1 << bits) - 1)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        gap = ((mx - mn) / top).astype(F32)
        gap_inv = (1.0 / (gap.astype(np.float64) + QEPSILON)).astype(F32)
    q = np.empty((r, c), np.uint8)
    step = max(1, (1 << 16) // c)
    for start in range(0, r, step):
        sl = slice(start, min(r, start + step))
        with np.errstate(over="ignore", invalid="ignore"):
            t = (rows[sl] - mn[sl, None]) * gap_inv[sl, None]
            if random:
                u = uniforms(seed, start * c, t.size).reshape(t.shape)
                t = np.floor(t + u)
                qb = np.where(np.isnan(t), top, np.clip(t, 0, top))
            else:
                qb = np.rint(np.where(np.isnan(t), top, np.clip(t, 0, top)))
        q[sl] = qb
    out = np.empty((r, rand_width(c, bits)), np.uint8)
    out[:, 0] = bits
    out[:, 1] = tail_of(c, bits)
    out[:, 2:6] = mn.astype("<f4").view(np.uint8).reshape(r, 4)
    out[:, 6:10] = mx.astype("<f4").view(np.uint8).reshape(r, 4)
    out[:, HEADER:] = pack_segments(q, bits)
    return out.reshape(x.shape[:-1] + (out.shape[1],))


def fused_rand_to_float(rows: np.ndarray, bits: int, cols: int) -> np.ndarray:
    """`qcomp.quant.rowwise_rand`'s dequantization: fma(q, gap', min), the fma in float64
    with `fma_f32`."""
    from qcomp.quant.rowwise import fma_f32
    mn = np.ascontiguousarray(rows[:, 2:6]).view("<f4").astype(F32)[:, 0]
    mx = np.ascontiguousarray(rows[:, 6:10]).view("<f4").astype(F32)[:, 0]
    with np.errstate(over="ignore", invalid="ignore"):
        gap = ((mx - mn) / F32((1 << bits) - 1)).astype(F32)
        gap = (gap.astype(np.float64) + QEPSILON).astype(F32)
    q = unpack_segments(rows[:, HEADER:], bits, cols)
    return fma_f32(q, gap[:, None], mn[:, None], True)
