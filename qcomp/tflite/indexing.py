"""TFLite's operators that pick elements by index without computing: MIRROR_PAD (one
`stablehlo.gather` per padded dimension at the mirrored positions, constant paddings)
GATHER_ND (`stablehlo.gather` of the slices the last indices dimension names) and
TOPK_V2 (a stable `stablehlo.sort` with an iota, then slices). The
stored integers move: the output keeps the input's (scale, zero point) (LiteRT's kernels
copy), and no `rescale=fixed-point` kernel is needed."""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import BoolAttr, IntegerAttr, TensorType, i1, i32, i64
from xdsl.ir import Block, Region, SSAValue

from qcomp.dialects import stablehlo as sh
from qcomp.dialects.stablehlo.attrs import GatherDimensionNumbersAttr
from qcomp.dialects.stablehlo.format import i64_array
from qcomp.tflite.common import check_output_shape, need_constant, need_paddings, op, same_params
from qcomp.tflite.context import OpContext
from qcomp.tflite.operator import Operand, Operator, Options, declare, one_of
from qcomp.tflite.shapes import INDICES
from qcomp.tflite.splits import take

REFLECT, SYMMETRIC = 0, 1


def mirror_positions(n: int, lo: int, hi: int, mode: int) -> np.ndarray:
    """The input positions of a dimension of size n padded by (lo, hi): i in [-lo, n + hi)
    reflected at the edges, REFLECT without the edge (-i, 2(n - 1) - i), SYMMETRIC with
    it (-1 - i, 2n - 1 - i)."""
    i = np.arange(-lo, n + hi)
    edge = 0 if mode == REFLECT else 1
    return np.where(i < 0, -i - edge, np.where(i >= n, 2 * (n - 1) - i + edge, i))


def mirror_pad(ctx: OpContext) -> list[SSAValue]:
    """MIRROR_PAD: REFLECT pads at most n - 1, SYMMETRIC at most n on each side (LiteRT's
    MirrorPad Prepare)."""
    x, pads, out = ctx.inputs[0], ctx.inputs[1], ctx.outputs[0]
    same_params(ctx, x, out)
    p = need_paddings(ctx, x, pads)
    mode = int(ctx.option("mode", REFLECT))
    for d, (n, (lo, hi)) in enumerate(zip(x.shape, p)):
        most = n - 1 if mode == REFLECT else n
        if max(lo, hi) > most:
            raise ctx.fail(f"paddings ({lo}, {hi}) of dimension {d} (size {n}) exceed "
                           f"{most}, the most {'REFLECT' if mode == REFLECT else 'SYMMETRIC'} "
                           "mode takes")
    check_output_shape(ctx, out, [int(n + lo + hi) for n, (lo, hi) in zip(x.shape, p)])
    v, shape = ctx.value(x), list(x.shape)
    for axis, (n, (lo, hi)) in enumerate(zip(x.shape, p)):
        if lo == hi == 0:
            continue
        rows = mirror_positions(n, int(lo), int(hi), mode)
        idx = ctx.b.constant(rows.astype(np.int32).reshape(-1, 1), i32)
        shape[axis] = rows.size
        v = take(ctx, v, [*shape[:axis], n, *shape[axis + 1:]], axis, idx, [rows.size],
                 x.type(shape))
    return [v]


def gather_nd(ctx: OpContext) -> list[SSAValue]:
    """GATHER_ND: out[i..., s...] = params[indices[i..., 0], ..., indices[i..., k-1],
    s...] (k = the indices' last dimension, at most the params' rank)."""
    params, indices = ctx.inputs
    out = ctx.outputs[0]
    r, ri = len(params.shape), len(indices.shape)
    if ri == 0:
        raise ctx.fail(f"{indices.label} must have rank >= 1")
    k = indices.shape[-1]
    if not 1 <= k <= r:
        raise ctx.fail(f"the last dimension of {indices.label} ({k}) must be in [1, {r}], "
                       f"the rank of {params.label}")
    same_params(ctx, params, out)
    check_output_shape(ctx, out, [*indices.shape[:-1], *params.shape[k:]])
    if indices.data is not None:
        bound = np.asarray(params.shape[:k])
        if np.any(indices.data < 0) or np.any(indices.data >= bound):
            raise ctx.fail(f"{indices.label} holds an index outside {list(params.shape[:k])}")
    dn = GatherDimensionNumbersAttr.get(
        offset_dims=list(range(ri - 1, ri - 1 + r - k)), collapsed_slice_dims=list(range(k)),
        start_index_map=list(range(k)), index_vector_dim=ri - 1)
    return [op(ctx, sh.GatherOp, [ctx.value(params), ctx.value(indices)], out.type(),
               dimension_numbers=dn, slice_sizes=i64_array([1] * k + list(params.shape[k:])))]


