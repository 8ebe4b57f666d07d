"""The numba loops of the bag reductions (`qcomp.quant.rowwise_bags` has the formulas
and the checks; `qcomp.quant.rowwise_numpy` the NumPy twins): compiled once, cached on
disk, bags [start, stop) per call so that `qcomp.quant.threads` can split them (or, for
the register kernels, `*_blocks` runs the blocks on numba's TBB threads)."""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from qcomp.quant.rowwise_base import F32
from qcomp.quant.rowwise_jit import f16_value, fma32, get_f16, get_f32, prefetch
from qcomp.quant.rowwise_vec import (
    load_f32,
    load_u16,
    row_has_nan,
    row_scaled,
    row_step,
    row_store,
    row_zeros,
    rows_store_interleaved,
    rows_store_interleaved_4,
)

_AHEAD = 16
"""Entries ahead whose rows `bag_8bit` asks the cache for (fbgemm's prefetch distance)."""


_ONE = F32(1)
_I0, _I2, _I4, _I6, _I3, _I15, _I255 = (np.int32(v) for v in (0, 2, 4, 6, 3, 15, 255))
"""Shifts and masks as int32: int64 values would make the unpacked values int64,
which AVX2 cannot convert to float32 in vectors."""


@njit(cache=True, inline="always")
def _prefetch_row(address, width):
    """Ask for the row at `address` (both ends) into the cache."""
    prefetch(address)
    prefetch(address + np.uintp(width - 1))


@njit(cache=True, inline="always")
def _prefetch_rows(idx, base, width, first, stop):
    """Ask for the rows of entries [first, stop) into the cache."""
    for e in range(first, stop):
        _prefetch_row(base + np.uintp(idx[e]) * np.uintp(width), width)


@njit(cache=True, inline="always")
def _store_bag(acc, n, mean, out, m):
    """out[m] = acc, times the float32 reciprocal of the length n for a nonempty mean."""
    if mean and n > 0:
        inverse = _ONE / F32(n)
        for c in range(acc.shape[0]):
            acc[c] = acc[c] * inverse
    for c in range(acc.shape[0]):
        out[m, c] = acc[c]


