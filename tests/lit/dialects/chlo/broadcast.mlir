// RUN: qcomp-opt %s | FileCheck %s
// RUN: qcomp-opt %s --print-op-generic | qcomp-opt | FileCheck %s
// chlo broadcasting binary ops, with and without broadcast_dimensions.
// CHECK lines are upstream stablehlo-opt's printing of this file.

// CHECK-LABEL: func.func @chlo
func.func @chlo(%x: tensor<4x8xf32>, %v: tensor<8xf32>, %w: tensor<4xf32>, %d: tensor<?x8xf32>) {
  // CHECK: = chlo.broadcast_add %arg0, %arg1 : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %a = chlo.broadcast_add %x, %v : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  // CHECK: = chlo.broadcast_subtract %arg0, %arg2 {broadcast_dimensions = array<i64: 0>} : (tensor<4x8xf32>, tensor<4xf32>) -> tensor<4x8xf32>
  %b = chlo.broadcast_subtract %x, %w {broadcast_dimensions = array<i64: 0>} : (tensor<4x8xf32>, tensor<4xf32>) -> tensor<4x8xf32>
  // CHECK: = chlo.broadcast_multiply %arg1, %arg0 : (tensor<8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %c = chlo.broadcast_multiply %v, %x : (tensor<8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: = chlo.broadcast_divide %arg0, %arg0 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %e = chlo.broadcast_divide %x, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: = chlo.broadcast_maximum %arg3, %arg1 : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
  %f = chlo.broadcast_maximum %d, %v : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
  // CHECK: = chlo.broadcast_minimum %arg0, %arg1 : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %g = chlo.broadcast_minimum %x, %v : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return
}
