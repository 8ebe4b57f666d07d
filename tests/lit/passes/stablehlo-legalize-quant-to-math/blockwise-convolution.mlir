// RUN: qcomp-opt %s --stablehlo-legalize-quant-to-math --split-input-file --verify-numerics | FileCheck %s
// RUN: qcomp-opt %s --stablehlo-legalize-quant-to-math='rescale=fixed-point' --split-input-file --verify-numerics | FileCheck %s --check-prefix=FIXED
// RUN: qcomp-opt %s --stablehlo-legalize-quant-to-math='rescale=stablehlo' --split-input-file --verify-numerics | FileCheck %s --check-prefix=UPSTREAM

// A blockwise (sub-channel) convolution kernel, a qcomp extension (docs/blockwise.md):
// NHWC x HWIO, 8 input channels in two blocks of 4, one scale per (block, output
// channel): block 0 (0.5 z=1, 0.25), block 1 (1.0, 2.0 z=-2); s_l = 0.5, z_l = 1; the
// result is per-axis along the output feature, s_res = (2.0, 0.75), z_res = (0, -1).
//
// One integer convolution per block of input channels, on the centred lhs (its
// padding is then 0, which is z_l) and the kernel centred and cut at compile time;
// the convolution's window, padding and strides are kept. Each block sum is rescaled
// with its own s_l * s_r,j and the blocks are summed in order, as for dot_general
// (blockwise.mlir).

// CHECK-LABEL: func.func @w4a8
// CHECK:         %[[L:.*]] = stablehlo.convert %{{[^ ]*}} : (tensor<1x3x3x8xi8>) -> tensor<1x3x3x8xi32>
// CHECK:         %[[LC:.*]] = stablehlo.subtract %[[L]], %{{.*}} : tensor<1x3x3x8xi32>
// CHECK:         %[[L0:.*]] = stablehlo.slice %[[LC]] [0:1, 0:3, 0:3, 0:4] : (tensor<1x3x3x8xi32>) -> tensor<1x3x3x4xi32>
// CHECK:         %[[R0:.*]] = stablehlo.constant dense<{{\[\[\[\[}}0, -2], [2, 4], [4, -6], [6, -8]], {{.*}}> : tensor<2x2x4x2xi32>
// CHECK:         %[[A0:.*]] = stablehlo.convolution(%[[L0]], %[[R0]]) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 1], pad = {{\[\[}}1, 0], [0, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x3x3x4xi32>, tensor<2x2x4x2xi32>) -> tensor<1x2x3x2xi32>
// CHECK:         %[[L1:.*]] = stablehlo.slice %[[LC]] [0:1, 0:3, 0:3, 4:8]
// CHECK:         %[[R1:.*]] = stablehlo.constant dense<{{\[\[\[\[}}1, 4], [3, 6], [-5, 8], [7, 2]], {{.*}}> : tensor<2x2x4x2xi32>
// CHECK:         %[[A1:.*]] = stablehlo.convolution(%[[L1]], %[[R1]])
// CHECK:         %[[F0:.*]] = stablehlo.convert %[[A0]] : (tensor<1x2x3x2xi32>) -> tensor<1x2x3x2xf64>
// CHECK:         stablehlo.constant dense<[2.500000e-01, 1.250000e-01]> : tensor<2xf64>
// CHECK:         %[[T0:.*]] = stablehlo.multiply %[[F0]]
// CHECK:         %[[F1:.*]] = stablehlo.convert %[[A1]] : (tensor<1x2x3x2xi32>) -> tensor<1x2x3x2xf64>
// CHECK:         stablehlo.constant dense<[5.000000e-01, 1.000000e+00]> : tensor<2xf64>
// CHECK:         %[[T1:.*]] = stablehlo.multiply %[[F1]]
// CHECK:         %[[REAL:.*]] = stablehlo.add %[[T0]], %[[T1]] : tensor<1x2x3x2xf64>
// CHECK:         stablehlo.constant dense<[2.000000e+00, 7.500000e-01]> : tensor<2xf64>
// CHECK:         stablehlo.divide %[[REAL]]
// CHECK:         stablehlo.round_nearest_even
// CHECK:         stablehlo.convert %{{.*}} : (tensor<1x2x3x2xf64>) -> tensor<1x2x3x2xi8>

