// RUN: not qcomp-opt %s --litert-verify-int8 2>&1 | FileCheck %s
// RUN: not qcomp-opt %s --litert-verify-int8 --split-input-file 2>/dev/null | FileCheck %s --check-prefix=OK

// Every violation is reported, each at its op (file:line:col, MLIR's text); the
// pass then fails (exit 1). A conforming program comes out unchanged (with
// --split-input-file, the chunks that passed are printed, as mlir-opt does).

// CHECK: report.mlir:[[# @LINE + 6]]:8: error: litert-verify-int8: LOGISTIC output [fixed-output]: (scale, zero_point) must be
// CHECK-SAME: (0.00390625 (1/256), -128), got (0.00390625 (1/256), 0)
// CHECK-NEXT: %0 = stablehlo.logistic
// CHECK: report.mlir:[[# @LINE + 4]]:8: error: litert-verify-int8: TANH output [fixed-output]
// CHECK-NOT: error
func.func @two(%x: tensor<4x!quant.uniform<i8:f32, 0.1:5>>) -> (tensor<4x!quant.uniform<i8:f32, 0.00390625>>, tensor<4x!quant.uniform<i8:f32, 0.0078125:-128>>) {
  %0 = stablehlo.logistic %x : (tensor<4x!quant.uniform<i8:f32, 0.1:5>>) -> tensor<4x!quant.uniform<i8:f32, 0.00390625>>
  %1 = stablehlo.tanh %x : (tensor<4x!quant.uniform<i8:f32, 0.1:5>>) -> tensor<4x!quant.uniform<i8:f32, 0.0078125:-128>>
  return %0, %1 : tensor<4x!quant.uniform<i8:f32, 0.00390625>>, tensor<4x!quant.uniform<i8:f32, 0.0078125:-128>>
}

// -----

// OK-LABEL: func.func @conforming
// OK-NEXT:    %0 = stablehlo.logistic %arg0 : (tensor<4x!quant.uniform<i8:f32, 1.000000e-01:5>>) -> tensor<4x!quant.uniform<i8:f32, 3.906250e-03:-128>>
// OK-NEXT:    return %0
func.func @conforming(%x: tensor<4x!quant.uniform<i8:f32, 0.1:5>>) -> tensor<4x!quant.uniform<i8:f32, 0.00390625:-128>> {
  %0 = stablehlo.logistic %x : (tensor<4x!quant.uniform<i8:f32, 0.1:5>>) -> tensor<4x!quant.uniform<i8:f32, 0.00390625:-128>>
  return %0 : tensor<4x!quant.uniform<i8:f32, 0.00390625:-128>>
}
