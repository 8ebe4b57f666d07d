"""The bag reductions over fused rows: Caffe2's `SparseLengths{Sum,WeightedSum,Mean}
Fused{8,4,2}BitRowwise` and PyTorch's `embedding_bag_{byte,4bit,2bit}_rowwise_offsets`.

Segment m of the output gathers `lengths[m]` consecutive entries of `indices` (lengths
in order: segment m starts at `sum(lengths[:m])`) and reduces their dequantized rows
term by term in float32, as fbgemm's kernels do::

    acc = 0
    for each entry j of the segment (row = indices[j], w = weights[j] or 1):
        s = w * scale[row]             b = w * bias[row]          (float32 products)
        acc = fma(s, q[row], acc + b)                             (one rounding)
    mean: acc = acc * (1 / length)  (float32 reciprocal; an empty segment stays 0)

PyTorch's ops take `offsets` instead: bag m is `indices[offsets[m]:offsets[m + 1]]`,
the last bag running to the end of `indices` unless `include_last_offset` (then the
last offset closes it and there is one bag fewer than offsets). They ignore their
`mode` argument (mode 1, mean, returns the sum; checked with torch 2.13), so the mean
exists only as Caffe2's `SparseLengthsMean`.
"""

from __future__ import annotations

import numpy as np

from qcomp.quant import rowwise_numpy
from qcomp.quant.rowwise import (
    F32,
    RowwiseError,
    fused_cols,
    fused_width,
    kernel,
    kernel_backend,
)
from qcomp.quant.threads import block_cuts, for_blocks, numba_tbb_threads


def _check_data(data: np.ndarray, bits: int, cols: int | None) -> int:
    if data.dtype != np.uint8 or data.ndim != 2:
        raise RowwiseError(f"the fused table is a 2-d uint8 array, got {data.dtype} {data.shape}")
    cols = fused_cols(data.shape[1], bits) if cols is None else cols
    if fused_width(cols, bits) != data.shape[1]:
        raise RowwiseError(f"{cols} columns at {bits} bits need rows of {fused_width(cols, bits)} "
                           f"bytes, the table has {data.shape[1]}")
    return cols


def _check_indices(indices: np.ndarray, rows: int) -> np.ndarray:
    indices = np.asarray(indices)
    if indices.ndim != 1 or indices.dtype.kind not in "iu":
        raise RowwiseError(f"indices are a 1-d integer array, got {indices.dtype} {indices.shape}")
    indices = np.ascontiguousarray(indices, np.int64)
    i = kernel("first_outside")(indices, rows)
    if i >= 0:
        raise RowwiseError(f"index {i} is {int(indices[i])}, outside the table's rows [0, {rows})")
    return indices


def lengths_to_starts(lengths: np.ndarray, count: int) -> np.ndarray:
    """Segment starts (exclusive prefix sums), checking the lengths cover `count` entries."""
    lengths = np.asarray(lengths)
    if lengths.ndim != 1 or lengths.dtype.kind not in "iu":
        raise RowwiseError(f"lengths are a 1-d integer array, got {lengths.dtype} {lengths.shape}")
    lengths = np.ascontiguousarray(lengths, np.int64)
    starts = np.empty(len(lengths), np.int64)
    total, i = kernel("starts_of")(lengths, starts)
    if i >= 0:
        raise RowwiseError(f"length {i} is negative ({int(lengths[i])})")
    if total != count:
        raise RowwiseError(f"the lengths add up to {total}, there are {count} indices")
    return starts


def offsets_to_lengths(offsets: np.ndarray, count: int, include_last_offset: bool
                       ) -> tuple[np.ndarray, np.ndarray]:
    """(starts, lengths) of PyTorch's bags from `offsets` over `count` indices."""
    offsets = np.asarray(offsets)
    if offsets.ndim != 1 or offsets.dtype.kind not in "iu":
        raise RowwiseError(f"offsets are a 1-d integer array, got {offsets.dtype} {offsets.shape}")
    offsets = offsets.astype(np.int64)
    if include_last_offset:
        if offsets.size == 0:
            raise RowwiseError("include_last_offset needs at least one offset")
        starts, ends = offsets[:-1], offsets[1:]
    else:
        starts, ends = offsets, np.append(offsets[1:], count)
    bad = np.flatnonzero((starts < 0) | (ends > count) | (ends < starts))
    if bad.size:
        m = int(bad[0])
        raise RowwiseError(f"bag {m} spans [{int(starts[m])}, {int(ends[m])}), not inside "
                           f"the {count} indices in order")
    return starts, ends - starts


