"""TFLite's pooling: MAX_POOL_2D (`stablehlo.reduce_window` maximum, padding value the
storage minimum) and AVERAGE_POOL_2D (`stablehlo.composite "tfl.average_pool_2d"`,
composite_attributes window, strides, padding as NHWC i64 arrays; decomposition in
f32: the sum of the in-bounds values / their count). Under `rescale=fixed-point`
AVERAGE_POOL_2D is TFLite's int8 kernel: Σ in-bounds q (i32), (sum +- n/2) / n toward
zero, clamped to the storage range (n: the in-bounds count of each window)."""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import TensorType, i32
from xdsl.ir import Attribute, Block, Region, SSAValue

from qcomp.dialects import stablehlo as sh
from qcomp.dialects.stablehlo.format import i64_array
from qcomp.passes.utils.builder import Builder, shape_of
from qcomp.tflite.common import (
    WINDOW_OPTIONS,
    check_output_shape,
    fused,
    need_quantized,
    op_in,
    padding_attr,
    same_params,
    window,
)
from qcomp.tflite.context import (
    ELEMENT,
    STORAGE_RANGE,
    OpContext,
    constant,
    dense,
    f32_tensor,
)
from qcomp.tflite.kernels import composite_props, ints, per_tensor, quantized_type
from qcomp.tflite.operator import Operand, Operator, Options, declare, positive


def window_counts(in_hw, out_hw, window, strides, pad_top: int, pad_left: int) -> np.ndarray:
    """The number of in-bounds input values in each output position's window."""
    counts = np.zeros(tuple(out_hw), np.int64)
    for i in range(out_hw[0]):
        for j in range(out_hw[1]):
            h0, w0 = i * strides[0] - pad_top, j * strides[1] - pad_left
            counts[i, j] = ((min(h0 + window[0], in_hw[0]) - max(h0, 0))
                            * (min(w0 + window[1], in_hw[1]) - max(w0, 0)))
    return counts


def reduce_window(b: Builder, x: SSAValue, init: SSAValue, result: TensorType,
                  body: type, window, strides, pads) -> SSAValue:
    """`stablehlo.reduce_window` of an NHWC `x` with the binary `body` op."""
    scalar = init.type
    block = Block(arg_types=[scalar, scalar])
    r = body.create(operands=list(block.args), result_types=[scalar])
    block.add_ops([r, sh.ReturnOp(r.results[0])])
    return b.emit(sh.ReduceWindowOp.create(
        operands=[x, init], result_types=[result],
        properties={"padding": padding_attr(((0, 0), *pads, (0, 0))),
                    "window_dimensions": i64_array([1, *window, 1]),
                    "window_strides": i64_array([1, *strides, 1])},
        regions=[Region(block)]))


