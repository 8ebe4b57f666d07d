"""TFLite's contractions: FULLY_CONNECTED, CONV_2D, DEPTHWISE_CONV_2D.

- FULLY_CONNECTED: dot_general (i32 accumulator type, scale s_in * s_w[c]) + bias,
  uniform_quantize {tfl.kernel = "fully_connected"} (TFLite's f64 rescale under
  fixed-point);
- CONV_2D / DEPTHWISE_CONV_2D: convolution NHWC (depthwise: feature_group_count = C) +
  bias, uniform_quantize.

A weight StableHLO's quantized contractions cannot take (asymmetric, or per-axis on
another dimension than the spec's (0, 0, 3)) makes the operator a
`stablehlo.composite "tfl.<op>"` on TFLite's operands and layouts with an f32
decomposition (`contraction_as_composite`), so that `litert-verify-int8` reports it as
the model states it. The bias is the accumulator's type when it declares that scale
(within 2^-23), else its own type reinterpreted (`quant.scast` to i32 and back), as
TFLite adds the stored integers whatever their declared scale.

A 16x8 contraction (int16 input and output, int8 weights, int64 or int32 bias) is that
composite too (StableHLO's quantized dot_general / convolution take one storage type
for both operands, and MLIR's quantized types hold at most 32 bits: the int64 bias is
its raw integers at the implied scale s_x s_w[c]); `qcomp.tflite.contractions16` is
its `rescale=fixed-point` kernel.

Under `rescale=fixed-point` the requantize marked `tfl.kernel = "fully_connected"` is
TFLite's reference FULLY_CONNECTED output, clamp(round_nearest_afz(f64(acc) *
f64(s_acc[c] / s_out)) + z_out) (`qcomp.quant.tflite.fully_connected_rescale`).
"""

from __future__ import annotations

import math

import numpy as np
from xdsl.dialects.builtin import IntegerAttr, StringAttr, f32, i32, i64
from xdsl.ir import Attribute, Operation, SSAValue

from qcomp.dialects import stablehlo as sh
from qcomp.dialects.quant import StorageCastOp, UniformQuantizedType
from qcomp.dialects.stablehlo.attrs import (
    ConvDimensionNumbersAttr,
    DotDimensionNumbersAttr,
)
from qcomp.dialects.stablehlo.format import i64_array
from qcomp.passes.utils.builder import Builder
from qcomp.tflite.common import (
    WINDOW_OPTIONS,
    activation,
    check_output_shape,
    fused,
    need_quantized,
    op,
    padding_attr,
    reshape,
    window,
)
from qcomp.tflite.context import OpContext, Tensor, constant, f32_tensor, tensor_of
from qcomp.tflite.contractions16 import fc_rescale, lower_conv16, lower_fc16
from qcomp.tflite.kernels import quantized_type
from qcomp.tflite.operator import (
    Operand,
    Operator,
    Options,
    boolean,
    declare,
    one_of,
    positive,
)

FC_KERNEL = ("tfl.kernel", "fully_connected")


def lower_fc_requantize(op_: Operation, b: Builder, st) -> SSAValue | None:
    """A uniform_quantize i32 -> int8 the importer marked `tfl.kernel = "fully_connected"`:
    TFLite's reference FULLY_CONNECTED output, clamp(round_nearest_afz(f64(acc) *
    f64(s_acc / s_out)) + z_out) (`qcomp.quant.tflite.fully_connected_rescale`)."""
    mark = op_.attributes.get(FC_KERNEL[0])
    qi, qo = quantized_type(op_.operand), quantized_type(op_.result)
    if not (isinstance(mark, StringAttr) and mark.data == FC_KERNEL[1]) or qi is None \
            or qo is None or not qo.is_per_tensor or qi.storage_bitwidth != 32 \
            or qo.storage_bitwidth != 8:
        return None
    m = np.asarray(qi.scales, np.float64).reshape(-1) / np.float64(qo.scale)
    return fc_rescale(b, st(op_.operand), m, qi.quantized_dimension if qi.is_per_axis
                      else None, qo)


def accumulator(x: Tensor, w: Tensor, axis: int) -> UniformQuantizedType:
    """i32 element of the accumulator: scale s_x * s_w[c] (exact in f64), zero point 0."""
    scales = [float(s) for s in x.scale * w.scales]
    if w.per_axis:
        return UniformQuantizedType.build(i32, f32, scales, [0] * len(scales),
                                          quantized_dimensions=[axis])
    return UniformQuantizedType.build(i32, f32, scales[:1], [0])


