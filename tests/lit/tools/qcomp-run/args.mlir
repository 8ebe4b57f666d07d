// RUN: qcomp-run %s --args="[dense<1> : tensor<2xi32>, dense<[2, 5]> : tensor<2xi32>]" | FileCheck %s
// RUN: not qcomp-run %s --args="not_array" 2>&1 | FileCheck %s --check-prefixes=CHECK-ERROR-NOT-ARRAY
// RUN: not qcomp-run %s --args="[4.0 : f32]" 2>&1 | FileCheck %s --check-prefixes=CHECK-ERROR-NOT-DENSE
// RUN: not qcomp-run %s --args="[dense<1> : tensor<3xi32>, dense<2> : tensor<2xi32>]" 2>&1 | FileCheck %s --check-prefixes=CHECK-ERROR-SHAPE
// RUN: not qcomp-run %s --args="[dense<1> : tensor<2xi32>]" --input=2xi32=1 2>&1 | FileCheck %s --check-prefixes=CHECK-ERROR-BOTH
// `--args` as stablehlo-translate --interpret takes it (upstream's
// interpret/api_input_arguments.mlir), with upstream's messages.

// CHECK-ERROR-NOT-ARRAY: qcomp-run: error: expectected array attribute string for args, i.e. --args=[dense<1> : tensor<2xi32>, ...]
// CHECK-ERROR-NOT-DENSE: qcomp-run: error: expected dense elements attribute for args elements, i.e. --args=[dense<1> : tensor<2xi32>, ...]
// CHECK-ERROR-SHAPE: qcomp-run: error: @main argument 0 (%arg0): expected 2xi32, got 3xi32 from --args
// CHECK-ERROR-BOTH: qcomp-run: error: give the arguments with one of --input, --inputs, --args

func.func @main(%arg0: tensor<2xi32>, %arg1: tensor<2xi32>) -> tensor<2xi32> {
  %0 = stablehlo.add %arg0, %arg1 : tensor<2xi32>
  return %0 : tensor<2xi32>
}

// CHECK: @main result[0]: 2xi32=[3 6]