def bag_reduce(data: np.ndarray, indices: np.ndarray, starts: np.ndarray, lengths: np.ndarray,
               bits: int, weights: np.ndarray | None = None, mean: bool = False,
               cols: int | None = None) -> np.ndarray:
    """The module docstring's reduction over bags given by (start, length) into
    `indices`: [len(starts), C] float32 (the kernels `bag_8bit`, `bag_nbit`)."""
    data = np.asarray(data)
    cols = _check_data(data, bits, cols)
    idx = _check_indices(indices, len(data))
    if weights is not None:
        weights = np.asarray(weights)
        if weights.dtype != np.float32 or weights.shape != idx.shape:
            raise RowwiseError(f"weights are float32 shaped like the indices {idx.shape}, got "
                               f"{weights.dtype} {weights.shape}")
    starts = np.ascontiguousarray(starts, np.int64)
    lengths = np.ascontiguousarray(lengths, np.int64)
    out = np.empty((len(starts), cols), F32)
    w = np.zeros(0, F32) if weights is None else np.ascontiguousarray(weights)
    data = np.ascontiguousarray(data)
    weighted, mean = weights is not None, bool(mean)
    regs = _register_kernel(bits, cols)
    nan = np.zeros(len(starts) if regs is not None else 0, np.uint8)
    zero = (F32(0),) * (cols if bits == 8 else cols * bits // 8)
    extra = () if bits == 8 else (bits,)
    if regs is not None:

        def run(a, b):
            regs(data, idx, starts, lengths, *extra, w, weighted, mean, out, a, b, zero, nan)
    elif bits == 8:
        bag_8bit = kernel("bag_8bit")

        def run(a, b):
            bag_8bit(data, idx, starts, lengths, w, weighted, mean, out, a, b)
    else:
        bag_nbit = kernel("bag_nbit")

        def run(a, b):
            bag_nbit(data, idx, starts, lengths, bits, w, weighted, mean, out, a, b)
    # blocks of bags holding equal numbers of entries (starts: the entries before each)
    work = max(1, len(idx) * cols // max(1, len(starts)))
    cuts = block_cuts(len(starts), work, starts) if regs is not None else None
    if cuts is not None and numba_tbb_threads():
        blocks = kernel("bag_8bit_regs_blocks" if bits == 8 else "bag_nbit_regs_blocks")
        blocks(data, idx, starts, lengths, *extra, w, weighted, mean, out,
               np.asarray(cuts, np.int64), zero, nan)
    else:
        for_blocks(len(starts), work, run, positions=starts)
    if kernel_backend() == "numba":
        bad = np.flatnonzero(nan) if regs is not None else np.flatnonzero(np.isnan(out).any(axis=1))
        _nan_bags_again(data, idx, starts, lengths, bits, w, weighted, mean, out, bad)
    return out


def _register_kernel(bits: int, cols: int):
    """The kernel keeping a bag's sum in registers (`rowwise_vec`) for rows of `cols`
    columns, or None (the NumPy backend; widths not in `REGISTER_COLS`)."""
    if kernel_backend() != "numba":
        return None
    from qcomp.quant.rowwise_bag_kernels import REGISTER_COLS
    if cols not in REGISTER_COLS:
        return None
    return kernel("bag_8bit_regs" if bits == 8 else "bag_nbit_regs")


def _nan_bags_again(data, idx, starts, lengths, bits, w, weighted, mean, out, bad) -> None:
    """The bags `bad` (those whose sum is NaN) again with the NumPy twin: LLVM may swap
    the operands of `acc + bias`, which changes only which NaN comes out (torch keeps
    the accumulator's)."""
    if not bad.size:
        return
    s, n = starts[bad], lengths[bad]
    again = np.empty((bad.size, out.shape[1]), F32)
    extra = () if bits == 8 else (bits,)
    name = "bag_8bit" if bits == 8 else "bag_nbit"
    getattr(rowwise_numpy, name)(data, idx, s, n, *extra, w, weighted, mean, again, 0, bad.size)
    out[bad] = again


def sparse_lengths(data: np.ndarray, indices: np.ndarray, lengths: np.ndarray, bits: int,
                   weights: np.ndarray | None = None, mean: bool = False,
                   cols: int | None = None) -> np.ndarray:
    """Caffe2's `SparseLengths{Sum,WeightedSum,Mean}Fused{bits}BitRowwise`:
    [len(lengths), C] float32."""
    idx = np.asarray(indices)
    starts = lengths_to_starts(lengths, idx.size if idx.ndim == 1 else -1)
    return bag_reduce(data, idx, starts, np.asarray(lengths, np.int64), bits, weights, mean, cols)


def embedding_bag_offsets(data: np.ndarray, indices: np.ndarray, offsets: np.ndarray, bits: int,
                          per_sample_weights: np.ndarray | None = None,
                          include_last_offset: bool = False,
                          cols: int | None = None) -> np.ndarray:
    """PyTorch's `embedding_bag_{byte,4bit,2bit}_rowwise_offsets` (sum; see the module
    docstring for `offsets`)."""
    idx = np.asarray(indices)
    starts, lengths = offsets_to_lengths(offsets, idx.size if idx.ndim == 1 else -1,
                                         include_last_offset)
    return bag_reduce(data, idx, starts, lengths, bits, per_sample_weights, False, cols)
