// RUN: qcomp-opt %s --stablehlo-legalize-quant-to-math --split-input-file | FileCheck %s

// rescale=float: dot / dot_general accumulate the stored integers exactly, with the
// zero-point terms of the LiteRT spec,
//   acc = Σ q_l q_r - z_r Σ q_l - z_l Σ q_r + K z_l z_r,
// then rescale once in f64 (qcomp.quant.accumulator.rescale_accumulator):
//   q = clamp(round_nearest_even(f64(acc) * (s_l * s_r) / s_res + z_res), min, max).

// z_l = 3, z_r = 0: only -z_l Σ q_r is needed; the rhs is an argument, so Σ q_r
// (over the contracting dim 0) is a run-time reduce, broadcast along the rhs free
// dim. s_l * s_r = 0.125, s_res = 2.0, z_res = -1.

// CHECK-LABEL: func.func @dot_general_zero_points(%arg0: tensor<2x3xi8>, %arg1: tensor<3x4xi8>) -> tensor<2x4xi8>
// CHECK:         %[[ACC:.*]] = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<2x3xi8>, tensor<3x4xi8>) -> tensor<2x4xi32>
// CHECK:         %[[W:.*]] = stablehlo.convert %arg1 : (tensor<3x4xi8>) -> tensor<3x4xi32>
// CHECK:         %[[SUM:.*]] = stablehlo.reduce(%[[W]] init: %{{.*}}) applies stablehlo.add across dimensions = [0] : (tensor<3x4xi32>, tensor<i32>) -> tensor<4xi32>
// CHECK:         %[[SUMB:.*]] = stablehlo.broadcast_in_dim %[[SUM]], dims = [1] : (tensor<4xi32>) -> tensor<2x4xi32>
// CHECK:         %[[ZL:.*]] = stablehlo.constant dense<-3> : tensor<i32>
// CHECK:         %[[ZLB:.*]] = stablehlo.broadcast_in_dim %[[ZL]]
// CHECK:         %[[T:.*]] = stablehlo.multiply %[[SUMB]], %[[ZLB]] : tensor<2x4xi32>
// CHECK:         %[[A:.*]] = stablehlo.add %[[ACC]], %[[T]] : tensor<2x4xi32>
// CHECK:         %[[F:.*]] = stablehlo.convert %[[A]] : (tensor<2x4xi32>) -> tensor<2x4xf64>
// CHECK:         stablehlo.constant dense<1.250000e-01> : tensor<f64>
// CHECK:         stablehlo.multiply
// CHECK:         stablehlo.constant dense<2.000000e+00> : tensor<f64>
// CHECK:         stablehlo.divide
// CHECK:         stablehlo.constant dense<-1.000000e+00> : tensor<f64>
// CHECK:         stablehlo.add
// CHECK:         stablehlo.constant dense<-1.280000e+02> : tensor<f64>
// CHECK:         stablehlo.constant dense<1.270000e+02> : tensor<f64>
// CHECK:         stablehlo.clamp
// CHECK:         stablehlo.round_nearest_even %{{.*}} : tensor<2x4xf64>
// CHECK:         %[[Q:.*]] = stablehlo.convert %{{.*}} : (tensor<2x4xf64>) -> tensor<2x4xi8>
// CHECK:         return %[[Q]]
func.func @dot_general_zero_points(%arg0: tensor<2x3x!quant.uniform<i8:f32, 0.5:3>>, %arg1: tensor<3x4x!quant.uniform<i8:f32, 0.25>>) -> tensor<2x4x!quant.uniform<i8:f32, 2.0:-1>> {
  %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<2x3x!quant.uniform<i8:f32, 0.5:3>>, tensor<3x4x!quant.uniform<i8:f32, 0.25>>) -> tensor<2x4x!quant.uniform<i8:f32, 2.0:-1>>
  func.return %0 : tensor<2x4x!quant.uniform<i8:f32, 2.0:-1>>
}

