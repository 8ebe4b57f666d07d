"""TFLite's upsampling operators: TRANSPOSE_CONV and RESIZE_BILINEAR.

- TRANSPOSE_CONV (operands: output shape, filter [O, kh, kw, I], input, bias): a
  `stablehlo.convolution` with lhs_dilation = the strides, the filter reversed in both
  spatial dimensions (a constant: reversed at import), padding (k - 1 - p, out - D - lo
  + k - 1) per dimension (D = (in - 1) s + 1; p the low padding TFLite computes from the
  output size, ComputePaddingHeightWidth), the i32 accumulator + bias, uniform_quantize:
  what reference_integer_ops::TransposeConv computes (Σ (q_in - z_in) w, + bias,
  MBQM per channel with QuantizeMultiplier(s_in s_w[c] / s_out), + z_out, clamp), so
  CONV_2D's lowering is its kernel; in 16x8 mode a `stablehlo.composite
  "tfl.transpose_conv"` of that convolution (`qcomp.tflite.contractions16`, as CONV_2D);
- RESIZE_BILINEAR: `stablehlo.composite "tfl.resize_bilinear"` (composite_attributes
  align_corners, half_pixel_centers) with an f32 decomposition; under
  `rescale=fixed-point` (int8, one scale and zero point in and out) TFLite's
  ResizeBilinearInteger: 10-bit fixed-point source positions
  (`qcomp.quant.tflite.bilinear_weights`), out_20 = Wy q Wx^T on the stored integers
  (the four corner products summed), then (out_20 +- 2^19) / 2^20 toward zero.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import BoolAttr, IntegerAttr, f32, i64
from xdsl.ir import Operation, SSAValue

from qcomp.dialects import stablehlo as sh
from qcomp.dialects.stablehlo.attrs import DotDimensionNumbersAttr
from qcomp.dialects.stablehlo.format import i64_array
from qcomp.passes.utils.builder import Builder, shape_of
from qcomp.quant.tflite import bilinear_weights
from qcomp.tflite.common import (
    WINDOW_OPTIONS,
    check_output_shape,
    fused,
    need_constant,
    need_quantized,
    op,
    op_in,
    padding_attr,
    same_padding,
    same_params,
)
from qcomp.tflite.context import OpContext, f32_tensor, tensor_of
from qcomp.tflite.contractions import (
    _bias_and_requantize,
    _conv_dims,
    accumulator,
    contraction_as_composite,
    is_16x8,
)
from qcomp.tflite.contractions16 import lower_conv16
from qcomp.tflite.kernels import composite_props, int8, quantized_type
from qcomp.tflite.operator import Operand, Operator, Options, boolean, declare, one_of


def transpose_conv(ctx: OpContext) -> list[SSAValue]:
    shape_t, w, x = ctx.inputs[0], ctx.inputs[1], ctx.inputs[2]
    bias = ctx.inputs[3] if len(ctx.inputs) > 3 else None
    out = ctx.outputs[0]
    need_quantized(ctx, x, w, out)
    sixteen = is_16x8(ctx, x, w, out)
    if w.data is None:
        raise ctx.fail(f"the filter {w.label} must be a constant")
    if (w.per_axis and w.axis != 0) or np.any(w.zero_points):
        raise ctx.fail(f"the filter {w.label} must be symmetric, per-tensor or per "
                       "output channel (dimension 0)")
    want = [int(v) for v in need_constant(ctx, shape_t, "output shape").reshape(-1)]
    o_ch, kh, kw, cin = w.shape
    if cin != x.shape[3]:
        raise ctx.fail(f"filter {w.label} takes {cin} input channels, the input has "
                       f"{x.shape[3]}")
    check_output_shape(ctx, out, want)
    check_output_shape(ctx, out, (x.shape[0], want[1], want[2], o_ch))
    o = ctx.options
    same = o.padding == 0
    pads, dilated = [], []
    for size, k, s, n_in in ((want[1], kh, o.strideH, x.shape[1]),
                             (want[2], kw, o.strideW, x.shape[2])):
        _, p, _ = same_padding(size, k, s, 1, same)
        d = (n_in - 1) * s + 1
        lo = k - 1 - p
        pads.append((lo, size + k - 1 - d - lo))
        dilated.append(s)
    if any(lo < 0 or hi < 0 for lo, hi in pads):
        raise ctx.fail(f"padding {pads} of the {kh}x{kw} filter is not supported")
    wq = w.like(w.shape, data=np.ascontiguousarray(w.data[:, ::-1, ::-1, :]))
    shape = tuple(out.shape)
    props = {"window_strides": i64_array([1, 1]), "padding": padding_attr(pads),
             "lhs_dilation": i64_array(dilated), "rhs_dilation": i64_array([1, 1]),
             "feature_group_count": IntegerAttr(1, i64),
             "batch_group_count": IntegerAttr(1, i64),
             "dimension_numbers": _conv_dims("o01i")}
    if sixteen:  # TFLite's operands (the filter reversed), CONV_2D's 16x8 kernel
        v = contraction_as_composite(ctx, "transpose_conv", ctx.value(x), x, wq, bias, out,
                                     shape, props)
        return [fused(ctx, v, out)]
    wv = ctx.value(wq, symmetric_weight=True)
    acc_el = accumulator(x, w, 3)
    acc = op(ctx, sh.ConvolutionOp, [ctx.value(x), wv], tensor_of(shape, acc_el), **props)
    v = _bias_and_requantize(ctx, acc, acc_el, shape, 3, w, x, bias, out)
    return [fused(ctx, v, out)]


def _interpolate(b: Builder, v: SSAValue, wy: SSAValue, wx: SSAValue, el, shape
                 ) -> SSAValue:
    """Wy v Wx^T over NHWC `v`'s H and W (two dot_generals and a transpose)."""
    n, _, iw, c = shape_of(v)
    oh, ow = shape_of(wy)[0], shape_of(wx)[0]
    t = op_in(b, sh.DotGeneralOp, [wy, v], tensor_of((oh, n, iw, c), el),
              dot_dimension_numbers=DotDimensionNumbersAttr.get(lhs_contracting=[1],
                                                                rhs_contracting=[1]))
    t = op_in(b, sh.DotGeneralOp, [wx, t], tensor_of((ow, oh, n, c), el),
              dot_dimension_numbers=DotDimensionNumbersAttr.get(lhs_contracting=[1],
                                                                rhs_contracting=[2]))
    return op_in(b, sh.TransposeOp, [t], tensor_of(shape, el),
                 permutation=i64_array([2, 1, 0, 3]))


