// RUN: qcomp-opt %s --stablehlo-legalize-quant-to-math --split-input-file --verify-diagnostics
// RUN: not qcomp-opt %s --stablehlo-legalize-quant-to-math='rescale=bogus' 2>&1 | FileCheck %s --check-prefix=OPTION

// rescale=float refuses ops with no quantized lowering (upstream's "failed to
// legalize" message) and convolutions whose kernel zero point is not 0 (the window
// sum of the lhs would be needed at every output position; the spec requires 0).

// OPTION: error: stablehlo-legalize-quant-to-math: rescale must be one of float, fixed-point, stablehlo, not 'bogus'

func.func @conv_rhs_zero_point(%arg0: tensor<1x3x3x1x!quant.uniform<i8:f32, 0.5:1>>, %arg1: tensor<2x2x1x1x!quant.uniform<i8:f32, 0.5:2>>) -> tensor<1x2x2x1x!quant.uniform<i8:f32, 1.0>> {
  // expected-error @+1 {{convolution: rhs zero point must be 0}}
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x3x3x1x!quant.uniform<i8:f32, 0.5:1>>, tensor<2x2x1x1x!quant.uniform<i8:f32, 0.5:2>>) -> tensor<1x2x2x1x!quant.uniform<i8:f32, 1.0>>
  func.return %0 : tensor<1x2x2x1x!quant.uniform<i8:f32, 1.0>>
}

// -----

func.func @reduce(%arg0: tensor<4x!quant.uniform<i8:f32, 0.5>>, %init: tensor<!quant.uniform<i8:f32, 0.5>>) -> tensor<!quant.uniform<i8:f32, 0.5>> {
  // expected-error @+1 {{failed to legalize operation 'stablehlo.reduce' that was explicitly marked illegal}}
  %0 = stablehlo.reduce(%arg0 init: %init) applies stablehlo.maximum across dimensions = [0] : (tensor<4x!quant.uniform<i8:f32, 0.5>>, tensor<!quant.uniform<i8:f32, 0.5>>) -> tensor<!quant.uniform<i8:f32, 0.5>>
  func.return %0 : tensor<!quant.uniform<i8:f32, 0.5>>
}

// -----

func.func @custom_call(%arg0: tensor<4x!quant.uniform<i8:f32, 0.5>>) -> tensor<4x!quant.uniform<i8:f32, 0.5>> {
  // expected-error @+1 {{failed to legalize operation 'stablehlo.custom_call' that was explicitly marked illegal}}
  %0 = stablehlo.custom_call @foo(%arg0) : (tensor<4x!quant.uniform<i8:f32, 0.5>>) -> tensor<4x!quant.uniform<i8:f32, 0.5>>
  func.return %0 : tensor<4x!quant.uniform<i8:f32, 0.5>>
}
