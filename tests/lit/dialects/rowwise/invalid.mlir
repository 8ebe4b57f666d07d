// RUN: qcomp-opt %s --split-input-file --verify-diagnostics
// What the rowwise verifiers reject, with their messages.

func.func @width_8bit(%x: tensor<3x8xf32>) {
  // expected-error@+1 {{'rowwise.float_to_fused_8bit' result shape must be [3, 16] (8 + 8 bytes per row of 8 columns), got 'tensor<3x15xui8>'}}
  %q = rowwise.float_to_fused_8bit %x : tensor<3x8xf32> -> tensor<3x15xui8>
  return
}

// -----

func.func @width_4bit(%x: tensor<2x5xf32>) {
  // expected-error@+1 {{'rowwise.float_to_fused_4bit' result shape must be [2, 7] (ceil(5 * 4 / 8) + 4 = 7 bytes per row of 5 columns), got 'tensor<2x6xui8>'}}
  %q = rowwise.float_to_fused_4bit %x : tensor<2x5xf32> -> tensor<2x6xui8>
  return
}

// -----

func.func @signed_bytes(%x: tensor<2x5xf32>) {
  // expected-error@+1 {{'rowwise.float_to_fused_2bit' result must be a tensor of ui8 (fused rows) with at least one dimension, got 'tensor<2x6xi8>'}}
  %q = rowwise.float_to_fused_2bit %x : tensor<2x5xf32> -> tensor<2x6xi8>
  return
}

// -----

func.func @float_input(%x: tensor<2x5xf64>) {
  // expected-error@+1 {{'rowwise.float_to_fused_8bit' operand must be a tensor of f32 or f16 with at least one dimension, got 'tensor<2x5xf64>'}}
  %q = rowwise.float_to_fused_8bit %x : tensor<2x5xf64> -> tensor<2x13xui8>
  return
}

// -----

func.func @dequantize_width(%q: tensor<2x9xui8>) {
  // expected-error@+1 {{'rowwise.fused_2bit_to_float' operand shape must be [2, 6] (ceil(8 * 2 / 8) + 4 = 6 bytes per row of 8 columns), got 'tensor<2x9xui8>'}}
  %x = rowwise.fused_2bit_to_float %q : tensor<2x9xui8> -> tensor<2x8xf32>
  return
}

// -----

func.func @fake_layout(%x: tensor<2x5xf32>) {
  // expected-error@+1 {{'rowwise.float_to_fused_4bit_fake' result shape must be [2, 13] (the 8-bit layout: 5 + 8 bytes per row of 5 columns), got 'tensor<2x7xui8>'}}
  %q = rowwise.float_to_fused_4bit_fake %x : tensor<2x5xf32> -> tensor<2x7xui8>
  return
}

// -----

func.func @rand_bitwidth(%x: tensor<1x5xf32>) {
  // expected-error@+1 {{'rowwise.float_to_fused_rand' bitwidth must be 1, 2, 4 or 8, got 3}}
  %q = rowwise.float_to_fused_rand %x {bitwidth = 3 : i64} : tensor<1x5xf32> -> tensor<1x12xui8>
  return
}

// -----

func.func @rand_width(%x: tensor<1x5xf32>) {
  // expected-error@+1 {{'rowwise.float_to_fused_rand' result shape must be [1, 12] (10 + ceil(5 * 2 / 8) = 12 bytes per row of 5 columns), got 'tensor<1x11xui8>'}}
  %q = rowwise.float_to_fused_rand %x {bitwidth = 2 : i64} : tensor<1x5xf32> -> tensor<1x11xui8>
  return
}

// -----

func.func @bag_bits(%t: tensor<10x8xui8>, %i: tensor<6xi64>, %l: tensor<3xi32>) {
  // expected-error@+1 {{'rowwise.sparse_lengths_sum' bits must be 8, 4 or 2, got 1}}
  %s = rowwise.sparse_lengths_sum %t, %i, %l {bits = 1 : i64} : (tensor<10x8xui8>, tensor<6xi64>, tensor<3xi32>) -> tensor<3x8xf32>
  return
}

// -----

func.func @bag_columns(%t: tensor<10x8xui8>, %i: tensor<6xi64>, %l: tensor<3xi32>) {
  // expected-error@+1 {{'rowwise.sparse_lengths_sum' data rows must have ceil(9 * 4 / 8) + 4 = 9 bytes for 9 result columns at 4 bits, got 'tensor<10x8xui8>'}}
  %s = rowwise.sparse_lengths_sum %t, %i, %l {bits = 4 : i64} : (tensor<10x8xui8>, tensor<6xi64>, tensor<3xi32>) -> tensor<3x9xf32>
  return
}

// -----

func.func @bag_segments(%t: tensor<10x8xui8>, %i: tensor<6xi64>, %l: tensor<3xi32>) {
  // expected-error@+1 {{'rowwise.sparse_lengths_mean' result must have 3 rows (one per segment), got 'tensor<4x0xf32>'}}
  %s = rowwise.sparse_lengths_mean %t, %i, %l {bits = 8 : i64} : (tensor<10x8xui8>, tensor<6xi64>, tensor<3xi32>) -> tensor<4x0xf32>
  return
}

// -----

func.func @bag_indices(%t: tensor<10x8xui8>, %i: tensor<6xui32>, %l: tensor<3xi32>) {
  // expected-error@+1 {{'rowwise.sparse_lengths_sum' indices must be a 1-d tensor of i32 or i64, got 'tensor<6xui32>'}}
  %s = rowwise.sparse_lengths_sum %t, %i, %l {bits = 8 : i64} : (tensor<10x8xui8>, tensor<6xui32>, tensor<3xi32>) -> tensor<3x0xf32>
  return
}

// -----

func.func @bag_weights(%t: tensor<10x8xui8>, %w: tensor<5xf32>, %i: tensor<6xi64>, %l: tensor<3xi32>) {
  // expected-error@+1 {{'rowwise.sparse_lengths_weighted_sum' weights must be f32 shaped like the indices [6], got 'tensor<5xf32>'}}
  %s = rowwise.sparse_lengths_weighted_sum %t, %w, %i, %l {bits = 8 : i64} : (tensor<10x8xui8>, tensor<5xf32>, tensor<6xi64>, tensor<3xi32>) -> tensor<3x0xf32>
  return
}

// -----

func.func @offsets_count(%t: tensor<10x8xui8>, %i: tensor<6xi64>, %o: tensor<3xi64>) {
  // expected-error@+1 {{'rowwise.embedding_bag_rowwise_offsets' result must have 2 rows (one per segment), got 'tensor<3x0xf32>'}}
  %s = rowwise.embedding_bag_rowwise_offsets %t, %i, %o {bits = 8 : i64, include_last_offset = true} : (tensor<10x8xui8>, tensor<6xi64>, tensor<3xi64>) -> tensor<3x0xf32>
  return
}
