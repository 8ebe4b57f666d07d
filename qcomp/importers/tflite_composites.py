"""TFLite operators whose int8 kernels have their own arithmetic, imported as
`stablehlo.composite "tfl.<op>"` with a float decomposition (dequantize, the op in f32,
quantize):

| composite            | composite_attributes                        | decomposition (f32)            |
|----------------------|---------------------------------------------|--------------------------------|
| `tfl.average_pool_2d`| window, strides, padding (NHWC, i64 arrays) | sum of the in-bounds values / their count |
| `tfl.softmax`        | beta (f32), along the last dimension        | exp(b(x - max)) / Σ exp(b(x - max)) |
| `tfl.mean`           | axes, keep_dims                             | Σ x / count                    |

`stablehlo-legalize-quant-to-math{rescale=fixed-point}` replaces them by TFLite's
integer kernels (`qcomp.quant.tflite`).
"""

from __future__ import annotations

import math

import numpy as np

from qcomp.importers.tflite_ir import Body as _Body
from qcomp.importers.tflite_ir import OpContext, Tensor, dense, fmt_float, tensor_type
from qcomp.importers.tflite_ops import _fused, _need_quantized, _same_params, _window


def _composite(ctx: OpContext, name: str, attrs: str, x: Tensor, out: Tensor,
               body: _Body, result: str) -> str:
    fname = f"{name}_{ctx.index}"
    ctx.out.functions.append(
        f"  func.func private @{fname}(%arg0: {x.type()}) -> {out.type()} {{\n"
        + "\n".join(body.lines) + f"\n    return {result} : {out.type()}\n  }}")
    return ctx.out.emit(f"stablehlo.composite \"{name}\" {ctx.value(x)} {{composite_attributes"
                        f" = {{{attrs}}}, decomposition = @{fname}}} : ({x.type()}) -> "
                        f"{out.type()}")


def _f32(shape) -> str:
    return tensor_type(shape, "f32")


def _arr(values) -> str:
    return f"array<i64: {', '.join(str(int(v)) for v in values)}>"


def _reduce(b: _Body, v: str, shape, dims, init: str, op: str) -> tuple[str, tuple]:
    z = b.emit(f"stablehlo.constant dense<{init}> : tensor<f32>")
    kept = tuple(d for i, d in enumerate(shape) if i not in dims)
    r = b.emit(f"stablehlo.reduce({v} init: {z}) applies stablehlo.{op} across dimensions = "
               f"[{', '.join(map(str, dims))}] : ({_f32(shape)}, tensor<f32>) -> {_f32(kept)}")
    return r, kept


def average_pool_2d(ctx: OpContext) -> list[str]:
    x, out = ctx.inputs[0], ctx.outputs[0]
    _need_quantized(ctx, x)
    _same_params(ctx, x, out)
    o = ctx.options
    kh, kw = o.filterHeight, o.filterWidth
    (oh, ow), ((pt, pb), (pl, pr)) = _window(ctx, x, kh, kw)
    if tuple(out.shape) != (x.shape[0], oh, ow, x.shape[3]):
        raise ctx.fail(f"output shape {list(out.shape)} does not match the window")
    counts = np.zeros((oh, ow), np.float32)
    for i in range(oh):
        for j in range(ow):
            h0, w0 = i * o.strideH - pt, j * o.strideW - pl
            counts[i, j] = ((min(h0 + kh, x.shape[1]) - max(h0, 0))
                            * (min(w0 + kw, x.shape[2]) - max(w0, 0)))
    b = _Body()
    f = b.emit(f"stablehlo.uniform_dequantize %arg0 : ({x.type()}) -> {_f32(x.shape)}")
    z = b.emit("stablehlo.constant dense<0.000000e+00> : tensor<f32>")
    s = b.emit(
        f"\"stablehlo.reduce_window\"({f}, {z}) <{{padding = dense<[[0, 0], [{pt}, {pb}], "
        f"[{pl}, {pr}], [0, 0]]> : tensor<4x2xi64>, window_dimensions = array<i64: 1, {kh}, "
        f"{kw}, 1>, window_strides = array<i64: 1, {o.strideH}, {o.strideW}, 1>}}> ({{\n"
        f"    ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
        f"      %s = stablehlo.add %a, %b : tensor<f32>\n"
        f"      stablehlo.return %s : tensor<f32>\n"
        f"    }}) : ({_f32(x.shape)}, tensor<f32>) -> {_f32(out.shape)}")
    c = b.emit(f"stablehlo.constant {dense(counts)} : {_f32((oh, ow))}")
    cb = b.emit(f"stablehlo.broadcast_in_dim {c}, dims = [1, 2] : ({_f32((oh, ow))}) -> "
                f"{_f32(out.shape)}")
    m = b.emit(f"stablehlo.divide {s}, {cb} : {_f32(out.shape)}")
    q = b.emit(f"stablehlo.uniform_quantize {m} : ({_f32(out.shape)}) -> {out.type()}")
    attrs = (f"padding = {_arr((0, 0, pt, pb, pl, pr, 0, 0))}, strides = "
             f"{_arr((1, o.strideH, o.strideW, 1))}, window = {_arr((1, kh, kw, 1))}")
    v = _composite(ctx, "tfl.average_pool_2d", attrs, x, out, b, q)
    return [_fused(ctx, v, out)]