// fixed-point: t_j = (acc_j * m_j + 2^(r_j-1)) >> r_j in i64 with r_j = shift_j - 16
// (M_j = s_l s_r,j / s_res: block 0 (0.125, 0.1666...), block 1 (0.25, 1.333...)),
// summed, then (T + 2^15) >> 16, + z_res, clamped.
// FIXED-LABEL: func.func @w4a8
// FIXED:         stablehlo.convolution
// FIXED:         stablehlo.convolution
// FIXED:         stablehlo.constant dense<[1073741824, 1431655765]> : tensor<2xi64>
// FIXED:         stablehlo.constant dense<17> : tensor<1x2x3x2xi64>
// FIXED:         %[[T0:.*]] = stablehlo.shift_right_arithmetic
// FIXED:         stablehlo.constant dense<[32768, 8192]> : tensor<2xi64>
// FIXED:         stablehlo.constant dense<[16, 14]> : tensor<2xi64>
// FIXED:         %[[T1:.*]] = stablehlo.shift_right_arithmetic
// FIXED:         %[[T:.*]] = stablehlo.add %[[T0]], %[[T1]] : tensor<1x2x3x2xi64>
// FIXED:         stablehlo.constant dense<32768> : tensor<1x2x3x2xi64>
// FIXED:         stablehlo.constant dense<16> : tensor<1x2x3x2xi64>
// FIXED:         stablehlo.shift_right_arithmetic
// FIXED:         stablehlo.clamp
// FIXED:         stablehlo.convert %{{.*}} : (tensor<1x2x3x2xi64>) -> tensor<1x2x3x2xi8>