def top_k(ctx: OpContext) -> list[SSAValue]:
    """TOPK_V2: the k largest along the last dimension, largest first, equal values in
    index order (TFLite's TopContainer), with their int32 indices: a stable
    `stablehlo.sort` of (x, iota) by x_a > x_b (stored integers compare as the values
    do: one scale), then the first k of both."""
    x, kt = ctx.inputs
    values, indices = ctx.outputs
    r = len(x.shape)
    kv = need_constant(ctx, kt, "k").reshape(-1)
    n = x.shape[-1]
    if kv.size != 1 or not 0 <= int(kv[0]) <= n:
        raise ctx.fail(f"k {kv.tolist()} must be one value in [0, {n}], the last dimension")
    k = int(kv[0])
    same_params(ctx, x, values)
    if indices.dtype != "INT32":
        raise ctx.fail(f"{indices.label} is {indices.dtype}; TOPK_V2's indices are INT32")
    check_output_shape(ctx, values, [*x.shape[:-1], k])
    check_output_shape(ctx, indices, [*x.shape[:-1], k])
    b, el = ctx.b, x.element()
    iota = b.constant(np.broadcast_to(np.arange(n, dtype=np.int32), tuple(x.shape)).copy(), i32)
    scalar = [TensorType(el, []), TensorType(el, []), TensorType(i32, []), TensorType(i32, [])]
    block = Block(arg_types=scalar)
    cmp = sh.CompareOp(block.args[0], block.args[1], "GT")
    block.add_ops([cmp, sh.ReturnOp(cmp.results[0])])
    sort = b.insert(sh.SortOp.create(
        operands=[ctx.value(x), iota], result_types=[x.type(), TensorType(i32, x.shape)],
        properties={"dimension": IntegerAttr(r - 1, i64), "is_stable": BoolAttr(True, i1)},
        regions=[Region(block)]))
    hi = [*x.shape[:-1], k]
    return [op(ctx, sh.SliceOp, [v], t, start_indices=i64_array([0] * r),
               limit_indices=i64_array(hi), strides=i64_array([1] * r))
            for v, t in zip(sort.results, (values.type(), indices.type()))]


_SAME = {"output": "same", "int16": True}
declare(Operator(
    "MIRROR_PAD", (), (), **_SAME, how="gathers: checked as GATHER, the same rule",
    options=Options("MirrorPadOptions", {"mode": one_of(REFLECT, SYMMETRIC)}, required=False),
    inputs=(Operand("input", min_rank=1),
            Operand("paddings", INDICES, rank=(2,), constant=True)), build=mirror_pad))
declare(Operator(
    "GATHER_ND", (), (), **_SAME, how="gather: checked as GATHER, the same rule",
    inputs=(Operand("params", min_rank=1), Operand("indices", INDICES)), build=gather_nd))
declare(Operator(
    "TOPK_V2", (sh.SortOp,), ("TopK",), **_SAME,
    how="sort (stable, x_a > x_b; with an iota) and slices (checked as SLICE, the same "
        "rule)",
    options=Options("TopKV2Options", required=False),
    inputs=(Operand("input", min_rank=1), Operand("k", ("INT32",), constant=True)),
    outputs=2, build=top_k))


__all__ = ["gather_nd", "mirror_pad", "mirror_positions", "top_k"]
