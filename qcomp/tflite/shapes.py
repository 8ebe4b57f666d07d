"""TFLite's operators on shapes and on where values sit: SHAPE (a constant: every shape
qcomp imports is static), STRIDED_SLICE (`stablehlo.slice`, then a reshape dropping the
shrunk axes), PACK (a reshape of each input, then `stablehlo.concatenate`), TILE
(`stablehlo.broadcast_in_dim` to [m_0, d_0, m_1, d_1, ...], then a reshape), SLICE
(`stablehlo.slice`), SQUEEZE and EXPAND_DIMS (reshapes). None of
them computes: each moves stored integers, so no `rescale=fixed-point` kernel is needed,
and the converter's shape arithmetic (SHAPE -> STRIDED_SLICE -> PACK -> RESHAPE's shape
operand) imports as i32 ops on constants."""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import IntegerAttr, i64
from xdsl.ir import SSAValue

from qcomp.dialects import stablehlo as sh
from qcomp.dialects.stablehlo.format import i64_array
from qcomp.tflite.common import check_output_shape, need_constant, op, reshape, same_params
from qcomp.tflite.context import ELEMENT, OpContext, constant
from qcomp.tflite.operator import (
    Operand,
    Operator,
    Options,
    any_value,
    boolean,
    declare,
    one_of,
)

INDICES = ("INT32", "INT64")
_TYPES = {2: "INT32", 4: "INT64"}


def shape(ctx: OpContext) -> list[SSAValue]:
    """SHAPE: the input's (static) shape as a constant of the output's type."""
    x, out = ctx.inputs[0], ctx.outputs[0]
    check_output_shape(ctx, out, (len(x.shape),))
    return [constant(ctx.b, np.array(x.shape, np.int64), out.shape, ELEMENT[out.dtype],
                     ELEMENT[out.dtype])]


def _bit(mask: int, i: int) -> bool:
    return bool((mask >> i) & 1)


def strided_slice_bounds(dims, begin, end, strides, begin_mask: int, end_mask: int,
                         shrink: int, offset: bool):
    """TFLite's StridedSlice start / stop / stride per dimension (positive strides):
    a masked begin is 0 and a masked end the dimension; negative indices count from the
    end; then clamped to [0, d]; a shrunk axis takes [begin, begin + 1);
    with `offset` the end is begin + end."""
    starts, stops = [], []
    for i, d in enumerate(dims):
        b = 0 if _bit(begin_mask, i) else int(begin[i])
        b = b + d if b < 0 else b
        b = min(max(b, 0), d)
        if _bit(shrink, i):
            e = b + 1
        elif _bit(end_mask, i):
            e = d
        else:
            e = int(end[i]) + (b if offset else 0)
            e = e + d if e < 0 and not offset else e
            e = min(max(e, 0), d)
        starts.append(b)
        stops.append(max(e, b))
    return starts, stops, [int(s) for s in strides]