def lower_average_pool(op_: sh.CompositeOp, b: Builder, st) -> SSAValue | None:
    """TFLite's int8 AVERAGE_POOL_2D (see the module docstring)."""
    x, qi, qo = op_.operands[0], quantized_type(op_.operands[0]), quantized_type(op_.results[0])
    if not per_tensor(qi, qo) or qi != qo:
        return None
    p = composite_props(op_)
    win, strides, pad = ints(p["window"]), ints(p["strides"]), ints(p["padding"])
    in_shape, out_shape = shape_of(x), shape_of(op_.results[0])
    total = reduce_window(b, b.convert(st(x), i32), b.constant(np.int32(0), i32),
                          TensorType(i32, out_shape), sh.AddOp, win[1:3], strides[1:3],
                          ((pad[2], pad[3]), (pad[4], pad[5])))
    counts = window_counts(in_shape[1:3], out_shape[1:3], win[1:3], strides[1:3], pad[2],
                           pad[4])
    n = b.broadcast_in_dim(b.constant(counts.astype(np.int32), i32), out_shape, [1, 2])
    half = b.broadcast_in_dim(b.constant((counts // 2).astype(np.int32), i32), out_shape,
                              [1, 2])
    positive_ = b.emit(sh.CompareOp(total, b.full(np.int32(0), i32, out_shape), "GT",
                                    "SIGNED"))
    num = b.emit(sh.SelectOp(positive_, b.binary(sh.AddOp, total, half),
                             b.binary(sh.SubtractOp, total, half)))
    avg = b.binary(sh.DivideOp, num, n)
    return b.convert(b.clamp(avg, qo.storage_min, qo.storage_max), qo.storage)


def _filter(ctx: OpContext):
    return ctx.options.filterHeight, ctx.options.filterWidth


def max_pool_2d(ctx: OpContext) -> list[SSAValue]:
    x, out = ctx.inputs[0], ctx.outputs[0]
    same_params(ctx, x, out)
    kh, kw = _filter(ctx)
    (oh, ow), pads = window(ctx, x, kh, kw)
    check_output_shape(ctx, out, (x.shape[0], oh, ow, x.shape[3]))
    el = x.element()
    if x.quantized:
        init = constant(ctx.b, STORAGE_RANGE[x.dtype][0], (), el, ELEMENT[x.dtype])
    else:
        init = constant(ctx.b, np.float32(-np.inf), (), el, el)
    v = reduce_window(ctx.b, ctx.value(x), init, out.type(), sh.MaximumOp, (kh, kw),
                      (ctx.options.strideH, ctx.options.strideW), pads)
    return [fused(ctx, v, out)]


def average_pool_2d(ctx: OpContext) -> list[SSAValue]:
    x, out = ctx.inputs[0], ctx.outputs[0]
    need_quantized(ctx, x)
    same_params(ctx, x, out)
    kh, kw = _filter(ctx)
    sh_, sw = ctx.options.strideH, ctx.options.strideW
    (oh, ow), ((pt, pb), (pl, pr)) = window(ctx, x, kh, kw)
    check_output_shape(ctx, out, (x.shape[0], oh, ow, x.shape[3]))
    counts = window_counts(x.shape[1:3], (oh, ow), (kh, kw), (sh_, sw), pt, pl)

    def body(b: Builder, args: list[SSAValue]) -> SSAValue:
        f = op_in(b, sh.UniformDequantizeOp, [args[0]], f32_tensor(x.shape))
        z = b.emit(sh.ConstantOp(dense(np.float32(0), f32_tensor(()))))
        s = reduce_window(b, f, z, f32_tensor(out.shape), sh.AddOp, (kh, kw), (sh_, sw),
                          ((pt, pb), (pl, pr)))
        c = b.emit(sh.ConstantOp(dense(counts.astype(np.float32), f32_tensor((oh, ow)))))
        cb = op_in(b, sh.BroadcastInDimOp, [c], f32_tensor(out.shape),
                   broadcast_dimensions=i64_array([1, 2]))
        m = op_in(b, sh.DivideOp, [s, cb], f32_tensor(out.shape))
        return op_in(b, sh.UniformQuantizeOp, [m], out.type())
    attrs: dict[str, Attribute] = {
        "padding": i64_array([0, 0, pt, pb, pl, pr, 0, 0]),
        "strides": i64_array([1, sh_, sw, 1]), "window": i64_array([1, kh, kw, 1])}
    v = ctx.composite("tfl.average_pool_2d", attrs, [ctx.value(x)], out.type(), body)
    return [fused(ctx, v, out)]


_POOL = Options("Pool2DOptions", {**WINDOW_OPTIONS, "filterWidth": positive,
                                  "filterHeight": positive})
_POOLED = ("INT8", "INT16", "UINT8", "FLOAT32")

declare(Operator(
    "AVERAGE_POOL_2D", (sh.ReduceWindowOp,), ("AveragePool", "QLinearAveragePool"),
    output="same", int16=True,
    how="reduce_window with an add body (and the divide by the window size after it)",
    options=_POOL, inputs=(Operand("input", _POOLED, rank=(4,)),), build=average_pool_2d,
    kernels={"tfl.average_pool_2d": lower_average_pool}))
declare(Operator(
    "MAX_POOL_2D", (sh.ReduceWindowOp,), ("MaxPool",), output="same", int16=True,
    how="reduce_window with a max body", options=_POOL,
    inputs=(Operand("input", _POOLED, rank=(4,)),), build=max_pool_2d))

__all__ = ["average_pool_2d", "lower_average_pool", "max_pool_2d", "reduce_window",
           "window_counts"]
