"""The bag reductions as StableHLO (`qcomp.quant.rowwise_bags.bag_reduce`).

The indexed rows are gathered once and decoded ([N, C] values, [N] scales and biases,
times the weights); the segment starts are exclusive prefix sums of the lengths (a
masked row-sum over an iota comparison), or PyTorch's offsets. The float32 sums then
run in the kernels' order, entry k of every segment at step k, unrolled over the
N = number of indices steps a segment can have at most:

    pos   = start + k                  valid = k < length
    acc   = valid ? fma(scale[pos], q[pos], acc + bias[pos]) : acc

and the mean multiplies by `1 / length` (float32) where the length is not 0.
"""

from __future__ import annotations

from xdsl.ir import SSAValue

from qcomp.dialects import stablehlo as sh
from qcomp.passes.rowwise.emit import RowwiseBuilder as Builder, f32, i64, shape
from qcomp.passes.rowwise.formats import decode


def starts_from_lengths(b: Builder, lengths: SSAValue) -> SSAValue:
    """[B] i64: start[m] = sum(lengths[:m])."""
    (n,) = shape(lengths)
    if n == 0:
        return lengths
    sq = (n, n)
    before = b.cmp("LT", b.iota(1, i64, sq), b.iota(0, i64, sq))
    terms = b.select(before, b.bcast(lengths, sq, [1]), b.splat(0, i64, sq))
    return b.reduce(terms, 1, sh.AddOp, 0)


def bags_from_offsets(b: Builder, offsets: SSAValue, count: int, include_last: bool
                      ) -> tuple[SSAValue, SSAValue]:
    """(starts, lengths) [B] i64 of PyTorch's offsets over `count` indices."""
    (n,) = shape(offsets)
    if include_last:
        starts = b.slice_cols(offsets, 0, n - 1)
        ends = b.slice_cols(offsets, 1, n)
    else:
        starts = offsets
        ends = b.concat([b.slice_cols(offsets, 1, n), b.constant([count], i64)], 0)
    return starts, b.sub(ends, starts)


def bag_reduce(b: Builder, data: SSAValue, indices: SSAValue, starts: SSAValue,
               lengths: SSAValue, bits: int, cols: int, weights: SSAValue | None,
               mean: bool) -> SSAValue:
    """[B, cols] f32 (module docstring); `starts`, `lengths` are i64 [B]."""
    (n,) = shape(indices)
    (segs,) = shape(starts)
    out_shape = (segs, cols)
    acc = b.splat(0.0, f32, out_shape)
    if n and segs:
        rows = b.gather_rows(data, b.convert(indices, i64))
        q, scale, bias = decode(b, rows, bits, cols)
        if weights is not None:
            scale, bias = b.mul(weights, scale), b.mul(weights, bias)
        zero, last = b.splat(0, i64, (segs,)), b.splat(n - 1, i64, (segs,))
        for k in range(n):
            kk = b.splat(k, i64, (segs,))
            pos = b.clamp(zero, b.add(starts, kk), last)
            valid = b.bcast(b.cmp("LT", kk, lengths), out_shape, [0])
            s = b.rows(b.gather_rows(scale, pos), out_shape)
            o = b.rows(b.gather_rows(bias, pos), out_shape)
            step = b.fma(s, b.gather_rows(q, pos), b.add(acc, o))
            acc = b.select(valid, step, acc)
    if mean and segs:
        inv = b.div(b.splat(1.0, f32, (segs,)), b.convert(lengths, f32))
        nonempty = b.bcast(b.cmp_const("GT", lengths, 0), out_shape, [0])
        acc = b.select(nonempty, b.mul(acc, b.rows(inv, out_shape)), acc)
    return acc
