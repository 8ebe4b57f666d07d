// RUN: qcomp-opt %s | FileCheck %s
// RUN: qcomp-opt %s | qcomp-opt | FileCheck %s
// The shape and tensor ops lower-quant-ops emits for unranked tensors, printed as
// MLIR prints them (jaxlib's MLIR prints this file the same).

// CHECK-LABEL: func.func @f
// CHECK-NEXT:    %0 = shape.shape_of %arg0 : tensor<*xf32> -> tensor<?xindex>
// CHECK-NEXT:    %1 = shape.num_elements %0 : tensor<?xindex> -> index
// CHECK-NEXT:    %from_elements = tensor.from_elements %1 : tensor<1xindex>
// CHECK-NEXT:    %reshape = tensor.reshape %arg0(%from_elements) : (tensor<*xf32>, tensor<1xindex>) -> tensor<?xf32>
// CHECK-NEXT:    %c1 = arith.constant 1 : index
// CHECK-NEXT:    %head, %tail = "shape.split_at"(%0, %c1) : (tensor<?xindex>, index) -> (tensor<?xindex>, tensor<?xindex>)
// CHECK-NEXT:    %2 = shape.num_elements %tail : tensor<?xindex> -> index
// CHECK-NEXT:    %c4 = arith.constant 4 : index
// CHECK-NEXT:    %from_elements_0 = tensor.from_elements %2, %c4 : tensor<2xindex>
// CHECK-NEXT:    %reshape_1 = tensor.reshape %arg0(%from_elements_0) : (tensor<*xf32>, tensor<2xindex>) -> tensor<?x4xf32>
// CHECK-NEXT:    %reshape_2 = tensor.reshape %reshape(%0) : (tensor<?xf32>, tensor<?xindex>) -> tensor<*xf32>
// CHECK-NEXT:    return %reshape_2 : tensor<*xf32>
func.func @f(%arg0: tensor<*xf32>) -> tensor<*xf32> {
  %0 = shape.shape_of %arg0 : tensor<*xf32> -> tensor<?xindex>
  %1 = shape.num_elements %0 : tensor<?xindex> -> index
  %from_elements = tensor.from_elements %1 : tensor<1xindex>
  %reshape = tensor.reshape %arg0(%from_elements) : (tensor<*xf32>, tensor<1xindex>) -> tensor<?xf32>
  %c1 = arith.constant 1 : index
  %head:2 = "shape.split_at"(%0, %c1) : (tensor<?xindex>, index) -> (tensor<?xindex>, tensor<?xindex>)
  %n = shape.num_elements %head#1 : tensor<?xindex> -> index
  %c4 = arith.constant 4 : index
  %f2 = tensor.from_elements %n, %c4 : tensor<2xindex>
  %r2 = tensor.reshape %arg0(%f2) : (tensor<*xf32>, tensor<2xindex>) -> tensor<?x4xf32>
  %2 = tensor.reshape %reshape(%0) : (tensor<?xf32>, tensor<?xindex>) -> tensor<*xf32>
  return %2 : tensor<*xf32>
}
