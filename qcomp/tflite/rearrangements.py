"""TFLite's operators that rearrange values without computing: RESIZE_NEAREST_NEIGHBOR
(two `stablehlo.gather`s at the source rows and columns, which GetNearestNeighbor
computes in f32 at import), DEPTH_TO_SPACE and SPACE_TO_DEPTH (reshape, transpose,
reshape), BATCH_TO_SPACE_ND (reshape, transpose, reshape, slice: the crops) and
SPACE_TO_BATCH_ND (pad with the zero point, reshape, transpose, reshape), PADV2
(`stablehlo.pad` with the given value), BROADCAST_TO (`stablehlo.broadcast_in_dim`),
REVERSE_V2 (`stablehlo.reverse`). The stored integers move, so the output keeps
the input's (scale, zero point) (the spec's rule) and no `rescale=fixed-point` kernel
is needed."""

from __future__ import annotations

import math

import numpy as np
from xdsl.dialects.builtin import i32
from xdsl.ir import SSAValue

from qcomp.dialects import stablehlo as sh
from qcomp.dialects.stablehlo.format import i64_array
from qcomp.tflite.common import (
    broadcast,
    check_output_shape,
    need_constant,
    op,
    reshape,
    same_params,
)
from qcomp.tflite.context import ELEMENT, OpContext, Tensor, constant
from qcomp.tflite.data_movement import pad
from qcomp.tflite.operator import Operand, Operator, Options, boolean, declare, positive
from qcomp.tflite.shapes import INDICES
from qcomp.tflite.splits import take
from qcomp.tflite.upsampling import resize_size

NHWC = Operand("input", rank=(4,))


def nearest_neighbor(n_in: int, n_out: int, align_corners: bool, half_pixel: bool
                     ) -> np.ndarray:
    """TFLite's GetNearestNeighbor for each output position: s = (n_in - 1) / (n_out - 1)
    (align_corners, n_out > 1) or n_in / n_out, in f32; min(n_in - 1, round((i + o) s)
    (align_corners; half away) or floor((i + o) s)), o = 0.5 with half_pixel_centers (and
    then at least 0)."""
    f = np.float32
    scale = (f(n_in - 1) / f(n_out - 1) if align_corners and n_out > 1
             else f(n_in) / f(n_out))
    offset = f(0.5) if half_pixel else f(0.0)
    pos = ((np.arange(n_out, dtype=np.float32) + offset) * scale).astype(np.float32)
    if align_corners:
        v = np.floor(np.abs(pos).astype(np.float64) + 0.5) * np.sign(pos)
    else:
        v = np.floor(pos)
    v = np.minimum(v.astype(np.int64), n_in - 1)
    return np.maximum(v, 0) if half_pixel else v


def resize_nearest_neighbor(ctx: OpContext) -> list[SSAValue]:
    x = ctx.inputs[0]
    hw, align, half = resize_size(ctx)
    v, shape = ctx.value(x), list(x.shape)
    for axis, n in ((1, hw[0]), (2, hw[1])):
        rows = nearest_neighbor(shape[axis], n, align, half)
        if n == shape[axis] and np.array_equal(rows, np.arange(n)):
            continue
        idx = ctx.b.constant(rows.astype(np.int32).reshape(n, 1), i32)
        shape[axis] = n
        v = take(ctx, v, [*shape[:axis], x.shape[axis], *shape[axis + 1:]], axis, idx, [n],
                 x.type(shape))
    return [v]


def _transposed(ctx: OpContext, x: Tensor, v: SSAValue, wide, perm, final) -> SSAValue:
    """`v` (of `x`'s shape) reshaped to `wide`, transposed by `perm`, reshaped to
    `final`."""
    v = reshape(ctx, v, x, x.shape, wide)
    moved = [wide[p] for p in perm]
    v = op(ctx, sh.TransposeOp, [v], x.type(moved), permutation=i64_array(perm))
    return reshape(ctx, v, x, moved, final)


def _block(ctx: OpContext) -> int:
    bs = ctx.option("blockSize", 0)
    if bs < 1:
        raise ctx.fail(f"option blockSize = {bs} must be positive")
    return bs


def depth_to_space(ctx: OpContext) -> list[SSAValue]:
    """out[b, h bs + i, w bs + j, c] = in[b, h, w, (i bs + j) C + c]."""
    x, out = ctx.inputs[0], ctx.outputs[0]
    same_params(ctx, x, out)
    bs = _block(ctx)
    n, h, w, d = x.shape
    if d % (bs * bs):
        raise ctx.fail(f"depth {d} is not a multiple of blockSize^2 = {bs * bs}")
    c = d // (bs * bs)
    check_output_shape(ctx, out, (n, h * bs, w * bs, c))
    return [_transposed(ctx, x, ctx.value(x), [n, h, w, bs, bs, c], [0, 1, 3, 2, 4, 5],
                        out.shape)]


