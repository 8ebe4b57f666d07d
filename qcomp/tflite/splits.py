"""TFLite's operators that cut a tensor into pieces or pick from it: SPLIT and SPLIT_V
(one `stablehlo.slice` per output along the axis), UNPACK (slices, each reshaped without
the axis), GATHER (`stablehlo.gather` along the axis, batch_dims as its batching
dimensions). None of them computes: the
stored integers move, so the outputs keep the input's (scale, zero point) (the spec's
GATHER rule; the converter gives the others the same) and no `rescale=fixed-point`
kernel is needed."""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue

from qcomp.dialects import stablehlo as sh
from qcomp.dialects.stablehlo.attrs import GatherDimensionNumbersAttr
from qcomp.dialects.stablehlo.format import i64_array
from qcomp.tflite.common import check_output_shape, need_constant, op, reshape, same_params
from qcomp.tflite.context import OpContext, Tensor
from qcomp.tflite.operator import Operand, Operator, Options, any_value, declare
from qcomp.tflite.shapes import INDICES


def _axis(ctx: OpContext, value: int, rank: int) -> int:
    if not -rank <= value < rank:
        raise ctx.fail(f"axis {value} is outside the input's rank {rank}")
    return value % rank


def _constant_axis(ctx: OpContext, t: Tensor, rank: int) -> int:
    a = need_constant(ctx, t, "axis").reshape(-1)
    if a.size != 1:
        raise ctx.fail(f"the axis must be one value, {t.label} holds {a.size}")
    return _axis(ctx, int(a[0]), rank)


def _pieces(ctx: OpContext, x: Tensor, axis: int, sizes: list[int], drop_axis: bool = False
            ) -> list[SSAValue]:
    """`x` cut along `axis` into pieces of `sizes`, one per output (checked: its shape,
    its parameters the input's)."""
    if len(sizes) != len(ctx.outputs):
        raise ctx.fail(f"{len(sizes)} pieces but {len(ctx.outputs)} outputs")
    results, start = [], 0
    for n, out in zip(sizes, ctx.outputs):
        same_params(ctx, x, out)
        shape = [*x.shape[:axis], n, *x.shape[axis + 1:]]
        check_output_shape(ctx, out, [d for i, d in enumerate(shape)
                                      if not (drop_axis and i == axis)])
        v = ctx.value(x)
        if n != x.shape[axis]:
            starts = [0] * len(shape)
            starts[axis] = start
            limits = list(x.shape)
            limits[axis] = start + n
            v = op(ctx, sh.SliceOp, [v], x.type(shape), start_indices=i64_array(starts),
                   limit_indices=i64_array(limits), strides=i64_array([1] * len(shape)))
        results.append(reshape(ctx, v, x, shape, out.shape))
        start += n
    return results