// stablehlo: i32 block sums, each times f32(s_l s_r,j / s_res) in f32, summed,
// truncated to i32 once, + z_res, converted to i8 without a clamp.
// UPSTREAM-LABEL: func.func @w4a8
// UPSTREAM:         %[[A0:.*]] = stablehlo.convolution{{.*}} -> tensor<1x2x3x2xi32>
// UPSTREAM:         %[[A1:.*]] = stablehlo.convolution{{.*}} -> tensor<1x2x3x2xi32>
// UPSTREAM:         stablehlo.convert %[[A0]] : (tensor<1x2x3x2xi32>) -> tensor<1x2x3x2xf32>
// UPSTREAM:         stablehlo.constant dense<[1.250000e-01, 0.166666672]> : tensor<2xf32>
// UPSTREAM:         stablehlo.convert %[[A1]] : (tensor<1x2x3x2xi32>) -> tensor<1x2x3x2xf32>
// UPSTREAM:         stablehlo.constant dense<[2.500000e-01, 1.33333337]> : tensor<2xf32>
// UPSTREAM:         %[[V:.*]] = stablehlo.add %{{.*}}, %{{.*}} : tensor<1x2x3x2xf32>
// UPSTREAM:         %[[I:.*]] = stablehlo.convert %[[V]] : (tensor<1x2x3x2xf32>) -> tensor<1x2x3x2xi32>
// UPSTREAM:         stablehlo.add %[[I]], %{{.*}} : tensor<1x2x3x2xi32>
// UPSTREAM-NOT:     stablehlo.clamp
// UPSTREAM:         stablehlo.convert %{{.*}} : (tensor<1x2x3x2xi32>) -> tensor<1x2x3x2xi8>
func.func @w4a8(%x: tensor<1x3x3x8x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<1x2x3x2x!quant.uniform<i8:f32:3, {2.0, 0.75:-1}>> {
  %w = stablehlo.constant() {value = dense<[[[[1, -2], [3, 4], [5, -6], [7, -8], [1, 2], [3, 4], [-5, 6], [7, 0]], [[1, 1], [1, 1], [1, 1], [1, 1], [2, 2], [2, 2], [2, 2], [2, 2]]], [[[0, 1], [2, 3], [4, 5], [6, 7], [-1, -2], [-3, -4], [-5, -6], [-7, -8]], [[7, 6], [5, 4], [3, 2], [1, 0], [0, 1], [2, 3], [4, 5], [6, 7]]]]> : tensor<2x2x8x2xi4>} : () -> tensor<2x2x8x2x!quant.uniform<i4:f32:{2:4, 3:1}, {{{{0.5:1, 0.25}, {1.0, 2.0:-2}}}}>>
  %y = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {pad = [[1, 0], [0, 1]], stride = [2, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x3x3x8x!quant.uniform<i8:f32, 0.5:1>>, tensor<2x2x8x2x!quant.uniform<i4:f32:{2:4, 3:1}, {{{{0.5:1, 0.25}, {1.0, 2.0:-2}}}}>>) -> tensor<1x2x3x2x!quant.uniform<i8:f32:3, {2.0, 0.75:-1}>>
  return %y : tensor<1x2x3x2x!quant.uniform<i8:f32:3, {2.0, 0.75:-1}>>
}

// -----

// Hybrid (W4A16), here with a kernel argument: the kernel is dequantized with its
// block parameters expanded (broadcast_in_dim into (blocks, block) + reshape) and the
// convolution runs in float; rescale=stablehlo dequantizes in f32 behind an
// optimization_barrier, as upstream's hybrid ops do.
// CHECK-LABEL: func.func @w4a16
// CHECK:         %[[W:.*]] = stablehlo.convert %{{[^ ]*}} : (tensor<2x2x8x2xi4>) -> tensor<2x2x8x2xi32>
// CHECK:         stablehlo.constant dense<{{\[\[\[\[}}1, 0], [0, -2]]]]> : tensor<1x1x2x2xi32>
// CHECK:         stablehlo.broadcast_in_dim %{{.*}}, dims = [0, 1, 2, 4] : (tensor<1x1x2x2xi32>) -> tensor<2x2x2x4x2xi32>
// CHECK:         %[[Z:.*]] = stablehlo.reshape %{{.*}} : (tensor<2x2x2x4x2xi32>) -> tensor<2x2x8x2xi32>
// CHECK:         %[[C:.*]] = stablehlo.subtract %[[W]], %[[Z]] : tensor<2x2x8x2xi32>
// CHECK:         stablehlo.convert %[[C]] : (tensor<2x2x8x2xi32>) -> tensor<2x2x8x2xf32>
// CHECK:         stablehlo.constant dense<{{\[\[\[\[}}5.000000e-01, 2.500000e-01], [1.000000e+00, 2.000000e+00]]]]> : tensor<1x1x2x2xf32>
// CHECK:         %[[S:.*]] = stablehlo.reshape %{{.*}} : (tensor<2x2x2x4x2xf32>) -> tensor<2x2x8x2xf32>
// CHECK:         %[[D:.*]] = stablehlo.multiply %{{.*}}, %[[S]] : tensor<2x2x8x2xf32>
// CHECK:         stablehlo.convolution(%{{[^ ]*}}, %[[D]]) {{.*}} : (tensor<1x3x3x8xf32>, tensor<2x2x8x2xf32>) -> tensor<1x2x2x2xf32>
// UPSTREAM-LABEL: func.func @w4a16
// UPSTREAM:         stablehlo.optimization_barrier %{{.*}} : tensor<2x2x8x2xi4>
// UPSTREAM:         stablehlo.convolution(%{{[^ ]*}}, %{{.*}}) {{.*}} : (tensor<1x3x3x8xf32>, tensor<2x2x8x2xf32>) -> tensor<1x2x2x2xf32>
func.func @w4a16(%x: tensor<1x3x3x8xf32>, %w: tensor<2x2x8x2x!quant.uniform<i4:f32:{2:4, 3:1}, {{{{0.5:1, 0.25}, {1.0, 2.0:-2}}}}>>) -> tensor<1x2x2x2xf32> {
  %y = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x3x3x8xf32>, tensor<2x2x8x2x!quant.uniform<i4:f32:{2:4, 3:1}, {{{{0.5:1, 0.25}, {1.0, 2.0:-2}}}}>>) -> tensor<1x2x2x2xf32>
  return %y : tensor<1x2x2x2xf32>
}
