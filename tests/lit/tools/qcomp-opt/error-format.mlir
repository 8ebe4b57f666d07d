// RUN: not qcomp-opt %s 2>&1 | FileCheck %s
// RUN: not qcomp-opt %s -o %t.out 2>&1 | FileCheck %s
// RUN: not ls %t.out

// A diagnostic is `file:line:col: error: message`, the source line and a caret;
// never a Python traceback.

// CHECK:      error-format.mlir:[[# @LINE + 6]]:34: error: float literal '1.0e+39' out of range for type f32
// CHECK-NEXT: {{^}}  %0 = stablehlo.constant dense<[1.0e+39, 2.0]> : tensor<2xf32>
// CHECK-NEXT: {{^}}                                 ^
// CHECK-NOT:  Traceback
// CHECK-NOT:  module
func.func @f() -> tensor<2xf32> {
  %0 = stablehlo.constant dense<[1.0e+39, 2.0]> : tensor<2xf32>
  return %0 : tensor<2xf32>
}
