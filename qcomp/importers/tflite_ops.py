"""One translation per TFLite operator: `OpContext` in, SSA values of its outputs out.

| TFLite                       | StableHLO                                                   |
|------------------------------|-------------------------------------------------------------|
| FULLY_CONNECTED              | dot_general (i32 accumulator type, scale s_in * s_w[c]) + bias, uniform_quantize {tfl.kernel = "fully_connected"} (TFLite's f64 rescale under fixed-point) |
| CONV_2D / DEPTHWISE_CONV_2D  | convolution NHWC (depthwise: feature_group_count = C) + bias, uniform_quantize |
| ADD / SUB / MUL              | add / subtract / multiply (operands broadcast_in_dim to the output shape) |
| MAX_POOL_2D                  | reduce_window maximum (padding value: storage minimum)      |
| AVERAGE_POOL_2D, SOFTMAX, MEAN | composite "tfl.average_pool_2d" / "tfl.softmax" / "tfl.mean", decomposition in f32 |
| LOGISTIC / TANH              | logistic / tanh                                             |
| RESHAPE / TRANSPOSE / CONCATENATION / PAD | reshape / transpose / concatenate / pad (pad value: zero point) |
| QUANTIZE / DEQUANTIZE        | uniform_quantize / uniform_dequantize                       |

FULLY_CONNECTED / CONV_2D / DEPTHWISE_CONV_2D with asymmetric weights, or weights
per-axis on another dimension than the spec's (0, 0, 3), have no StableHLO form
(StableHLO's contractions take neither): they are `stablehlo.composite "tfl.<op>"` on
TFLite's operands and layouts with an f32 decomposition (`contraction_as_composite`).

A fused activation (RELU, RELU6, RELU_N1_TO_1) is a `stablehlo.clamp` in the quantized
domain with TFLite's bounds: max(qmin, zp + round(lo / s)), min(qmax, zp + round(hi / s))
(f32 division, round half away from zero). The `tfl.*` composites are what
`stablehlo-legalize-quant-to-math{rescale=fixed-point}` replaces by TFLite's integer
kernels; any other lowering calls their decomposition.
"""

from __future__ import annotations

import math

import numpy as np

from qcomp.importers.tflite_ir import Body, OpContext, Tensor, constant, fmt_float, tensor_type

_ACTIVATIONS = {0: None, 1: (0.0, None), 2: (-1.0, 1.0), 3: (0.0, 6.0)}
_ACT_NAMES = {4: "TANH", 5: "SIGN_BIT"}


def _round_away(x: np.float32) -> int:
    return math.floor(abs(float(x)) + 0.5) * (1 if x >= 0 else -1)


def activation_range(out: Tensor, lo: float | None, hi: float | None) -> tuple[int, int]:
    """TFLite's CalculateActivationRangeQuantized for `out`'s storage range."""
    qmin, qmax = {"INT8": (-128, 127), "UINT8": (0, 255), "INT16": (-32768, 32767)}[out.dtype]

    def q(f: float) -> int:
        return out.zero_point + _round_away(np.float32(f) / np.float32(out.scale))
    return (max(qmin, q(lo)) if lo is not None else qmin,
            min(qmax, q(hi)) if hi is not None else qmax)


def _fused(ctx: OpContext, v: str, out: Tensor) -> str:
    act = getattr(ctx.options, "fusedActivationFunction", 0) if ctx.options else 0
    if act not in _ACTIVATIONS:
        raise ctx.fail(f"fused activation {_ACT_NAMES.get(act, act)} is not supported")
    bounds = _ACTIVATIONS[act]
    if bounds is None:
        return v
    if not out.quantized:
        lo, hi = (np.float32(b) if b is not None else None for b in bounds)
        el = out.element()
        lo_v = ctx.out.emit(f"stablehlo.constant dense<{fmt_float(lo)}> : tensor<{el}>")
        top = hi if hi is not None else np.finfo(np.float32).max
        hi_v = ctx.out.emit(f"stablehlo.constant dense<{fmt_float(top)}> : tensor<{el}>")
    else:
        lo_q, hi_q = activation_range(out, *bounds)
        el = out.element()
        st = out.element().split("<")[1].split(":")[0]
        lo_v = ctx.out.emit(constant(lo_q, (), el, st))
        hi_v = ctx.out.emit(constant(hi_q, (), el, st))
    t = out.type()
    return ctx.out.emit(f"stablehlo.clamp {lo_v}, {v}, {hi_v} : (tensor<{el}>, {t}, "
                        f"tensor<{el}>) -> {t}")


