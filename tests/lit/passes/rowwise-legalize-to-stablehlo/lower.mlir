// RUN: qcomp-opt %s --rowwise-legalize-to-stablehlo --split-input-file | FileCheck %s
// The shape of each lowering (the whole sequences are long; the test suite also runs
// this file under --verify-numerics, which checks the numbers on random inputs).

// 8-bit: row extremes by reduce (fbgemm's FLT_MAX start, NaN masked out), f32 scale and
// inverse, rint; 10 columns are past fbgemm's blocks of 32, so the low byte of the i32
// (NaN -> 0) to ui8; scale and bias bytes by bitcast_convert, then concatenate.
// CHECK-LABEL: func.func @q8
// CHECK-NOT:   rowwise.
// CHECK:       stablehlo.reduce(%{{.*}} init: %{{.*}}) applies stablehlo.minimum across dimensions = [1] : (tensor<3x10xf32>, tensor<f32>) -> tensor<3xf32>
// CHECK:       stablehlo.reduce(%{{.*}} init: %{{.*}}) applies stablehlo.maximum across dimensions = [1] : (tensor<3x10xf32>, tensor<f32>) -> tensor<3xf32>
// CHECK:       stablehlo.round_nearest_even %{{.*}} : tensor<3x10xf32>
// CHECK:       stablehlo.convert %{{.*}} : (tensor<3x10xf32>) -> tensor<3x10xi32>
// CHECK:       stablehlo.convert %{{.*}} : (tensor<3x10xi32>) -> tensor<3x10xui8>
// CHECK:       stablehlo.bitcast_convert %{{.*}} : (tensor<3xf32>) -> tensor<3x4xui8>
// CHECK:       stablehlo.concatenate %{{.*}}, %{{.*}}, %{{.*}}, dim = 1 : (tensor<3x10xui8>, tensor<3x4xui8>, tensor<3x4xui8>) -> tensor<3x18xui8>
func.func @q8(%x: tensor<3x10xf32>) -> tensor<3x18xui8> {
  %q = rowwise.float_to_fused_8bit %x : tensor<3x10xf32> -> tensor<3x18xui8>
  return %q : tensor<3x18xui8>
}

// -----

// Dequantize: fma(q, scale, bias) in f64 with a round-to-odd fix on the bits.
// CHECK-LABEL: func.func @d8
// CHECK:       stablehlo.slice %arg0 [0:2, 0:10] : (tensor<2x18xui8>) -> tensor<2x10xui8>
// CHECK:       stablehlo.bitcast_convert %{{.*}} : (tensor<2x4xui8>) -> tensor<2xf32>
// CHECK:       stablehlo.multiply %{{.*}}, %{{.*}} : tensor<2x10xf64>
// CHECK:       stablehlo.add %{{.*}}, %{{.*}} : tensor<2x10xf64>
// CHECK:       stablehlo.bitcast_convert %{{.*}} : (tensor<2x10xf64>) -> tensor<2x10xi64>
// CHECK:       stablehlo.convert %{{.*}} : (tensor<2x10xf64>) -> tensor<2x10xf32>
// CHECK-NOT:   rowwise.
func.func @d8(%q: tensor<2x18xui8>) -> tensor<2x10xf32> {
  %d = rowwise.fused_8bit_to_float %q : tensor<2x18xui8> -> tensor<2x10xf32>
  return %d : tensor<2x10xf32>
}

// -----

