// RUN: qcomp-opt %s --stablehlo-legalize-quant-to-math='rescale=fixed-point' --split-input-file | FileCheck %s

// rescale=fixed-point: every quantized -> quantized rescale is integer only, as TFLite's
// int8 kernels compute it (qcomp.quant.tflite): MultiplyByQuantizedMultiplier,
//   x = v << max(shift, 0); p = x * M; h = (p + (p >= 0 ? 2^30 : 1 - 2^30)) / 2^31
//   (toward zero), written (p + 2^30) >> 31, the same for every p
//   out = RoundingDivideByPOT(h, max(-shift, 0)) + zp_out, clamped   (in i64)
// with (M, shift) = TFLite's QuantizeMultiplier(scale); RoundingDivideByPOT(h, e) for
// e >= 1 is one rounding shift, (h + 2^(e-1) + (h >> 63)) >> e (h >> 63: -1 for h < 0). The lowering folds as it emits
// (qcomp.passes.utils.folding): a constant of one value is one splat constant of the
// operand's shape (dense<3> : tensor<4xi64>), not a broadcast_in_dim of a rank-0 one;
// folds.mlir shows each fold.

// requantize: v = q - 3, scale 0.025 / 0.15 = 1/6 -> (1431655765, -2): a right shift
// by 2 that rounds ties away from zero ((h + 2 + (h >> 63)) >> 2).

// CHECK-LABEL: func.func @requantize(%arg0: tensor<4xi8>) -> tensor<4xi8>
// CHECK:         stablehlo.convert %arg0 : (tensor<4xi8>) -> tensor<4xi64>
// CHECK:         stablehlo.constant dense<3> : tensor<4xi64>
// CHECK:         %[[V:.*]] = stablehlo.subtract
// CHECK:         stablehlo.constant dense<1431655765> : tensor<4xi64>
// CHECK:         %[[P:.*]] = stablehlo.multiply %[[V]], %{{.*}} : tensor<4xi64>
// CHECK-NEXT:    %[[NUDGE:.*]] = stablehlo.constant dense<1073741824> : tensor<4xi64>
// CHECK-NEXT:    %[[PN:.*]] = stablehlo.add %[[P]], %[[NUDGE]] : tensor<4xi64>
// CHECK-NEXT:    %[[C31:.*]] = stablehlo.constant dense<31> : tensor<4xi64>
// CHECK-NEXT:    %[[H:.*]] = stablehlo.shift_right_arithmetic %[[PN]], %[[C31]] : tensor<4xi64>
// CHECK-NEXT:    %[[E:.*]] = stablehlo.constant dense<2> : tensor<4xi64>
// CHECK-NEXT:    %[[HALF:.*]] = stablehlo.add %[[H]], %[[E]] : tensor<4xi64>
// CHECK-NEXT:    %[[C63:.*]] = stablehlo.constant dense<63> : tensor<4xi64>
// CHECK-NEXT:    %[[SIGN:.*]] = stablehlo.shift_right_arithmetic %[[H]], %[[C63]] : tensor<4xi64>
// CHECK-NEXT:    %[[UP:.*]] = stablehlo.add %[[HALF]], %[[SIGN]] : tensor<4xi64>
// CHECK-NEXT:    stablehlo.shift_right_arithmetic %[[UP]], %[[E]] : tensor<4xi64>
// CHECK:         stablehlo.constant dense<-1> : tensor<4xi64>
// CHECK:         stablehlo.clamp
// CHECK:         stablehlo.convert %{{.*}} : (tensor<4xi64>) -> tensor<4xi8>

func.func @requantize(%arg0: tensor<4x!quant.uniform<i8:f32, 0.025:3>>) -> tensor<4x!quant.uniform<i8:f32, 0.15:-1>> {
  %0 = stablehlo.uniform_quantize %arg0 : (tensor<4x!quant.uniform<i8:f32, 0.025:3>>) -> tensor<4x!quant.uniform<i8:f32, 0.15:-1>>
  func.return %0 : tensor<4x!quant.uniform<i8:f32, 0.15:-1>>
}

// -----

// add as TFLite's int8 kernel: m = 2 * max(0.5, 0.25) = 1; each operand (q - z) << 20
// times its multiplier s / m (0.5 -> (2^30, 0), 0.25 -> (2^30, -1)), summed, then
// m / (s_res * 2^20) = 2^-20 -> (2^30, -19), plus zp_res = 3. A constant is made once
// in a block and used again (the shift 20, the multiplier 2^30, which is also the
// nudge 2^30).

