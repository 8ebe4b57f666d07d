"""TFLite's SOFTMAX and MEAN, whose int8 kernels have their own arithmetic: imported as
`stablehlo.composite "tfl.<op>"` with a float decomposition (dequantize, the op in
f32, quantize), replaced under `rescale=fixed-point` by TFLite's kernels:

- `tfl.softmax` (composite_attributes: beta, f32; along the last dimension):
  decomposition exp(b(x - max)) / Σ exp(b(x - max)); kernel e = T[max - q] (an f32
  table of 256, `qcomp.quant.tflite.softmax_int8`), S = e_0 + e_1 + ... in order (f32),
  round_half_away(e * (1 / (S s_out))) + z_out;
- `tfl.mean` (composite_attributes: axes, keep_dims): decomposition Σ x / count; kernel
  MBQM(Σ q - z_in n, M', e') + z_out, (M', e') = `mean_multiplier(s_in / s_out, n)`.

LiteRT 2.3's int8 SOFTMAX is a float table kernel: it is emitted as that kernel
computes it (the table a compile-time constant, the f32 sum unrolled in TFLite's order).
"""

from __future__ import annotations

import math

import numpy as np
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, IntegerType, f32, i32, i64
from xdsl.ir import Attribute, SSAValue

from qcomp.dialects import stablehlo as sh
from qcomp.dialects.stablehlo.format import i64_array
from qcomp.passes.quant_to_math.emit import mbqm_ir
from qcomp.passes.utils.builder import Builder, shape_of
from qcomp.quant.tflite import mean_multiplier, softmax_table
from qcomp.tflite.common import need_constant, need_quantized, op_in, same_shape
from qcomp.tflite.context import OpContext, dense, f32_tensor
from qcomp.tflite.kernels import (
    composite_props,
    float_prop,
    gather,
    int8,
    ints,
    quantized_type,
    reduce,
)
from qcomp.tflite.kernels16 import int16, lower_softmax16, with_int16
from qcomp.tflite.operator import Operand, Operator, Options, boolean, declare, finite


def lower_softmax(op_: sh.CompositeOp, b: Builder, st) -> SSAValue | None:
    """TFLite's int8 SOFTMAX along the last dimension (see the module docstring)."""
    x, qi, qo = op_.operands[0], quantized_type(op_.operands[0]), quantized_type(op_.results[0])
    if not int8(qi, qo):
        return None
    shape = shape_of(x)
    r, n = len(shape), shape[-1]
    outer = tuple(shape[:-1])
    q = b.convert(st(x), i32)
    mx = b.broadcast_in_dim(reduce(b, q, [r - 1], sh.MaximumOp, -128), shape, list(range(r - 1)))
    table = b.constant(softmax_table(qi.scale, float_prop(op_, "beta", 1.0)), f32)
    e = gather(b, table, b.binary(sh.SubtractOp, mx, q))
    total = None
    for j in range(n):
        col = b.emit(sh.SliceOp(e, [0] * (r - 1) + [j], [*outer, j + 1]))
        total = col if total is None else b.binary(sh.AddOp, total, col)
    denom = b.binary(sh.MultiplyOp, total, b.full(np.float32(qo.scale), f32, (*outer, 1)))
    inv = b.binary(sh.DivideOp, b.full(np.float32(1.0), f32, (*outer, 1)), denom)
    inv = b.broadcast_in_dim(b.op(sh.ReshapeOp, [inv], f32, outer), shape, list(range(r - 1)))
    p = b.op(sh.RoundNearestAfzOp, [b.binary(sh.MultiplyOp, e, inv)], f32)
    v = b.binary(sh.AddOp, b.convert(p, i32), b.full(np.int32(qo.zero_point), i32, shape))
    return b.convert(b.clamp(v, qo.storage_min, qo.storage_max), qo.storage)


def lower_mean(op_: sh.CompositeOp, b: Builder, st) -> SSAValue | None:
    """TFLite's int8 / int16 MEAN (reference_ops::QuantizedMeanOrSum): clamp(MBQM(Σ q - z_in n,
    M', e') + z_out) with (M', e') = `qcomp.quant.tflite.mean_multiplier`."""
    x, qi, qo = op_.operands[0], quantized_type(op_.operands[0]), quantized_type(op_.results[0])
    if not (int8(qi, qo) or int16(qi, qo)):
        return None
    axes = ints(composite_props(op_)["axes"])
    shape = shape_of(x)
    n = int(np.prod([shape[a] for a in axes]))
    if n == 0:
        return None
    total = reduce(b, b.convert(st(x), i64), axes, sh.AddOp, 0)
    if qi.zero_point:
        total = b.binary(sh.SubtractOp, total,
                         b.full(np.int64(qi.zero_point * n), i64, shape_of(total)))
    m, e = mean_multiplier(qi.scale, qo.scale, n)
    v = mbqm_ir(b, total, np.int64(m), np.int64(e), None)
    if qo.zero_point:
        v = b.binary(sh.AddOp, v, b.full(np.int64(qo.zero_point), i64, shape_of(v)))
    v = b.clamp(v, qo.storage_min, qo.storage_max)
    out_shape = shape_of(op_.results[0])
    if shape_of(v) != out_shape:
        v = b.op(sh.ReshapeOp, [v], i64, out_shape)
    return b.convert(v, qo.storage)


