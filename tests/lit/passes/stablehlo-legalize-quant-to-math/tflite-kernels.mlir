// RUN: qcomp-opt %s --stablehlo-legalize-quant-to-math='rescale=fixed-point' --split-input-file | FileCheck %s

// rescale=fixed-point computes what LiteRT 2.3's reference kernels (BUILTIN_REF)
// compute (qcomp.quant.tflite; checked against LiteRT bit for bit in
// tests/importers/test_tflite_against_litert.py). The forms the .tflite importer makes:

// float -> int8 QUANTIZE is TFLite's AffineQuantize: round_nearest_afz(x / s) + zp
// (ties away from zero, the zero point added after rounding), clamped first in float.

// CHECK-LABEL: func.func @quantize(%arg0: tensor<4xf32>) -> tensor<4xi8>
// CHECK:         %[[D:.*]] = stablehlo.divide %arg0
// CHECK:         stablehlo.constant dense<-1.310000e+02> : tensor<f32>
// CHECK:         stablehlo.constant dense<1.240000e+02> : tensor<f32>
// CHECK:         %[[C:.*]] = stablehlo.clamp %{{.*}}, %[[D]], %{{.*}}
// CHECK:         %[[R:.*]] = stablehlo.round_nearest_afz %[[C]] : tensor<4xf32>
// CHECK:         stablehlo.constant dense<3.000000e+00> : tensor<4xf32>
// CHECK:         %[[Z:.*]] = stablehlo.add %[[R]]
// CHECK:         stablehlo.convert %[[Z]] : (tensor<4xf32>) -> tensor<4xi8>
func.func @quantize(%x: tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 0.125:3>> {
  %0 = stablehlo.uniform_quantize %x : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 0.125:3>>
  func.return %0 : tensor<4x!quant.uniform<i8:f32, 0.125:3>>
}

// -----

// FULLY_CONNECTED's requantize (marked by the importer): TFLite's reference kernel
// rescales the i32 accumulator in f64, round(acc * s_acc / s_out) half away from zero,
// then + zp, clamped (0.0625 / 0.25 = 0.25). Unmarked, it would be MBQM.

// CHECK-LABEL: func.func @fully_connected(%arg0: tensor<2x3xi32>) -> tensor<2x3xi8>
// CHECK:         %[[F:.*]] = stablehlo.convert %arg0 : (tensor<2x3xi32>) -> tensor<2x3xf64>
// CHECK:         stablehlo.constant dense<2.500000e-01> : tensor<2x3xf64>
// CHECK:         %[[M:.*]] = stablehlo.multiply %[[F]]
// CHECK:         %[[R:.*]] = stablehlo.round_nearest_afz %[[M]] : tensor<2x3xf64>
// CHECK:         stablehlo.convert %[[R]] : (tensor<2x3xf64>) -> tensor<2x3xi64>
// CHECK:         stablehlo.constant dense<-1> : tensor<2x3xi64>
// CHECK:         stablehlo.clamp
// CHECK-NOT:     stablehlo.shift_right_arithmetic
// CHECK:         stablehlo.convert %{{.*}} : (tensor<2x3xi64>) -> tensor<2x3xi8>
func.func @fully_connected(%acc: tensor<2x3x!quant.uniform<i32:f32, 0.0625>>) -> tensor<2x3x!quant.uniform<i8:f32, 0.25:-1>> {
  %0 = stablehlo.uniform_quantize %acc {tfl.kernel = "fully_connected"} : (tensor<2x3x!quant.uniform<i32:f32, 0.0625>>) -> tensor<2x3x!quant.uniform<i8:f32, 0.25:-1>>
  func.return %0 : tensor<2x3x!quant.uniform<i8:f32, 0.25:-1>>
}

// -----

// MEAN over 12 values (QuantizedMeanOrSum): Σ q - z_in * 12 (z_in = 2: 24), then MBQM
// with QuantizeMultiplier(0.5 / 0.25) = (2^30, 2) turned into a mean: k = floor(log2 12)
// = 3, M' = (2^30 << 3) / 12 = 715827882, shift 2 - 3 = -1; + z_out (-4). The
// decomposition stays (unused; --verify-numerics compares it).

// CHECK-LABEL: func.func @mean(%arg0: tensor<1x3x4x2xi8>) -> tensor<1x2xi8>
// CHECK:         stablehlo.reduce(%{{.*}} init: %{{.*}}) applies stablehlo.add across dimensions = [1, 2] : (tensor<1x3x4x2xi64>, tensor<i64>) -> tensor<1x2xi64>
// CHECK:         stablehlo.constant dense<24> : tensor<1x2xi64>
// CHECK:         stablehlo.constant dense<715827882> : tensor<1x2xi64>
// CHECK:         stablehlo.constant dense<31> : tensor<1x2xi64>
// CHECK:         stablehlo.shift_right_arithmetic
// CHECK:         stablehlo.constant dense<-4> : tensor<1x2xi64>
// CHECK:         stablehlo.convert %{{.*}} : (tensor<1x2xi64>) -> tensor<1x2xi8>
func.func @mean(%x: tensor<1x3x4x2x!quant.uniform<i8:f32, 0.5:2>>) -> tensor<1x2x!quant.uniform<i8:f32, 0.25:-4>> {
  %0 = stablehlo.composite "tfl.mean" %x {composite_attributes = {axes = array<i64: 1, 2>, keep_dims = false}, decomposition = @tfl.mean_0} : (tensor<1x3x4x2x!quant.uniform<i8:f32, 0.5:2>>) -> tensor<1x2x!quant.uniform<i8:f32, 0.25:-4>>
  func.return %0 : tensor<1x2x!quant.uniform<i8:f32, 0.25:-4>>
}
func.func private @tfl.mean_0(%arg0: tensor<1x3x4x2x!quant.uniform<i8:f32, 0.5:2>>) -> tensor<1x2x!quant.uniform<i8:f32, 0.25:-4>> {
  %0 = stablehlo.uniform_dequantize %arg0 : (tensor<1x3x4x2x!quant.uniform<i8:f32, 0.5:2>>) -> tensor<1x3x4x2xf32>
  %1 = stablehlo.constant dense<0.0> : tensor<f32>
  %2 = stablehlo.reduce(%0 init: %1) applies stablehlo.add across dimensions = [1, 2] : (tensor<1x3x4x2xf32>, tensor<f32>) -> tensor<1x2xf32>
  %3 = stablehlo.constant dense<12.0> : tensor<1x2xf32>
  %4 = stablehlo.divide %2, %3 : tensor<1x2xf32>
  %5 = stablehlo.uniform_quantize %4 : (tensor<1x2xf32>) -> tensor<1x2x!quant.uniform<i8:f32, 0.25:-4>>
  func.return %5 : tensor<1x2x!quant.uniform<i8:f32, 0.25:-4>>
}

// -----

// int8 SOFTMAX is TFLite's table kernel (the reference resolver's too): e = T[max - q]
// with T[k] = expf(-s_in * beta * k) a 256-entry f32 constant (T[0] = 1.0 =
// 0x3F800000), S = e_0 + e_1 + e_2 in TFLite's order (f32, unrolled over slices),
// p = e * (1 / (S * 1/256)), round half away from zero, - 128, clamped.

// CHECK-LABEL: func.func @softmax(%arg0: tensor<2x3xi8>) -> tensor<2x3xi8>
// CHECK:         %[[Q:.*]] = stablehlo.convert %arg0 : (tensor<2x3xi8>) -> tensor<2x3xi32>
// CHECK:         stablehlo.reduce(%[[Q]] init: %{{.*}}) applies stablehlo.maximum across dimensions = [1]
// CHECK:         %[[MAX:.*]] = stablehlo.broadcast_in_dim
// CHECK:         %[[T:.*]] = stablehlo.constant dense<"0x0000803F{{[0-9A-F]*}}"> : tensor<256xf32>
// CHECK:         stablehlo.subtract %[[MAX]], %[[Q]] : tensor<2x3xi32>
// CHECK:         %[[E:.*]] = "stablehlo.gather"(%[[T]], %{{.*}})
// CHECK:         %[[E0:.*]] = stablehlo.slice %[[E]] [0:2, 0:1]
// CHECK:         %[[E1:.*]] = stablehlo.slice %[[E]] [0:2, 1:2]
// CHECK:         %[[S1:.*]] = stablehlo.add %[[E0]], %[[E1]] : tensor<2x1xf32>
// CHECK:         %[[E2:.*]] = stablehlo.slice %[[E]] [0:2, 2:3]
// CHECK:         %[[S:.*]] = stablehlo.add %[[S1]], %[[E2]] : tensor<2x1xf32>
// CHECK:         stablehlo.constant dense<3.906250e-03> : tensor<2x1xf32>
// CHECK:         stablehlo.multiply %[[S]]
// CHECK:         stablehlo.divide
// CHECK:         %[[P:.*]] = stablehlo.multiply %[[E]]
// CHECK:         stablehlo.round_nearest_afz %[[P]] : tensor<2x3xf32>
// CHECK:         stablehlo.constant dense<127> : tensor<i32>
// CHECK:         stablehlo.convert %{{.*}} : (tensor<2x3xi32>) -> tensor<2x3xi8>
func.func @softmax(%x: tensor<2x3x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<2x3x!quant.uniform<i8:f32, 0.00390625:-128>> {
  %0 = stablehlo.composite "tfl.softmax" %x {composite_attributes = {beta = 1.0 : f32}, decomposition = @tfl.softmax_0} : (tensor<2x3x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<2x3x!quant.uniform<i8:f32, 0.00390625:-128>>
  func.return %0 : tensor<2x3x!quant.uniform<i8:f32, 0.00390625:-128>>
}
func.func private @tfl.softmax_0(%arg0: tensor<2x3x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<2x3x!quant.uniform<i8:f32, 0.00390625:-128>> {
  %0 = stablehlo.uniform_dequantize %arg0 : (tensor<2x3x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<2x3xf32>
  %1 = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %2 = stablehlo.reduce(%0 init: %1) applies stablehlo.maximum across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
  %3 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<2xf32>) -> tensor<2x3xf32>
  %4 = stablehlo.subtract %0, %3 : tensor<2x3xf32>
  %5 = stablehlo.exponential %4 : tensor<2x3xf32>
  %6 = stablehlo.constant dense<0.0> : tensor<f32>
  %7 = stablehlo.reduce(%5 init: %6) applies stablehlo.add across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
  %8 = stablehlo.broadcast_in_dim %7, dims = [0] : (tensor<2xf32>) -> tensor<2x3xf32>
  %9 = stablehlo.divide %5, %8 : tensor<2x3xf32>
  %10 = stablehlo.uniform_quantize %9 : (tensor<2x3xf32>) -> tensor<2x3x!quant.uniform<i8:f32, 0.00390625:-128>>
  func.return %10 : tensor<2x3x!quant.uniform<i8:f32, 0.00390625:-128>>
}
