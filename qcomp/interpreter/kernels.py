"""IR-free NumPy kernels for the structured StableHLO ops (vectorised, no per-element loops).

Integer contractions are exact: `int_matmul` uses float64 BLAS when every partial
sum provably fits in 53 bits, int64 otherwise (wrapping as int64 does).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from qcomp.interpreter.frozen import cached

_EXACT_F32 = float(1 << 24)
_EXACT_F64 = float(1 << 53)


def _absmax(x: np.ndarray) -> int:
    if not x.size:
        return 0
    return max(abs(int(x.max())), abs(int(x.min())))


def int_matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Exact int64 `a @ b` (batched) through float BLAS.

    Every partial sum is an integer bounded by K * max|a| * max|b|; below 2^24 float32
    represents all of them exactly (so any summation order is exact), below 2^53
    float64 does; otherwise int64 matmul (wrapping as int64 does).
    """
    dtype = exact_float_dtype(a, b, a.shape[-1])
    if dtype is None:
        return np.matmul(a.astype(np.int64), b.astype(np.int64))
    fa, fb = (cached(x, dtype.__name__, lambda v: v.astype(dtype, copy=False)) for x in (a, b))
    return np.matmul(fa, fb).astype(np.int64)


def exact_float_dtype(a: np.ndarray, b: np.ndarray, k: int, extra: int = 0):
    """float32 or float64 when every partial sum of K products of `a`'s and `b`'s values
    (and `extra`, a padding value of `a`) is exact in it; None when only int64 is."""
    amax = max(int(cached(a, "absmax", _absmax)), abs(int(extra)))
    bound = float(amax) * float(cached(b, "absmax", _absmax)) * max(k, 1)
    for limit, dtype in ((_EXACT_F32, np.float32), (_EXACT_F64, np.float64)):
        if bound < limit:
            return dtype
    return None


