// RUN: qcomp-opt %s | FileCheck %s
// RUN: qcomp-opt %s --print-op-generic | qcomp-opt | FileCheck %s
// Every rowwise op in its custom form; the generic form reads back to the same text.

// CHECK-LABEL: func.func @conversions
func.func @conversions(%x: tensor<5x2x4xf32>, %h: tensor<3x5xf16>) {
  // CHECK: %{{.*}} = rowwise.float_to_fused_8bit %arg0 : tensor<5x2x4xf32> -> tensor<5x2x12xui8>
  %q8 = rowwise.float_to_fused_8bit %x : tensor<5x2x4xf32> -> tensor<5x2x12xui8>
  // CHECK: rowwise.fused_8bit_to_float %{{.*}} : tensor<5x2x12xui8> -> tensor<5x2x4xf16>
  %d8 = rowwise.fused_8bit_to_float %q8 : tensor<5x2x12xui8> -> tensor<5x2x4xf16>
  // CHECK: rowwise.float_to_fused_4bit %arg1 : tensor<3x5xf16> -> tensor<3x7xui8>
  %q4 = rowwise.float_to_fused_4bit %h : tensor<3x5xf16> -> tensor<3x7xui8>
  // CHECK: rowwise.fused_4bit_to_float %{{.*}} : tensor<3x7xui8> -> tensor<3x6xf32>
  %d4 = rowwise.fused_4bit_to_float %q4 : tensor<3x7xui8> -> tensor<3x6xf32>
  // CHECK: rowwise.float_to_fused_2bit %arg1 : tensor<3x5xf16> -> tensor<3x6xui8>
  %q2 = rowwise.float_to_fused_2bit %h : tensor<3x5xf16> -> tensor<3x6xui8>
  // CHECK: rowwise.fused_2bit_to_float %{{.*}} : tensor<3x6xui8> -> tensor<3x5xf32>
  %d2 = rowwise.fused_2bit_to_float %q2 : tensor<3x6xui8> -> tensor<3x5xf32>
  // CHECK: rowwise.float_to_fused_4bit_fake %arg0 : tensor<5x2x4xf32> -> tensor<5x2x12xui8>
  %f4 = rowwise.float_to_fused_4bit_fake %x : tensor<5x2x4xf32> -> tensor<5x2x12xui8>
  // CHECK: rowwise.float_to_fused_2bit_fake %arg0 : tensor<5x2x4xf32> -> tensor<5x2x12xui8>
  %f2 = rowwise.float_to_fused_2bit_fake %x : tensor<5x2x4xf32> -> tensor<5x2x12xui8>
  // CHECK: rowwise.float_to_fused_rand %arg1 {bitwidth = 1 : i64} : tensor<3x5xf16> -> tensor<3x11xui8>
  %r1 = rowwise.float_to_fused_rand %h {bitwidth = 1 : i64} : tensor<3x5xf16> -> tensor<3x11xui8>
  // CHECK: rowwise.float_to_fused_rand %arg0 {bitwidth = 4 : i64, random = false, seed = 7 : i64} : tensor<5x2x4xf32> -> tensor<5x2x12xui8>
  %r4 = rowwise.float_to_fused_rand %x {bitwidth = 4 : i64, random = false, seed = 7 : i64} : tensor<5x2x4xf32> -> tensor<5x2x12xui8>
  // CHECK: rowwise.fused_rand_to_float %{{.*}} {bitwidth = 4 : i64} : tensor<5x2x12xui8> -> tensor<5x2x4xf32>
  %rd = rowwise.fused_rand_to_float %r4 {bitwidth = 4 : i64} : tensor<5x2x12xui8> -> tensor<5x2x4xf32>
  return
}

// CHECK-LABEL: func.func @bags
func.func @bags(%t: tensor<10x8xui8>, %idx: tensor<6xi64>, %len: tensor<3xi32>, %w: tensor<6xf32>, %off: tensor<4xi32>) {
  // CHECK: rowwise.sparse_lengths_sum %arg0, %arg1, %arg2 {bits = 4 : i64} : (tensor<10x8xui8>, tensor<6xi64>, tensor<3xi32>) -> tensor<3x8xf32>
  %s = rowwise.sparse_lengths_sum %t, %idx, %len {bits = 4 : i64} : (tensor<10x8xui8>, tensor<6xi64>, tensor<3xi32>) -> tensor<3x8xf32>
  // CHECK: rowwise.sparse_lengths_weighted_sum %arg0, %arg3, %arg1, %arg2 {bits = 2 : i64} : (tensor<10x8xui8>, tensor<6xf32>, tensor<6xi64>, tensor<3xi32>) -> tensor<3x16xf32>
  %ws = rowwise.sparse_lengths_weighted_sum %t, %w, %idx, %len {bits = 2 : i64} : (tensor<10x8xui8>, tensor<6xf32>, tensor<6xi64>, tensor<3xi32>) -> tensor<3x16xf32>
  // CHECK: rowwise.sparse_lengths_mean %arg0, %arg1, %arg2 {bits = 8 : i64} : (tensor<10x8xui8>, tensor<6xi64>, tensor<3xi32>) -> tensor<3x0xf32>
  %m = rowwise.sparse_lengths_mean %t, %idx, %len {bits = 8 : i64} : (tensor<10x8xui8>, tensor<6xi64>, tensor<3xi32>) -> tensor<3x0xf32>
  // CHECK: rowwise.embedding_bag_rowwise_offsets %arg0, %arg1, %arg4 weights %arg3 {bits = 4 : i64, include_last_offset = true} : (tensor<10x8xui8>, tensor<6xi64>, tensor<4xi32>, tensor<6xf32>) -> tensor<3x8xf32>
  %e = rowwise.embedding_bag_rowwise_offsets %t, %idx, %off weights %w {bits = 4 : i64, include_last_offset = true} : (tensor<10x8xui8>, tensor<6xi64>, tensor<4xi32>, tensor<6xf32>) -> tensor<3x8xf32>
  // CHECK: rowwise.embedding_bag_rowwise_offsets %arg0, %arg1, %arg4 {bits = 4 : i64} : (tensor<10x8xui8>, tensor<6xi64>, tensor<4xi32>) -> tensor<4x8xf32>
  %e2 = rowwise.embedding_bag_rowwise_offsets %t, %idx, %off {bits = 4 : i64} : (tensor<10x8xui8>, tensor<6xi64>, tensor<4xi32>) -> tensor<4x8xf32>
  return
}
