// RUN: qcomp-opt %s --stablehlo-legalize-quant-to-math='rescale=fixed-point' --split-input-file | FileCheck %s

// rescale=fixed-point: every quantized -> quantized rescale is integer only, as a
// TFLite / TOSA target computes it (qcomp.quant.accumulator.fixed_point_rescale):
//   v' = clamp(((v * M + 2^(shift-1)) >> shift) + zp_out, min, max)   (in i64)
// with (M, shift) = multiplier_and_shift(scale, 32).

// requantize: v = q - 3, scale 0.025 / 0.15 = 1/6 -> (1431655765, 33).

// CHECK-LABEL: func.func @requantize(%arg0: tensor<4xi8>) -> tensor<4xi8>
// CHECK:         stablehlo.convert %arg0 : (tensor<4xi8>) -> tensor<4xi64>
// CHECK:         stablehlo.constant dense<3> : tensor<i64>
// CHECK:         %[[V:.*]] = stablehlo.subtract
// CHECK:         stablehlo.constant dense<1431655765> : tensor<i64>
// CHECK:         %[[P:.*]] = stablehlo.multiply %[[V]], %{{.*}} : tensor<4xi64>
// CHECK:         stablehlo.constant dense<4294967296> : tensor<i64>
// CHECK:         %[[R:.*]] = stablehlo.add %[[P]], %{{.*}} : tensor<4xi64>
// CHECK:         stablehlo.constant dense<33> : tensor<i64>
// CHECK:         %[[S:.*]] = stablehlo.shift_right_arithmetic %[[R]], %{{.*}} : tensor<4xi64>
// CHECK:         stablehlo.constant dense<-1> : tensor<i64>
// CHECK:         stablehlo.add %[[S]]
// CHECK:         stablehlo.clamp
// CHECK:         stablehlo.convert %{{.*}} : (tensor<4xi64>) -> tensor<4xi8>

func.func @requantize(%arg0: tensor<4x!quant.uniform<i8:f32, 0.025:3>>) -> tensor<4x!quant.uniform<i8:f32, 0.15:-1>> {
  %0 = stablehlo.uniform_quantize %arg0 : (tensor<4x!quant.uniform<i8:f32, 0.025:3>>) -> tensor<4x!quant.uniform<i8:f32, 0.15:-1>>
  func.return %0 : tensor<4x!quant.uniform<i8:f32, 0.15:-1>>
}

// -----

// add the TOSA way: m = 2 * max(0.5, 0.25) = 1; operands rescaled to i32 by
// s / m * 2^20 (0.5 * 2^20 -> (2^30, 11), 0.25 * 2^20 -> (2^30, 12)), summed, and
// rescaled by m / (s_res * 2^20) = 2^-20 -> (2^30, 50), plus zp_res = 3.

// CHECK-LABEL: func.func @add(%arg0: tensor<4xi8>, %arg1: tensor<4xi8>) -> tensor<4xi8>
// CHECK:         stablehlo.constant dense<1073741824> : tensor<i64>
// CHECK:         stablehlo.constant dense<11> : tensor<i64>
// CHECK:         %[[L:.*]] = stablehlo.clamp
// CHECK:         stablehlo.constant dense<1073741824> : tensor<i64>
// CHECK:         stablehlo.constant dense<12> : tensor<i64>
// CHECK:         %[[R:.*]] = stablehlo.clamp
// CHECK:         %[[S:.*]] = stablehlo.add %[[L]], %[[R]] : tensor<4xi64>
// CHECK:         stablehlo.multiply %[[S]]
// CHECK:         stablehlo.constant dense<50> : tensor<i64>
// CHECK:         stablehlo.shift_right_arithmetic
// CHECK:         stablehlo.constant dense<3> : tensor<i64>
// CHECK:         stablehlo.convert %{{.*}} : (tensor<4xi64>) -> tensor<4xi8>

func.func @add(%arg0: tensor<4x!quant.uniform<i8:f32, 0.5:1>>, %arg1: tensor<4x!quant.uniform<i8:f32, 0.25:-2>>) -> tensor<4x!quant.uniform<i8:f32, 1.0:3>> {
  %0 = stablehlo.add %arg0, %arg1 : (tensor<4x!quant.uniform<i8:f32, 0.5:1>>, tensor<4x!quant.uniform<i8:f32, 0.25:-2>>) -> tensor<4x!quant.uniform<i8:f32, 1.0:3>>
  func.return %0 : tensor<4x!quant.uniform<i8:f32, 1.0:3>>
}

// -----

// dot_general: the exact integer accumulator of dot.mlir, then one fixed-point
// rescale per output channel: M = 0.5 * [0.25, 0.5] / [2.0, 0.75] = [1/16, 1/3]
// -> ([2^30, 1431655765], [34, 32]), zp_res = [1, -2].

// CHECK-LABEL: func.func @dot_general(%arg0: tensor<2x3xi8>, %arg1: tensor<3x2xi8>) -> tensor<2x2xi8>
// CHECK:         stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<2x3xi8>, tensor<3x2xi8>) -> tensor<2x2xi32>
// CHECK:         stablehlo.convert %{{.*}} : (tensor<2x2xi32>) -> tensor<2x2xi64>
// CHECK:         stablehlo.constant dense<[1073741824, 1431655765]> : tensor<2xi64>
// CHECK:         stablehlo.broadcast_in_dim %{{.*}}, dims = [1] : (tensor<2xi64>) -> tensor<2x2xi64>
// CHECK:         stablehlo.constant dense<[8589934592, 2147483648]> : tensor<2xi64>
// CHECK:         stablehlo.constant dense<[34, 32]> : tensor<2xi64>
// CHECK:         stablehlo.shift_right_arithmetic
// CHECK:         stablehlo.constant dense<[1, -2]> : tensor<2xi64>
// CHECK:         stablehlo.clamp
// CHECK:         stablehlo.convert %{{.*}} : (tensor<2x2xi64>) -> tensor<2x2xi8>

func.func @dot_general(%arg0: tensor<2x3x!quant.uniform<i8:f32, 0.5:3>>, %arg1: tensor<3x2x!quant.uniform<i8:f32:1, {0.25, 0.5}>>) -> tensor<2x2x!quant.uniform<i8:f32:1, {2.0:1, 0.75:-2}>> {
  %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<2x3x!quant.uniform<i8:f32, 0.5:3>>, tensor<3x2x!quant.uniform<i8:f32:1, {0.25, 0.5}>>) -> tensor<2x2x!quant.uniform<i8:f32:1, {2.0:1, 0.75:-2}>>
  func.return %0 : tensor<2x2x!quant.uniform<i8:f32:1, {2.0:1, 0.75:-2}>>
}
