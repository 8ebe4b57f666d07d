// RUN: qcomp-opt %s --split-input-file --verify-diagnostics | FileCheck %s
// Blockwise (sub-channel) quantized convolution kernels: a qcomp extension
// (docs/blockwise.md). The kernel may be split into blocks along its input feature
// dimension (one scale and zero point per block of input channels, as GPTQ / AWQ
// weights are) and along its output feature dimension; never along a spatial
// dimension. The lhs is float (hybrid, float result) or per-tensor quantized; a
// quantized lhs needs both group counts 1. Every other use of a sub-channel type keeps
// upstream's messages.

// Hybrid (W4A16), NHWC x HWIO, 8 input channels in blocks of 4, per output channel.
// CHECK-LABEL: func.func @w4a16
// CHECK: stablehlo.convolution(%{{.*}}, %{{.*}}) {{.*}} : (tensor<1x3x3x8xf32>, tensor<2x2x8x2x!quant.uniform<i4:f32:{2:4, 3:1}, {{.*}}>>) -> tensor<1x2x2x2xf32>
func.func @w4a16(%x: tensor<1x3x3x8xf32>, %w: tensor<2x2x8x2x!quant.uniform<i4:f32:{2:4, 3:1}, {{{{0.5:1, 0.25}, {1.0, 2.0:-2}}}}>>) -> tensor<1x2x2x2xf32> {
  %y = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x3x3x8xf32>, tensor<2x2x8x2x!quant.uniform<i4:f32:{2:4, 3:1}, {{{{0.5:1, 0.25}, {1.0, 2.0:-2}}}}>>) -> tensor<1x2x2x2xf32>
  return %y : tensor<1x2x2x2xf32>
}

// -----

// Fully quantized (W4A8), NCHW x OIHW, per-axis result along the output feature.
// CHECK-LABEL: func.func @w4a8
// CHECK: stablehlo.convolution{{.*}} -> tensor<1x2x2x2x!quant.uniform<i8:f32:1, {2.000000e+00,1.000000e+00}>>
func.func @w4a8(%x: tensor<1x8x3x3x!quant.uniform<i8:f32, 0.5:1>>, %w: tensor<2x8x2x2x!quant.uniform<i4:f32:{0:1, 1:4}, {{{{0.5}}, {{0.25}}}, {{{1.0}}, {{2.0}}}}>>) -> tensor<1x2x2x2x!quant.uniform<i8:f32:1, {2.0, 1.0}>> {
  %y = stablehlo.convolution(%x, %w) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x3x3x!quant.uniform<i8:f32, 0.5:1>>, tensor<2x8x2x2x!quant.uniform<i4:f32:{0:1, 1:4}, {{{{0.5}}, {{0.25}}}, {{{1.0}}, {{2.0}}}}>>) -> tensor<1x2x2x2x!quant.uniform<i8:f32:1, {2.0, 1.0}>>
  return %y : tensor<1x2x2x2x!quant.uniform<i8:f32:1, {2.0, 1.0}>>
}

// -----

func.func @spatial_blocks(%x: tensor<1x3x3x8xf32>, %w: tensor<2x2x8x2x!quant.uniform<i8:f32:{0:1, 2:8}, {{{{0.5}}}, {{{0.25}}}}>>) -> tensor<1x2x2x2xf32> {
  // expected-error@+1 {{blockwise rhs (qcomp extension): only the kernel input and output feature dimensions may be split into blocks}}
  %y = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x3x3x8xf32>, tensor<2x2x8x2x!quant.uniform<i8:f32:{0:1, 2:8}, {{{{0.5}}}, {{{0.25}}}}>>) -> tensor<1x2x2x2xf32>
  return %y : tensor<1x2x2x2xf32>
}

// -----

func.func @quantized_groups(%x: tensor<1x3x3x8x!quant.uniform<i8:f32, 0.5>>, %w: tensor<1x1x4x2x!quant.uniform<i8:f32:{2:2}, {{{{0.5}, {0.25}}}}>>) -> tensor<1x3x3x2x!quant.uniform<i8:f32, 1.0>> {
  // expected-error@+1 {{blockwise rhs (qcomp extension): a quantized lhs needs feature_group_count and batch_group_count of 1}}
  %y = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 2 : i64} : (tensor<1x3x3x8x!quant.uniform<i8:f32, 0.5>>, tensor<1x1x4x2x!quant.uniform<i8:f32:{2:2}, {{{{0.5}, {0.25}}}}>>) -> tensor<1x3x3x2x!quant.uniform<i8:f32, 1.0>>
  return %y : tensor<1x3x3x2x!quant.uniform<i8:f32, 1.0>>
}