def _no_stablehlo_form(w: Tensor, channel_dim: int) -> bool:
    return w.quantized and (bool(np.any(w.zero_points != 0))
                            or (w.per_axis and w.axis != channel_dim))


def _bias(ctx: OpContext, bias: Tensor, n: int, acc_el: Attribute,
          acc_scales: np.ndarray) -> SSAValue:
    data = bias.data.astype(np.int64).reshape(n)
    same = bias.quantized and bias.scales.size == acc_scales.size and \
        not np.any(bias.zero_points) and \
        bool(np.all(np.abs(bias.scales - acc_scales) <= 2.0 ** -23 * acc_scales))
    if not bias.quantized or same:
        return constant(ctx.b, data, (n,), acc_el, i32)
    own = constant(ctx.b, data, (n,), bias.element(), i32)
    raw = ctx.b.emit(StorageCastOp(own, tensor_of((n,), i32)))
    return ctx.b.emit(StorageCastOp(raw, tensor_of((n,), acc_el)))


def _bias_and_requantize(ctx: OpContext, acc: SSAValue, acc_el: Attribute, shape,
                         channel_dim: int, w: Tensor, x: Tensor, bias: Tensor | None,
                         out: Tensor, attrs: dict[str, Attribute] | None = None) -> SSAValue:
    if bias is not None:
        n = shape[channel_dim]
        if bias.data is None or bias.data.size != n:
            raise ctx.fail(f"the bias {bias.label} must be a constant of {n} values")
        b_el = accumulator(x, w, 0)
        b = _bias(ctx, bias, n, b_el, x.scale * w.scales)
        bb = op(ctx, sh.BroadcastInDimOp, [b], tensor_of(shape, acc_el),
                broadcast_dimensions=i64_array([channel_dim]))
        acc = op(ctx, sh.AddOp, [acc, bb], tensor_of(shape, acc_el))
    return ctx.b.emit(sh.UniformQuantizeOp.create(
        operands=[acc], result_types=[out.type(shape)], attributes=attrs or {}))


def _conv_dims(kernel: str) -> ConvDimensionNumbersAttr:
    """NHWC input and output with the kernel layout `kernel` ("o01i", "01io", "i01o")."""
    return ConvDimensionNumbersAttr.get(
        0, 3, [1, 2], kernel.index("i"), kernel.index("o"),
        [kernel.index("0"), kernel.index("1")], 0, 3, [1, 2])


def contraction_as_composite(ctx: OpContext, kind: str, xv: SSAValue, x: Tensor, w: Tensor,
                             bias: Tensor | None, out: Tensor, out_shape,
                             conv: dict | None = None) -> SSAValue:
    """`stablehlo.composite "tfl.<kind>"` (input, weight, bias in TFLite's layouts) with
    the decomposition dequantize -> f32 dot_general / convolution (`conv`: its
    properties) + bias -> quantize."""
    operands = [xv, ctx.value(w)]
    if bias is not None:
        operands.append(ctx.value(bias))

    def body(b: Builder, args: list[SSAValue]) -> SSAValue:
        xf = b.emit(sh.UniformDequantizeOp.create(operands=[args[0]],
                                                  result_types=[f32_tensor(x.shape)]))
        wf = b.emit(sh.UniformDequantizeOp.create(operands=[args[1]],
                                                  result_types=[f32_tensor(w.shape)]))
        if conv is None:
            acc = b.emit(sh.DotGeneralOp.create(
                operands=[xf, wf], result_types=[f32_tensor(out_shape)],
                properties={"dot_dimension_numbers": DotDimensionNumbersAttr.get(
                    lhs_contracting=[1], rhs_contracting=[1])}))
        else:
            acc = b.emit(sh.ConvolutionOp.create(
                operands=[xf, wf], result_types=[f32_tensor(out_shape)], properties=conv))
        if bias is not None and bias.quantized:
            bf = b.emit(sh.UniformDequantizeOp.create(
                operands=[args[2]], result_types=[f32_tensor(bias.shape)]))
        elif bias is not None:  # 16x8's raw int64 bias, at scale s_x s_w[c]
            scales = (x.scale * w.scales).astype(np.float32)
            bf = b.binary(sh.MultiplyOp, b.convert(args[2], f32),
                          b.full(scales, f32, tuple(bias.shape), 0 if scales.size > 1
                                 else None))
        if bias is not None:
            bb = b.emit(sh.BroadcastInDimOp.create(
                operands=[bf], result_types=[f32_tensor(out_shape)],
                properties={"broadcast_dimensions": i64_array([len(out_shape) - 1])}))
            acc = b.emit(sh.AddOp.create(operands=[acc, bb],
                                         result_types=[f32_tensor(out_shape)]))
        return b.emit(sh.UniformQuantizeOp.create(operands=[acc],
                                                  result_types=[out.type(out_shape)]))
    return ctx.composite(f"tfl.{kind}", {}, operands, out.type(out_shape), body)


