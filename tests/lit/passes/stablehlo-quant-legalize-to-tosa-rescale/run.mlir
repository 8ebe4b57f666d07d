// RUN: qcomp-opt %s --stablehlo-quant-legalize-to-tosa-rescale --tosa-rescale-legalize-to-stablehlo --split-input-file | qcomp-run - --split-input-file | FileCheck %s

// The rewritten programs (then tosa.rescale lowered to StableHLO) run by qcomp's
// interpreter, against the float reference computed by hand:
// dequantize -> op -> round(r / s_res) + zp_res -> clamp.

// CHECK: 4 passed, 0 failed

// add: 0.025:-1 + 0.075:-1 -> 0.15:-1.
//   x = [9, -1, 39, 127] -> [0.25, 0, 1.0, 3.2];  y = [3, -1, 19, 127] -> [0.3, 0, 1.5, 9.6]
//   sum [0.55, 0, 2.5, 12.8] / 0.15 = [3.67, 0, 16.67, 85.33] -> [4, 0, 17, 85] - 1
func.func @main() {
  %a = stablehlo.constant dense<[9, -1, 39, 127]> : tensor<4xi8>
  %b = stablehlo.constant dense<[3, -1, 19, 127]> : tensor<4xi8>
  %qa = stablehlo.bitcast_convert %a : (tensor<4xi8>) -> tensor<4x!quant.uniform<i8:f32, 0.025:-1>>
  %qb = stablehlo.bitcast_convert %b : (tensor<4xi8>) -> tensor<4x!quant.uniform<i8:f32, 0.075:-1>>
  %0 = stablehlo.add %qa, %qb : (tensor<4x!quant.uniform<i8:f32, 0.025:-1>>, tensor<4x!quant.uniform<i8:f32, 0.075:-1>>) -> tensor<4x!quant.uniform<i8:f32, 0.15:-1>>
  %1 = stablehlo.bitcast_convert %0 : (tensor<4x!quant.uniform<i8:f32, 0.15:-1>>) -> tensor<4xi8>
  check.expect_eq_const %1, dense<[3, -1, 16, 84]> : tensor<4xi8>
  return
}

// -----

// divide, all scales 0.5 -> 0.25, zero points 0:
//   6/4 = 3/2 = 1.5 -> 6;  5/4 = 2.5/2 = 1.25 -> 5;  7/0 = +inf -> 127;  -7/0 -> -128;
//   0/0 = NaN -> storage 0 (as the interpreters quantize NaN);  -6/4 = -1.5 -> -6;
//   127/1 = 127 -> 508 -> 127
// (upstream's formula: trunc(6/4) = 1 rescaled by 0.5 * 0.5 / 0.25 = 1 -> 1.)
func.func @main() {
  %a = stablehlo.constant dense<[6, 5, 7, -7, 0, -6, 127]> : tensor<7xi8>
  %b = stablehlo.constant dense<[4, 4, 0, 0, 0, 4, 1]> : tensor<7xi8>
  %qa = stablehlo.bitcast_convert %a : (tensor<7xi8>) -> tensor<7x!quant.uniform<i8:f32, 0.5>>
  %qb = stablehlo.bitcast_convert %b : (tensor<7xi8>) -> tensor<7x!quant.uniform<i8:f32, 0.5>>
  %0 = stablehlo.divide %qa, %qb : (tensor<7x!quant.uniform<i8:f32, 0.5>>, tensor<7x!quant.uniform<i8:f32, 0.5>>) -> tensor<7x!quant.uniform<i8:f32, 0.25>>
  %1 = stablehlo.bitcast_convert %0 : (tensor<7x!quant.uniform<i8:f32, 0.25>>) -> tensor<7xi8>
  check.expect_eq_const %1, dense<[6, 5, 127, -128, 0, -6, 127]> : tensor<7xi8>
  return
}

// -----

// multiply 0.1:0 * 0.2:0 -> 0.05:0: [10, -10, 100] * [5, 5, 5] = [1.0 * 1.0, -1.0, 10.0]
// -> [20, -20, 200 -> 127].
func.func @main() {
  %a = stablehlo.constant dense<[10, -10, 100]> : tensor<3xi8>
  %b = stablehlo.constant dense<[5, 5, 5]> : tensor<3xi8>
  %qa = stablehlo.bitcast_convert %a : (tensor<3xi8>) -> tensor<3x!quant.uniform<i8:f32, 0.1>>
  %qb = stablehlo.bitcast_convert %b : (tensor<3xi8>) -> tensor<3x!quant.uniform<i8:f32, 0.2>>
  %0 = stablehlo.multiply %qa, %qb : (tensor<3x!quant.uniform<i8:f32, 0.1>>, tensor<3x!quant.uniform<i8:f32, 0.2>>) -> tensor<3x!quant.uniform<i8:f32, 0.05>>
  %1 = stablehlo.bitcast_convert %0 : (tensor<3x!quant.uniform<i8:f32, 0.05>>) -> tensor<3xi8>
  check.expect_eq_const %1, dense<[20, -20, 127]> : tensor<3xi8>
  return
}

// -----

// compare GT (0.1 vs 0.2 scales): [1.0 > 1.0, -1.0 > 1.0, 10.0 > 1.0] = [false, false, true]
func.func @main() {
  %a = stablehlo.constant dense<[10, -10, 100]> : tensor<3xi8>
  %b = stablehlo.constant dense<[5, 5, 5]> : tensor<3xi8>
  %qa = stablehlo.bitcast_convert %a : (tensor<3xi8>) -> tensor<3x!quant.uniform<i8:f32, 0.1>>
  %qb = stablehlo.bitcast_convert %b : (tensor<3xi8>) -> tensor<3x!quant.uniform<i8:f32, 0.2>>
  %0 = stablehlo.compare GT, %qa, %qb, FLOAT : (tensor<3x!quant.uniform<i8:f32, 0.1>>, tensor<3x!quant.uniform<i8:f32, 0.2>>) -> tensor<3xi1>
  check.expect_eq_const %0, dense<[false, false, true]> : tensor<3xi1>
  return
}