// -----

// Constant (per-axis) weights: -z_l Σ q_r is folded at compile time,
// -3 * [1 + 3 - 5, -2 + 4 + 6] = [3, -24], one constant added to the kernel's
// result. s_l * s_r per channel = [0.125, 0.25], divided by s_res = [0.125, 0.25];
// an i32 result clamps to the i32 range.

// CHECK-LABEL: func.func @dot_general_constant_weights(%arg0: tensor<2x3xi8>) -> tensor<2x2xi32>
// CHECK:         %[[W:.*]] = stablehlo.constant dense<{{\[}}[1, -2], [3, 4], [-5, 6]]> : tensor<3x2xi8>
// CHECK:         %[[ACC:.*]] = stablehlo.dot_general %arg0, %[[W]], contracting_dims = [1] x [0] : (tensor<2x3xi8>, tensor<3x2xi8>) -> tensor<2x2xi32>
// CHECK-NOT:     stablehlo.reduce
// CHECK:         %[[C:.*]] = stablehlo.constant dense<[3, -24]> : tensor<2xi32>
// CHECK:         %[[CB:.*]] = stablehlo.broadcast_in_dim %[[C]], dims = [1] : (tensor<2xi32>) -> tensor<2x2xi32>
// CHECK:         stablehlo.add %[[ACC]], %[[CB]] : tensor<2x2xi32>
// CHECK:         stablehlo.constant dense<[1.250000e-01, 2.500000e-01]> : tensor<2xf64>
// CHECK:         stablehlo.multiply
// CHECK:         stablehlo.constant dense<[1.250000e-01, 2.500000e-01]> : tensor<2xf64>
// CHECK:         stablehlo.divide
// CHECK:         stablehlo.clamp
// CHECK:         stablehlo.round_nearest_even
// CHECK:         stablehlo.convert %{{.*}} : (tensor<2x2xf64>) -> tensor<2x2xi32>
func.func @dot_general_constant_weights(%arg0: tensor<2x3x!quant.uniform<i8:f32, 0.5:3>>) -> tensor<2x2x!quant.uniform<i32:f32:1, {0.125, 0.25}>> {
  %w = stablehlo.constant() <{value = dense<[[1, -2], [3, 4], [-5, 6]]> : tensor<3x2xi8>}> : () -> tensor<3x2x!quant.uniform<i8:f32:1, {0.25, 0.5}>>
  %0 = stablehlo.dot_general %arg0, %w, contracting_dims = [1] x [0] : (tensor<2x3x!quant.uniform<i8:f32, 0.5:3>>, tensor<3x2x!quant.uniform<i8:f32:1, {0.25, 0.5}>>) -> tensor<2x2x!quant.uniform<i32:f32:1, {0.125, 0.25}>>
  func.return %0 : tensor<2x2x!quant.uniform<i32:f32:1, {0.125, 0.25}>>
}

// -----

// Batching and i4 storage: Σ q_r over the contracting dim 0 of the rhs keeps
// (batch, free) = dims (1, 2) of the rhs, which land at result dims [0, 2].
// s_l * s_r = 1.0 needs no multiply.

