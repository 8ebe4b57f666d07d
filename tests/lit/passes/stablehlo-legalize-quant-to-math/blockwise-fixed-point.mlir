// RUN: qcomp-opt %s --stablehlo-legalize-quant-to-math='rescale=fixed-point' --split-input-file --verify-numerics -verify-diagnostics | FileCheck %s

// Blockwise (sub-channel) dot_general under rescale=fixed-point (docs/blockwise.md),
// integer only. The block sums acc_j are as in blockwise.mlir; each is scaled by its
// own M_j = s_l s_r,j / s_res as a 32-bit multiplier m_j and shift_j
// (multiplier_and_shift) keeping F = 16 fraction bits, the terms are summed in i64 and
// rounded once:
//   t_j = (acc_j * m_j + 2^(r_j - 1)) >> r_j,   r_j = shift_j - 16
//   q   = clamp(((Σ_j t_j + 2^15) >> 16) + z_res, min, max)
// Both roundings are half up (arithmetic shifts), so where rescale=float rounds a tie
// to even this rounds it up; the multipliers' rounding and the per-block fraction bits
// move the value by at most n_blocks 2^-17 + 2^-31 Σ_j |acc_j M_j| steps before the
// final rounding: the result is within one storage step of rescale=float
// (--verify-numerics checks that contract).
// Here M_0 = (0.125, 0.0625, 0.03125) and M_1 = (0.25, 0.5, 0.125): m = 2^30 each,
// r_0 = (17, 18, 19), r_1 = (16, 15, 17).

// CHECK-LABEL: func.func @w4a8
// CHECK:         %[[A0:.*]] = stablehlo.dot_general {{.*}} -> tensor<2x3xi32>
// CHECK:         %[[A1:.*]] = stablehlo.dot_general {{.*}} -> tensor<2x3xi32>
// CHECK:         %[[W0:.*]] = stablehlo.convert %[[A0]] : (tensor<2x3xi32>) -> tensor<2x3xi64>
// CHECK:         stablehlo.constant dense<1073741824> : tensor<2x3xi64>
// CHECK:         %[[P0:.*]] = stablehlo.multiply %[[W0]], %{{.*}} : tensor<2x3xi64>
// CHECK:         stablehlo.constant dense<[65536, 131072, 262144]> : tensor<3xi64>
// CHECK:         %[[H0:.*]] = stablehlo.add %[[P0]], %{{.*}} : tensor<2x3xi64>
// CHECK:         stablehlo.constant dense<[17, 18, 19]> : tensor<3xi64>
// CHECK:         %[[T0:.*]] = stablehlo.shift_right_arithmetic %[[H0]], %{{.*}} : tensor<2x3xi64>
// CHECK:         %[[W1:.*]] = stablehlo.convert %[[A1]] : (tensor<2x3xi32>) -> tensor<2x3xi64>
// CHECK:         stablehlo.constant dense<[16, 15, 17]> : tensor<3xi64>
// CHECK:         %[[T1:.*]] = stablehlo.shift_right_arithmetic
// CHECK:         %[[T:.*]] = stablehlo.add %[[T0]], %[[T1]] : tensor<2x3xi64>
// CHECK:         stablehlo.constant dense<32768> : tensor<2x3xi64>
// CHECK:         %[[R:.*]] = stablehlo.add %[[T]], %{{.*}} : tensor<2x3xi64>
// CHECK:         stablehlo.constant dense<16> : tensor<2x3xi64>
// CHECK:         %[[Q:.*]] = stablehlo.shift_right_arithmetic %[[R]], %{{.*}} : tensor<2x3xi64>
// CHECK:         stablehlo.constant dense<-3> : tensor<2x3xi64>
// CHECK:         stablehlo.add %[[Q]], %{{.*}} : tensor<2x3xi64>
// CHECK:         stablehlo.clamp
// CHECK:         stablehlo.convert %{{.*}} : (tensor<2x3xi64>) -> tensor<2x3xi8>
func.func @w4a8(%x: tensor<2x8x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<2x3x!quant.uniform<i8:f32, 2.0:-3>> {
  %w = stablehlo.constant() {value = dense<[[1, -2, 3], [4, 5, -6], [7, -8, 1], [2, 3, 4], [-1, 2, -3], [4, -5, 6], [7, 0, -1], [2, 2, 2]]> : tensor<8x3xi4>} : () -> tensor<8x3x!quant.uniform<i4:f32:{0:4, 1:1}, {{0.5, 0.25, 0.125}, {1.0, 2.0:3, 0.5}}>>
  %y = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<2x8x!quant.uniform<i8:f32, 0.5:1>>, tensor<8x3x!quant.uniform<i4:f32:{0:4, 1:1}, {{0.5, 0.25, 0.125}, {1.0, 2.0:3, 0.5}}>>) -> tensor<2x3x!quant.uniform<i8:f32, 2.0:-3>>
  return %y : tensor<2x3x!quant.uniform<i8:f32, 2.0:-3>>
}

// -----

// A factor M_j of 2^14 or more leaves no room for 16 fraction bits under the shift.
func.func @too_large(%x: tensor<1x4x!quant.uniform<i8:f32, 1.0>>, %w: tensor<4x1x!quant.uniform<i8:f32:{0:2}, {{1.0}, {20000.0}}>>) -> tensor<1x1x!quant.uniform<i8:f32, 1.0>> {
  // expected-error@+1 {{dot_general: rescale=fixed-point: scale factor 20000.0 is too large for a 32-bit multiplier with 16 fraction bits}}
  %y = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<1x4x!quant.uniform<i8:f32, 1.0>>, tensor<4x1x!quant.uniform<i8:f32:{0:2}, {{1.0}, {20000.0}}>>) -> tensor<1x1x!quant.uniform<i8:f32, 1.0>>
  return %y : tensor<1x1x!quant.uniform<i8:f32, 1.0>>
}

// -----

// i16 x i16 block sums over 128 positions may reach 2^37: times a 31-bit multiplier
// that is past int64.
func.func @too_wide(%x: tensor<1x256x!quant.uniform<i16:f32, 1.0>>, %w: tensor<256x1x!quant.uniform<i16:f32:{0:128}, {{0.5}, {0.25}}>>) -> tensor<1x1x!quant.uniform<i16:f32, 1.0>> {
  // expected-error@+1 {{dot_general: rescale=fixed-point: a block sum of up to 137438953472 times a 32-bit multiplier overflows 64 bits}}
  %y = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<1x256x!quant.uniform<i16:f32, 1.0>>, tensor<256x1x!quant.uniform<i16:f32:{0:128}, {{0.5}, {0.25}}>>) -> tensor<1x1x!quant.uniform<i16:f32, 1.0>>
  return %y : tensor<1x1x!quant.uniform<i16:f32, 1.0>>
}
