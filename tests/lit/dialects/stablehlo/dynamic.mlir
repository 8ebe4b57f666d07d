// RUN: qcomp-opt %s | FileCheck %s
// RUN: qcomp-opt %s --mlir-print-op-generic | qcomp-opt | FileCheck %s
// The dynamic-shape ops, #stablehlo.bounds.
// CHECK lines are upstream MLIR's printing (jaxlib) of this file.

// CHECK-LABEL: func.func @dynamic_ops
func.func @dynamic_ops(%x: tensor<?x4xf32>, %s: tensor<2xi64>, %i: tensor<i64>, %j: tensor<i64>, %u: tensor<2x2xf32>, %v: tensor<f32>, %b: tensor<?x4xf32, #stablehlo.bounds<8, ?>>, %sh: tensor<1xi32>) -> tensor<?x4xf32> {
  // CHECK: {{.*}} = stablehlo.dynamic_broadcast_in_dim %arg0, %arg1, dims = [0, 1] : (tensor<?x4xf32>, tensor<2xi64>) -> tensor<?x4xf32>
  %0 = stablehlo.dynamic_broadcast_in_dim %x, %s, dims = [0, 1] : (tensor<?x4xf32>, tensor<2xi64>) -> tensor<?x4xf32>
  // CHECK: {{.*}} = stablehlo.dynamic_broadcast_in_dim %arg0, %arg1, dims = [0, 1] {known_expanding_dimensions = array<i64: 0>, known_nonexpanding_dimensions = array<i64: 1>} : (tensor<?x4xf32>, tensor<2xi64>) -> tensor<?x4xf32>
  %1 = stablehlo.dynamic_broadcast_in_dim %x, %s, dims = [0, 1] {known_expanding_dimensions = array<i64: 0>, known_nonexpanding_dimensions = array<i64: 1>} : (tensor<?x4xf32>, tensor<2xi64>) -> tensor<?x4xf32>
  // CHECK: {{.*}} = stablehlo.dynamic_iota %arg7, dim = 0 : (tensor<1xi32>) -> tensor<?xf32>
  %2 = stablehlo.dynamic_iota %sh, dim = 0 : (tensor<1xi32>) -> tensor<?xf32>
  // CHECK: {{.*}} = stablehlo.dynamic_reshape %arg0, %arg1 : (tensor<?x4xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  %3 = stablehlo.dynamic_reshape %x, %s : (tensor<?x4xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  // CHECK: {{.*}} = stablehlo.real_dynamic_slice %arg0, %arg1, %arg1, %arg1 : (tensor<?x4xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x?xf32>
  %4 = stablehlo.real_dynamic_slice %x, %s, %s, %s : (tensor<?x4xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x?xf32>
  // CHECK: {{.*}} = stablehlo.dynamic_pad %arg0, %arg5, %arg1, %arg1, %arg1 : (tensor<?x4xf32>, tensor<f32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x?xf32>
  %5 = stablehlo.dynamic_pad %x, %v, %s, %s, %s : (tensor<?x4xf32>, tensor<f32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x?xf32>
  // CHECK: {{.*}} = stablehlo.dynamic_slice %arg0, %arg2, %arg3, sizes = [1, 2] : (tensor<?x4xf32>, tensor<i64>, tensor<i64>) -> tensor<1x2xf32>
  %6 = stablehlo.dynamic_slice %x, %i, %j, sizes = [1, 2] : (tensor<?x4xf32>, tensor<i64>, tensor<i64>) -> tensor<1x2xf32>
  // CHECK: {{.*}} = stablehlo.dynamic_update_slice %arg0, %arg4, %arg2, %arg3 : (tensor<?x4xf32>, tensor<2x2xf32>, tensor<i64>, tensor<i64>) -> tensor<?x4xf32>
  %7 = stablehlo.dynamic_update_slice %x, %u, %i, %j : (tensor<?x4xf32>, tensor<2x2xf32>, tensor<i64>, tensor<i64>) -> tensor<?x4xf32>
  // CHECK: {{.*}} = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x4xf32>) -> tensor<i32>
  %8 = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?x4xf32>) -> tensor<i32>
  // CHECK: {{.*}} = stablehlo.get_dimension_size %arg6, dim = 1 : (tensor<?x4xf32, #stablehlo.bounds<8, ?>>) -> tensor<i32>
  %9 = stablehlo.get_dimension_size %b, dim = 1 : (tensor<?x4xf32, #stablehlo.bounds<8, ?>>) -> tensor<i32>
  // CHECK: {{.*}} = "stablehlo.dynamic_gather"(%arg0, %arg1, %arg1) <{dimension_numbers = #stablehlo.gather<offset_dims = [0, 1], start_index_map = [0, 1]>, indices_are_sorted = true}> : (tensor<?x4xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x?xf32>
  %10 = "stablehlo.dynamic_gather"(%x, %s, %s) {dimension_numbers = #stablehlo.gather<offset_dims = [0, 1], start_index_map = [0, 1]>, indices_are_sorted = true} : (tensor<?x4xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x?xf32>
  // CHECK: {{.*}} = stablehlo.constant dense<1> : tensor<1x2xi64>
  %pad = stablehlo.constant dense<[[1, 1]]> : tensor<1x2xi64>
  // CHECK: {{.*}} = stablehlo.constant dense<1.000000e+00> : tensor<3x4x4xf32>
  %k = stablehlo.constant dense<1.0> : tensor<3x4x4xf32>
  // CHECK: {{.*}} = stablehlo.constant dense<1.000000e+00> : tensor<1x8x4xf32>
  %y = stablehlo.constant dense<1.0> : tensor<1x8x4xf32>
  // CHECK: {{.*}} = "stablehlo.dynamic_conv"(%cst_0, %cst, %c) <{batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>, feature_group_count = 1 : i64, window_strides = array<i64: 2>}> : (tensor<1x8x4xf32>, tensor<3x4x4xf32>, tensor<1x2xi64>) -> tensor<1x4x4xf32>
  %11 = "stablehlo.dynamic_conv"(%y, %k, %pad) {batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>, feature_group_count = 1 : i64, window_strides = array<i64: 2>} : (tensor<1x8x4xf32>, tensor<3x4x4xf32>, tensor<1x2xi64>) -> tensor<1x4x4xf32>
  return %x : tensor<?x4xf32>
}
