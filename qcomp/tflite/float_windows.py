"""TFLite's float operators over windows: L2_POOL_2D and LOCAL_RESPONSE_NORMALIZATION
(tensorflow/lite/kernels/pooling.cc, local_response_norm.cc; float only in LiteRT),
made of StableHLO float ops in the reference kernels' order, so that every rounding is
LiteRT's:

- L2_POOL_2D (Pool2DOptions): reference_ops::L2Pool: s = Σ v^2 over the in-bounds
  window, in row-major window order from 0 (the squares zero padded and sliced per
  window position: `stablehlo.pad`, one strided `stablehlo.slice` and add per
  position), sqrt(s / n) (n the in-bounds count), clamped to the fused activation's
  range ([-FLT_MAX, FLT_MAX] without one);
- LOCAL_RESPONSE_NORMALIZATION (radius r, bias, alpha, beta): reference_ops::
  LocalResponseNormalization along the last dimension: a = Σ x_j^2 over j in
  [c - r, c + r) from the lowest (f32; the reference kernel's window ends before c + r,
  LiteRT's optimised one, BUILTIN, at c + r, so the two differ), m = f32(pow(bias + alpha a, -beta)) with the
  parameters, the sum and pow in double (LocalResponseNormalizationParams holds doubles),
  out = x m.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import f32, f64
from xdsl.ir import SSAValue

from qcomp.dialects import stablehlo as sh
from qcomp.tflite.common import (
    WINDOW_OPTIONS,
    check_output_shape,
    window,
)
from qcomp.tflite.context import OpContext
from qcomp.tflite.float_math import clamp_range
from qcomp.tflite.index_math import pad
from qcomp.tflite.operator import Operand, Operator, Options, declare, finite, positive
from qcomp.tflite.pooling import window_counts


def _float_io(ctx: OpContext) -> None:
    x, out = ctx.inputs[0], ctx.outputs[0]
    if x.dtype != "FLOAT32" or out.dtype != "FLOAT32" or x.quantized or out.quantized:
        raise ctx.fail(f"{ctx.name} takes and gives FLOAT32 tensors (LiteRT has no "
                       "quantized kernel)")


def l2_pool_2d(ctx: OpContext) -> list[SSAValue]:
    x, out = ctx.inputs[0], ctx.outputs[0]
    _float_io(ctx)
    o = ctx.options
    kh, kw, s_h, s_w = o.filterHeight, o.filterWidth, o.strideH, o.strideW
    (oh, ow), ((pt, pb), (pl, pr)) = window(ctx, x, kh, kw)
    n, _, _, c = x.shape
    check_output_shape(ctx, out, (n, oh, ow, c))
    b = ctx.b
    v = ctx.value(x)
    sq = pad(b, b.binary(sh.MultiplyOp, v, v), [0, pt, pl, 0], [0, pb, pr, 0])
    total = None
    for fy in range(kh):
        for fx in range(kw):
            part = b.emit(sh.SliceOp(sq, [0, fy, fx, 0],
                                     [n, fy + (oh - 1) * s_h + 1, fx + (ow - 1) * s_w + 1, c],
                                     [1, s_h, s_w, 1]))
            total = part if total is None else b.binary(sh.AddOp, total, part)
    counts = window_counts(x.shape[1:3], (oh, ow), (kh, kw), (s_h, s_w), pt, pl)
    count = b.broadcast_in_dim(b.constant(counts.astype(np.float32), f32), tuple(out.shape),
                               [1, 2])
    r = b.op(sh.SqrtOp, [b.binary(sh.DivideOp, total, count)], f32)
    return [clamp_range(b, r, ctx.option("fusedActivationFunction", 0))]


def local_response_normalization(ctx: OpContext) -> list[SSAValue]:
    x, out = ctx.inputs[0], ctx.outputs[0]
    _float_io(ctx)
    check_output_shape(ctx, out, x.shape)
    shape = tuple(x.shape)
    r_ = len(shape)
    depth = shape[-1]
    radius = min(int(ctx.option("radius", 5)), depth)  # a wider window adds only zeros
    b = ctx.b
    v = ctx.value(x)
    low = [0] * (r_ - 1)
    sq = pad(b, b.binary(sh.MultiplyOp, v, v), [*low, radius], [*low, radius])
    acc = None
    for k in range(2 * radius):
        part = b.emit(sh.SliceOp(sq, [*low, k], [*shape[:-1], k + depth]))
        acc = part if acc is None else b.binary(sh.AddOp, acc, part)
    wide = b.full(np.float64(0), f64, shape) if acc is None else b.convert(acc, f64)

    def c(name: str, default: float, sign: float = 1.0) -> SSAValue:
        val = float(np.float32(ctx.option(name, default)))
        return b.full(np.float64(sign * val), f64, shape)
    base = b.binary(sh.AddOp, c("bias", 1.0), b.binary(sh.MultiplyOp, c("alpha", 1.0), wide))
    m = b.convert(b.binary(sh.PowerOp, base, c("beta", 0.5, -1.0)), f32)
    return [b.binary(sh.MultiplyOp, v, m)]


_POOL = Options("Pool2DOptions", {**WINDOW_OPTIONS, "filterWidth": positive,
                                  "filterHeight": positive})
declare(Operator("L2_POOL_2D", output="none", spec=False,
                 how="pad, slices and adds of the squares, divide, sqrt (float)",
                 options=_POOL, inputs=(Operand("input", ("FLOAT32",), rank=(4,)),),
                 build=l2_pool_2d))
declare(Operator(
    "LOCAL_RESPONSE_NORMALIZATION", output="none", spec=False,
    how="slices and adds of the squares, power in f64 (float)",
    options=Options("LocalResponseNormalizationOptions",
                    {"radius": lambda v: None if int(v) >= 0 else "must not be negative",
                     "bias": finite, "alpha": finite, "beta": finite}),
    inputs=(Operand("input", ("FLOAT32",), rank=(4,)),),
    build=local_response_normalization))


__all__ = ["l2_pool_2d", "local_response_normalization"]
