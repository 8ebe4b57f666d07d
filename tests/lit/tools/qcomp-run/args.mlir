// RUN: qcomp-run %s --args="[dense<1> : tensor<2xi32>, dense<[2, 5]> : tensor<2xi32>]" | FileCheck %s
// RUN: not qcomp-run %s --args="not_array" 2>&1 | FileCheck %s --check-prefix=NOT-ARRAY
// RUN: not qcomp-run %s --args="[4.0 : f32]" 2>&1 | FileCheck %s --check-prefix=NOT-DENSE
// RUN: not qcomp-run %s --args="[dense<1> : tensor<3xi32>, dense<1> : tensor<2xi32>]" 2>&1 | FileCheck %s --check-prefix=SHAPE

// --args as stablehlo-translate --interpret reads it, with upstream's messages.

// CHECK: @main result[0]: 2xi32=[3 6]
// NOT-ARRAY: error: expectected array attribute string for args, i.e. --args=[dense<1> : tensor<2xi32>, ...]
// NOT-DENSE: error: expected dense elements attribute for args elements, i.e. --args=[dense<1> : tensor<2xi32>, ...]
// SHAPE: error: @main argument 0 (%arg0): expected 2xi32, got 3xi32 from --args element 0
func.func @main(%arg0: tensor<2xi32>, %arg1: tensor<2xi32>) -> tensor<2xi32> {
  %0 = stablehlo.add %arg0, %arg1 : tensor<2xi32>
  return %0 : tensor<2xi32>
}