// 4-bit of an N-d f16 input: rows x last dimension, f16 scale and bias, nibbles packed
// by shift_left and a reduce with `or` over [R, bytes, 2].
// CHECK-LABEL: func.func @q4
// CHECK:       stablehlo.convert %arg0 : (tensor<2x3x9xf16>) -> tensor<2x3x9xf32>
// CHECK:       stablehlo.reshape %{{.*}} : (tensor<2x3x9xf32>) -> tensor<6x9xf32>
// CHECK:       stablehlo.convert %{{.*}} : (tensor<6xf32>) -> tensor<6xf16>
// CHECK:       stablehlo.shift_left %{{.*}}, %{{.*}} : tensor<6x5x2xui8>
// CHECK:       stablehlo.reduce(%{{.*}} init: %{{.*}}) applies stablehlo.or across dimensions = [2] : (tensor<6x5x2xui8>, tensor<ui8>) -> tensor<6x5xui8>
// CHECK:       stablehlo.reshape %{{.*}} : (tensor<6x9xui8>) -> tensor<2x3x9xui8>
func.func @q4(%x: tensor<2x3x9xf16>) -> tensor<2x3x9xf32> {
  %q = rowwise.float_to_fused_4bit %x : tensor<2x3x9xf16> -> tensor<2x3x9xui8>
  %d = rowwise.fused_4bit_to_float %q : tensor<2x3x9xui8> -> tensor<2x3x9xf32>
  return %d : tensor<2x3x9xf32>
}

// -----

// CHECK-LABEL: func.func @q2
// CHECK:       stablehlo.reduce(%{{.*}} init: %{{.*}}) applies stablehlo.or across dimensions = [2] : (tensor<3x3x4xui8>, tensor<ui8>) -> tensor<3x3xui8>
func.func @q2(%x: tensor<3x9xf32>) -> tensor<3x9xf32> {
  %q = rowwise.float_to_fused_2bit %x : tensor<3x9xf32> -> tensor<3x7xui8>
  %d = rowwise.fused_2bit_to_float %q : tensor<3x7xui8> -> tensor<3x9xf32>
  return %d : tensor<3x9xf32>
}

// -----

// CHECK-LABEL: func.func @fake
// CHECK:       stablehlo.concatenate %{{.*}}, %{{.*}}, %{{.*}}, dim = 1 : (tensor<3x9xui8>, tensor<3x4xui8>, tensor<3x4xui8>) -> tensor<3x17xui8>
func.func @fake(%x: tensor<3x9xf32>) -> tensor<3x9xf32> {
  %q = rowwise.float_to_fused_4bit_fake %x : tensor<3x9xf32> -> tensor<3x17xui8>
  %d = rowwise.fused_8bit_to_float %q : tensor<3x17xui8> -> tensor<3x9xf32>
  return %d : tensor<3x9xf32>
}

// -----

// The random format: SplitMix64 in ui64 from the element index (iota), floor(t + u),
// the header, segment-interleaved packing over [R, 4 segments, 2 bytes].
// CHECK-LABEL: func.func @rand
// CHECK:       stablehlo.iota dim = 0 : tensor<3x5xui64>
// CHECK:       stablehlo.constant dense<11400714819323198485> : tensor<ui64>
// CHECK:       stablehlo.shift_right_logical %{{.*}}, %{{.*}} : tensor<3x5xui64>
// CHECK:       stablehlo.floor %{{.*}} : tensor<3x5xf32>
// CHECK:       stablehlo.constant dense<[2, 3]> : tensor<2xui8>
// CHECK:       stablehlo.reduce(%{{.*}} init: %{{.*}}) applies stablehlo.or across dimensions = [1] : (tensor<3x4x2xui8>, tensor<ui8>) -> tensor<3x2xui8>
// CHECK:       stablehlo.concatenate %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, dim = 1 : (tensor<3x2xui8>, tensor<3x4xui8>, tensor<3x4xui8>, tensor<3x2xui8>) -> tensor<3x12xui8>
func.func @rand(%x: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %q = rowwise.float_to_fused_rand %x {bitwidth = 2 : i64, seed = 7 : i64} : tensor<3x5xf32> -> tensor<3x12xui8>
  %d = rowwise.fused_rand_to_float %q {bitwidth = 2 : i64} : tensor<3x12xui8> -> tensor<3x5xf32>
  return %d : tensor<3x5xf32>
}

// -----

// CHECK-LABEL: func.func @rand_nearest
// CHECK-NOT:   stablehlo.floor
// CHECK:       stablehlo.round_nearest_even %{{.*}} : tensor<3x11xf32>
func.func @rand_nearest(%x: tensor<3x11xf32>) -> tensor<3x12xui8> {
  %q = rowwise.float_to_fused_rand %x {bitwidth = 1 : i64, random = false} : tensor<3x11xf32> -> tensor<3x12xui8>
  return %q : tensor<3x12xui8>
}

