// RUN: qcomp-opt %s | FileCheck %s
// RUN: qcomp-opt %s --mlir-print-op-generic | qcomp-opt | FileCheck %s
// The collective ops (generic form, as upstream prints them), replica_id, partition_id.
// CHECK lines are upstream MLIR's printing (jaxlib) of this file.

// CHECK-LABEL: func.func @collective_ops
func.func @collective_ops(%x: tensor<2x2xi64>, %f: tensor<4xf32>, %r: tensor<2xi32>) -> tensor<2x2xi64> {
  // CHECK: {{.*}} = "stablehlo.all_gather"(%arg0) <{all_gather_dim = 1 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids}> : (tensor<2x2xi64>) -> tensor<2x4xi64>
  %0 = "stablehlo.all_gather"(%x) {all_gather_dim = 1 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>, use_global_device_ids} : (tensor<2x2xi64>) -> tensor<2x4xi64>
  // CHECK: {{.*}} = "stablehlo.all_reduce"(%arg1) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> ({
  %1 = "stablehlo.all_reduce"(%f) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    // CHECK: {{.*}} = stablehlo.add %arg3, %arg4 : tensor<f32>
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: {{.*}} = "stablehlo.reduce_scatter"(%arg1) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, scatter_dimension = 0 : i64}> ({
  %2 = "stablehlo.reduce_scatter"(%f) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    // CHECK: {{.*}} = stablehlo.maximum %arg3, %arg4 : tensor<f32>
    %s = stablehlo.maximum %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {scatter_dimension = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<2xf32>
  // CHECK: {{.*}} = "stablehlo.all_to_all"(%arg0) <{concat_dimension = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, split_count = 2 : i64, split_dimension = 1 : i64}> : (tensor<2x2xi64>) -> tensor<4x1xi64>
  %3 = "stablehlo.all_to_all"(%x) {split_dimension = 1 : i64, concat_dimension = 0 : i64, split_count = 2 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2x2xi64>) -> tensor<4x1xi64>
  // CHECK: {{.*}} = "stablehlo.collective_permute"(%arg0) <{channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>, source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>}> : (tensor<2x2xi64>) -> tensor<2x2xi64>
  %4 = "stablehlo.collective_permute"(%x) {source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>} : (tensor<2x2xi64>) -> tensor<2x2xi64>
  // CHECK: {{.*}} = "stablehlo.collective_broadcast"(%arg0) <{replica_groups = dense<[[1, 0]]> : tensor<1x2xi64>}> : (tensor<2x2xi64>) -> tensor<2x2xi64>
  %5 = "stablehlo.collective_broadcast"(%x) {replica_groups = dense<[[1, 0]]> : tensor<1x2xi64>} : (tensor<2x2xi64>) -> tensor<2x2xi64>
  // CHECK: {{.*}} = stablehlo.replica_id : tensor<ui32>
  %6 = stablehlo.replica_id : tensor<ui32>
  // CHECK: {{.*}} = stablehlo.partition_id : tensor<ui32>
  %7 = stablehlo.partition_id : tensor<ui32>
  return %x : tensor<2x2xi64>
}