def _need_quantized(ctx: OpContext, *ts: Tensor) -> None:
    for t in ts:
        if t is not None and not t.quantized:
            raise ctx.fail(f"tensor {t.index} ('{t.name}') must be quantized")


def _same_params(ctx: OpContext, a: Tensor, b: Tensor) -> None:
    if a.quantized != b.quantized or (a.quantized and (
            a.scales.tolist() != b.scales.tolist()
            or a.zero_points.tolist() != b.zero_points.tolist())):
        raise ctx.fail(f"input and output must have the same scale and zero point "
                       f"(tensors {a.index} and {b.index})")


def _reshape(ctx: OpContext, v: str, t: Tensor, src, dst) -> str:
    if tuple(src) == tuple(dst):
        return v
    return ctx.out.emit(f"stablehlo.reshape {v} : ({t.type(src)}) -> {t.type(dst)}")


def _accumulator(x: Tensor, w: Tensor, axis: int) -> str:
    """i32 element of the accumulator: scale s_x * s_w[c] (exact in f64), zero point 0."""
    scales = x.scale * w.scales
    if w.per_axis:
        return f"!quant.uniform<i32:f32:{axis}, {{{', '.join(fmt_float(s) for s in scales)}}}>"
    return f"!quant.uniform<i32:f32, {fmt_float(scales[0])}>"


def _no_stablehlo_form(w: Tensor, channel_dim: int) -> bool:
    """A weight StableHLO's quantized dot_general / convolution cannot take (asymmetric,
    or per-axis on another dimension than the output channel): such an operator is
    imported as its `tfl.*` composite (`contraction_as_composite`)."""
    return w.quantized and (bool(np.any(w.zero_points != 0))
                            or (w.per_axis and w.axis != channel_dim))


def _bias(ctx: OpContext, bias: Tensor, n: int, acc_el: str, acc_scales: np.ndarray) -> str:
    """The bias integers in the accumulator's type (scale s_in * s_w[c]: a bias declaring
    that product as f32 stores it, within 2^-23, is that type); a bias declaring other
    parameters is a constant of its own type, reinterpreted (quant.scast to i32 and
    back), as TFLite adds the stored integers whatever their declared scale."""
    data = bias.data.astype(np.int64).reshape(n)
    same = bias.quantized and bias.scales.size == acc_scales.size and \
        not np.any(bias.zero_points) and \
        bool(np.all(np.abs(bias.scales - acc_scales) <= 2.0 ** -23 * acc_scales))
    if not bias.quantized or same:
        return ctx.out.emit(constant(data, (n,), acc_el, "i32"))
    own = ctx.out.emit(constant(data, (n,), bias.element(), "i32"))
    raw = ctx.out.emit(f"quant.scast {own} : {tensor_type((n,), bias.element())} to "
                       f"{tensor_type((n,), 'i32')}")
    return ctx.out.emit(f"quant.scast {raw} : {tensor_type((n,), 'i32')} to "
                        f"{tensor_type((n,), acc_el)}")


