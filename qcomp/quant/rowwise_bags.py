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

from qcomp.quant.rowwise import (
    F32,
    RowwiseError,
    decode_rows,
    fma_f32,
    fused_cols,
    fused_width,
    params_8bit,
    params_nbit,
    unpack_consecutive,
)

_CHUNK = 1 << 16
"""Accumulator elements per chunk of bags in `_sum_steps` (256 KiB of float32)."""


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
    bad = np.flatnonzero((indices < 0) | (indices >= rows))
    if bad.size:
        i = int(bad[0])
        raise RowwiseError(f"index {i} is {int(indices[i])}, outside the table's rows [0, {rows})")
    return indices.astype(np.int64)


def lengths_to_starts(lengths: np.ndarray, count: int) -> np.ndarray:
    """Segment starts (exclusive prefix sums), checking the lengths cover `count` entries."""
    lengths = np.asarray(lengths)
    if lengths.ndim != 1 or lengths.dtype.kind not in "iu":
        raise RowwiseError(f"lengths are a 1-d integer array, got {lengths.dtype} {lengths.shape}")
    lengths = lengths.astype(np.int64)
    if (lengths < 0).any():
        i = int(np.flatnonzero(lengths < 0)[0])
        raise RowwiseError(f"length {i} is negative ({int(lengths[i])})")
    total = int(lengths.sum())
    if total != count:
        raise RowwiseError(f"the lengths add up to {total}, there are {count} indices")
    return np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)


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
    """The module docstring's reduction over bags given by (start, length) into `indices`.

    Vectorised over the bags: step k adds entry k of every bag longer than k (the
    order within a bag is kept, which is all the float32 rounding depends on). The
    fused multiply-add of a step is plain arithmetic where that is exact:

    - 4 and 2 bits without weights: `scale * q` (float16 scale, q < 16) is exact in
      float32, so `(acc + bias) + scale * q` in float32 rounds once, as the fma;
    - otherwise `scale * q` is exact in float64 and `p + c` (c = acc + bias in float32)
      is too whenever the bag passes `_exact_bags`: then rounding the float64 sum to
      float32 is the fma. The other bags (huge weights, scales far apart, inf) are
      summed again with `fma_f32`'s exact correction."""
    data = np.asarray(data)
    cols = _check_data(data, bits, cols)
    idx = _check_indices(indices, len(data))
    if weights is not None:
        weights = np.asarray(weights)
        if weights.dtype != np.float32 or weights.shape != idx.shape:
            raise RowwiseError(f"weights are float32 shaped like the indices {idx.shape}, got "
                               f"{weights.dtype} {weights.shape}")
    starts = np.asarray(starts, np.int64)
    lengths = np.asarray(lengths, np.int64)
    segs = len(starts)
    order, counts, perm = _step_layout(starts, lengths)
    rows = np.take(data, idx[perm], axis=0)
    scale, bias = params_8bit(rows) if bits == 8 else params_nbit(rows)
    if weights is not None:
        w = weights[perm]
        scale = (w * scale).astype(F32)
        bias = (w * bias).astype(F32)
    acc = np.zeros((segs, cols), F32)
    exact32 = bits != 8 and weights is None
    with np.errstate(over="ignore", invalid="ignore"):
        _sum_steps(acc, rows, counts, scale, bias, bits, cols, exact32)
    if not exact32 and segs:
        bad = np.flatnonzero(~_exact_bags(counts, scale, bias, (1 << bits) - 1, segs))
        if bad.size:
            acc[bad] = _bag_reduce_fma(data, idx, starts[order[bad]], lengths[order[bad]],
                                       bits, weights, cols)
    out = np.empty_like(acc)
    out[order] = acc
    if mean:
        nz = lengths > 0
        with np.errstate(over="ignore", invalid="ignore"):
            inv = (F32(1) / lengths[nz].astype(F32)).astype(F32)
            out[nz] = out[nz] * inv[:, None]
    return out


def _step_layout(starts: np.ndarray, lengths: np.ndarray
                 ) -> tuple[np.ndarray, list[int], np.ndarray]:
    """(order, counts, perm): the bags by decreasing length (`order`), so that at step k
    the bags longer than k are the first `counts[k]`; `perm` lists the entries step by
    step (each step one contiguous slice)."""
    order = np.argsort(-lengths, kind="stable")
    sorted_len, sorted_start = lengths[order], starts[order]
    longest = int(sorted_len[0]) if len(order) else 0
    counts = [int(n) for n in np.searchsorted(-sorted_len, -np.arange(longest), side="left")]
    perm = (np.concatenate([sorted_start[:n] + k for k, n in enumerate(counts)])
            if counts else np.zeros(0, np.int64))
    return order, counts, perm


