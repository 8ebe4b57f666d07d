// RUN: qcomp-opt %s | FileCheck %s
// RUN: qcomp-opt %s --mlir-print-op-generic | qcomp-opt | FileCheck %s
// scatter (one and two operands, batching dims), select_and_scatter and sort, in the
// generic form upstream prints. CHECK lines are jaxlib's MLIR printing of this file.

// CHECK-LABEL: func.func @scatter(
// CHECK-NEXT: %0 = "stablehlo.scatter"(%arg0, %arg1, %arg2) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = true}> ({
// CHECK-NEXT: ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
// CHECK-NEXT: %1 = stablehlo.add %arg3, %arg4 : tensor<f32>
// CHECK-NEXT: stablehlo.return %1 : tensor<f32>
// CHECK-NEXT: }) : (tensor<5x3xf32>, tensor<4x1xi32>, tensor<4x3xf32>) -> tensor<5x3xf32>
// CHECK-NEXT: return %0 : tensor<5x3xf32>
// CHECK-NEXT: }
func.func @scatter(%x: tensor<5x3xf32>, %i: tensor<4x1xi32>, %u: tensor<4x3xf32>) -> tensor<5x3xf32> {
  %r = "stablehlo.scatter"(%x, %i, %u) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = true}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<5x3xf32>, tensor<4x1xi32>, tensor<4x3xf32>) -> tensor<5x3xf32>
  return %r : tensor<5x3xf32>
}


// CHECK-LABEL: func.func @scatter_batched(
// CHECK-NEXT: %0:2 = "stablehlo.scatter"(%arg0, %arg1, %arg2, %arg3, %arg4) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [2], inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [0], scatter_dims_to_operand_dims = [1, 2], index_vector_dim = 2>}> ({
// CHECK-NEXT: ^bb0(%arg5: tensor<i32>, %arg6: tensor<f32>, %arg7: tensor<i32>, %arg8: tensor<f32>):
// CHECK-NEXT: stablehlo.return %arg7, %arg8 : tensor<i32>, tensor<f32>
// CHECK-NEXT: }) : (tensor<2x4x3xi32>, tensor<2x4x3xf32>, tensor<2x5x2xi64>, tensor<2x5x3xi32>, tensor<2x5x3xf32>) -> (tensor<2x4x3xi32>, tensor<2x4x3xf32>)
// CHECK-NEXT: return %0#0, %0#1 : tensor<2x4x3xi32>, tensor<2x4x3xf32>
// CHECK-NEXT: }
func.func @scatter_batched(%x: tensor<2x4x3xi32>, %y: tensor<2x4x3xf32>, %i: tensor<2x5x2xi64>, %u: tensor<2x5x3xi32>, %v: tensor<2x5x3xf32>) -> (tensor<2x4x3xi32>, tensor<2x4x3xf32>) {
  %r:2 = "stablehlo.scatter"(%x, %y, %i, %u, %v) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [2], inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [0], scatter_dims_to_operand_dims = [1, 2], index_vector_dim = 2>}> ({
  ^bb0(%a: tensor<i32>, %c: tensor<f32>, %b: tensor<i32>, %d: tensor<f32>):
    stablehlo.return %b, %d : tensor<i32>, tensor<f32>
  }) : (tensor<2x4x3xi32>, tensor<2x4x3xf32>, tensor<2x5x2xi64>, tensor<2x5x3xi32>, tensor<2x5x3xf32>) -> (tensor<2x4x3xi32>, tensor<2x4x3xf32>)
  return %r#0, %r#1 : tensor<2x4x3xi32>, tensor<2x4x3xf32>
}


// CHECK-LABEL: func.func @select_and_scatter(
// CHECK-NEXT: %0 = "stablehlo.select_and_scatter"(%arg0, %arg1, %arg2) <{padding = dense<[[1, 1], [0, 1]]> : tensor<2x2xi64>, window_dimensions = array<i64: 3, 2>, window_strides = array<i64: 2, 2>}> ({
// CHECK-NEXT: ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
// CHECK-NEXT: %1 = stablehlo.compare GE, %arg3, %arg4, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
// CHECK-NEXT: stablehlo.return %1 : tensor<i1>
// CHECK-NEXT: }, {
// CHECK-NEXT: ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
// CHECK-NEXT: %1 = stablehlo.add %arg3, %arg4 : tensor<f32>
// CHECK-NEXT: stablehlo.return %1 : tensor<f32>
// CHECK-NEXT: }) : (tensor<5x6xf32>, tensor<3x3xf32>, tensor<f32>) -> tensor<5x6xf32>
// CHECK-NEXT: return %0 : tensor<5x6xf32>
// CHECK-NEXT: }
func.func @select_and_scatter(%x: tensor<5x6xf32>, %s: tensor<3x3xf32>, %init: tensor<f32>) -> tensor<5x6xf32> {
  %r = "stablehlo.select_and_scatter"(%x, %s, %init) <{padding = dense<[[1, 1], [0, 1]]> : tensor<2x2xi64>, window_dimensions = array<i64: 3, 2>, window_strides = array<i64: 2, 2>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %c = stablehlo.compare GE, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }, {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %t = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %t : tensor<f32>
  }) : (tensor<5x6xf32>, tensor<3x3xf32>, tensor<f32>) -> tensor<5x6xf32>
  return %r : tensor<5x6xf32>
}


// CHECK-LABEL: func.func @sort(
// CHECK-NEXT: %0:2 = "stablehlo.sort"(%arg0, %arg1) <{dimension = 1 : i64, is_stable = true}> ({
// CHECK-NEXT: ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>, %arg4: tensor<i32>, %arg5: tensor<i32>):
// CHECK-NEXT: %2 = stablehlo.compare GT, %arg2, %arg3, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
// CHECK-NEXT: stablehlo.return %2 : tensor<i1>
// CHECK-NEXT: }) : (tensor<3x7xf32>, tensor<3x7xi32>) -> (tensor<3x7xf32>, tensor<3x7xi32>)
// CHECK-NEXT: %1 = "stablehlo.sort"(%arg0) ({
// CHECK-NEXT: ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
// CHECK-NEXT: %2 = stablehlo.compare LT, %arg2, %arg3 : (tensor<f32>, tensor<f32>) -> tensor<i1>
// CHECK-NEXT: stablehlo.return %2 : tensor<i1>
// CHECK-NEXT: }) : (tensor<3x7xf32>) -> tensor<3x7xf32>
// CHECK-NEXT: return %0#0, %0#1, %1 : tensor<3x7xf32>, tensor<3x7xi32>, tensor<3x7xf32>
// CHECK-NEXT: }
func.func @sort(%k: tensor<3x7xf32>, %v: tensor<3x7xi32>) -> (tensor<3x7xf32>, tensor<3x7xi32>, tensor<3x7xf32>) {
  %r:2 = "stablehlo.sort"(%k, %v) <{dimension = 1 : i64, is_stable = true}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i32>, %d: tensor<i32>):
    %p = stablehlo.compare GT, %a, %b, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  }) : (tensor<3x7xf32>, tensor<3x7xi32>) -> (tensor<3x7xf32>, tensor<3x7xi32>)
  %s = "stablehlo.sort"(%k) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %p = stablehlo.compare LT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  }) : (tensor<3x7xf32>) -> tensor<3x7xf32>
  return %r#0, %r#1, %s : tensor<3x7xf32>, tensor<3x7xi32>, tensor<3x7xf32>
}

