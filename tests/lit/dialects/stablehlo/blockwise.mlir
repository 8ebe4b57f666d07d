// RUN: qcomp-opt %s --split-input-file --verify-diagnostics | FileCheck %s
// Blockwise (sub-channel) quantized weights: a qcomp extension. A constant,
// uniform_quantize / uniform_dequantize and the rhs of dot_general may carry a
// sub-channel type; blocks may split one contracting dimension of the rhs and any of its
// free dimensions (convolution kernels: blockwise-convolution.mlir). Every other op
// keeps upstream's message, which never names the extension.

// CHECK-LABEL: func.func @w4a16
// CHECK: stablehlo.dot_general %{{.*}}, %{{.*}}, contracting_dims = [1] x [0] : (tensor<2x8xf32>, tensor<8x3x!quant.uniform<i4:f32:{0:4, 1:1}, {{.*}}>>) -> tensor<2x3xf32>
func.func @w4a16(%x: tensor<2x8xf32>, %w: tensor<8x3x!quant.uniform<i4:f32:{0:4, 1:1}, {{0.5:1, 0.25, 0.125}, {1.0, 2.0:3, 0.5}}>>) -> tensor<2x3xf32> {
  %y = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<2x8xf32>, tensor<8x3x!quant.uniform<i4:f32:{0:4, 1:1}, {{0.5:1, 0.25, 0.125}, {1.0, 2.0:3, 0.5}}>>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @w4a8
// CHECK: stablehlo.uniform_quantize %{{.*}} : (tensor<8x3xf32>) -> tensor<8x3x!quant.uniform<i4:f32:{0:4, 1:1}
// CHECK: stablehlo.dot_general {{.*}} -> tensor<2x3x!quant.uniform<i8:f32:1, {{.*}}>>
func.func @w4a8(%x: tensor<2x8x!quant.uniform<i8:f32, 0.5:1>>, %wf: tensor<8x3xf32>) -> tensor<2x3x!quant.uniform<i8:f32:1, {2.0, 1.0, 4.0}>> {
  %w = stablehlo.uniform_quantize %wf : (tensor<8x3xf32>) -> tensor<8x3x!quant.uniform<i4:f32:{0:4, 1:1}, {{0.5, 0.25, 0.125}, {1.0, 2.0, 0.5}}>>
  %y = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<2x8x!quant.uniform<i8:f32, 0.5:1>>, tensor<8x3x!quant.uniform<i4:f32:{0:4, 1:1}, {{0.5, 0.25, 0.125}, {1.0, 2.0, 0.5}}>>) -> tensor<2x3x!quant.uniform<i8:f32:1, {2.0, 1.0, 4.0}>>
  return %y : tensor<2x3x!quant.uniform<i8:f32:1, {2.0, 1.0, 4.0}>>
}

// -----

func.func @blocked_batch(%x: tensor<2x2x4xf32>, %w: tensor<2x4x3x!quant.uniform<i8:f32:{0:1, 1:2}, {{{0.5}, {0.5}}, {{0.5}, {0.5}}}>>) -> tensor<2x2x3xf32> {
  // expected-error@+1 {{blockwise rhs (qcomp extension): batching dimensions must not be split into blocks}}
  %y = stablehlo.dot_general %x, %w, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x2x4xf32>, tensor<2x4x3x!quant.uniform<i8:f32:{0:1, 1:2}, {{{0.5}, {0.5}}, {{0.5}, {0.5}}}>>) -> tensor<2x2x3xf32>
  return %y : tensor<2x2x3xf32>
}

// -----

func.func @two_contracting_blocked(%x: tensor<2x4x2xf32>, %w: tensor<4x2x3x!quant.uniform<i8:f32:{0:2, 1:1}, {{{0.5}, {0.5}}, {{0.5}, {0.5}}}>>) -> tensor<2x3xf32> {
  // expected-error@+1 {{blockwise rhs (qcomp extension): at most one contracting dimension may be split into blocks}}
  %y = stablehlo.dot_general %x, %w, contracting_dims = [1, 2] x [0, 1] : (tensor<2x4x2xf32>, tensor<4x2x3x!quant.uniform<i8:f32:{0:2, 1:1}, {{{0.5}, {0.5}}, {{0.5}, {0.5}}}>>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

func.func @lhs_per_axis(%x: tensor<2x8x!quant.uniform<i8:f32:0, {0.5, 0.25}>>, %w: tensor<8x3x!quant.uniform<i8:f32:{0:4}, {{0.5}, {0.5}}>>) -> tensor<2x3x!quant.uniform<i8:f32, 1.0>> {
  // expected-error@+1 {{operand #0 must be ranked tensor of 4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or complex type with 32/64-bit float elements or per-tensor integer quantized values, but got 'tensor<2x8x!quant.uniform<i8:f32:0, {5.000000e-01,2.500000e-01}>>'}}
  %y = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<2x8x!quant.uniform<i8:f32:0, {0.5, 0.25}>>, tensor<8x3x!quant.uniform<i8:f32:{0:4}, {{0.5}, {0.5}}>>) -> tensor<2x3x!quant.uniform<i8:f32, 1.0>>
  return %y : tensor<2x3x!quant.uniform<i8:f32, 1.0>>
}

// -----

func.func @dot_keeps_upstream_message(%x: tensor<2x8xf32>, %w: tensor<8x3x!quant.uniform<i8:f32:{0:4}, {{0.5}, {0.5}}>>) -> tensor<2x3xf32> {
  // expected-error@+1 {{operand #1 must be ranked tensor of 4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or complex type with 32/64-bit float elements or per-tensor integer quantized or per-axis integer quantized values, but got 'tensor<8x3x!quant.uniform<i8:f32:{0:4}, {{5.000000e-01}, {5.000000e-01}}>>'}}
  %y = stablehlo.dot %x, %w : (tensor<2x8xf32>, tensor<8x3x!quant.uniform<i8:f32:{0:4}, {{0.5}, {0.5}}>>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}