def is_16x8(ctx: OpContext, x: Tensor, w: Tensor, out: Tensor) -> bool:
    """True for a 16x8 contraction (int16 input and output, int8 weights), which is
    imported as its `tfl.*` composite: StableHLO's quantized dot / convolution take one
    storage type for both operands (`qcomp.tflite.contractions16` lowers it)."""
    if x.dtype != "INT16" and w.dtype == x.dtype:
        return False
    if (x.dtype, w.dtype, out.dtype) != ("INT16", "INT8", "INT16"):
        raise ctx.fail(f"{x.label} is {x.dtype}, {w.label} {w.dtype} and {out.label} "
                       f"{out.dtype}: a contraction takes int8 x int8 -> int8 or (16x8) "
                       "int16 x int8 -> int16")
    return True


def fully_connected(ctx: OpContext) -> list[SSAValue]:
    x, w = ctx.inputs[0], ctx.inputs[1]
    bias = ctx.inputs[2] if len(ctx.inputs) > 2 else None
    out = ctx.outputs[0]
    need_quantized(ctx, x, w, out)
    sixteen = is_16x8(ctx, x, w, out)
    n, k = w.shape
    if k == 0 or math.prod(x.shape) % k:
        raise ctx.fail(f"input of {math.prod(x.shape)} values is not a multiple of depth {k}")
    batch = math.prod(x.shape) // k
    if math.prod(out.shape) != batch * n:
        raise ctx.fail(f"output shape {list(out.shape)} does not hold {batch}x{n} values")
    xv = reshape(ctx, ctx.value(x), x, x.shape, (batch, k))
    if sixteen or _no_stablehlo_form(w, 0):  # TFLite's own form
        xb = Tensor(x.index, x.name, (batch, k), x.dtype, x.scales, x.zero_points)
        v = contraction_as_composite(ctx, "fully_connected", xv, xb, w, bias, out, (batch, n))
        v = fused(ctx, v, out.like((batch, n), axis=0))
        return [reshape(ctx, v, out, (batch, n), out.shape)]
    wv = ctx.value(w, symmetric_weight=True)
    acc_el = accumulator(x, w, 1)
    acc = op(ctx, sh.DotGeneralOp, [xv, wv], tensor_of((batch, n), acc_el),
             dot_dimension_numbers=DotDimensionNumbersAttr.get(lhs_contracting=[1],
                                                               rhs_contracting=[1]))
    v = _bias_and_requantize(ctx, acc, acc_el, (batch, n), 1, w, x, bias, out,
                             {FC_KERNEL[0]: StringAttr(FC_KERNEL[1])})
    v = fused(ctx, v, out.like((batch, n), axis=0))
    return [reshape(ctx, v, out, (batch, n), out.shape)]


def _conv(ctx: OpContext, depthwise: bool) -> list[SSAValue]:
    x, w = ctx.inputs[0], ctx.inputs[1]
    bias = ctx.inputs[2] if len(ctx.inputs) > 2 else None
    out = ctx.outputs[0]
    need_quantized(ctx, x, w, out)
    sixteen = is_16x8(ctx, x, w, out)
    o = ctx.options
    dh, dw = o.dilationHFactor, o.dilationWFactor
    if depthwise:
        _, kh, kw, cm = w.shape
        w_shape, w_axis, kernel, groups = (kh, kw, 1, cm), 3, "01io", x.shape[3]
        mult = o.depthMultiplier
        if groups == 0 or cm % groups or (mult and mult * groups != cm):
            raise ctx.fail(f"filter {w.label} of {cm} channels is not depth multiplier "
                           f"{mult} times the input's {groups}")
    else:
        _, kh, kw, cin = w.shape
        w_shape, w_axis, kernel, groups = w.shape, 0, "o01i", 1
        if cin != x.shape[3]:
            raise ctx.fail(f"filter {w.label} takes {cin} input channels, the input has "
                           f"{x.shape[3]}")
    (oh, ow), pads = window(ctx, x, kh, kw, dh, dw)
    shape = (x.shape[0], oh, ow, w.shape[3] if depthwise else w.shape[0])
    check_output_shape(ctx, out, shape)
    props = {"window_strides": i64_array([o.strideH, o.strideW]),
             "padding": padding_attr(pads), "rhs_dilation": i64_array([dh, dw]),
             "feature_group_count": IntegerAttr(groups, i64),
             "batch_group_count": IntegerAttr(1, i64)}
    if sixteen or _no_stablehlo_form(w, 3 if depthwise else 0):
        # TFLite's own operands and layouts
        props["dimension_numbers"] = _conv_dims("i01o" if depthwise else "o01i")
        v = contraction_as_composite(
            ctx, "depthwise_conv_2d" if depthwise else "conv_2d", ctx.value(x), x, w, bias,
            out, shape, props)
        return [fused(ctx, v, out)]
    props["dimension_numbers"] = _conv_dims(kernel)
    wq = w.like(w_shape, axis=w_axis, data=None if w.data is None else w.data.reshape(w_shape))
    if w.data is not None:
        wv = ctx.value(wq, symmetric_weight=True)
    else:
        wv = reshape(ctx, ctx.value(w), wq, w.shape, w_shape)
    acc_el = accumulator(x, w, 3)
    acc = op(ctx, sh.ConvolutionOp, [ctx.value(x), wv], tensor_of(shape, acc_el), **props)
    v = _bias_and_requantize(ctx, acc, acc_el, shape, 3, w, x, bias, out)
    return [fused(ctx, v, out)]


