// RUN: not qcomp-run %s 2>&1 | FileCheck %s

// An op the interpreter cannot run is a diagnostic at the op (exit code 2),
// never a traceback; a program without checks has no `N passed, M failed` line.

// CHECK:      error.mlir:[[# @LINE + 5]]:8: error: unsupported custom_call target @my.kernel
// CHECK-NOT:  Traceback
// CHECK-NOT:  passed
func.func @f() {
  %c = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %d = stablehlo.custom_call @my.kernel(%c) : (tensor<2xf32>) -> tensor<2xf32>
  func.return
}
