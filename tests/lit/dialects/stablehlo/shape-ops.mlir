// RUN: qcomp-opt %s | FileCheck %s
// RUN: qcomp-opt %s --print-op-generic | qcomp-opt | FileCheck %s
// Type-changing and data-movement ops: transpose, reshape, broadcast_in_dim, concatenate, slice, pad, bitcast_convert, iota, constant, gather (generic, #stablehlo.gather).
// CHECK lines are upstream stablehlo-opt's printing of this file.

// CHECK-LABEL: func.func @shape_ops
func.func @shape_ops(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>, %s: tensor<f32>, %d: tensor<?x8xf32>, %v: tensor<8xf32>) {
  // CHECK: = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %t = stablehlo.transpose %x, dims = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
  // CHECK: = stablehlo.reshape %arg0 : (tensor<4x8xf32>) -> tensor<32xf32>
  %r = stablehlo.reshape %x : (tensor<4x8xf32>) -> tensor<32xf32>
  // CHECK: = stablehlo.reshape %arg3 : (tensor<?x8xf32>) -> tensor<4x8xf32>
  %r2 = stablehlo.reshape %d : (tensor<?x8xf32>) -> tensor<4x8xf32>
  // CHECK: = stablehlo.broadcast_in_dim %arg2, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
  %b0 = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
  // CHECK: = stablehlo.broadcast_in_dim %arg4, dims = [1] : (tensor<8xf32>) -> tensor<4x8xf32>
  %b1 = stablehlo.broadcast_in_dim %v, dims = [1] : (tensor<8xf32>) -> tensor<4x8xf32>
  // CHECK: = stablehlo.concatenate %arg0, %arg1, dim = 0 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
  %c = stablehlo.concatenate %x, %y, dim = 0 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
  // CHECK: = stablehlo.concatenate %arg0, dim = 1 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %c1 = stablehlo.concatenate %x, dim = 1 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: = stablehlo.slice %arg0 [0:4, 1:7:2] : (tensor<4x8xf32>) -> tensor<4x3xf32>
  %sl = stablehlo.slice %x [0:4, 1:7:2] : (tensor<4x8xf32>) -> tensor<4x3xf32>
  // CHECK: = stablehlo.pad %arg0, %arg2, low = [0, 1], high = [1, 0], interior = [0, 1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<5x16xf32>
  %p = stablehlo.pad %x, %s, low = [0, 1], high = [1, 0], interior = [0, 1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<5x16xf32>
  // CHECK: = stablehlo.bitcast_convert %arg0 : (tensor<4x8xf32>) -> tensor<4x8xi32>
  %bc = stablehlo.bitcast_convert %x : (tensor<4x8xf32>) -> tensor<4x8xi32>
  // CHECK: = stablehlo.bitcast_convert %arg0 : (tensor<4x8xf32>) -> tensor<4x8x4xi8>
  %bc2 = stablehlo.bitcast_convert %x : (tensor<4x8xf32>) -> tensor<4x8x4xi8>
  // CHECK: = stablehlo.iota dim = 1 : tensor<4x8xi32>
  %io = stablehlo.iota dim = 1 : tensor<4x8xi32>
  // CHECK: = stablehlo.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
  %cst = stablehlo.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
  // CHECK: = stablehlo.constant dense<0> : tensor<2x3xi8>
  %splat = stablehlo.constant dense<0> : tensor<2x3xi8>
  // CHECK: = stablehlo.constant {some.tag} dense<true> : tensor<i1>
  %ca = stablehlo.constant {some.tag} dense<true> : tensor<i1>
  // CHECK: = "stablehlo.gather"(%arg0, %11) <{dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 2>, indices_are_sorted = true, slice_sizes = array<i64: 1, 8>}> : (tensor<4x8xf32>, tensor<4x8xi32>) -> tensor<4x8x8xf32>
  %g = "stablehlo.gather"(%x, %io) <{dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 2>, indices_are_sorted = true, slice_sizes = array<i64: 1, 8>}> : (tensor<4x8xf32>, tensor<4x8xi32>) -> tensor<4x8x8xf32>
  // CHECK: = "stablehlo.gather"(%arg0, %11) <{dimension_numbers = #stablehlo.gather<offset_dims = [2], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 2>, slice_sizes = array<i64: 1, 2>}> : (tensor<4x8xf32>, tensor<4x8xi32>) -> tensor<4x8x2xf32>
  %g2 = "stablehlo.gather"(%x, %io) <{dimension_numbers = #stablehlo.gather<offset_dims = [2], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 2>, slice_sizes = array<i64: 1, 2>}> : (tensor<4x8xf32>, tensor<4x8xi32>) -> tensor<4x8x2xf32>
  return
}
