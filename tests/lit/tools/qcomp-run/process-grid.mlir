// RUN: qcomp-run %s --input=2xf32=1,2 --num-replicas 2 --num-partitions 2 | FileCheck %s
// RUN: not qcomp-run %s --input=2xf32=1,2 2>&1 | FileCheck %s --check-prefix=NOGRID
// RUN: not qcomp-run %s --input=2xf32=1,2 --num-replicas 3 2>&1 | FileCheck %s --check-prefix=NOGROUP

// --num-replicas / --num-partitions run the entry as every process of the grid (the
// same inputs each); outside a grid a collective is upstream's error.

// CHECK: @main (replica 0, partition 0) result[0]: 4xf32=[1 2 1 2]
// CHECK: @main (replica 0, partition 0) result[1]: ui32=0
// CHECK: @main (replica 0, partition 0) result[2]: ui32=0
// CHECK: @main (replica 0, partition 1) result[2]: ui32=1
// CHECK: @main (replica 1, partition 0) result[1]: ui32=1
// CHECK: @main (replica 1, partition 1) result[0]: 4xf32=[1 2 1 2]
// CHECK: @main (replica 1, partition 1) result[1]: ui32=1
// CHECK: @main (replica 1, partition 1) result[2]: ui32=1

// NOGRID: process-grid.mlir:[[# @LINE + 4]]:8: error: all_gather is only supported when run via interpreter.run_parallel
// NOGROUP: error: (replica 2, partition 0): Failed to find process group with process_id: (2, 0)
// NOGROUP-NOT: Traceback
func.func @main(%x: tensor<2xf32>) -> (tensor<4xf32>, tensor<ui32>, tensor<ui32>) {
  %r = "stablehlo.all_gather"(%x) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2xf32>) -> tensor<4xf32>
  %i = stablehlo.replica_id : tensor<ui32>
  %p = stablehlo.partition_id : tensor<ui32>
  return %r, %i, %p : tensor<4xf32>, tensor<ui32>, tensor<ui32>
}