// -----

// Bags: segment starts from the lengths, the validity flag (indices in the table,
// lengths >= 0 adding up to 4), one gather of the indexed rows, then a while over the
// steps k < max(lengths), each a gather of entry k of every segment, the fma and a
// select; the flag checked and the result NaN where it is false.
// Indices are masked into the table (`and 7`) so that every random input is valid.
// CHECK-LABEL: func.func @bags
// CHECK:       stablehlo.reduce(%{{.*}} init: %{{.*}}) applies stablehlo.add across dimensions = [1] : (tensor<3x3xi64>, tensor<i64>) -> tensor<3xi64>
// CHECK:       stablehlo.reduce(%{{.*}} init: %{{.*}}) applies stablehlo.and across dimensions = [0] : (tensor<4xi1>, tensor<i1>) -> tensor<i1>
// CHECK:       "stablehlo.gather"(%{{.*}}, %{{.*}}) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 8>}> : (tensor<8x8xui8>, tensor<4x1xi64>) -> tensor<4x8xui8>
// CHECK:       stablehlo.reduce(%{{.*}} init: %{{.*}}) applies stablehlo.maximum across dimensions = [0] : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
// CHECK:       stablehlo.while(%iterArg = %{{.*}}) : tensor<i64>, tensor<i64>, tensor<3x8xf32>, tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<3xi64>, tensor<3xi64>
// CHECK:       stablehlo.compare LT, %iterArg, %iterArg_{{[0-9]+}}, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
// CHECK:       } do {
// CHECK:       stablehlo.select %{{.*}}, %{{.*}}, %{{.*}} : tensor<3x8xi1>, tensor<3x8xf32>
// CHECK:       check.expect_eq_const %{{.*}}, dense<true> : tensor<i1>
// CHECK-NOT:   rowwise.
func.func @bags(%x: tensor<8x8xf32>, %i: tensor<4xi32>, %w: tensor<4xf32>) -> (tensor<3x8xf32>, tensor<3x8xf32>) {
  %q = rowwise.float_to_fused_4bit %x : tensor<8x8xf32> -> tensor<8x8xui8>
  %m = stablehlo.constant dense<7> : tensor<4xi32>
  %idx = stablehlo.and %i, %m : tensor<4xi32>
  %len = stablehlo.constant dense<[1, 0, 3]> : tensor<3xi32>
  %s = rowwise.sparse_lengths_weighted_sum %q, %w, %idx, %len {bits = 4 : i64} : (tensor<8x8xui8>, tensor<4xf32>, tensor<4xi32>, tensor<3xi32>) -> tensor<3x8xf32>
  %mean = rowwise.sparse_lengths_mean %q, %idx, %len {bits = 4 : i64} : (tensor<8x8xui8>, tensor<4xi32>, tensor<3xi32>) -> tensor<3x8xf32>
  return %s, %mean : tensor<3x8xf32>, tensor<3x8xf32>
}

// -----

// PyTorch's offsets: starts and ends by slices (the last bag closed by the last offset).
// CHECK-LABEL: func.func @offsets
// CHECK:       stablehlo.slice %{{.*}} [0:3] : (tensor<4xi64>) -> tensor<3xi64>
// CHECK:       stablehlo.slice %{{.*}} [1:4] : (tensor<4xi64>) -> tensor<3xi64>
func.func @offsets(%t: tensor<8x16xui8>, %i: tensor<5xi64>) -> tensor<3x8xf32> {
  %m = stablehlo.constant dense<7> : tensor<5xi64>
  %idx = stablehlo.and %i, %m : tensor<5xi64>
  %off = stablehlo.constant dense<[0, 2, 2, 5]> : tensor<4xi64>
  %e = rowwise.embedding_bag_rowwise_offsets %t, %idx, %off {bits = 8 : i64, include_last_offset = true} : (tensor<8x16xui8>, tensor<5xi64>, tensor<4xi64>) -> tensor<3x8xf32>
  return %e : tensor<3x8xf32>
}