def conv_2d(ctx: OpContext) -> list[SSAValue]:
    return _conv(ctx, False)


def depthwise_conv_2d(ctx: OpContext) -> list[SSAValue]:
    return _conv(ctx, True)


_BIAS_TYPE = one_of(0, 2, 4)  # FLOAT32 (unset), INT32, INT64
_CONV_OPTIONS = {**WINDOW_OPTIONS, "dilationWFactor": positive, "dilationHFactor": positive}
_NHWC = Operand("input", rank=(4,))
_BIAS = Operand("bias", ("INT32", "INT64"), rank=(1,), constant=True, optional=True)

declare(Operator(
    "CONV_2D", (sh.ConvolutionOp,), ("Conv", "QLinearConv", "ConvInteger"),
    weights="conv", int16=True,
    how="convolution with feature_group_count 1 (or groups other than the input "
        "features); weight = rhs, per-axis on kernel_output_feature_dimension "
        "(TFLite's OHWI dim 0)",
    options=Options("Conv2DOptions", {**_CONV_OPTIONS, "quantizedBiasType": _BIAS_TYPE}),
    inputs=(_NHWC, Operand("filter", rank=(4,)), _BIAS), build=conv_2d,
    kernels={"tfl.conv_2d": lower_conv16}))
declare(Operator(
    "DEPTHWISE_CONV_2D", (sh.ConvolutionOp,), ("Conv", "QLinearConv"),
    weights="depthwise", int16=True,
    how="convolution with feature_group_count = input features > 1; weight = rhs "
        "[H, W, 1, C*M] per-axis on kernel_output_feature_dimension, which holds "
        "TFLite's [1, H, W, C*M] dim 3",
    options=Options("DepthwiseConv2DOptions", {**_CONV_OPTIONS, "depthMultiplier":
                                               lambda v: None if v >= 0 else
                                               "must not be negative"}),
    inputs=(_NHWC, Operand("filter", rank=(4,)), _BIAS), build=depthwise_conv_2d,
    kernels={"tfl.depthwise_conv_2d": lower_conv16}))
declare(Operator(
    "FULLY_CONNECTED", (sh.DotGeneralOp, sh.DotOp),
    ("Gemm", "MatMul", "MatMulInteger", "QLinearMatMul"), weights="fc", int16=True,
    how="dot_general / dot; weight = rhs (a constant, or a run-time value, which "
        "TFLite's FULLY_CONNECTED also takes), per-axis on its free (neither "
        "contracting nor batching) dimension, TFLite's [out, in] dim 0",
    options=Options("FullyConnectedOptions", {
        "fusedActivationFunction": activation,
        "weightsFormat": lambda v: None if v == 0 else
        "(SHUFFLED4x16INT8) is not supported" if v == 1 else "must be DEFAULT",
        "keepNumDims": boolean, "asymmetricQuantizeInputs": boolean,
        "quantizedBiasType": _BIAS_TYPE}, required=False),
    inputs=(Operand("input", min_rank=1), Operand("weights", rank=(2,)), _BIAS),
    build=fully_connected, kernels={sh.UniformQuantizeOp: lower_fc_requantize,
                                    "tfl.fully_connected": lower_fc16}))


__all__ = ["FC_KERNEL", "accumulator", "contraction_as_composite", "conv_2d",
           "depthwise_conv_2d", "fully_connected", "lower_fc_requantize"]
