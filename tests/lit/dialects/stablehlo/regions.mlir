// RUN: qcomp-opt %s | FileCheck %s
// RUN: qcomp-opt %s --print-op-generic | qcomp-opt | FileCheck %s
// Region ops and terminators: reduce (compact `applies` form when the body is one
// commutative stablehlo op on the block arguments, else `reducer`), reduce_window
// (generic only), optimization_barrier, custom_call, batch_norm_inference.
// CHECK lines are upstream stablehlo-opt's printing of this file.

// CHECK-LABEL: func.func @regions
func.func @regions(%x: tensor<4x8xf32>, %z: tensor<f32>, %i: tensor<4x8xi32>, %zi: tensor<i32>, %s8: tensor<8xf32>) {
  // CHECK: = stablehlo.reduce(%arg0 init: %arg1) applies stablehlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  %sum = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  // CHECK: = stablehlo.reduce(%arg0 init: %arg1) applies stablehlo.maximum across dimensions = [0, 1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<f32>
  %max = stablehlo.reduce(%x init: %z) applies stablehlo.maximum across dimensions = [0, 1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<f32>
  // CHECK: = stablehlo.reduce(%arg0 init: %arg1) across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  // CHECK-NEXT: reducer(%[[A:.+]]: tensor<f32>, %[[B:.+]]: tensor<f32>)  {
  // CHECK-NEXT: %[[S:.+]] = stablehlo.subtract %[[A]], %[[B]] : tensor<f32>
  // CHECK-NEXT: stablehlo.return %[[S]] : tensor<f32>
  // CHECK-NEXT: }
  %sub = stablehlo.reduce(%x init: %z) across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
   reducer(%a: tensor<f32>, %b: tensor<f32>)  {
    %s = stablehlo.subtract %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }
  // CHECK: stablehlo.reduce(%arg0 init: %arg1), (%arg2 init: %arg3) across dimensions = [1] : (tensor<4x8xf32>, tensor<4x8xi32>, tensor<f32>, tensor<i32>) -> (tensor<4xf32>, tensor<4xi32>)
  // CHECK-NEXT: reducer(%[[A:.+]]: tensor<f32>, %[[C:.+]]: tensor<f32>) (%[[B:.+]]: tensor<i32>, %[[D:.+]]: tensor<i32>)  {
  // CHECK-NEXT: %[[S:.+]] = stablehlo.add %[[A]], %[[C]] : tensor<f32>
  // CHECK-NEXT: %[[T:.+]] = stablehlo.add %[[B]], %[[D]] : tensor<i32>
  // CHECK-NEXT: stablehlo.return %[[S]], %[[T]] : tensor<f32>, tensor<i32>
  // CHECK-NEXT: }
  %two:2 = stablehlo.reduce(%x init: %z), (%i init: %zi) across dimensions = [1] : (tensor<4x8xf32>, tensor<4x8xi32>, tensor<f32>, tensor<i32>) -> (tensor<4xf32>, tensor<4xi32>)
   reducer(%a: tensor<f32>, %c: tensor<f32>) (%b: tensor<i32>, %d: tensor<i32>)  {
    %s = stablehlo.add %a, %c : tensor<f32>
    %t = stablehlo.add %b, %d : tensor<i32>
    stablehlo.return %s, %t : tensor<f32>, tensor<i32>
  }
  // CHECK: = "stablehlo.reduce_window"(%arg0, %arg1) <{padding = dense<{{\[\[}}0, 0], [1, 1]]> : tensor<2x2xi64>, window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>}> ({
  // CHECK-NEXT: ^{{.*}}(%[[A:.+]]: tensor<f32>, %[[B:.+]]: tensor<f32>):
  // CHECK-NEXT: %[[M:.+]] = stablehlo.maximum %[[A]], %[[B]] : tensor<f32>
  // CHECK-NEXT: stablehlo.return %[[M]] : tensor<f32>
  // CHECK-NEXT: }) : (tensor<4x8xf32>, tensor<f32>) -> tensor<2x5xf32>
  %rw = "stablehlo.reduce_window"(%x, %z) <{padding = dense<[[0, 0], [1, 1]]> : tensor<2x2xi64>, window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = stablehlo.maximum %a, %b : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) : (tensor<4x8xf32>, tensor<f32>) -> tensor<2x5xf32>
  // CHECK: = stablehlo.optimization_barrier %arg0, %arg2 : tensor<4x8xf32>, tensor<4x8xi32>
  %ob:2 = stablehlo.optimization_barrier %x, %i : tensor<4x8xf32>, tensor<4x8xi32>
  // CHECK: stablehlo.optimization_barrier(){{$}}
  stablehlo.optimization_barrier()
  // CHECK: = stablehlo.custom_call @foo(%arg0) {backend_config = "cfg", has_side_effect = true} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %cc = stablehlo.custom_call @foo(%x) {backend_config = "cfg", has_side_effect = true} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: stablehlo.custom_call @bar() {api_version = 4 : i32, backend_config = {level = 1 : i32}} : () -> ()
  stablehlo.custom_call @bar() {api_version = 4 : i32, backend_config = {level = 1 : i32}} : () -> ()
  // CHECK: = "stablehlo.batch_norm_inference"(%arg0, %arg4, %arg4, %arg4, %arg4) <{epsilon = 1.000000e-03 : f32, feature_index = 1 : i64}> : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %bn = "stablehlo.batch_norm_inference"(%x, %s8, %s8, %s8, %s8) <{epsilon = 1.000000e-03 : f32, feature_index = 1 : i64}> : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return
}
