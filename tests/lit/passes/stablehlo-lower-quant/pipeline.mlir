// RUN: qcomp-opt %s --stablehlo-lower-quant | FileCheck %s
// RUN: qcomp-opt %s -p stablehlo-lower-quant | FileCheck %s
// RUN: qcomp-opt %s --pass-pipeline='builtin.module(stablehlo-lower-quant)' | FileCheck %s
// RUN: qcomp-opt %s -p 'stablehlo-legalize-quant-to-math,canonicalize,cse' | FileCheck %s
// RUN: qcomp-opt %s --stablehlo-lower-quant | qcomp-run - | FileCheck %s --check-prefix=EXEC
// RUN: qcomp-opt %s -p 'stablehlo-lower-quant{rescale=fixed-point}' | qcomp-run - | FileCheck %s --check-prefix=EXEC
// RUN: qcomp-opt %s --stablehlo-lower-quant --print-ir-after-all 2>&1 >/dev/null | FileCheck %s --check-prefix=PASSES

// The named pipeline `stablehlo-lower-quant` is
//   stablehlo-legalize-quant-to-math   quantized ops -> integer/float math
//   canonicalize                        folds, removes dead ops
//   cse                                 merges the repeated parameter constants
// (upstream's list also has chlo-legalize-to-stablehlo, shape-legalize-to-stablehlo and
// stablehlo-canonicalize-dynamism: qcomp's quant-to-math emits no chlo or shape ops, so
// those have nothing to do). Options go to its first pass.

// PASSES: IR Dump After {{.*}}stablehlo-legalize-quant-to-math
// PASSES: IR Dump After {{.*}}canonicalize
// PASSES: IR Dump After {{.*}}cse

// No quantized type is left, and after cse the scale 0.5 and zero point 1 are one
// constant each, shared by both quantizes, the dequantizes and the requantize.
// CHECK-LABEL: func.func @main
// CHECK-NOT:     !quant
// CHECK-COUNT-1: stablehlo.constant dense<5.000000e-01> : tensor<f32>
// CHECK-NOT:     stablehlo.constant dense<5.000000e-01> : tensor<f32>
// CHECK-NOT:     !quant
// CHECK:         return

// x = [1.0, 2.3, -0.7, 100.0] quantized with 0.5:1 -> [3, 6, 0, 127] (round half to
// even, clamp); x + x in quantized arithmetic: reals [1.0, 2.5, -0.5, 63.0] doubled ->
// [2.0, 5.0, -1.0, 126.0] -> [5, 11, -1, 127] -> dequantized [2.0, 5.0, -1.0, 63.0].
// EXEC: 1 passed, 0 failed
func.func @main() {
  %x = stablehlo.constant dense<[1.0, 2.3, -0.7, 100.0]> : tensor<4xf32>
  %0 = stablehlo.uniform_quantize %x : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 0.5:1>>
  %1 = stablehlo.add %0, %0 : tensor<4x!quant.uniform<i8:f32, 0.5:1>>
  %2 = stablehlo.uniform_dequantize %1 : (tensor<4x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<4xf32>
  check.expect_eq_const %2, dense<[2.0, 5.0, -1.0, 63.0]> : tensor<4xf32>
  return
}