def _bias_and_requantize(ctx: OpContext, acc: str, acc_el: str, shape, channel_dim: int,
                         w: Tensor, x: Tensor, bias: Tensor | None, out: Tensor,
                         attrs: str = "") -> str:
    if bias is not None:
        if bias.data is None:
            raise ctx.fail("the bias must be a constant")
        n = shape[channel_dim]
        b_el = _accumulator(x, w, 0)
        b = _bias(ctx, bias, n, b_el, x.scale * w.scales)
        bb = ctx.out.emit(f"stablehlo.broadcast_in_dim {b}, dims = [{channel_dim}] : "
                          f"({tensor_type((n,), b_el)}) -> {tensor_type(shape, acc_el)}")
        acc = ctx.out.emit(f"stablehlo.add {acc}, {bb} : {tensor_type(shape, acc_el)}")
    return ctx.out.emit(f"stablehlo.uniform_quantize {acc}{attrs} : "
                        f"({tensor_type(shape, acc_el)}) -> {out.type(shape)}")


def _f32t(shape) -> str:
    return tensor_type(shape, "f32")


def _multi_composite(ctx: OpContext, name: str, attrs: str, operands: list[tuple[str, Tensor]],
                     out_type: str, body: Body, result: str) -> str:
    fname = f"{name}_{ctx.index}"
    args = ", ".join(f"%arg{i}: {t.type()}" for i, (_, t) in enumerate(operands))
    types = ", ".join(t.type() for _, t in operands)
    ctx.out.functions.append(
        f"  func.func private @{fname}({args}) -> {out_type} {{\n"
        + "\n".join(body.lines) + f"\n    return {result} : {out_type}\n  }}")
    vals = ", ".join(v for v, _ in operands)
    return ctx.out.emit(f"stablehlo.composite \"{name}\" {vals} {{composite_attributes = "
                        f"{{{attrs}}}, decomposition = @{fname}}} : ({types}) -> {out_type}")


def contraction_as_composite(ctx: OpContext, kind: str, xv: str, x: Tensor, w: Tensor,
                             bias: Tensor | None, out: Tensor, out_shape, conv: str = ""
                             ) -> str:
    """`stablehlo.composite "tfl.<kind>"` (input, weight, bias in TFLite's layouts) with
    the decomposition dequantize -> f32 dot_general / convolution + bias -> quantize;
    `conv` is the convolution's text after its operands (dims, window, groups). For a
    weight StableHLO's contractions cannot take (asymmetric, or per-axis on another
    dimension than the output channel), so that `litert-verify-int8` reports it as the
    model states it, in TFLite's dimensions."""
    operands = [(xv, x), (ctx.value(w), w)]
    if bias is not None:
        operands.append((ctx.value(bias), bias))
    b = Body()
    xf = b.emit(f"stablehlo.uniform_dequantize %arg0 : ({x.type()}) -> {_f32t(x.shape)}")
    wf = b.emit(f"stablehlo.uniform_dequantize %arg1 : ({w.type()}) -> {_f32t(w.shape)}")
    if kind == "fully_connected":
        acc = b.emit(f"stablehlo.dot_general {xf}, {wf}, contracting_dims = [1] x [1] : "
                     f"({_f32t(x.shape)}, {_f32t(w.shape)}) -> {_f32t(out_shape)}")
    else:
        acc = b.emit(f"stablehlo.convolution({xf}, {wf}) {conv} : ({_f32t(x.shape)}, "
                     f"{_f32t(w.shape)}) -> {_f32t(out_shape)}")
    if bias is not None:
        bf = b.emit(f"stablehlo.uniform_dequantize %arg2 : ({bias.type()}) -> "
                    f"{_f32t(bias.shape)}")
        bb = b.emit(f"stablehlo.broadcast_in_dim {bf}, dims = [{len(out_shape) - 1}] : "
                    f"({_f32t(bias.shape)}) -> {_f32t(out_shape)}")
        acc = b.emit(f"stablehlo.add {acc}, {bb} : {_f32t(out_shape)}")
    q = b.emit(f"stablehlo.uniform_quantize {acc} : ({_f32t(out_shape)}) -> "
               f"{out.type(out_shape)}")
    return _multi_composite(ctx, f"tfl.{kind}", "", operands, out.type(out_shape), b, q)


