// RUN: qcomp-opt %s --split-input-file | FileCheck %s
// RUN: qcomp-opt %s --split-input-file --verify-diagnostics --stablehlo-legalize-quant-to-math | FileCheck %s
// The `test` dialect allows unknown ops in the generic form, as mlir-opt's does
// (MLIR's own quant pass tests use "test.custom_op"); they print back as written.

// CHECK-LABEL: func.func @custom
// CHECK: %0 = "test.custom_op"(%arg0) {foo = 1 : i32} : (tensor<2xf32>) -> tensor<2xf32>
func.func @custom(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "test.custom_op"(%a) {foo = 1 : i32} : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// CHECK-LABEL: func.func @region
// CHECK:      %0 = "test.custom_op"(%arg0) ({
// CHECK-NEXT: ^bb0(%arg1: f32):
// CHECK-NEXT:   "test.other"() : () -> ()
// CHECK-NEXT: }) : (tensor<2xf32>) -> tensor<2xf32>
func.func @region(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "test.custom_op"(%a) ({
  ^bb0(%x: f32):
    "test.other"() : () -> ()
  }) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