// CHECK-LABEL: func.func @dot_general_batching_i4(%arg0: tensor<2x3x5xi4>, %arg1: tensor<5x2x4xi4>) -> tensor<2x3x4xi8>
// CHECK:         stablehlo.dot_general %arg0, %arg1, batching_dims = [0] x [1], contracting_dims = [2] x [0] : (tensor<2x3x5xi4>, tensor<5x2x4xi4>) -> tensor<2x3x4xi32>
// CHECK:         stablehlo.reduce(%{{.*}} init: %{{.*}}) applies stablehlo.add across dimensions = [0] : (tensor<5x2x4xi32>, tensor<i32>) -> tensor<2x4xi32>
// CHECK:         stablehlo.broadcast_in_dim %{{.*}}, dims = [0, 2] : (tensor<2x4xi32>) -> tensor<2x3x4xi32>
// CHECK:         stablehlo.convert %{{.*}} : (tensor<2x3x4xi32>) -> tensor<2x3x4xf64>
// CHECK-NOT:     stablehlo.multiply
// CHECK:         stablehlo.constant dense<3.000000e+00> : tensor<f64>
// CHECK:         stablehlo.divide
func.func @dot_general_batching_i4(%arg0: tensor<2x3x5x!quant.uniform<i4:f32, 1.0:1>>, %arg1: tensor<5x2x4x!quant.uniform<i4:f32, 1.0>>) -> tensor<2x3x4x!quant.uniform<i8:f32, 3.0>> {
  %0 = stablehlo.dot_general %arg0, %arg1, batching_dims = [0] x [1], contracting_dims = [2] x [0] : (tensor<2x3x5x!quant.uniform<i4:f32, 1.0:1>>, tensor<5x2x4x!quant.uniform<i4:f32, 1.0>>) -> tensor<2x3x4x!quant.uniform<i8:f32, 3.0>>
  func.return %0 : tensor<2x3x4x!quant.uniform<i8:f32, 3.0>>
}

// -----

// i16 operands: K * 2^15 * 2^15 does not provably fit in i32, so the integer
// kernel accumulates in i64 (exact). stablehlo.dot is lowered as dot_general.

// CHECK-LABEL: func.func @dot_i16_accumulates_in_i64
// CHECK:         stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<2x3xi16>, tensor<3x4xi16>) -> tensor<2x4xi64>
// CHECK:         stablehlo.convert %{{.*}} : (tensor<2x4xi64>) -> tensor<2x4xf64>
func.func @dot_i16_accumulates_in_i64(%arg0: tensor<2x3x!quant.uniform<i16:f32, 0.5>>, %arg1: tensor<3x4x!quant.uniform<i16:f32, 0.5>>) -> tensor<2x4x!quant.uniform<i32:f32, 0.25>> {
  %0 = stablehlo.dot %arg0, %arg1 : (tensor<2x3x!quant.uniform<i16:f32, 0.5>>, tensor<3x4x!quant.uniform<i16:f32, 0.5>>) -> tensor<2x4x!quant.uniform<i32:f32, 0.25>>
  func.return %0 : tensor<2x4x!quant.uniform<i32:f32, 0.25>>
}

// -----

// Hybrid (f32 lhs, quantized rhs): hybrid_dequantize_then_op, the rhs dequantized
// per channel and the float dot_general kept with its attributes.

// CHECK-LABEL: func.func @hybrid(%arg0: tensor<2x3xf32>, %arg1: tensor<3x4xi8>) -> tensor<2x4xf32>
// CHECK:         %[[F:.*]] = stablehlo.convert %arg1 : (tensor<3x4xi8>) -> tensor<3x4xf32>
// CHECK:         %[[S:.*]] = stablehlo.constant dense<[5.000000e-01, 2.500000e-01, 1.000000e+00, 2.000000e+00]> : tensor<4xf32>
// CHECK:         %[[SB:.*]] = stablehlo.broadcast_in_dim %[[S]], dims = [1]
// CHECK:         %[[R:.*]] = stablehlo.multiply %[[F]], %[[SB]] : tensor<3x4xf32>
// CHECK:         stablehlo.dot_general %arg0, %[[R]], contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
func.func @hybrid(%arg0: tensor<2x3xf32>, %arg1: tensor<3x4x!quant.uniform<i8:f32:1, {0.5, 0.25, 1.0, 2.0}>>) -> tensor<2x4xf32> {
  %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x4x!quant.uniform<i8:f32:1, {0.5, 0.25, 1.0, 2.0}>>) -> tensor<2x4xf32>
  func.return %0 : tensor<2x4xf32>
}