def space_to_depth(ctx: OpContext) -> list[SSAValue]:
    """out[b, h, w, (i bs + j) C + c] = in[b, h bs + i, w bs + j, c]."""
    x, out = ctx.inputs[0], ctx.outputs[0]
    same_params(ctx, x, out)
    bs = _block(ctx)
    n, h, w, c = x.shape
    if h % bs or w % bs:
        raise ctx.fail(f"height {h} and width {w} must be multiples of blockSize {bs}")
    check_output_shape(ctx, out, (n, h // bs, w // bs, bs * bs * c))
    return [_transposed(ctx, x, ctx.value(x), [n, h // bs, bs, w // bs, bs, c],
                        [0, 1, 3, 2, 4, 5], out.shape)]


def _block_shape(ctx: OpContext, x: Tensor) -> list[int]:
    block = [int(v) for v in need_constant(ctx, ctx.inputs[1], "block_shape").reshape(-1)]
    if len(block) != len(x.shape) - 2 or min(block, default=1) < 1:
        raise ctx.fail(f"block_shape {block} must be {len(x.shape) - 2} positive values")
    return block


def _pairs(ctx: OpContext, t: Tensor, m: int, what: str) -> np.ndarray:
    p = need_constant(ctx, t, what).astype(np.int64)
    if p.size != 2 * m or np.any(p < 0):
        raise ctx.fail(f"the {what} must be {m}x2 non-negative values")
    return p.reshape(m, 2)


def batch_to_space_nd(ctx: OpContext) -> list[SSAValue]:
    """[B, s..., C] -> [B / Πb, s_i b_i - crops, C]: reshape [b..., B', s..., C],
    transpose to [B', s_0, b_0, s_1, b_1, ..., C], reshape, slice."""
    x, out = ctx.inputs[0], ctx.outputs[0]
    same_params(ctx, x, out)
    block = _block_shape(ctx, x)
    m = len(block)
    crops = _pairs(ctx, ctx.inputs[2], m, "crops")
    n, spatial, c = x.shape[0], list(x.shape[1:1 + m]), x.shape[-1]
    if n % math.prod(block):
        raise ctx.fail(f"batch {n} is not a multiple of the block's {math.prod(block)}")
    nb = n // math.prod(block)
    wide = [*block, nb, *spatial, c]
    perm = [m] + [i for k in range(m) for i in (m + 1 + k, k)] + [2 * m + 1]
    full = [nb, *[s * b for s, b in zip(spatial, block)], c]
    v = _transposed(ctx, x, ctx.value(x), wide, perm, full)
    final = [nb, *[int(f - lo - hi) for f, (lo, hi) in zip(full[1:-1], crops)], c]
    if min(final) < 0:
        raise ctx.fail(f"the crops {crops.tolist()} exceed the shape {full}")
    check_output_shape(ctx, out, final)
    if final != full:
        v = op(ctx, sh.SliceOp, [v], out.type(),
               start_indices=i64_array([0, *crops[:, 0].tolist(), 0]),
               limit_indices=i64_array([nb, *[int(f - hi) for f, (_, hi) in
                                              zip(full[1:-1], crops)], c]),
               strides=i64_array([1] * len(full)))
    return [v]


def space_to_batch_nd(ctx: OpContext) -> list[SSAValue]:
    """[B, s..., C] -> [B Πb, (s_i + pads) / b_i, C]: pad with the zero point, reshape to
    [B, t_0, b_0, t_1, b_1, ..., C], transpose to [b..., B, t..., C], reshape."""
    x, out = ctx.inputs[0], ctx.outputs[0]
    same_params(ctx, x, out)
    block = _block_shape(ctx, x)
    m = len(block)
    pads = _pairs(ctx, ctx.inputs[2], m, "paddings")
    n, c = x.shape[0], x.shape[-1]
    padded = [int(s + lo + hi) for s, (lo, hi) in zip(x.shape[1:1 + m], pads)]
    if any(p % b for p, b in zip(padded, block)):
        raise ctx.fail(f"the padded shape {padded} is not a multiple of the block {block}")
    v = ctx.value(x)
    if np.any(pads):
        el = x.element()
        pv = constant(ctx.b, x.zero_point if x.quantized else np.float32(0), (), el,
                      ELEMENT[x.dtype])
        v = op(ctx, sh.PadOp, [v, pv], x.type([n, *padded, c]),
               edge_padding_low=i64_array([0, *pads[:, 0].tolist(), 0]),
               edge_padding_high=i64_array([0, *pads[:, 1].tolist(), 0]),
               interior_padding=i64_array([0] * (m + 2)))
    t = [p // b for p, b in zip(padded, block)]
    wide = [n, *[d for k in range(m) for d in (t[k], block[k])], c]
    perm = [2 + 2 * k for k in range(m)] + [0] + [1 + 2 * k for k in range(m)] + [2 * m + 1]
    final = [n * math.prod(block), *t, c]
    check_output_shape(ctx, out, final)
    return [_transposed(ctx, x.like([n, *padded, c]), v, wide, perm, final)]


def broadcast_to(ctx: OpContext) -> list[SSAValue]:
    """BROADCAST_TO: `stablehlo.broadcast_in_dim` to the constant shape."""
    x, shape_t, out = ctx.inputs[0], ctx.inputs[1], ctx.outputs[0]
    same_params(ctx, x, out)
    shape = [int(v) for v in need_constant(ctx, shape_t, "shape").reshape(-1)]
    check_output_shape(ctx, out, shape)
    return [broadcast(ctx, x, shape)]


def reverse_v2(ctx: OpContext) -> list[SSAValue]:
    """REVERSE_V2: `stablehlo.reverse` along the constant axes."""
    x, axis_t, out = ctx.inputs[0], ctx.inputs[1], ctx.outputs[0]
    same_params(ctx, x, out)
    check_output_shape(ctx, out, x.shape)
    r = len(x.shape)
    given = [int(v) for v in need_constant(ctx, axis_t, "axis").reshape(-1)]
    if any(not -r <= a < r for a in given):
        raise ctx.fail(f"axes {given} are outside the input's rank {r}")
    return [op(ctx, sh.ReverseOp, [ctx.value(x)], out.type(),
               dimensions=i64_array(sorted({a % r for a in given})))]


def padv2(ctx: OpContext) -> list[SSAValue]:
    """PADV2: PAD with the value of input 2 (one value of the input's type and
    parameters: its stored integer pads)."""
    x, value = ctx.inputs[0], ctx.inputs[2]
    if value.dtype != x.dtype or value.quantized != x.quantized or (
            x.quantized and (value.scale, value.zero_point) != (x.scale, x.zero_point)):
        raise ctx.fail(f"the padding value {value.label} must have the input's type and "
                       "parameters")
    data = need_constant(ctx, value, "padding value").reshape(-1)
    if data.size != 1:
        raise ctx.fail(f"the padding value {value.label} must be one value")
    return pad(ctx, constant(ctx.b, data[0], (), x.element(), ELEMENT[x.dtype]))


_SAME = {"output": "same"}


def _block_inputs(pairs: str) -> tuple[Operand, ...]:
    return (Operand("input", rank=(3, 4)),
            Operand("block_shape", ("INT32",), rank=(1,), constant=True),
            Operand(pairs, ("INT32",), rank=(2,), constant=True))


declare(Operator(
    "RESIZE_NEAREST_NEIGHBOR", (), (), **_SAME, int16=True,
    how="gathers: checked as GATHER, the same rule",
    options=Options("ResizeNearestNeighborOptions", {
        "alignCorners": boolean, "halfPixelCenters": boolean}, required=False),
    inputs=(NHWC, Operand("size", ("INT32",), rank=(1,), constant=True)),
    build=resize_nearest_neighbor))
declare(Operator(
    "DEPTH_TO_SPACE", (), ("DepthToSpace",), **_SAME,
    how="reshape / transpose chain: each op checked as RESHAPE / TRANSPOSE, the same rule",
    options=Options("DepthToSpaceOptions", {"blockSize": positive}), inputs=(NHWC,),
    build=depth_to_space))
declare(Operator(
    "SPACE_TO_DEPTH", (), ("SpaceToDepth",), **_SAME,
    how="reshape / transpose chain: each op checked as RESHAPE / TRANSPOSE, the same rule",
    options=Options("SpaceToDepthOptions", {"blockSize": positive}), inputs=(NHWC,),
    build=space_to_depth))
declare(Operator(
    "BATCH_TO_SPACE_ND", (), (), **_SAME,
    how="reshape / transpose / slice chain: each op checked with the same rule",
    options=Options("BatchToSpaceNDOptions", required=False),
    inputs=_block_inputs("crops"),
    build=batch_to_space_nd))
declare(Operator(
    "SPACE_TO_BATCH_ND", (), (), **_SAME,
    how="pad / reshape / transpose chain: each op checked with the same rule",
    options=Options("SpaceToBatchNDOptions", required=False),
    inputs=_block_inputs("paddings"),
    build=space_to_batch_nd))
declare(Operator(
    "BROADCAST_TO", (), (), **_SAME, int16=True,
    how="broadcast_in_dim: checked as BROADCAST, the same rule",
    options=Options("BroadcastToOptions", required=False),
    inputs=(Operand("input"), Operand("shape", INDICES, rank=(1,), constant=True)),
    build=broadcast_to))
declare(Operator(
    "REVERSE_V2", (sh.ReverseOp,), (), **_SAME, int16=True,
    options=Options("ReverseV2Options", required=False),
    inputs=(Operand("input"), Operand("axis", INDICES, rank=(1,), constant=True)),
    build=reverse_v2))
declare(Operator(
    "PADV2", (sh.PadOp,), ("Pad",), **_SAME, int16=True,
    how="pad: the same rule as PAD, reported as PAD",
    options=Options("PadV2Options", required=False),
    inputs=(Operand("input"), Operand("paddings", INDICES, rank=(2,), constant=True),
            Operand("constant_values", constant=True)),
    build=padv2))


__all__ = ["batch_to_space_nd", "broadcast_to", "depth_to_space", "nearest_neighbor", "padv2",
           "resize_nearest_neighbor", "reverse_v2", "space_to_batch_nd", "space_to_depth"]
