// RUN: qcomp-opt %s --stablehlo-legalize-quant-to-math --split-input-file --verify-numerics | FileCheck %s

// Blockwise (sub-channel) weights, a qcomp extension (docs/blockwise.md).
//
// Fully quantized, rescale=float: one integer dot_general per block of the split
// contracting dimension, on the centred operands (a constant rhs is centred and cut at
// compile time), each converted to f64 and scaled by s_l * s_r,j, added in block order,
// then quantized once (qcomp.quant.accumulator.rescale_blocks):
//   real = Σ_j f64(acc_j) * (s_l * s_r,j);  q = convert(round_nearest_even(clamp(real / s_res + z_res)))
// Here K = 8 in two blocks of 4; s_l = 0.5, z_l = 1; block 0 scales (0.5, 0.25, 0.125),
// block 1 (1.0, 2.0, 0.5) with z_r = 3 on column 1; s_res = 2.0, z_res = -3.
// rescale=fixed-point and rescale=stablehlo: blockwise-fixed-point.mlir,
// blockwise-stablehlo.mlir; convolutions: blockwise-convolution.mlir.

// CHECK-LABEL: func.func @w4a8
// CHECK:         %[[L:.*]] = stablehlo.convert %{{[^ ]*}} : (tensor<2x8xi8>) -> tensor<2x8xi32>
// CHECK:         %[[LC:.*]] = stablehlo.subtract %[[L]], %{{.*}} : tensor<2x8xi32>
// CHECK:         %[[L0:.*]] = stablehlo.slice %[[LC]] [0:2, 0:4] : (tensor<2x8xi32>) -> tensor<2x4xi32>
// CHECK:         %[[R0:.*]] = stablehlo.constant dense<{{\[\[}}1, -2, 3], [4, 5, -6], [7, -8, 1], [2, 3, 4]]> : tensor<4x3xi32>
// CHECK:         %[[A0:.*]] = stablehlo.dot_general %[[L0]], %[[R0]], contracting_dims = [1] x [0] : (tensor<2x4xi32>, tensor<4x3xi32>) -> tensor<2x3xi32>
// CHECK:         %[[L1:.*]] = stablehlo.slice %[[LC]] [0:2, 4:8] : (tensor<2x8xi32>) -> tensor<2x4xi32>
// CHECK:         %[[R1:.*]] = stablehlo.constant dense<{{\[\[}}-1, -1, -3], [4, -8, 6], [7, -3, -1], [2, -1, 2]]> : tensor<4x3xi32>
// CHECK:         %[[A1:.*]] = stablehlo.dot_general %[[L1]], %[[R1]]
// CHECK:         %[[F0:.*]] = stablehlo.convert %[[A0]] : (tensor<2x3xi32>) -> tensor<2x3xf64>
// CHECK:         stablehlo.constant dense<[2.500000e-01, 1.250000e-01, 6.250000e-02]> : tensor<3xf64>
// CHECK:         %[[T0:.*]] = stablehlo.multiply %[[F0]], %{{.*}} : tensor<2x3xf64>
// CHECK:         %[[F1:.*]] = stablehlo.convert %[[A1]] : (tensor<2x3xi32>) -> tensor<2x3xf64>
// CHECK:         stablehlo.constant dense<[5.000000e-01, 1.000000e+00, 2.500000e-01]> : tensor<3xf64>
// CHECK:         %[[T1:.*]] = stablehlo.multiply %[[F1]], %{{.*}} : tensor<2x3xf64>
// CHECK:         %[[REAL:.*]] = stablehlo.add %[[T0]], %[[T1]] : tensor<2x3xf64>
// CHECK:         stablehlo.divide %[[REAL]], %{{.*}} : tensor<2x3xf64>
// CHECK:         stablehlo.add
// CHECK:         stablehlo.clamp
// CHECK:         stablehlo.round_nearest_even
// CHECK:         stablehlo.convert %{{.*}} : (tensor<2x3xf64>) -> tensor<2x3xi8>
func.func @w4a8(%x: tensor<2x8x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<2x3x!quant.uniform<i8:f32, 2.0:-3>> {
  %w = stablehlo.constant() {value = dense<[[1, -2, 3], [4, 5, -6], [7, -8, 1], [2, 3, 4], [-1, 2, -3], [4, -5, 6], [7, 0, -1], [2, 2, 2]]> : tensor<8x3xi4>} : () -> tensor<8x3x!quant.uniform<i4:f32:{0:4, 1:1}, {{0.5, 0.25, 0.125}, {1.0, 2.0:3, 0.5}}>>
  %y = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<2x8x!quant.uniform<i8:f32, 0.5:1>>, tensor<8x3x!quant.uniform<i4:f32:{0:4, 1:1}, {{0.5, 0.25, 0.125}, {1.0, 2.0:3, 0.5}}>>) -> tensor<2x3x!quant.uniform<i8:f32, 2.0:-3>>
  return %y : tensor<2x3x!quant.uniform<i8:f32, 2.0:-3>>
}

// -----

// Hybrid (W4A16): the rhs is dequantized with its block scales (expanded along the
// blocked dimension by broadcast_in_dim + reshape) and the dot runs in float.

// CHECK-LABEL: func.func @w4a16
// CHECK:         %[[W:.*]] = stablehlo.convert %{{[^ ]*}} : (tensor<8x3xi4>) -> tensor<8x3xf32>
// CHECK:         stablehlo.constant dense<{{\[\[}}5.000000e-01, 2.500000e-01, 1.250000e-01], [1.000000e+00, 2.000000e+00, 5.000000e-01]]> : tensor<2x3xf32>
// CHECK:         stablehlo.broadcast_in_dim %{{.*}}, dims = [0, 2] : (tensor<2x3xf32>) -> tensor<2x4x3xf32>
// CHECK:         %[[S:.*]] = stablehlo.reshape %{{.*}} : (tensor<2x4x3xf32>) -> tensor<8x3xf32>
// CHECK:         %[[D:.*]] = stablehlo.multiply %[[W]], %[[S]] : tensor<8x3xf32>
// CHECK:         stablehlo.dot_general %{{[^ ]*}}, %[[D]], contracting_dims = [1] x [0] : (tensor<2x8xf32>, tensor<8x3xf32>) -> tensor<2x3xf32>
func.func @w4a16(%x: tensor<2x8xf32>, %w: tensor<8x3x!quant.uniform<i4:f32:{0:4, 1:1}, {{0.5, 0.25, 0.125}, {1.0, 2.0, 0.5}}>>) -> tensor<2x3xf32> {
  %y = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<2x8xf32>, tensor<8x3x!quant.uniform<i4:f32:{0:4, 1:1}, {{0.5, 0.25, 0.125}, {1.0, 2.0, 0.5}}>>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}
