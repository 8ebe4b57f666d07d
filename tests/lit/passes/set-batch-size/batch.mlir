// RUN: qcomp-opt %s -p 'set-batch-size{n=64}' | FileCheck %s

// set-batch-size rewrites the leading dimension of the arguments and of every value
// computed from them; a constant without the batch dimension is broadcast to it, a
// slice of all of dimension 0 follows the new size.

// CHECK-LABEL: func.func @main
// CHECK-SAME:    (%[[X:.*]]: tensor<64x4xi32>) -> tensor<64x2xi32>
// CHECK-NEXT:    %[[C:.*]] = stablehlo.constant dense<{{\[\[}}1, 2, 3, 4]]> : tensor<1x4xi32>
// CHECK-NEXT:    %[[B:.*]] = stablehlo.broadcast_in_dim %[[C]], dims = [0, 1] : (tensor<1x4xi32>) -> tensor<64x4xi32>
// CHECK-NEXT:    %[[A:.*]] = stablehlo.add %[[X]], %[[B]] : tensor<64x4xi32>
// CHECK-NEXT:    %[[S:.*]] = stablehlo.slice %[[A]] [0:64, 1:3] : (tensor<64x4xi32>) -> tensor<64x2xi32>
// CHECK-NEXT:    return %[[S]] : tensor<64x2xi32>
func.func @main(%x: tensor<1x4xi32>) -> tensor<1x2xi32> {
  %c = stablehlo.constant dense<[[1, 2, 3, 4]]> : tensor<1x4xi32>
  %y = stablehlo.add %x, %c : tensor<1x4xi32>
  %z = stablehlo.slice %y [0:1, 1:3] : (tensor<1x4xi32>) -> tensor<1x2xi32>
  return %z : tensor<1x2xi32>
}