// CHECK-LABEL: func.func @add(%arg0: tensor<4xi8>, %arg1: tensor<4xi8>) -> tensor<4xi8>
// CHECK:         %[[L:.*]] = stablehlo.constant dense<20> : tensor<4xi64>
// CHECK:         stablehlo.shift_left
// CHECK:         %[[M:.*]] = stablehlo.constant dense<1073741824> : tensor<4xi64>
// CHECK-NEXT:    %[[P0:.*]] = stablehlo.multiply %{{.*}}, %[[M]] : tensor<4xi64>
// CHECK-NEXT:    stablehlo.add %[[P0]], %[[M]] : tensor<4xi64>
// CHECK:         stablehlo.shift_left %{{.*}}, %[[L]] : tensor<4xi64>
// CHECK-NEXT:    stablehlo.multiply %{{.*}}, %[[M]] : tensor<4xi64>
// CHECK:         stablehlo.shift_right_arithmetic
// CHECK:         stablehlo.shift_right_arithmetic
// CHECK:         %[[R:.*]] = stablehlo.shift_right_arithmetic
// CHECK-NEXT:    %[[S:.*]] = stablehlo.add %{{.*}}, %[[R]] : tensor<4xi64>
// CHECK:         stablehlo.multiply %[[S]]
// CHECK:         stablehlo.constant dense<19> : tensor<4xi64>
// CHECK:         stablehlo.shift_right_arithmetic
// CHECK:         stablehlo.constant dense<3> : tensor<4xi64>
// CHECK:         stablehlo.convert %{{.*}} : (tensor<4xi64>) -> tensor<4xi8>

func.func @add(%arg0: tensor<4x!quant.uniform<i8:f32, 0.5:1>>, %arg1: tensor<4x!quant.uniform<i8:f32, 0.25:-2>>) -> tensor<4x!quant.uniform<i8:f32, 1.0:3>> {
  %0 = stablehlo.add %arg0, %arg1 : (tensor<4x!quant.uniform<i8:f32, 0.5:1>>, tensor<4x!quant.uniform<i8:f32, 0.25:-2>>) -> tensor<4x!quant.uniform<i8:f32, 1.0:3>>
  func.return %0 : tensor<4x!quant.uniform<i8:f32, 1.0:3>>
}

// -----

// dot_general: the exact integer accumulator of dot.mlir, then one TFLite rescale per
// output channel: M = 0.5 * [0.25, 0.5] / [2.0, 0.75] = [1/16, 1/3]
// -> ([2^30, 1431655765], [-3, -1]): shifts [3, 1] rounding with [4, 1]; zp_res = [1, -2].

// CHECK-LABEL: func.func @dot_general(%arg0: tensor<2x3xi8>, %arg1: tensor<3x2xi8>) -> tensor<2x2xi8>
// CHECK:         stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<2x3xi8>, tensor<3x2xi8>) -> tensor<2x2xi32>
// CHECK:         stablehlo.convert %{{.*}} : (tensor<2x2xi32>) -> tensor<2x2xi64>
// CHECK:         stablehlo.constant dense<[1073741824, 1431655765]> : tensor<2xi64>
// CHECK:         stablehlo.broadcast_in_dim %{{.*}}, dims = [1] : (tensor<2xi64>) -> tensor<2x2xi64>
// CHECK:         stablehlo.constant dense<31> : tensor<2x2xi64>
// CHECK:         stablehlo.constant dense<[4, 1]> : tensor<2xi64>
// CHECK:         stablehlo.constant dense<[3, 1]> : tensor<2xi64>
// CHECK:         stablehlo.shift_right_arithmetic
// CHECK:         stablehlo.constant dense<[1, -2]> : tensor<2xi64>
// CHECK:         stablehlo.clamp
// CHECK:         stablehlo.convert %{{.*}} : (tensor<2x2xi64>) -> tensor<2x2xi8>

func.func @dot_general(%arg0: tensor<2x3x!quant.uniform<i8:f32, 0.5:3>>, %arg1: tensor<3x2x!quant.uniform<i8:f32:1, {0.25, 0.5}>>) -> tensor<2x2x!quant.uniform<i8:f32:1, {2.0:1, 0.75:-2}>> {
  %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<2x3x!quant.uniform<i8:f32, 0.5:3>>, tensor<3x2x!quant.uniform<i8:f32:1, {0.25, 0.5}>>) -> tensor<2x2x!quant.uniform<i8:f32:1, {2.0:1, 0.75:-2}>>
  func.return %0 : tensor<2x2x!quant.uniform<i8:f32:1, {2.0:1, 0.75:-2}>>
}
