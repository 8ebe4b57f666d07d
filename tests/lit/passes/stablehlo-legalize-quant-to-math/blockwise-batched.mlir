// RUN: qcomp-opt %s --stablehlo-legalize-quant-to-math --verify-numerics | FileCheck %s
// RUN: qcomp-opt %s --stablehlo-legalize-quant-to-math='rescale=fixed-point' --verify-numerics | FileCheck %s --check-prefix=FIXED
// RUN: qcomp-opt %s --stablehlo-legalize-quant-to-math='rescale=stablehlo' --verify-numerics | FileCheck %s --check-prefix=UPSTREAM

// Blockwise u4 weights as a function argument (not a constant), with a batching
// dimension, K = 8 in blocks of 4 and a free dimension in blocks of 2 (two output
// columns share a scale), non-zero zero points; an i16 per-axis result. Each mode
// centres the rhs at run time (one subtract of the expanded zero points) and runs one
// batched dot_general per block; --verify-numerics checks float and stablehlo bit for
// bit and fixed-point within one step (under rescale=stablehlo the u4 storage is
// signless i4, so 8..15 read as -8..-1, as upstream reads u8 as i8).

// CHECK-LABEL: func.func @main
// CHECK-SAME:    %{{.*}}: tensor<2x4x8xui4>
// CHECK:         stablehlo.subtract %{{.*}}, %{{.*}} : tensor<2x4x8xi32>
// CHECK:         stablehlo.slice %{{.*}} [0:2, 0:4, 0:4] : (tensor<2x4x8xi32>) -> tensor<2x4x4xi32>
// CHECK:         stablehlo.dot_general %{{.*}}, %{{.*}}, batching_dims = [0] x [0], contracting_dims = [2] x [2] : (tensor<2x3x4xi32>, tensor<2x4x4xi32>) -> tensor<2x3x4xi32>
// CHECK:         stablehlo.slice %{{.*}} [0:2, 0:4, 4:8] : (tensor<2x4x8xi32>) -> tensor<2x4x4xi32>
// CHECK:         stablehlo.dot_general
// CHECK-NOT:     stablehlo.dot_general
// CHECK:         stablehlo.convert %{{.*}} : (tensor<2x3x4xf64>) -> tensor<2x3x4xi16>
// FIXED-LABEL: func.func @main
// FIXED-COUNT-2: stablehlo.dot_general
// FIXED:         stablehlo.shift_right_arithmetic
// FIXED:         stablehlo.convert %{{.*}} : (tensor<2x3x4xi64>) -> tensor<2x3x4xi16>
// UPSTREAM-LABEL: func.func @main
// UPSTREAM-SAME:    %{{.*}}: tensor<2x4x8xi4>
// UPSTREAM-COUNT-2: stablehlo.dot_general
// UPSTREAM:         stablehlo.convert %{{.*}} : (tensor<2x3x4xi32>) -> tensor<2x3x4xi16>
func.func @main(%x: tensor<2x3x8x!quant.uniform<i8:f32, 0.05:2>>, %w: tensor<2x4x8x!quant.uniform<u4:f32:{1:2, 2:4}, {{{0.1:8, 0.2:7}, {0.3, 0.4:9}}}>>) -> tensor<2x3x4x!quant.uniform<i16:f32:2, {0.01, 0.02, 0.03, 0.04}>> {
  %y = stablehlo.dot_general %x, %w, batching_dims = [0] x [0], contracting_dims = [2] x [2] : (tensor<2x3x8x!quant.uniform<i8:f32, 0.05:2>>, tensor<2x4x8x!quant.uniform<u4:f32:{1:2, 2:4}, {{{0.1:8, 0.2:7}, {0.3, 0.4:9}}}>>) -> tensor<2x3x4x!quant.uniform<i16:f32:2, {0.01, 0.02, 0.03, 0.04}>>
  return %y : tensor<2x3x4x!quant.uniform<i16:f32:2, {0.01, 0.02, 0.03, 0.04}>>
}