def strided_slice(ctx: OpContext) -> list[SSAValue]:
    x, out = ctx.inputs[0], ctx.outputs[0]
    same_params(ctx, x, out)
    begin, end, strides = (need_constant(ctx, t, what).reshape(-1) for t, what in
                           zip(ctx.inputs[1:], ("begin", "end", "strides")))
    r = len(x.shape)
    if not begin.size == end.size == strides.size == r:
        raise ctx.fail(f"begin, end and strides must each hold {r} values (the input's rank)")
    if np.any(strides <= 0):
        raise ctx.fail(f"strides {strides.tolist()}: only positive strides are supported")
    for field in ("ellipsisMask", "newAxisMask"):
        if ctx.option(field, 0):
            raise ctx.fail(f"option {field} = {ctx.option(field)} is not supported")
    shrink = ctx.option("shrinkAxisMask", 0)
    starts, stops, steps = strided_slice_bounds(
        x.shape, begin, end, strides, ctx.option("beginMask", 0), ctx.option("endMask", 0),
        shrink, bool(ctx.option("offset", False)))
    full = [-(-(e - b) // s) for b, e, s in zip(starts, stops, steps)]
    kept = [n for i, n in enumerate(full) if not _bit(shrink, i)]
    check_output_shape(ctx, out, kept)
    v = ctx.value(x)
    if (starts, stops, steps) != ([0] * r, list(x.shape), [1] * r):
        v = op(ctx, sh.SliceOp, [v], x.type(full), start_indices=i64_array(starts),
               limit_indices=i64_array(stops), strides=i64_array(steps))
    return [reshape(ctx, v, x, full, kept)]


def pack(ctx: OpContext) -> list[SSAValue]:
    """PACK along `axis`: each input reshaped with a size-1 axis there, concatenated."""
    out = ctx.outputs[0]
    first = ctx.inputs[0]
    r = len(first.shape) + 1
    axis = ctx.option("axis", 0)
    if not -r <= axis < r:
        raise ctx.fail(f"axis {axis} is outside the output's rank {r}")
    axis %= r
    if ctx.option("valuesCount", len(ctx.inputs)) != len(ctx.inputs):
        raise ctx.fail(f"option valuesCount = {ctx.option('valuesCount')} but "
                       f"{len(ctx.inputs)} inputs are given")
    one = [*first.shape[:axis], 1, *first.shape[axis:]]
    parts = []
    for t in ctx.inputs:
        same_params(ctx, t, out)
        if tuple(t.shape) != tuple(first.shape):
            raise ctx.fail(f"{t.label} of shape {list(t.shape)} differs from the first "
                           f"input's {list(first.shape)}")
        parts.append(reshape(ctx, ctx.value(t), t, t.shape, one))
    check_output_shape(ctx, out, [*first.shape[:axis], len(parts), *first.shape[axis:]])
    if len(parts) == 1:
        return parts
    return [op(ctx, sh.ConcatenateOp, parts, out.type(), dimension=IntegerAttr(axis, i64))]


def tile(ctx: OpContext) -> list[SSAValue]:
    """TILE: broadcast_in_dim to [m_0, d_0, m_1, d_1, ...], reshaped to [m_i d_i]."""
    x, multiples, out = ctx.inputs[0], ctx.inputs[1], ctx.outputs[0]
    same_params(ctx, x, out)
    m = [int(v) for v in need_constant(ctx, multiples, "multiples").reshape(-1)]
    if len(m) != len(x.shape) or any(v < 1 for v in m):
        raise ctx.fail(f"multiples {m} must be {len(x.shape)} positive values")
    check_output_shape(ctx, out, [a * d for a, d in zip(m, x.shape)])
    wide = [n for pair in zip(m, x.shape) for n in pair]
    v = op(ctx, sh.BroadcastInDimOp, [ctx.value(x)], x.type(wide),
           broadcast_dimensions=i64_array([2 * i + 1 for i in range(len(m))]))
    return [reshape(ctx, v, x, wide, out.shape)]


def slice_(ctx: OpContext) -> list[SSAValue]:
    """SLICE: `stablehlo.slice` from `begin`, `size` values per dimension (-1: to the
    end)."""
    x, out = ctx.inputs[0], ctx.outputs[0]
    same_params(ctx, x, out)
    begin, size = (need_constant(ctx, t, what).reshape(-1).astype(np.int64)
                   for t, what in zip(ctx.inputs[1:], ("begin", "size")))
    r = len(x.shape)
    if not begin.size == size.size == r:
        raise ctx.fail(f"begin and size must each hold {r} values (the input's rank)")
    stops = [d if n == -1 else b + n for b, n, d in zip(begin, size, x.shape)]
    if any(not 0 <= b <= e <= d for b, e, d in zip(begin, stops, x.shape)):
        raise ctx.fail(f"begin {begin.tolist()} and size {size.tolist()} are outside the "
                       f"input's shape {list(x.shape)}")
    check_output_shape(ctx, out, [e - b for b, e in zip(begin, stops)])
    return [op(ctx, sh.SliceOp, [ctx.value(x)], out.type(),
               start_indices=i64_array([int(b) for b in begin]),
               limit_indices=i64_array([int(e) for e in stops]),
               strides=i64_array([1] * r))]


def squeeze(ctx: OpContext) -> list[SSAValue]:
    """SQUEEZE: a reshape dropping `squeezeDims` (all size-1 dimensions when empty)."""
    x, out = ctx.inputs[0], ctx.outputs[0]
    same_params(ctx, x, out)
    r = len(x.shape)
    given = ctx.option("squeezeDims", None)
    dims = [] if given is None else [int(d) for d in np.asarray(given).reshape(-1)]
    if any(not -r <= d < r for d in dims):
        raise ctx.fail(f"squeezeDims {dims} are outside the input's rank {r}")
    drop = {d % r for d in dims} or {i for i, n in enumerate(x.shape) if n == 1}
    if any(x.shape[d] != 1 for d in drop):
        raise ctx.fail(f"squeezeDims {dims} name dimensions of the input {list(x.shape)} "
                       "whose size is not 1")
    check_output_shape(ctx, out, [n for i, n in enumerate(x.shape) if i not in drop])
    return [reshape(ctx, ctx.value(x), x, x.shape, out.shape)]


def expand_dims(ctx: OpContext) -> list[SSAValue]:
    """EXPAND_DIMS: a reshape inserting a size-1 dimension at `axis`."""
    x, out = ctx.inputs[0], ctx.outputs[0]
    same_params(ctx, x, out)
    a = need_constant(ctx, ctx.inputs[1], "axis").reshape(-1)
    r = len(x.shape) + 1
    if a.size != 1 or not -r <= int(a[0]) < r:
        raise ctx.fail(f"axis {a.tolist()} must be one value in [{-r}, {r})")
    axis = int(a[0]) % r
    check_output_shape(ctx, out, [*x.shape[:axis], 1, *x.shape[axis:]])
    return [reshape(ctx, ctx.value(x), x, x.shape, out.shape)]


_SAME = {"output": "same", "int16": True}

declare(Operator(
    "SHAPE", (sh.GetDimensionSizeOp,), ("Shape",), output="none", int16=True,
    how="a constant (static shapes), or get_dimension_size",
    options=Options("ShapeOptions", {"outType": one_of(*_TYPES)}, required=False),
    inputs=(Operand("input"),), build=shape))
declare(Operator(
    "STRIDED_SLICE", (), ("Slice",), **_SAME,
    how="slice and a reshape: checked as SLICE / RESHAPE, the same rule",
    options=Options("StridedSliceOptions", {
        "beginMask": any_value, "endMask": any_value, "ellipsisMask": any_value,
        "newAxisMask": any_value, "shrinkAxisMask": any_value, "offset": boolean},
        required=False),
    inputs=(Operand("input"), Operand("begin", INDICES, rank=(1,), constant=True),
            Operand("end", INDICES, rank=(1,), constant=True),
            Operand("strides", INDICES, rank=(1,), constant=True)),
    build=strided_slice))
declare(Operator(
    "PACK", (), ("Concat",), **_SAME,
    how="reshapes and a concatenate: checked as RESHAPE / CONCATENATION, the same rule",
    options=Options("PackOptions", {"valuesCount": any_value, "axis": any_value},
                    required=False),
    inputs=(Operand("input"),), variadic=True, build=pack))
declare(Operator(
    "TILE", (), ("Tile",), **_SAME,
    how="broadcast_in_dim and a reshape: checked as BROADCAST / RESHAPE, the same rule",
    options=Options("TileOptions", required=False),
    inputs=(Operand("input"), Operand("multiples", INDICES, rank=(1,), constant=True)),
    build=tile))

declare(Operator(
    "SLICE", (sh.SliceOp, sh.DynamicSliceOp), ("Slice",), **_SAME,
    how="slice, dynamic_slice (operand 0)", options=Options("SliceOptions", required=False),
    inputs=(Operand("input"), Operand("begin", INDICES, rank=(1,), constant=True),
            Operand("size", INDICES, rank=(1,), constant=True)),
    build=slice_))
declare(Operator(
    "SQUEEZE", (sh.ReshapeOp,), ("Squeeze",), **_SAME,
    how="reshape that only drops size-1 dimensions",
    options=Options("SqueezeOptions", {"squeezeDims": any_value}, required=False),
    inputs=(Operand("input"),), build=squeeze))
declare(Operator(
    "EXPAND_DIMS", (), ("Unsqueeze",), **_SAME,
    how="a reshape: checked as RESHAPE, the same rule",
    options=Options("ExpandDimsOptions", required=False),
    inputs=(Operand("input"), Operand("axis", INDICES, constant=True)),
    build=expand_dims))


__all__ = ["expand_dims", "pack", "shape", "slice_", "squeeze", "strided_slice",
           "strided_slice_bounds", "tile"]