def fully_connected(ctx: OpContext) -> list[str]:
    x, w = ctx.inputs[0], ctx.inputs[1]
    bias = ctx.inputs[2] if len(ctx.inputs) > 2 else None
    out = ctx.outputs[0]
    _need_quantized(ctx, x, w, out)
    if len(w.shape) != 2:
        raise ctx.fail("weights must be 2-D [units, depth]")
    n, k = w.shape
    if math.prod(x.shape) % k:
        raise ctx.fail(f"input of {math.prod(x.shape)} values is not a multiple of depth {k}")
    batch = math.prod(x.shape) // k
    xv = _reshape(ctx, ctx.value(x), x, x.shape, (batch, k))
    if _no_stablehlo_form(w, 0):  # TFLite's own form, for the verifier to report
        xb = Tensor(x.index, x.name, (batch, k), x.dtype, x.scales, x.zero_points)
        v = contraction_as_composite(ctx, "fully_connected", xv, xb, w, bias, out, (batch, n))
        v = _fused(ctx, v, Tensor(out.index, out.name, (batch, n), out.dtype, out.scales,
                                  out.zero_points))
        return [_reshape(ctx, v, out, (batch, n), out.shape)]
    wv = ctx.value(w, symmetric_weight=True)
    acc_el = _accumulator(x, w, 1)
    acc = ctx.out.emit(f"stablehlo.dot_general {xv}, {wv}, contracting_dims = [1] x [1] : "
                       f"({x.type((batch, k))}, {w.type(symmetric_weight=True)}) -> "
                       f"{tensor_type((batch, n), acc_el)}")
    v = _bias_and_requantize(ctx, acc, acc_el, (batch, n), 1, w, x, bias, out,
                             ' {tfl.kernel = "fully_connected"}')
    v = _fused(ctx, v, Tensor(out.index, out.name, (batch, n), out.dtype, out.scales,
                              out.zero_points))
    return [_reshape(ctx, v, out, (batch, n), out.shape)]


def _same_padding(size: int, k: int, stride: int, dilation: int, same: bool):
    eff = (k - 1) * dilation + 1
    if same:
        o = (size + stride - 1) // stride
        total = max((o - 1) * stride + eff - size, 0)
        return o, total // 2, total - total // 2
    return (size - eff + stride) // stride, 0, 0


def _window(ctx: OpContext, x: Tensor, kh: int, kw: int, dh: int = 1, dw: int = 1):
    o = ctx.options
    same = o.padding == 0
    oh, pt, pb = _same_padding(x.shape[1], kh, o.strideH, dh, same)
    ow, pl, pr = _same_padding(x.shape[2], kw, o.strideW, dw, same)
    return (oh, ow), ((pt, pb), (pl, pr))


