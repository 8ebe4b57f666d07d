// RUN: not qcomp-run %s 2>&1 | FileCheck %s

// A splat constant is one value however large its type (qcomp.ir.splat): parsing and
// verifying it cost nothing, and running it is refused by the memory limit (exit code 2)
// before anything is allocated, at the constant.

// CHECK:      huge-splat.mlir:[[# @LINE + 4]]:8: error: 'stablehlo.constant' would need about 37.3 GiB, over the memory limit of 4.0 GiB (--max-memory)
// CHECK-NOT:  Traceback
// CHECK-NOT:  MemoryError
func.func @main() -> tensor<100000x100000xf32> {
  %0 = stablehlo.constant dense<1.0> : tensor<100000x100000xf32>
  return %0 : tensor<100000x100000xf32>
}
