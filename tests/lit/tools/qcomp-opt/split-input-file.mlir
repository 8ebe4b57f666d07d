// RUN: qcomp-opt %s -split-input-file | FileCheck %s
// RUN: qcomp-opt %s --split-input-file --print-op-generic | qcomp-opt --split-input-file | FileCheck %s

// Each chunk is parsed, verified and printed on its own; the outputs are joined
// with the marker, as mlir-opt does.

// CHECK-LABEL: func.func @first
// CHECK:         stablehlo.add
// CHECK:       // -----
// CHECK-LABEL: func.func @second
// CHECK:         stablehlo.subtract
// CHECK:       // -----
// CHECK-LABEL: func.func @first
// CHECK-NOT:   // -----

func.func @first(%arg0: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %arg0, %arg0 : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @second(%arg0: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.subtract %arg0, %arg0 : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// The same symbol again: chunks do not see each other.
func.func @first(%arg0: tensor<2xf32>) -> tensor<2xf32> {
  return %arg0 : tensor<2xf32>
}
