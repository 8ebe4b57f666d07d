// RUN: not qcomp-run %s 2>&1 | FileCheck %s

// An op the interpreter cannot run is a diagnostic at the op (exit code 2),
// never a traceback.

// CHECK:      error.mlir:[[# @LINE + 5]]:8: error: unsupported custom_call target @my.kernel
// CHECK-NOT:  Traceback
// CHECK:      0 passed, 1 failed
func.func @f() {
  %c = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %d = stablehlo.custom_call @my.kernel(%c) : (tensor<2xf32>) -> tensor<2xf32>
  func.return
}
