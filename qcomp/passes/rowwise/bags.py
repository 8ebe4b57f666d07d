"""The bag reductions as StableHLO (`qcomp.quant.rowwise_bags.bag_reduce`).

The indexed rows are gathered once and decoded ([N, C] values, [N] scales and biases,
times the weights); the segment starts are exclusive prefix sums of the lengths (a
masked row-sum over an iota comparison), or PyTorch's offsets. The float32 sums then
run in the kernels' order in one `stablehlo.while` over k = 0 .. max(lengths) - 1,
entry k of every segment at step k:

    pos   = start + k                  valid = k < length
    acc   = valid ? fma(scale[pos], q[pos], acc + bias[pos]) : acc

(a fixed number of ops whatever the number of indices), and the mean multiplies by
`1 / length` (float32) where the length is not 0.

Bad input (an index outside the table, a negative length, lengths that do not add up
to the number of indices, offsets out of order or past the indices): the result is
all NaN (0x7FC00000) and, with `guard=check`, a `check.expect_eq_const %ok,
dense<true>` fails at run time, as the interpreter's run error would.
"""

from __future__ import annotations

from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, TensorType
from xdsl.ir import Block, Region, SSAValue
from xdsl.rewriter import InsertPoint

from qcomp.dialects import check as chk
from qcomp.dialects import stablehlo as sh
from qcomp.passes.rowwise.emit import RowwiseBuilder as Builder
from qcomp.passes.rowwise.emit import f32, i1, i32, i64, shape
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


def _all(b: Builder, pred: SSAValue) -> SSAValue:
    """tensor<i1>: every element of the 1-d i1 `pred` is true."""
    if shape(pred) == (0,):
        return b.scalar(True, i1)
    return b.reduce(pred, 0, sh.AndOp, True)


def bags_valid(b: Builder, indices: SSAValue, rows: int, starts: SSAValue, lengths: SSAValue,
               total: bool) -> SSAValue:
    """tensor<i1>: every index in [0, rows), every bag [start, start + length) inside the
    N indices with length >= 0, and (`total`: Caffe2's lengths) the lengths adding up
    to N."""
    (n,) = shape(indices)
    idx = b.convert(indices, i64)
    ok = _all(b, b.and_(b.cmp_const("GE", idx, 0), b.cmp_const("LT", idx, rows)))
    if shape(starts) != (0,):
        ends = b.add(starts, lengths)
        bag_ok = b.and_(b.and_(b.cmp_const("GE", lengths, 0), b.cmp_const("GE", starts, 0)),
                        b.cmp_const("LE", ends, n))
        ok = b.and_(ok, _all(b, bag_ok))
    if total:
        summed = b.reduce(lengths, 0, sh.AddOp, 0) if shape(lengths) != (0,) else b.scalar(0, i64)
        ok = b.and_(ok, b.cmp("EQ", summed, b.scalar(n, i64)))
    return ok


def guard(b: Builder, ok: SSAValue, result: SSAValue, check: bool) -> SSAValue:
    """`result`, or all NaN when `ok` is false; with `check`, a `check.expect_eq_const`
    of `ok` against true first."""
    if check:
        t = TensorType(i1, [])
        b.insert(chk.ExpectEqConstOp(ok, DenseIntOrFPElementsAttr.from_list(t, [1])))
    nan = b.bitcast(b.splat(0x7FC00000, i32, shape(result)), f32, shape(result))
    return b.select(b.bcast(ok, shape(result), []), result, nan)


def _loop(b: Builder, acc: SSAValue, q: SSAValue, scale: SSAValue, bias: SSAValue,
          starts: SSAValue, lengths: SSAValue) -> SSAValue:
    """The `stablehlo.while` of the module docstring; every value it reads is carried."""
    (n, cols) = shape(q)
    (segs,) = shape(starts)
    out_shape = (segs, cols)
    steps = b.reduce(lengths, 0, sh.MaximumOp, 0)
    k0 = b.scalar(0, i64)
    carried = [k0, steps, acc, q, scale, bias, starts, lengths]
    types = [v.type for v in carried]

    cond = Block(arg_types=types)
    cb = Builder(b.rewriter, point=InsertPoint.at_end(cond))
    cb.insert(sh.ReturnOp(cb.cmp("LT", cond.args[0], cond.args[1])))

    body = Block(arg_types=types)
    bb = Builder(b.rewriter, point=InsertPoint.at_end(body))
    k, st, a, qq, sc, bi, s0, ln = body.args
    kk = bb.bcast(k, (segs,), [])
    pos = bb.clamp(bb.scalar(0, i64), bb.add(s0, kk), bb.scalar(n - 1, i64))
    valid = bb.bcast(bb.cmp("LT", kk, ln), out_shape, [0])
    s = bb.rows(bb.gather_rows(sc, pos), out_shape)
    o = bb.rows(bb.gather_rows(bi, pos), out_shape)
    step = bb.fma(s, bb.gather_rows(qq, pos), bb.add_nan_first(a, o))
    a = bb.select(valid, step, a)
    bb.insert(sh.ReturnOp(bb.add(k, bb.scalar(1, i64)), st, a, qq, sc, bi, s0, ln))

    loop = sh.WhileOp.create(operands=carried, result_types=types,
                             regions=[Region(cond), Region(body)])
    b.insert(loop)
    return loop.results[2]


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
            scale, bias = b.mul_nan_first(weights, scale), b.mul_nan_first(weights, bias)
        acc = _loop(b, acc, q, scale, bias, starts, lengths)
    if mean and segs:
        inv = b.div(b.splat(1.0, f32, (segs,)), b.convert(lengths, f32))
        nonempty = b.bcast(b.cmp_const("GT", lengths, 0), out_shape, [0])
        acc = b.select(nonempty, b.mul(acc, b.rows(inv, out_shape)), acc)
    return acc