def _conv(ctx: OpContext, depthwise: bool) -> list[str]:
    x, w = ctx.inputs[0], ctx.inputs[1]
    bias = ctx.inputs[2] if len(ctx.inputs) > 2 else None
    out = ctx.outputs[0]
    _need_quantized(ctx, x, w, out)
    if len(x.shape) != 4 or len(w.shape) != 4:
        raise ctx.fail("input and filter must be 4-D (NHWC, OHWI)")
    o = ctx.options
    dh, dw = o.dilationHFactor, o.dilationWFactor
    if depthwise:
        _, kh, kw, cm = w.shape
        w_shape, w_axis, dims = (kh, kw, 1, cm), 3, "[0, 1, i, o]"
        groups = x.shape[3]
    else:
        _, kh, kw, _ = w.shape
        w_shape, w_axis, dims, groups = w.shape, 0, "[o, 0, 1, i]", 1
    (oh, ow), ((pt, pb), (pl, pr)) = _window(ctx, x, kh, kw, dh, dw)
    shape = (x.shape[0], oh, ow, w.shape[3] if depthwise else w.shape[0])
    if tuple(out.shape) != shape:
        raise ctx.fail(f"output shape {list(out.shape)} does not match {list(shape)}")
    window = (f"window = {{stride = [{o.strideH}, {o.strideW}], pad = [[{pt}, {pb}], "
              f"[{pl}, {pr}]], rhs_dilate = [{dh}, {dw}]}} {{batch_group_count = 1 : i64, "
              f"feature_group_count = {groups} : i64}}")
    if _no_stablehlo_form(w, 3 if depthwise else 0):
        # TFLite's own operands and layouts, for the verifier to report
        tdims = "[i, 0, 1, o]" if depthwise else "[o, 0, 1, i]"
        v = contraction_as_composite(
            ctx, "depthwise_conv_2d" if depthwise else "conv_2d", ctx.value(x), x, w, bias,
            out, shape,
            f"dim_numbers = [b, 0, 1, f]x{tdims}->[b, 0, 1, f], {window}")
        return [_fused(ctx, v, out)]
    wq = Tensor(w.index, w.name, tuple(w_shape), w.dtype, w.scales, w.zero_points, w_axis,
                None if w.data is None else w.data.reshape(w_shape))
    if w.data is not None:
        wv = ctx.value(wq, symmetric_weight=True)
    else:
        wv = _reshape(ctx, ctx.value(w), wq, w.shape, w_shape)
    acc_el = _accumulator(x, w, 3)
    acc = ctx.out.emit(
        f"stablehlo.convolution({ctx.value(x)}, {wv}) dim_numbers = [b, 0, 1, f]x{dims}->"
        f"[b, 0, 1, f], {window} : ({x.type()}, "
        f"{wq.type(symmetric_weight=True)}) -> {tensor_type(shape, acc_el)}")
    v = _bias_and_requantize(ctx, acc, acc_el, shape, 3, w, x, bias, out)
    return [_fused(ctx, v, out)]


def conv_2d(ctx: OpContext) -> list[str]:
    return _conv(ctx, False)


def depthwise_conv_2d(ctx: OpContext) -> list[str]:
    return _conv(ctx, True)


def _broadcast(ctx: OpContext, t: Tensor, shape) -> str:
    v = ctx.value(t)
    if tuple(t.shape) == tuple(shape):
        return v
    r = len(shape) - len(t.shape)
    if r < 0 or any(d not in (1, shape[r + i]) for i, d in enumerate(t.shape)):
        raise ctx.fail(f"shape {list(t.shape)} does not broadcast to {list(shape)}")
    dims = ", ".join(str(r + i) for i in range(len(t.shape)))
    return ctx.out.emit(f"stablehlo.broadcast_in_dim {v}, dims = [{dims}] : ({t.type()}) -> "
                        f"{t.type(shape)}")


def binary(op: str):
    def translate(ctx: OpContext) -> list[str]:
        a, b = ctx.inputs
        out = ctx.outputs[0]
        av, bv = _broadcast(ctx, a, out.shape), _broadcast(ctx, b, out.shape)
        v = ctx.out.emit(f"stablehlo.{op} {av}, {bv} : ({a.type(out.shape)}, "
                         f"{b.type(out.shape)}) -> {out.type()}")
        return [_fused(ctx, v, out)]
    return translate


def unary(op: str):
    def translate(ctx: OpContext) -> list[str]:
        x, out = ctx.inputs[0], ctx.outputs[0]
        return [ctx.out.emit(f"stablehlo.{op} {ctx.value(x)} : ({x.type()}) -> {out.type()}")]
    return translate


