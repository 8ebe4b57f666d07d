// RUN: qcomp-opt %s --stablehlo-legalize-quant-to-math='rescale=stablehlo' --split-input-file --verify-diagnostics

// rescale=stablehlo refuses what upstream's pass refuses, with upstream's messages:
// a requantize that changes the per-axis dimension, a quantize from anything but
// f32, and ops none of its patterns lower ("failed to legalize ...": quantized tan
// — not in upstream's dequantize/quantize list — reduce, and convolutions outside
// its integer pattern: lhs dilation, layouts other than NHWC/NCHW/NDHWC/NCDHW).

func.func @requantize_changes_axis(%arg0: tensor<2x2x!quant.uniform<i8:f32:0, {0.5, 0.25}>>) -> tensor<2x2x!quant.uniform<i8:f32:1, {0.5, 0.25}>> {
  // expected-error @+1 {{Cannot requantize while changing quantization_axis}}
  %0 = stablehlo.uniform_quantize %arg0 : (tensor<2x2x!quant.uniform<i8:f32:0, {0.5, 0.25}>>) -> tensor<2x2x!quant.uniform<i8:f32:1, {0.5, 0.25}>>
  func.return %0 : tensor<2x2x!quant.uniform<i8:f32:1, {0.5, 0.25}>>
}

// -----

func.func @quantize_from_f16(%arg0: tensor<4xf16>) -> tensor<4x!quant.uniform<i8:f16, 0.5>> {
  // expected-error @+1 {{Unsupported input element type.}}
  %0 = stablehlo.uniform_quantize %arg0 : (tensor<4xf16>) -> tensor<4x!quant.uniform<i8:f16, 0.5>>
  func.return %0 : tensor<4x!quant.uniform<i8:f16, 0.5>>
}

// -----

func.func @tan(%arg0: tensor<4x!quant.uniform<i8:f32, 0.5>>) -> tensor<4x!quant.uniform<i8:f32, 0.5>> {
  // expected-error @+1 {{failed to legalize operation 'stablehlo.tan' that was explicitly marked illegal}}
  %0 = stablehlo.tan %arg0 : tensor<4x!quant.uniform<i8:f32, 0.5>>
  func.return %0 : tensor<4x!quant.uniform<i8:f32, 0.5>>
}

// -----

func.func @reduce(%arg0: tensor<4x!quant.uniform<i8:f32, 0.5>>, %init: tensor<!quant.uniform<i8:f32, 0.5>>) -> tensor<!quant.uniform<i8:f32, 0.5>> {
  // expected-error @+1 {{failed to legalize operation 'stablehlo.reduce' that was explicitly marked illegal}}
  %0 = stablehlo.reduce(%arg0 init: %init) applies stablehlo.maximum across dimensions = [0] : (tensor<4x!quant.uniform<i8:f32, 0.5>>, tensor<!quant.uniform<i8:f32, 0.5>>) -> tensor<!quant.uniform<i8:f32, 0.5>>
  func.return %0 : tensor<!quant.uniform<i8:f32, 0.5>>
}

// -----

func.func @conv_lhs_dilation(%arg0: tensor<1x3x3x1x!quant.uniform<i8:f32, 0.5:1>>, %arg1: tensor<2x2x1x1x!quant.uniform<i8:f32, 0.5>>) -> tensor<1x4x4x1x!quant.uniform<i8:f32, 1.0>> {
  // expected-error @+1 {{failed to legalize operation 'stablehlo.convolution' that was explicitly marked illegal}}
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {lhs_dilate = [2, 2]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x3x3x1x!quant.uniform<i8:f32, 0.5:1>>, tensor<2x2x1x1x!quant.uniform<i8:f32, 0.5>>) -> tensor<1x4x4x1x!quant.uniform<i8:f32, 1.0>>
  func.return %0 : tensor<1x4x4x1x!quant.uniform<i8:f32, 1.0>>
}

// -----

func.func @conv_layout(%arg0: tensor<1x1x3x3x!quant.uniform<i8:f32, 0.5:1>>, %arg1: tensor<1x1x2x2x!quant.uniform<i8:f32, 0.5>>) -> tensor<1x2x2x1x!quant.uniform<i8:f32, 1.0>> {
  // expected-error @+1 {{failed to legalize operation 'stablehlo.convolution' that was explicitly marked illegal}}
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, 0, 1, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x1x3x3x!quant.uniform<i8:f32, 0.5:1>>, tensor<1x1x2x2x!quant.uniform<i8:f32, 0.5>>) -> tensor<1x2x2x1x!quant.uniform<i8:f32, 1.0>>
  func.return %0 : tensor<1x2x2x1x!quant.uniform<i8:f32, 1.0>>
}
