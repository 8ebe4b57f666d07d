// RUN: qcomp-opt %s --stablehlo-legalize-quant-to-math='rescale=stablehlo' --split-input-file --verify-numerics | FileCheck %s

// Blockwise (sub-channel) dot_general under rescale=stablehlo (docs/blockwise.md).
// Upstream has no blockwise lowering; qcomp extends upstream's dot rescale to blocks:
// storage as signless iN, i32 block sums on the centred operands (wrapping), each
// times f32(s_l s_r,j / s_res), summed in f32 in block order, one conversion to i32
// (truncation toward zero), + z_res in i32, and a convert to the storage type with no
// clamp (values past the range wrap, as upstream's dot does). --verify-numerics checks
// it against --semantics stablehlo bit for bit
// (qcomp.quant.stablehlo.dot_rescale_blocks). Against rescale=float: the truncation
// moves a result by at most one storage step wherever the exact value lies in the
// storage range and the f32 error, about (n_blocks + 2) 2^-24 Σ_j |acc_j cs_j|, stays
// below 1/2.
// Here cs_0 = 0.5 (0.5, 0.25, 0.125) / 2 and cs_1 = 0.5 (1, 2, 0.5) / 2.

// CHECK-LABEL: func.func @w4a8
// CHECK:         %[[L:.*]] = stablehlo.convert %{{[^ ]*}} : (tensor<2x8xi8>) -> tensor<2x8xi32>
// CHECK:         %[[A0:.*]] = stablehlo.dot_general {{.*}} -> tensor<2x3xi32>
// CHECK:         %[[A1:.*]] = stablehlo.dot_general {{.*}} -> tensor<2x3xi32>
// CHECK:         %[[F0:.*]] = stablehlo.convert %[[A0]] : (tensor<2x3xi32>) -> tensor<2x3xf32>
// CHECK:         stablehlo.constant dense<[1.250000e-01, 6.250000e-02, 3.125000e-02]> : tensor<3xf32>
// CHECK:         %[[T0:.*]] = stablehlo.multiply %[[F0]], %{{.*}} : tensor<2x3xf32>
// CHECK:         %[[F1:.*]] = stablehlo.convert %[[A1]] : (tensor<2x3xi32>) -> tensor<2x3xf32>
// CHECK:         stablehlo.constant dense<[2.500000e-01, 5.000000e-01, 1.250000e-01]> : tensor<3xf32>
// CHECK:         %[[T1:.*]] = stablehlo.multiply %[[F1]], %{{.*}} : tensor<2x3xf32>
// CHECK:         %[[V:.*]] = stablehlo.add %[[T0]], %[[T1]] : tensor<2x3xf32>
// CHECK:         %[[I:.*]] = stablehlo.convert %[[V]] : (tensor<2x3xf32>) -> tensor<2x3xi32>
// CHECK:         stablehlo.constant dense<-3> : tensor<i32>
// CHECK:         %[[O:.*]] = stablehlo.add %[[I]], %{{.*}} : tensor<2x3xi32>
// CHECK-NOT:     stablehlo.clamp
// CHECK:         stablehlo.convert %[[O]] : (tensor<2x3xi32>) -> tensor<2x3xi8>
func.func @w4a8(%x: tensor<2x8x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<2x3x!quant.uniform<i8:f32, 2.0:-3>> {
  %w = stablehlo.constant() {value = dense<[[1, -2, 3], [4, 5, -6], [7, -8, 1], [2, 3, 4], [-1, 2, -3], [4, -5, 6], [7, 0, -1], [2, 2, 2]]> : tensor<8x3xi4>} : () -> tensor<8x3x!quant.uniform<i4:f32:{0:4, 1:1}, {{0.5, 0.25, 0.125}, {1.0, 2.0:3, 0.5}}>>
  %y = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<2x8x!quant.uniform<i8:f32, 0.5:1>>, tensor<8x3x!quant.uniform<i4:f32:{0:4, 1:1}, {{0.5, 0.25, 0.125}, {1.0, 2.0:3, 0.5}}>>) -> tensor<2x3x!quant.uniform<i8:f32, 2.0:-3>>
  return %y : tensor<2x3x!quant.uniform<i8:f32, 2.0:-3>>
}

// -----

// Hybrid (W4A16): upstream's hybrid form, the rhs behind an optimization_barrier and
// dequantized in f32 (f32(q) - f32(z)) * f32(s), the block parameters expanded.
// CHECK-LABEL: func.func @w4a16
// CHECK:         %[[B:.*]] = stablehlo.optimization_barrier %{{.*}} : tensor<8x3xi4>
// CHECK:         %[[W:.*]] = stablehlo.convert %[[B]] : (tensor<8x3xi4>) -> tensor<8x3xf32>
// CHECK:         stablehlo.constant dense<{{\[\[}}0.000000e+00, 0.000000e+00, 0.000000e+00], [0.000000e+00, 3.000000e+00, 0.000000e+00]]> : tensor<2x3xf32>
// CHECK:         %[[Z:.*]] = stablehlo.reshape %{{.*}} : (tensor<2x4x3xf32>) -> tensor<8x3xf32>
// CHECK:         %[[C:.*]] = stablehlo.subtract %[[W]], %[[Z]] : tensor<8x3xf32>
// CHECK:         %[[S:.*]] = stablehlo.reshape %{{.*}} : (tensor<2x4x3xf32>) -> tensor<8x3xf32>
// CHECK:         %[[D:.*]] = stablehlo.multiply %[[C]], %[[S]] : tensor<8x3xf32>
// CHECK:         stablehlo.dot_general %{{[^ ]*}}, %[[D]], contracting_dims = [1] x [0] : (tensor<2x8xf32>, tensor<8x3xf32>) -> tensor<2x3xf32>
func.func @w4a16(%x: tensor<2x8xf32>, %w: tensor<8x3x!quant.uniform<i4:f32:{0:4, 1:1}, {{0.5, 0.25, 0.125}, {1.0, 2.0:3, 0.5}}>>) -> tensor<2x3xf32> {
  %y = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<2x8xf32>, tensor<8x3x!quant.uniform<i4:f32:{0:4, 1:1}, {{0.5, 0.25, 0.125}, {1.0, 2.0:3, 0.5}}>>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}