def max_pool_2d(ctx: OpContext) -> list[str]:
    x, out = ctx.inputs[0], ctx.outputs[0]
    _same_params(ctx, x, out)
    o = ctx.options
    _, ((pt, pb), (pl, pr)) = _window(ctx, x, o.filterHeight, o.filterWidth)
    el = x.element()
    lowest = {"INT8": -128, "UINT8": 0, "INT16": -32768}.get(x.dtype)
    init = ctx.out.emit(constant(lowest, (), el, el.split("<")[1].split(":")[0]) if x.quantized
                        else f"stablehlo.constant dense<0xFF800000> : tensor<{el}>")
    ctx.out.counter += 1
    a, b, m = (f"%w{ctx.out.counter}_{s}" for s in "abm")
    ctx.out.lines.append(
        f"    %v{ctx.out.counter} = \"stablehlo.reduce_window\"({ctx.value(x)}, {init}) <{{"
        f"padding = dense<[[0, 0], [{pt}, {pb}], [{pl}, {pr}], [0, 0]]> : tensor<4x2xi64>, "
        f"window_dimensions = array<i64: 1, {o.filterHeight}, {o.filterWidth}, 1>, "
        f"window_strides = array<i64: 1, {o.strideH}, {o.strideW}, 1>}}> ({{\n"
        f"    ^bb0({a}: tensor<{el}>, {b}: tensor<{el}>):\n"
        f"      {m} = stablehlo.maximum {a}, {b} : tensor<{el}>\n"
        f"      stablehlo.return {m} : tensor<{el}>\n"
        f"    }}) : ({x.type()}, tensor<{el}>) -> {out.type()}")
    return [_fused(ctx, f"%v{ctx.out.counter}", out)]


def reshape(ctx: OpContext) -> list[str]:
    x, out = ctx.inputs[0], ctx.outputs[0]
    _same_params(ctx, x, out)
    return [_reshape(ctx, ctx.value(x), x, x.shape, out.shape)]


def transpose(ctx: OpContext) -> list[str]:
    x, perm, out = ctx.inputs[0], ctx.inputs[1], ctx.outputs[0]
    _same_params(ctx, x, out)
    if perm.data is None:
        raise ctx.fail("the permutation must be a constant")
    dims = ", ".join(str(int(p)) for p in perm.data.reshape(-1))
    return [ctx.out.emit(f"stablehlo.transpose {ctx.value(x)}, dims = [{dims}] : ({x.type()}) "
                         f"-> {out.type()}")]


def concatenation(ctx: OpContext) -> list[str]:
    out = ctx.outputs[0]
    for t in ctx.inputs:
        _same_params(ctx, t, out)
    axis = ctx.options.axis % len(out.shape)
    vals = ", ".join(ctx.value(t) for t in ctx.inputs)
    types = ", ".join(t.type() for t in ctx.inputs)
    v = ctx.out.emit(f"stablehlo.concatenate {vals}, dim = {axis} : ({types}) -> {out.type()}")
    return [_fused(ctx, v, out)]


def pad(ctx: OpContext) -> list[str]:
    x, pads, out = ctx.inputs[0], ctx.inputs[1], ctx.outputs[0]
    _same_params(ctx, x, out)
    if pads.data is None:
        raise ctx.fail("the paddings must be a constant")
    p = pads.data.reshape(-1, 2).astype(np.int64)
    el = out.element()
    pv = ctx.out.emit(constant(out.zero_point, (), el, el.split("<")[1].split(":")[0])
                      if out.quantized else f"stablehlo.constant dense<0.0> : tensor<{el}>")
    low = ", ".join(str(v) for v in p[:, 0])
    high = ", ".join(str(v) for v in p[:, 1])
    interior = ", ".join("0" for _ in p)
    return [ctx.out.emit(f"stablehlo.pad {ctx.value(x)}, {pv}, low = [{low}], high = [{high}], "
                         f"interior = [{interior}] : ({x.type()}, tensor<{el}>) -> {out.type()}")]


def quantize(ctx: OpContext) -> list[str]:
    x, out = ctx.inputs[0], ctx.outputs[0]
    _need_quantized(ctx, out)
    return [ctx.out.emit(f"stablehlo.uniform_quantize {ctx.value(x)} : ({x.type()}) -> "
                         f"{out.type()}")]


def dequantize(ctx: OpContext) -> list[str]:
    x, out = ctx.inputs[0], ctx.outputs[0]
    _need_quantized(ctx, x)
    return [ctx.out.emit(f"stablehlo.uniform_dequantize {ctx.value(x)} : ({x.type()}) -> "
                         f"{out.type()}")]


__all__ = ["activation_range", "concatenation", "conv_2d", "depthwise_conv_2d",
           "dequantize", "fully_connected", "max_pool_2d", "pad", "quantize", "reshape",
           "transpose"]