def _sum_steps(acc: np.ndarray, rows: np.ndarray, counts: list[int], scale: np.ndarray,
               bias: np.ndarray, bits: int, cols: int, exact32: bool) -> None:
    """acc[m] = fma(scale, q, acc[m] + bias) step by step (`bag_reduce`), plain float
    arithmetic (float32 when `exact32`, else a float64 product and sum), in chunks of
    bags whose accumulators stay in cache through all the steps."""
    segs = len(acc)
    chunk = max(1, _CHUNK // max(cols, 1))
    prod = np.empty((min(segs, chunk), cols), F32 if exact32 else np.float64)
    scale = scale[:, None] if exact32 else scale.astype(np.float64)[:, None]
    first = np.concatenate([[0], np.cumsum(counts)]).tolist()
    for b0 in range(0, segs, chunk):
        for k, n in enumerate(counts):
            if n <= b0:
                break   # counts do not increase: no bag of this chunk is longer
            b1 = min(n, b0 + chunk)
            a, p, sl = acc[b0:b1], prod[:b1 - b0], slice(first[k] + b0, first[k] + b1)
            np.add(a, bias[sl, None], out=a)
            q = rows[sl, :cols] if bits == 8 else unpack_consecutive(rows[sl, :-4], bits, cols)
            np.copyto(p, q)
            np.multiply(p, scale[sl], out=p)
            np.add(p, a, out=a)            # a float64 sum is rounded to float32 on the way out


def _exact_bags(counts: list[int], scale: np.ndarray, bias: np.ndarray, qmax: int, segs: int
                ) -> np.ndarray:
    """Per bag (in step order): is every float64 `scale * q + c` of `_sum_steps` exact?

    Every value of a bag's sum (products `scale * q`, biases, their float32 sums and
    roundings) is a multiple of 2^G, G the least exponent of a last significand bit
    among its float32 scales and biases (rounding to float32 only drops bits below the
    grid), and below M = sum(|scale| * qmax + |bias|) in magnitude (times a rounding
    slack). A float64 holds every multiple of 2^G below 2^(G + 53), so the bag is exact
    when M < 2^(G + 53): with M < 2^e (`frexp`), when every nonzero scale and bias has
    a biased exponent field E >= e + 97 (last bit 2^(max(E, 1) - 150)) below 255."""
    if not counts:
        return np.ones(segs, bool)
    bag = np.concatenate([np.arange(n) for n in counts])
    with np.errstate(invalid="ignore", over="ignore"):
        total = np.bincount(bag, np.abs(scale.astype(np.float64)) * qmax
                            + np.abs(bias.astype(np.float64)), segs)
        total *= 1 + (np.bincount(bag, minlength=segs) + 1) * 2.0 ** -21
        need = (np.frexp(total)[1] + 97)[bag]
        ok = np.ones(len(bag), bool)
        for v in (scale, bias):
            e = (np.asarray(v, F32).view(np.int32) >> 23) & 0xFF
            ok &= (e != 0xFF) & ((v == 0) | (np.maximum(e, 1) >= need))
    return (np.bincount(bag, ~ok, segs) == 0) & np.isfinite(total)


def _bag_reduce_fma(data: np.ndarray, idx: np.ndarray, starts: np.ndarray, lengths: np.ndarray,
                    bits: int, weights: np.ndarray | None, cols: int) -> np.ndarray:
    """The sums of `bag_reduce` with `fma_f32` at every step (its exact correction of the
    float64 double rounding): for the bags `_exact_bags` turns down."""
    order, counts, perm = _step_layout(starts, lengths)
    q, scale, bias = decode_rows(data[idx[perm]], bits, cols)
    if weights is not None:
        w = weights[perm]
        scale = (w * scale).astype(F32)
        bias = (w * bias).astype(F32)
    acc = np.zeros((len(starts), cols), F32)
    off = 0
    with np.errstate(over="ignore", invalid="ignore"):
        for n in counts:
            a = acc[:n]
            np.add(a, bias[off:off + n, None], out=a)
            acc[:n] = fma_f32(scale[off:off + n, None], q[off:off + n], a, True)
            off += n
    out = np.empty_like(acc)
    out[order] = acc
    return out


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