def split(ctx: OpContext) -> list[SSAValue]:
    """SPLIT (inputs: axis, input): `numSplits` equal pieces along the axis."""
    axis_t, x = ctx.inputs
    axis = _constant_axis(ctx, axis_t, len(x.shape))
    k = ctx.option("numSplits", len(ctx.outputs))
    if k < 1 or x.shape[axis] % k:
        raise ctx.fail(f"numSplits = {k} does not divide dimension {axis} of size "
                       f"{x.shape[axis]}")
    return _pieces(ctx, x, axis, [x.shape[axis] // k] * k)


def split_v(ctx: OpContext) -> list[SSAValue]:
    """SPLIT_V (inputs: input, size_splits, axis): pieces of the given sizes (one of
    them may be -1: the rest)."""
    x, sizes_t, axis_t = ctx.inputs
    axis = _constant_axis(ctx, axis_t, len(x.shape))
    sizes = [int(v) for v in need_constant(ctx, sizes_t, "size_splits").reshape(-1)]
    if sizes.count(-1) == 1:
        sizes[sizes.index(-1)] = x.shape[axis] - sum(s for s in sizes if s != -1)
    if any(s < 0 for s in sizes) or sum(sizes) != x.shape[axis]:
        raise ctx.fail(f"size_splits {sizes} do not add up to dimension {axis} of size "
                       f"{x.shape[axis]}")
    return _pieces(ctx, x, axis, sizes)


def unpack(ctx: OpContext) -> list[SSAValue]:
    """UNPACK: `num` slices along the axis, each without it."""
    x = ctx.inputs[0]
    axis = _axis(ctx, ctx.option("axis", 0), len(x.shape))
    num = ctx.option("num", len(ctx.outputs)) or x.shape[axis]
    if num != x.shape[axis]:
        raise ctx.fail(f"num = {num} but dimension {axis} has size {x.shape[axis]}")
    return _pieces(ctx, x, axis, [1] * num, drop_axis=True)


def gather(ctx: OpContext) -> list[SSAValue]:
    """GATHER: out[b..., p..., i..., s...] = params[b..., p..., indices[b..., i...], s...]
    with the first batch_dims (b) dimensions of params and indices paired (batch_dims < 0
    counts from the indices' rank; 0 <= batch_dims <= axis), as `stablehlo.gather` (each
    index picks one slice of size 1 along the axis; the paired dimensions are its
    batching dimensions)."""
    params, indices = ctx.inputs
    out = ctx.outputs[0]
    r, ri = len(params.shape), len(indices.shape)
    if r == 0:
        raise ctx.fail(f"{params.label} must have rank >= 1")
    axis = _axis(ctx, ctx.option("axis", 0), r)
    given = int(ctx.option("batchDims", 0))
    batch = given + ri if given < 0 else given
    if not 0 <= batch <= min(axis, ri):
        raise ctx.fail(f"option batchDims = {given} must be in [0, {min(axis, ri)}] (at most "
                       f"the axis {axis} and the indices' rank {ri}; negative counts from "
                       "the indices' rank)")
    if list(params.shape[:batch]) != list(indices.shape[:batch]):
        raise ctx.fail(f"the first {batch} dimensions of {params.label} {list(params.shape)} "
                       f"and {indices.label} {list(indices.shape)} differ (batchDims)")
    same_params(ctx, params, out)
    shape = [*params.shape[:axis], *indices.shape[batch:], *params.shape[axis + 1:]]
    check_output_shape(ctx, out, shape)
    if indices.data is not None and (np.any(indices.data < 0)
                                     or np.any(indices.data >= params.shape[axis])):
        raise ctx.fail(f"{indices.label} holds an index outside [0, {params.shape[axis]})")
    idx = reshape(ctx, ctx.value(indices), indices, indices.shape, [*indices.shape, 1])
    return [take(ctx, ctx.value(params), params.shape, axis, idx, indices.shape,
                 out.type(), batch)]


def take(ctx: OpContext, v: SSAValue, shape, axis: int, idx: SSAValue, idx_shape,
         result, batch: int = 0) -> SSAValue:
    """`stablehlo.gather` of `v` (of `shape`) along `axis` at `idx` (of `idx_shape` + [1]),
    the first `batch` dimensions of both paired: result[b..., p..., i..., s...] =
    v[b..., p..., idx[b..., i...], s...]."""
    ri, r = len(idx_shape), len(shape)
    dn = GatherDimensionNumbersAttr.get(
        offset_dims=[*range(batch, axis), *range(axis + ri - batch, r - 1 + ri - batch)],
        collapsed_slice_dims=[axis], operand_batching_dims=list(range(batch)),
        start_indices_batching_dims=list(range(batch)), start_index_map=[axis],
        index_vector_dim=ri)
    sizes = [1 if i == axis or i < batch else d for i, d in enumerate(shape)]
    return op(ctx, sh.GatherOp, [v, idx], result, dimension_numbers=dn,
              slice_sizes=i64_array(sizes))


_SAME = {"output": "same", "int16": True}
declare(Operator(
    "SPLIT", (), ("Split",), **_SAME, how="slices: checked as SLICE, the same rule",
    options=Options("SplitOptions", {"numSplits": any_value}, required=False),
    inputs=(Operand("axis", ("INT32",), constant=True), Operand("input")), outputs=None,
    build=split))
declare(Operator(
    "SPLIT_V", (), (), **_SAME, how="slices: checked as SLICE, the same rule",
    options=Options("SplitVOptions", {"numSplits": any_value}, required=False),
    inputs=(Operand("input"), Operand("size_splits", INDICES, rank=(1,), constant=True),
            Operand("axis", ("INT32",), constant=True)), outputs=None, build=split_v))
declare(Operator(
    "UNPACK", (), (), **_SAME,
    how="slices and reshapes: checked as SLICE / RESHAPE, the same rule",
    options=Options("UnpackOptions", {"num": any_value, "axis": any_value}, required=False),
    inputs=(Operand("input", min_rank=1),), outputs=None, build=unpack))
declare(Operator(
    "GATHER", (sh.GatherOp,), ("Gather",), **_SAME,
    how="gather (operand 0; the indices are integers)",
    options=Options("GatherOptions", {"axis": any_value, "batchDims": any_value},
                    required=False),
    inputs=(Operand("params"), Operand("indices", INDICES)), build=gather))


__all__ = ["gather", "split", "split_v", "take", "unpack"]