def resize_size(ctx: OpContext) -> tuple[list[int], bool, bool]:
    """RESIZE_*'s (output height and width, align_corners, half_pixel_centers), the
    output's shape and parameters checked (the input's)."""
    x, size, out = ctx.inputs[0], ctx.inputs[1], ctx.outputs[0]
    same_params(ctx, x, out)
    hw = [int(v) for v in need_constant(ctx, size, "size").reshape(-1)]
    if len(hw) != 2 or min(hw) < 1:
        raise ctx.fail(f"size {hw} must be 2 positive values")
    check_output_shape(ctx, out, (x.shape[0], *hw, x.shape[3]))
    return hw, bool(ctx.option("alignCorners", False)), \
        bool(ctx.option("halfPixelCenters", False))


def resize_bilinear(ctx: OpContext) -> list[SSAValue]:
    x, out = ctx.inputs[0], ctx.outputs[0]
    need_quantized(ctx, x, out)
    hw, align, half = resize_size(ctx)
    if align and half:
        raise ctx.fail("alignCorners and halfPixelCenters cannot both be true")
    wy = bilinear_weights(x.shape[1], hw[0], align, half) / float(1 << 10)
    wx = bilinear_weights(x.shape[2], hw[1], align, half) / float(1 << 10)

    def body(b: Builder, args: list[SSAValue]) -> SSAValue:
        f = op_in(b, sh.UniformDequantizeOp, [args[0]], f32_tensor(x.shape))
        r = _interpolate(b, f, b.constant(wy.astype(np.float32), f32),
                         b.constant(wx.astype(np.float32), f32), f32, out.shape)
        return op_in(b, sh.UniformQuantizeOp, [r], out.type())
    attrs = {"align_corners": BoolAttr.from_bool(align),
             "half_pixel_centers": BoolAttr.from_bool(half)}
    return [ctx.composite("tfl.resize_bilinear", attrs, [ctx.value(x)], out.type(), body)]


def lower_resize_bilinear(op_: Operation, b: Builder, st) -> SSAValue | None:
    """TFLite's ResizeBilinearInteger on int8 (one quantization in and out)."""
    x = op_.operands[0]
    qi, qo = quantized_type(x), quantized_type(op_.results[0])
    if not int8(qi, qo) or qi != qo:
        return None
    props = composite_props(op_)
    align = bool(props["align_corners"].value.data)
    half = bool(props["half_pixel_centers"].value.data)
    (_, ih, iw, _), shape = shape_of(x), shape_of(op_.results[0])
    wy = b.constant(bilinear_weights(ih, shape[1], align, half), i64)
    wx = b.constant(bilinear_weights(iw, shape[2], align, half), i64)
    v = _interpolate(b, b.convert(st(x), i64), wy, wx, i64, shape)
    half_unit = b.binary(sh.MultiplyOp, b.emit(sh.SignOp(v)),
                         b.full(np.int64(1 << 19), i64, shape))
    v = b.binary(sh.DivideOp, b.binary(sh.AddOp, v, half_unit),
                 b.full(np.int64(1 << 20), i64, shape))
    return b.convert(b.clamp(v, -128, 127), qo.storage)


declare(Operator(
    "TRANSPOSE_CONV", (), (), weights="conv", int16=True,
    how="convolution with lhs_dilation (the strides) and the filter reversed: checked "
        "as CONV_2D, the same rule",
    options=Options("TransposeConvOptions", {**WINDOW_OPTIONS,
                                             "quantizedBiasType": one_of(0, 2, 4)}),
    inputs=(Operand("output_shape", ("INT32",), rank=(1,), constant=True),
            Operand("filter", rank=(4,), constant=True), Operand("input", rank=(4,)),
            Operand("bias", ("INT32", "INT64"), rank=(1,), constant=True, optional=True)),
    build=transpose_conv, kernels={"tfl.transpose_conv": lower_conv16}))
declare(Operator(
    "RESIZE_BILINEAR", (), ("Resize",), output="same", int16=True,
    how='composite "tfl.resize_bilinear" only',
    options=Options("ResizeBilinearOptions", {"alignCorners": boolean,
                                              "halfPixelCenters": boolean},
                    required=False),
    inputs=(Operand("input", rank=(4,)), Operand("size", ("INT32",), rank=(1,),
                                                 constant=True)),
    build=resize_bilinear, kernels={"tfl.resize_bilinear": lower_resize_bilinear}))


__all__ = ["lower_resize_bilinear", "resize_bilinear", "resize_size", "transpose_conv"]