@njit(cache=True, error_model="numpy", nogil=True)
def bag_8bit(data, idx, starts, lengths, weights, weighted, mean, out, start, stop):
    """out[m] = the reduction of bag m over fused 8-bit rows in fbgemm's order: per
    entry `acc = fma(w * scale, q, acc + w * bias)` (float32 products and sums, one
    rounding in the fma: `fma32`), then `acc * (1 / length)` for the mean. Four entries
    per pass over the accumulator (a scratch row of its own, which LLVM knows no table
    row aliases), then one at a time (the same operations in the same order); the rows
    `_AHEAD` entries on are asked into the cache (random reads from a large table).
    Bags [start, stop) only (`qcomp.quant.threads`)."""
    cols = out.shape[1]
    width, base, count = data.shape[1], data.ctypes.data, idx.shape[0]
    acc = np.zeros(cols, F32)
    for m in range(start, stop):
        n = lengths[m]
        first = starts[m]
        acc[:] = 0
        for g in range(n // 4):
            j = first + 4 * g
            _prefetch_rows(idx, base, width, j + _AHEAD, min(j + 4 + _AHEAD, count))
            r0, r1, r2, r3 = idx[j], idx[j + 1], idx[j + 2], idx[j + 3]
            s0, b0 = get_f32(data, r0, cols), get_f32(data, r0, cols + 4)
            s1, b1 = get_f32(data, r1, cols), get_f32(data, r1, cols + 4)
            s2, b2 = get_f32(data, r2, cols), get_f32(data, r2, cols + 4)
            s3, b3 = get_f32(data, r3, cols), get_f32(data, r3, cols + 4)
            if weighted:
                s0, b0 = weights[j] * s0, weights[j] * b0
                s1, b1 = weights[j + 1] * s1, weights[j + 1] * b1
                s2, b2 = weights[j + 2] * s2, weights[j + 2] * b2
                s3, b3 = weights[j + 3] * s3, weights[j + 3] * b3
            for c in range(cols):
                a = fma32(s0, F32(data[r0, c]), acc[c] + b0)
                a = fma32(s1, F32(data[r1, c]), a + b1)
                a = fma32(s2, F32(data[r2, c]), a + b2)
                acc[c] = fma32(s3, F32(data[r3, c]), a + b3)
        for j in range(first + n // 4 * 4, first + n):
            _prefetch_rows(idx, base, width, j + _AHEAD, min(j + 1 + _AHEAD, count))
            row = idx[j]
            scale, bias = get_f32(data, row, cols), get_f32(data, row, cols + 4)
            if weighted:
                scale, bias = weights[j] * scale, weights[j] * bias
            for c in range(cols):
                acc[c] = fma32(scale, F32(data[row, c]), acc[c] + bias)
        _store_bag(acc, n, mean, out, m)


@njit(cache=True, inline="always")
def _plane_of_four(acc, data, r0, r1, r2, r3, s0, b0, s1, b1, s2, b2, s3, b3, shift, mask):
    """acc[b] = the four entries' steps on value `(byte b >> shift) & mask` of each row:
    one plane of packed values (columns b * k + shift / bits), read as contiguous bytes
    so the loop vectorizes like the 8-bit one."""
    for b in range(acc.shape[0]):
        a = fma32(s0, F32((np.int32(data[r0, b]) >> shift) & mask), acc[b] + b0)
        a = fma32(s1, F32((np.int32(data[r1, b]) >> shift) & mask), a + b1)
        a = fma32(s2, F32((np.int32(data[r2, b]) >> shift) & mask), a + b2)
        acc[b] = fma32(s3, F32((np.int32(data[r3, b]) >> shift) & mask), a + b3)


@njit(cache=True, inline="always")
def _plane_of_one(acc, data, row, scale, bias, shift, mask):
    """`_plane_of_four` for one entry."""
    for b in range(acc.shape[0]):
        acc[b] = fma32(scale, F32((np.int32(data[row, b]) >> shift) & mask), acc[b] + bias)


@njit(cache=True, error_model="numpy", nogil=True)
def bag_nbit(data, idx, starts, lengths, bits, weights, weighted, mean, out, start,
                     stop):
    """`bag_8bit` over fused 4-bit or 2-bit rows, accumulated by planes: plane
    s of a bag holds columns s, s + k, s + 2k, ... (k = 8 / bits values per byte), the
    values at bit s * bits of each byte; the planes interleave into out[m] at the end.
    The same operations on each column in the same order as column by column. (One
    kernel for 8, 4 and 2 bits, the 8-bit rows as a single plane, measured 1.3-1.9x
    slower than the two: the bit width's branches stay inside the loops.)"""
    cols = out.shape[1]
    width, base, count = data.shape[1], data.ctypes.data, idx.shape[0]
    nb = width - 4
    k = 8 // bits
    p0, p1, p2, p3 = np.zeros(nb, F32), np.zeros(nb, F32), np.zeros(nb, F32), np.zeros(nb, F32)
    planes = (p0, p1, p2, p3)
    mask = _I15 if bits == 4 else _I3
    for m in range(start, stop):
        n = lengths[m]
        first = starts[m]
        p0[:] = 0
        p1[:] = 0
        p2[:] = 0
        p3[:] = 0
        for g in range(n // 4):
            j = first + 4 * g
            _prefetch_rows(idx, base, width, j + _AHEAD, min(j + 4 + _AHEAD, count))
            r0, r1, r2, r3 = idx[j], idx[j + 1], idx[j + 2], idx[j + 3]
            s0, b0 = get_f16(data, r0, nb), get_f16(data, r0, nb + 2)
            s1, b1 = get_f16(data, r1, nb), get_f16(data, r1, nb + 2)
            s2, b2 = get_f16(data, r2, nb), get_f16(data, r2, nb + 2)
            s3, b3 = get_f16(data, r3, nb), get_f16(data, r3, nb + 2)
            if weighted:
                s0, b0 = weights[j] * s0, weights[j] * b0
                s1, b1 = weights[j + 1] * s1, weights[j + 1] * b1
                s2, b2 = weights[j + 2] * s2, weights[j + 2] * b2
                s3, b3 = weights[j + 3] * s3, weights[j + 3] * b3
            for s in range(k):
                _plane_of_four(planes[s], data, r0, r1, r2, r3, s0, b0, s1, b1, s2, b2, s3, b3,
                               np.int32(s * bits), mask)
        for j in range(first + n // 4 * 4, first + n):
            _prefetch_rows(idx, base, width, j + _AHEAD, min(j + 1 + _AHEAD, count))
            row = idx[j]
            scale, bias = get_f16(data, row, nb), get_f16(data, row, nb + 2)
            if weighted:
                scale, bias = weights[j] * scale, weights[j] * bias
            for s in range(k):
                _plane_of_one(planes[s], data, row, scale, bias, np.int32(s * bits), mask)
        if mean and n > 0:
            inverse = _ONE / F32(n)
            for b in range(nb):
                p0[b] *= inverse
                p1[b] *= inverse
                p2[b] *= inverse
                p3[b] *= inverse
        # interleave the planes: out[m, c] = plane c % k at c // k (2-d stores: a row
        # slice passed to a helper here costs the loops above a third of their speed)
        if bits == 4:
            for b in range(cols // 2):
                out[m, 2 * b] = p0[b]
                out[m, 2 * b + 1] = p1[b]
        else:
            for b in range(cols // 4):
                out[m, 4 * b] = p0[b]
                out[m, 4 * b + 1] = p1[b]
                out[m, 4 * b + 2] = p2[b]
                out[m, 4 * b + 3] = p3[b]
        for c in range(cols - cols % k, cols):
            s = c % k
            out[m, c] = p0[c // k] if s == 0 else (p1[c // k] if s == 1 else p2[c // k])


@njit(cache=True, nogil=True)
def first_outside(idx, rows):
    """The first position of an index outside [0, rows), or -1: a vectorized min/max
    pass, then the search only when one is outside."""
    lo, hi = np.int64(0), np.int64(rows - 1)
    for i in range(idx.shape[0]):
        v = idx[i]
        lo = v if v < lo else lo
        hi = v if v > hi else hi
    if lo >= 0 and hi < rows:
        return -1
    for i in range(idx.shape[0]):
        if idx[i] < 0 or idx[i] >= rows:
            return i
    return -1


@njit(cache=True, nogil=True)
def starts_of(lengths, starts):
    """starts = exclusive prefix sums of lengths; (total, first negative position or -1)."""
    total, negative = np.int64(0), -1
    for m in range(lengths.shape[0]):
        starts[m] = total
        total += lengths[m]
        if lengths[m] < 0 and negative < 0:
            negative = m
    return total, negative


REGISTER_COLS = (32, 64, 128)
"""Row widths (columns) whose bags keep their sum in registers (`rowwise_vec`): numba
compiles `bag_8bit_regs` / `bag_nbit_regs` once per width (the n-bit kernel per byte
count: 8 to 64), so the family is small; other widths take `bag_8bit` /
`bag_nbit`."""


@njit(cache=True, error_model="numpy", nogil=True)
def bag_8bit_regs(data, idx, starts, lengths, weights, weighted, mean, out, start, stop, zero,
                  nan):
    """`bag_8bit` with a bag's sum in vector registers, one entry at a time (the same
    operations in the same order): `zero` is a tuple of C float32 zeros, C one of
    `REGISTER_COLS`, the rows read by address (a 2-d index of each byte of the scale
    and bias cost twice the instructions); nan[m] = 1 where bag m has a NaN (a pass
    over the output in NumPy would cost a third of the kernel's time)."""
    cols = out.shape[1]
    width, base, count = data.shape[1], data.ctypes.data, idx.shape[0]
    out_base = out.ctypes.data
    for m in range(start, stop):
        n = lengths[m]
        first = starts[m]
        acc = row_zeros(zero)
        for j in range(first, first + n):
            if j + _AHEAD < count:
                _prefetch_row(base + np.uintp(idx[j + _AHEAD]) * np.uintp(width), width)
            address = base + np.uintp(idx[j]) * np.uintp(width)
            scale, bias = load_f32(address + np.uintp(cols)), load_f32(address + np.uintp(cols + 4))
            if weighted:
                scale, bias = weights[j] * scale, weights[j] * bias
            acc = row_step(acc, address, scale, bias, _I0, _I255)
        if mean and n > 0:
            acc = row_scaled(acc, _ONE / F32(n))
        if row_has_nan(acc):
            nan[m] = 1
        row_store(acc, out_base + np.uintp(m) * np.uintp(4 * cols))


@njit(cache=True, error_model="numpy", nogil=True)
def bag_nbit_regs(data, idx, starts, lengths, bits, weights, weighted, mean, out, start, stop,
                  zero, nan):
    """`bag_nbit` with the planes in vector registers (`bag_8bit_regs`; `zero` holds one
    zero per byte of packed values, and C = 8 / bits times that)."""
    width, base, count = data.shape[1], data.ctypes.data, idx.shape[0]
    nb = width - 4
    out_base, row_out = out.ctypes.data, np.uintp(4 * out.shape[1])
    for m in range(start, stop):
        n = lengths[m]
        first = starts[m]
        p0, p1, p2, p3 = row_zeros(zero), row_zeros(zero), row_zeros(zero), row_zeros(zero)
        for j in range(first, first + n):
            if j + _AHEAD < count:
                _prefetch_row(base + np.uintp(idx[j + _AHEAD]) * np.uintp(width), width)
            address = base + np.uintp(idx[j]) * np.uintp(width)
            scale = f16_value(load_u16(address + np.uintp(nb)))
            bias = f16_value(load_u16(address + np.uintp(nb + 2)))
            if weighted:
                scale, bias = weights[j] * scale, weights[j] * bias
            if bits == 4:
                p0 = row_step(p0, address, scale, bias, _I0, _I15)
                p1 = row_step(p1, address, scale, bias, _I4, _I15)
            else:
                p0 = row_step(p0, address, scale, bias, _I0, _I3)
                p1 = row_step(p1, address, scale, bias, _I2, _I3)
                p2 = row_step(p2, address, scale, bias, _I4, _I3)
                p3 = row_step(p3, address, scale, bias, _I6, _I3)
        if mean and n > 0:
            inverse = _ONE / F32(n)
            p0, p1 = row_scaled(p0, inverse), row_scaled(p1, inverse)
            p2, p3 = row_scaled(p2, inverse), row_scaled(p3, inverse)
        if row_has_nan(p0) or row_has_nan(p1) or row_has_nan(p2) or row_has_nan(p3):
            nan[m] = 1
        if bits == 4:
            rows_store_interleaved(p0, p1, out_base + np.uintp(m) * row_out)
        else:
            rows_store_interleaved_4(p0, p1, p2, p3, out_base + np.uintp(m) * row_out)


@njit(cache=True, parallel=True, nogil=True)
def bag_8bit_regs_blocks(data, idx, starts, lengths, weights, weighted, mean, out, cuts, zero,
                         nan):
    """`bag_8bit_regs` over the blocks of bags [cuts[p], cuts[p + 1]), one per numba
    thread (each bag's loop as on one thread: the same bits)."""
    for p in prange(cuts.shape[0] - 1):
        bag_8bit_regs(data, idx, starts, lengths, weights, weighted, mean, out, cuts[p],
                      cuts[p + 1], zero, nan)


@njit(cache=True, parallel=True, nogil=True)
def bag_nbit_regs_blocks(data, idx, starts, lengths, bits, weights, weighted, mean, out, cuts,
                         zero, nan):
    """`bag_nbit_regs` over blocks, as `bag_8bit_regs_blocks`."""
    for p in prange(cuts.shape[0] - 1):
        bag_nbit_regs(data, idx, starts, lengths, bits, weights, weighted, mean, out, cuts[p],
                      cuts[p + 1], zero, nan)