def sequential_matmul(a: np.ndarray, b: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Batched `a @ b` summed term by term in `dtype`, in contraction order:
    acc = 0; acc = dtype(acc + dtype(a_k * b_k)) for k = 0, 1, ... — what the StableHLO
    reference interpreter does for float dot products. Loops over K, not over elements."""
    a, b = a.astype(dtype), b.astype(dtype)
    acc = np.zeros(a.shape[:-1] + b.shape[-1:], dtype)
    with np.errstate(all="ignore"):
        for k in range(a.shape[-1]):
            acc = (acc + a[..., :, k:k + 1] * b[..., k:k + 1, :]).astype(dtype)
    return acc


def matmul(a: np.ndarray, b: np.ndarray, accumulate) -> np.ndarray:
    """Batched matmul: 'int' exact int64, 'float' in float64, 'complex' in complex128;
    a NumPy dtype: term by term in that dtype (`sequential_matmul`)."""
    if isinstance(accumulate, np.dtype):
        return sequential_matmul(a, b, accumulate)
    if accumulate == "int":
        return int_matmul(a, b)
    if accumulate == "exact":  # floats holding integers whose partial sums are all exact
        return np.matmul(a, b).astype(np.int64)
    if accumulate == "complex":
        return np.matmul(a.astype(np.complex128, copy=False), b.astype(np.complex128, copy=False))
    return np.matmul(a.astype(np.float64, copy=False), b.astype(np.float64, copy=False))


_WIDE = {"float": np.float64, "complex": np.complex128}


def dot_general(lhs: np.ndarray, rhs: np.ndarray, lhs_batch: Sequence[int], rhs_batch: Sequence[int],
                lhs_contract: Sequence[int], rhs_contract: Sequence[int], accumulate) -> np.ndarray:
    """result[batch..., lhs_free..., rhs_free...] = sum over contracting dims of lhs * rhs."""
    lb, rb, lc, rc = list(lhs_batch), list(rhs_batch), list(lhs_contract), list(rhs_contract)
    lf = [d for d in range(lhs.ndim) if d not in lb and d not in lc]
    rf = [d for d in range(rhs.ndim) if d not in rb and d not in rc]
    bshape = [lhs.shape[d] for d in lb]
    lfs = [lhs.shape[d] for d in lf]
    rfs = [rhs.shape[d] for d in rf]
    k = math.prod(lhs.shape[d] for d in lc)
    a, b = np.transpose(lhs, lb + lf + lc), np.transpose(rhs, rb + rc + rf)
    wide = _WIDE.get(accumulate) if isinstance(accumulate, str) else None
    if wide is not None:  # one copy: widened while laid out for the matmul
        a, b = np.ascontiguousarray(a, dtype=wide), np.ascontiguousarray(b, dtype=wide)
    a = a.reshape(math.prod(bshape), math.prod(lfs), k)
    b = b.reshape(math.prod(bshape), k, math.prod(rfs))
    return matmul(a, b, accumulate).reshape(bshape + lfs + rfs)


def reduce_sum_keep(x: np.ndarray, axes: Sequence[int]) -> np.ndarray:
    """Exact int64 sum over `axes` (dropped)."""
    return np.sum(x.astype(np.int64), axis=tuple(axes))


def pad(x: np.ndarray, value, low: Sequence[int], high: Sequence[int],
        interior: Sequence[int]) -> np.ndarray:
    """StableHLO pad: `interior` copies of `value` between elements, then low/high edges (negative crops)."""
    shape = [(s - 1) * (i + 1) + 1 if s > 0 else 0 for s, i in zip(x.shape, interior)]
    out = np.full(shape, value, dtype=x.dtype)
    out[tuple(slice(None, None, i + 1) for i in interior)] = x
    widths = [(max(lo, 0), max(hi, 0)) for lo, hi in zip(low, high)]
    if any(w != (0, 0) for w in widths):
        out = np.pad(out, widths, constant_values=np.asarray(value, dtype=x.dtype))
    crop = tuple(slice(-lo if lo < 0 else 0, (n + hi) if hi < 0 else n)
                 for lo, hi, n in zip(low, high, out.shape))
    return out[crop]


def convolution(lhs: np.ndarray, rhs: np.ndarray, *, input_batch: int, input_feature: int,
                input_spatial: Sequence[int], kernel_in: int, kernel_out: int,
                kernel_spatial: Sequence[int], output_batch: int, output_feature: int,
                output_spatial: Sequence[int], strides: Sequence[int],
                padding: Sequence[tuple[int, int]], lhs_dilation: Sequence[int],
                rhs_dilation: Sequence[int], reversal: Sequence[bool], feature_groups: int,
                batch_groups: int, accumulate, pad_value=0) -> np.ndarray:
    """StableHLO convolution on arrays in any layout; returns the output layout.

    lhs -> (N, spatial..., C), rhs -> (spatial..., I, O); lhs dilated with and padded by
    `pad_value`; windows gathered with strides and rhs dilation; one matmul per group.
    """
    n_sp = len(input_spatial)
    if accumulate == "int" and lhs.size and rhs.size:
        # integers exact in a float type are converted before the windows are copied out
        dtype = exact_float_dtype(lhs, rhs, rhs.size // rhs.shape[kernel_out], pad_value)
        if dtype is not None:
            lhs = lhs.astype(dtype, copy=False)
            rhs = cached(rhs, dtype.__name__, lambda v: v.astype(dtype, copy=False))
            pad_value, accumulate = dtype(pad_value), "exact"
    x = np.transpose(lhs, [input_batch, *input_spatial, input_feature])
    w = np.transpose(rhs, [*kernel_spatial, kernel_in, kernel_out])
    x = pad(x, pad_value, [0] + [p[0] for p in padding] + [0], [0] + [p[1] for p in padding] + [0],
            [0] + [d - 1 for d in lhs_dilation] + [0])
    ksz = w.shape[:n_sp]
    eff = [(k - 1) * d + 1 for k, d in zip(ksz, rhs_dilation)]
    out_sp = [max(0, (x.shape[1 + i] - eff[i]) // strides[i] + 1) if x.shape[1 + i] >= eff[i] else 0
              for i in range(n_sp)]
    n, c = x.shape[0], x.shape[-1]
    o = w.shape[-1]
    if min(out_sp + [n, c, o] + list(ksz), default=1) == 0:
        acc = np.zeros([n // batch_groups, *out_sp, o], dtype=_acc_dtype(accumulate))
    else:
        win = sliding_window_view(x, eff, axis=tuple(range(1, 1 + n_sp)))
        # win: (N, P1..Pn, C, E1..En) -> strided outputs, dilated taps
        sel = (slice(None),) + tuple(slice(None, None, s) for s in strides) + (slice(None),) \
            + tuple(slice(None, None, d) for d in rhs_dilation)
        win = win[sel][(slice(None),) + tuple(slice(0, p) for p in out_sp)]
        flip = [2 + n_sp + d for d in range(n_sp) if reversal[d]]
        if flip:  # window reversal flips each lhs window (the reference's summation order)
            win = np.flip(win, axis=flip)
        positions = math.prod(out_sp)
        taps = math.prod(ksz)
        # patches: (N, P, taps, C)
        patches = np.moveaxis(win, 1 + n_sp, -1).reshape(n, positions, taps, c)
        wk = w.reshape(taps, w.shape[-2], o)
        acc = _grouped(patches, wk, feature_groups, batch_groups, accumulate)
        acc = acc.reshape([acc.shape[0], *out_sp, o])
    inv = [0] * (n_sp + 2)
    inv[output_batch] = 0
    for i, d in enumerate(output_spatial):
        inv[d] = 1 + i
    inv[output_feature] = n_sp + 1
    return np.transpose(acc, inv)


def _acc_dtype(accumulate):
    if isinstance(accumulate, np.dtype):
        return accumulate
    return {"int": np.int64, "exact": np.int64, "float": np.float64,
            "complex": np.complex128}[accumulate]


def _grouped(patches: np.ndarray, wk: np.ndarray, fg: int, bg: int, accumulate) -> np.ndarray:
    """patches (N, P, T, C) x kernel (T, C/fg, O) -> (N/bg, P, O) with feature/batch groups.

    The contraction runs over (taps, features) in row-major order: spatial window
    positions first, the feature last, like the reference interpreter."""
    n, p, t, c = patches.shape
    o = wk.shape[-1]
    if fg == 1 and bg == 1:
        return matmul(patches.reshape(n * p, t * c), wk.reshape(t * wk.shape[1], o),
                      accumulate).reshape(n, p, o)
    if fg > 1:
        cg, og = c // fg, o // fg
        a = patches.reshape(n * p, t, fg, cg).transpose(2, 0, 1, 3).reshape(fg, n * p, t * cg)
        b = wk.reshape(t, cg, fg, og).transpose(2, 0, 1, 3).reshape(fg, t * cg, og)
        r = matmul(a, b, accumulate)  # (fg, n*p, og)
        return r.transpose(1, 0, 2).reshape(n, p, o)
    nb, ob = n // bg, o // bg
    a = patches.reshape(bg, nb * p, t * c)
    b = wk.reshape(t * c, bg, ob).transpose(1, 0, 2)
    r = matmul(a, b, accumulate)  # (bg, nb*p, ob)
    return r.reshape(bg, nb, p, ob).transpose(1, 2, 0, 3).reshape(nb, p, o)


def gather(operand: np.ndarray, indices: np.ndarray, *, offset_dims: Sequence[int],
           collapsed_slice_dims: Sequence[int], operand_batching_dims: Sequence[int],
           start_indices_batching_dims: Sequence[int], start_index_map: Sequence[int],
           index_vector_dim: int, slice_sizes: Sequence[int]) -> np.ndarray:
    """StableHLO gather: start indices clamped so each slice stays in bounds."""
    idx = indices.astype(np.int64)
    if index_vector_dim == idx.ndim:
        idx = idx[..., None]
    idx = np.moveaxis(idx, index_vector_dim, -1)
    batch_shape = idx.shape[:-1]
    # start_indices dims (index vector dim removed) in order
    si_dims = [d for d in range(indices.ndim + (1 if index_vector_dim == indices.ndim else 0))
               if d != index_vector_dim]
    offset_operand_dims = [d for d in range(operand.ndim)
                           if d not in collapsed_slice_dims and d not in operand_batching_dims]
    nb, no = len(batch_shape), len(offset_operand_dims)
    index_arrays = []
    for d in range(operand.ndim):
        start = np.zeros(batch_shape, np.int64)
        if d in start_index_map:
            k = list(start_index_map).index(d)
            start = np.clip(idx[..., k], 0, max(operand.shape[d] - slice_sizes[d], 0))
        if d in operand_batching_dims:
            j = list(operand_batching_dims).index(d)
            bdim = si_dims.index(start_indices_batching_dims[j])
            shape = [1] * nb
            shape[bdim] = batch_shape[bdim]
            start = start + np.arange(batch_shape[bdim]).reshape(shape)
        start = start.reshape(batch_shape + (1,) * no)
        if d in offset_operand_dims:
            j = offset_operand_dims.index(d)
            shape = [1] * (nb + no)
            shape[nb + j] = slice_sizes[d]
            start = start + np.arange(slice_sizes[d]).reshape(shape)
        index_arrays.append(start)
    full = operand[tuple(index_arrays)] if operand.ndim else operand
    full = np.broadcast_to(full, batch_shape + tuple(slice_sizes[d] for d in offset_operand_dims))
    rank = nb + no
    batch_positions = [i for i in range(rank) if i not in offset_dims]
    src = [0] * rank
    for i, pos in enumerate(batch_positions):
        src[pos] = i
    for j, pos in enumerate(sorted(offset_dims)):
        src[pos] = nb + j
    return np.ascontiguousarray(np.transpose(full, src))


def window_view(x: np.ndarray, init, windows: Sequence[int], strides: Sequence[int],
                base_dilations: Sequence[int], window_dilations: Sequence[int],
                padding: Sequence[tuple[int, int]]) -> np.ndarray:
    """reduce_window's windows: x dilated and padded with `init`, as an array
    (out_1..out_n, w_1..w_n) to be reduced over its last n axes."""
    n = x.ndim
    xp = pad(x, init, [p[0] for p in padding], [p[1] for p in padding],
             [d - 1 for d in base_dilations])
    eff = [(w - 1) * d + 1 for w, d in zip(windows, window_dilations)]
    out = [max(0, (xp.shape[i] - eff[i]) // strides[i] + 1) if xp.shape[i] >= eff[i] else 0
           for i in range(n)]
    if min(out, default=1) == 0:
        return np.zeros(out + list(windows), x.dtype)
    win = sliding_window_view(xp, eff)
    sel = tuple(slice(None, None, s) for s in strides) + tuple(slice(None, None, d)
                                                             for d in window_dilations)
    win = win[sel]
    return win[tuple(slice(0, o) for o in out)]