def softmax(ctx: OpContext) -> list[str]:
    x, out = ctx.inputs[0], ctx.outputs[0]
    _need_quantized(ctx, x, out)
    beta = np.float32(ctx.options.beta if ctx.options is not None else 1.0)
    shape, r = x.shape, len(x.shape)
    b = _Body()
    f = b.emit(f"stablehlo.uniform_dequantize %arg0 : ({x.type()}) -> {_f32(shape)}")
    bc = b.emit(f"stablehlo.constant dense<{fmt_float(beta)}> : {_f32(shape)}")
    f = b.emit(f"stablehlo.multiply {f}, {bc} : {_f32(shape)}")
    m, kept = _reduce(b, f, shape, [r - 1], "0xFF800000", "maximum")
    keep = ", ".join(str(i) for i in range(r - 1))
    mb = b.emit(f"stablehlo.broadcast_in_dim {m}, dims = [{keep}] : ({_f32(kept)}) -> "
                f"{_f32(shape)}")
    d = b.emit(f"stablehlo.subtract {f}, {mb} : {_f32(shape)}")
    e = b.emit(f"stablehlo.exponential {d} : {_f32(shape)}")
    s, _ = _reduce(b, e, shape, [r - 1], "0.000000e+00", "add")
    sb = b.emit(f"stablehlo.broadcast_in_dim {s}, dims = [{keep}] : ({_f32(kept)}) -> "
                f"{_f32(shape)}")
    p = b.emit(f"stablehlo.divide {e}, {sb} : {_f32(shape)}")
    q = b.emit(f"stablehlo.uniform_quantize {p} : ({_f32(shape)}) -> {out.type()}")
    return [_composite(ctx, "tfl.softmax", f"beta = {fmt_float(beta)} : f32", x, out, b, q)]


def mean(ctx: OpContext) -> list[str]:
    x, axes_t, out = ctx.inputs[0], ctx.inputs[1], ctx.outputs[0]
    _need_quantized(ctx, x, out)
    if axes_t.data is None:
        raise ctx.fail("the axes must be a constant")
    r = len(x.shape)
    axes = sorted({int(a) % r for a in axes_t.data.reshape(-1)})
    keep_dims = bool(ctx.options.keepDims) if ctx.options is not None else False
    count = math.prod(x.shape[a] for a in axes)
    b = _Body()
    f = b.emit(f"stablehlo.uniform_dequantize %arg0 : ({x.type()}) -> {_f32(x.shape)}")
    s, kept = _reduce(b, f, x.shape, axes, "0.000000e+00", "add")
    c = b.emit(f"stablehlo.constant dense<{fmt_float(count)}> : {_f32(kept)}")
    m = b.emit(f"stablehlo.divide {s}, {c} : {_f32(kept)}")
    if tuple(kept) != tuple(out.shape):
        m = b.emit(f"stablehlo.reshape {m} : ({_f32(kept)}) -> {_f32(out.shape)}")
    q = b.emit(f"stablehlo.uniform_quantize {m} : ({_f32(out.shape)}) -> {out.type()}")
    attrs = f"axes = {_arr(axes)}, keep_dims = {'true' if keep_dims else 'false'}"
    return [_composite(ctx, "tfl.mean", attrs, x, out, b, q)]


__all__ = ["average_pool_2d", "mean", "softmax"]