// -----

// The hybrid form may use feature groups: it dequantizes the kernel first.
// CHECK-LABEL: func.func @hybrid_groups
func.func @hybrid_groups(%x: tensor<1x3x3x8xf32>, %w: tensor<1x1x4x2x!quant.uniform<i8:f32:{2:2}, {{{{0.5}, {0.25}}}}>>) -> tensor<1x3x3x2xf32> {
  %y = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 2 : i64} : (tensor<1x3x3x8xf32>, tensor<1x1x4x2x!quant.uniform<i8:f32:{2:2}, {{{{0.5}, {0.25}}}}>>) -> tensor<1x3x3x2xf32>
  return %y : tensor<1x3x3x2xf32>
}

// -----

func.func @result_axis(%x: tensor<1x3x3x8x!quant.uniform<i8:f32, 0.5>>, %w: tensor<2x2x8x2x!quant.uniform<i8:f32:{2:4}, {{{{0.5}, {0.25}}}}>>) -> tensor<1x2x2x2x!quant.uniform<i8:f32:1, {1.0, 2.0}>> {
  // expected-error@+1 {{quantization dimension of result should be same with output_feature_dimension}}
  %y = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x3x3x8x!quant.uniform<i8:f32, 0.5>>, tensor<2x2x8x2x!quant.uniform<i8:f32:{2:4}, {{{{0.5}, {0.25}}}}>>) -> tensor<1x2x2x2x!quant.uniform<i8:f32:1, {1.0, 2.0}>>
  return %y : tensor<1x2x2x2x!quant.uniform<i8:f32:1, {1.0, 2.0}>>
}

// -----

func.func @expressed(%x: tensor<1x3x3x8x!quant.uniform<i8:f16, 0.5>>, %w: tensor<2x2x8x2x!quant.uniform<i8:f32:{2:4}, {{{{0.5}, {0.25}}}}>>) -> tensor<1x2x2x2x!quant.uniform<i8:f32, 1.0>> {
  // expected-error@+1 {{mismatched lhs, rhs and result quantization expressed types}}
  %y = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x3x3x8x!quant.uniform<i8:f16, 0.5>>, tensor<2x2x8x2x!quant.uniform<i8:f32:{2:4}, {{{{0.5}, {0.25}}}}>>) -> tensor<1x2x2x2x!quant.uniform<i8:f32, 1.0>>
  return %y : tensor<1x2x2x2x!quant.uniform<i8:f32, 1.0>>
}

// -----

func.func @lhs_blockwise(%x: tensor<1x3x3x8x!quant.uniform<i8:f32:{3:4}, {{{{0.5, 0.25}}}}>>, %w: tensor<2x2x8x2x!quant.uniform<i8:f32, 0.5>>) -> tensor<1x2x2x2x!quant.uniform<i8:f32, 1.0>> {
  // expected-error@+1 {{operand #0 must be ranked tensor of 4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or complex type with 32/64-bit float elements or per-tensor integer quantized values, but got}}
  %y = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x3x3x8x!quant.uniform<i8:f32:{3:4}, {{{{0.5, 0.25}}}}>>, tensor<2x2x8x2x!quant.uniform<i8:f32, 0.5>>) -> tensor<1x2x2x2x!quant.uniform<i8:f32, 1.0>>
  return %y : tensor<1x2x2x2x!quant.uniform<i8:f32, 1.0>>
}

// -----

func.func @result_blockwise(%x: tensor<1x3x3x8x!quant.uniform<i8:f32, 0.5>>, %w: tensor<2x2x8x2x!quant.uniform<i8:f32:{2:4}, {{{{0.5}, {0.25}}}}>>) -> tensor<1x2x2x2x!quant.uniform<i8:f32:{1:1}, {{{{1.0}}}, {{{2.0}}}}>> {
  // expected-error@+1 {{result #0 must be ranked tensor of 4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or complex type with 32/64-bit float elements or per-tensor integer quantized or per-axis integer quantized values, but got}}
  %y = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x3x3x8x!quant.uniform<i8:f32, 0.5>>, tensor<2x2x8x2x!quant.uniform<i8:f32:{2:4}, {{{{0.5}, {0.25}}}}>>) -> tensor<1x2x2x2x!quant.uniform<i8:f32:{1:1}, {{{{1.0}}}, {{{2.0}}}}>>
  return %y : tensor<1x2x2x2x!quant.uniform<i8:f32:{1:1}, {{{{1.0}}}, {{{2.0}}}}>>
}