def softmax(ctx: OpContext) -> list[SSAValue]:
    x, out = ctx.inputs[0], ctx.outputs[0]
    need_quantized(ctx, x, out)
    same_shape(ctx, x, out)
    beta = np.float32(ctx.option("beta", 1.0))
    shape, r = x.shape, len(x.shape)
    keep = list(range(r - 1))

    def body(b: Builder, args: list[SSAValue]) -> SSAValue:
        t = f32_tensor(shape)
        f = op_in(b, sh.UniformDequantizeOp, [args[0]], t)
        bc = b.emit(sh.ConstantOp(dense(beta, t)))
        f = op_in(b, sh.MultiplyOp, [f, bc], t)
        m = reduce(b, f, [r - 1], sh.MaximumOp, np.float32(-np.inf))
        mb = op_in(b, sh.BroadcastInDimOp, [m], t, broadcast_dimensions=i64_array(keep))
        e = op_in(b, sh.ExponentialOp, [op_in(b, sh.SubtractOp, [f, mb], t)], t)
        s = reduce(b, e, [r - 1], sh.AddOp, np.float32(0))
        sb = op_in(b, sh.BroadcastInDimOp, [s], t, broadcast_dimensions=i64_array(keep))
        p = op_in(b, sh.DivideOp, [e, sb], t)
        return op_in(b, sh.UniformQuantizeOp, [p], out.type())
    return [ctx.composite("tfl.softmax", {"beta": FloatAttr(float(beta), f32)},
                          [ctx.value(x)], out.type(), body)]


def reduction_axes(ctx: OpContext, what: str) -> tuple[list[int], tuple[int, ...], bool]:
    """(the axes reduced, sorted and distinct; the shape kept; keep_dims) of a reducer
    (inputs: input, constant axes; ReducerOptions), the output's shape checked."""
    x, axes_t, out = ctx.inputs[0], ctx.inputs[1], ctx.outputs[0]
    r = len(x.shape)
    given = [int(a) for a in need_constant(ctx, axes_t, "axes").reshape(-1)]
    if any(not -r <= a < r for a in given):
        raise ctx.fail(f"axes {given} are outside the input's rank {r}")
    axes = sorted({a % r for a in given})
    keep_dims = bool(ctx.option("keepDims", False))
    kept = tuple(d for i, d in enumerate(x.shape) if i not in axes)
    want = [1 if i in axes else d for i, d in enumerate(x.shape)] if keep_dims else list(kept)
    if list(out.shape) != want:
        raise ctx.fail(f"output shape {list(out.shape)} is not {want}, the {what} over axes "
                       f"{axes} of {list(x.shape)} (keep_dims {keep_dims})")
    return axes, kept, keep_dims


def mean(ctx: OpContext) -> list[SSAValue]:
    x, out = ctx.inputs[0], ctx.outputs[0]
    need_quantized(ctx, x, out)
    axes, kept, keep_dims = reduction_axes(ctx, "mean")
    count = math.prod(x.shape[a] for a in axes)

    def body(b: Builder, args: list[SSAValue]) -> SSAValue:
        f = op_in(b, sh.UniformDequantizeOp, [args[0]], f32_tensor(x.shape))
        s = reduce(b, f, axes, sh.AddOp, np.float32(0))
        c = b.emit(sh.ConstantOp(dense(np.float32(count), f32_tensor(kept))))
        m = op_in(b, sh.DivideOp, [s, c], f32_tensor(kept))
        if tuple(kept) != tuple(out.shape):
            m = op_in(b, sh.ReshapeOp, [m], f32_tensor(out.shape))
        return op_in(b, sh.UniformQuantizeOp, [m], out.type())
    attrs: dict[str, Attribute] = {"axes": i64_array(axes),
                                   "keep_dims": IntegerAttr(int(keep_dims), IntegerType(1))}
    return [ctx.composite("tfl.mean", attrs, [ctx.value(x)], out.type(), body)]


declare(Operator(
    "SOFTMAX", (sh.DivideOp,), ("Softmax",), output="fixed",
    fixed=(1.0 / 256.0, -128), fixed16=(1.0 / 32768.0, 0), int16=True,
    how="divide(e, broadcast(reduce_add(e))) with e = exponential(x) (or "
        "exponential(x - broadcast(reduce_max(x))))",
    options=Options("SoftmaxOptions", {"beta": finite}, required=False),
    inputs=(Operand("input", min_rank=1),), build=softmax,
    kernels={"tfl.softmax": with_int16(lower_softmax, lower_softmax16)}))
declare(Operator(
    "MEAN", (sh.ReduceOp,), ("ReduceMean",), int16=True,
    how="reduce with an add body whose result is divided by a constant",
    options=Options("ReducerOptions", {"keepDims": boolean}, required=False),
    inputs=(Operand("input", min_rank=1), Operand("axis", ("INT32", "INT64"), constant=True)),
    build=mean, kernels={"tfl.mean": lower_mean}))


__all__ = ["lower_mean", "lower_softmax", "mean", "reduction_axes", "softmax"]
