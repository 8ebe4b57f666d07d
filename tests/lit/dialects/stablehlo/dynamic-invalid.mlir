// RUN: qcomp-opt %s --split-input-file --verify-diagnostics
// The dynamic-shape ops' verifiers; messages are upstream's (checked with jaxlib's MLIR).

func.func @dbid_rank(%x: tensor<2x3xf32>, %s: tensor<2xi64>) {
  // expected-error@+1 {{broadcast_dimensions size (1) does not match operand rank (2)}}
  %0 = stablehlo.dynamic_broadcast_in_dim %x, %s, dims = [0] : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  return
}

// -----

func.func @dbid_dup(%x: tensor<2x3xf32>, %s: tensor<2xi64>) {
  // expected-error@+1 {{broadcast_dimensions should not have duplicates}}
  %0 = stablehlo.dynamic_broadcast_in_dim %x, %s, dims = [0, 0] : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  return
}

// -----

func.func @dbid_size(%x: tensor<2x3xf32>, %s: tensor<2xi64>) {
  // expected-error@+1 {{size of operand dimension 1 (3) is not compatible with size of result dimension 1 (4)}}
  %0 = stablehlo.dynamic_broadcast_in_dim %x, %s, dims = [0, 1] : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2x4xf32>
  return
}

// -----

func.func @dbid_shape_constant(%x: tensor<2x3xf32>) {
  %s = stablehlo.constant dense<[2, 5]> : tensor<2xi64>
  // expected-error@+1 {{output shape [2, 5] is incompatible with return type of operation 'tensor<2x3xf32>'}}
  %0 = stablehlo.dynamic_broadcast_in_dim %x, %s, dims = [0, 1] : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  return
}

// -----

func.func @dbid_hint(%x: tensor<2x3xf32>, %s: tensor<2xi64>) {
  // expected-error@+1 {{duplicate expansion hint for at least one operand dimension}}
  %0 = stablehlo.dynamic_broadcast_in_dim %x, %s, dims = [0, 1] {known_expanding_dimensions = array<i64: 0>, known_nonexpanding_dimensions = array<i64: 0>} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  return
}

// -----

func.func @dynamic_iota_dim(%s: tensor<1xi64>) {
  // expected-error@+1 {{iota dimension cannot go beyond the output rank.}}
  %0 = stablehlo.dynamic_iota %s, dim = 1 : (tensor<1xi64>) -> tensor<?xf32>
  return
}

// -----

func.func @dynamic_reshape_rank(%x: tensor<?x4xf32>, %s: tensor<2xi64>) {
  // expected-error@+1 {{result should have a rank equal to the number of elements in output_shape}}
  %0 = stablehlo.dynamic_reshape %x, %s : (tensor<?x4xf32>, tensor<2xi64>) -> tensor<?xf32>
  return
}

// -----

func.func @dynamic_reshape_count(%x: tensor<2x4xf32>, %s: tensor<2xi64>) {
  // expected-error@+1 {{number of output elements (9) doesn't match expected number of elements (8)}}
  %0 = stablehlo.dynamic_reshape %x, %s : (tensor<2x4xf32>, tensor<2xi64>) -> tensor<3x3xf32>
  return
}

// -----

func.func @real_dynamic_slice_rank(%x: tensor<?x4xf32>, %s: tensor<3xi64>) {
  // expected-error@+1 {{has mismatched number of operand rank (2) and start_indices size (3)}}
  %0 = stablehlo.real_dynamic_slice %x, %s, %s, %s : (tensor<?x4xf32>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>) -> tensor<?x?xf32>
  return
}

// -----

func.func @dynamic_pad_size(%x: tensor<?x4xf32>, %v: tensor<f32>, %s: tensor<3xi64>) {
  // expected-error@+1 {{padding operands size (3) must match operand rank (2)}}
  %0 = stablehlo.dynamic_pad %x, %v, %s, %s, %s : (tensor<?x4xf32>, tensor<f32>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>) -> tensor<?x?xf32>
  return
}

// -----

func.func @dynamic_pad_interior(%x: tensor<?x4xf32>, %v: tensor<f32>, %s: tensor<2xi64>) {
  %i = stablehlo.constant dense<[0, -1]> : tensor<2xi64>
  // expected-error@+1 {{interior_padding must be non-negative, but got 0, -1}}
  %0 = stablehlo.dynamic_pad %x, %v, %s, %s, %i : (tensor<?x4xf32>, tensor<f32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x?xf32>
  return
}

// -----

func.func @dynamic_slice_sizes(%x: tensor<3x4xf32>, %i: tensor<i64>) {
  // expected-error@+1 {{has mismatched number of slice sizes (1) and number of start indices (2)}}
  %0 = stablehlo.dynamic_slice %x, %i, %i, sizes = [1] : (tensor<3x4xf32>, tensor<i64>, tensor<i64>) -> tensor<1xf32>
  return
}

// -----

func.func @dynamic_slice_too_big(%x: tensor<3x4xf32>, %i: tensor<i64>) {
  // expected-error@+1 {{has slice size 5 greater than dimension size 4 in dimension 1 of operand}}
  %0 = stablehlo.dynamic_slice %x, %i, %i, sizes = [1, 5] : (tensor<3x4xf32>, tensor<i64>, tensor<i64>) -> tensor<1x5xf32>
  return
}

// -----

func.func @dynamic_slice_index_types(%x: tensor<3x4xf32>, %i: tensor<i64>, %j: tensor<i32>) {
  // expected-error@+1 {{start indices must have same element type}}
  %0 = stablehlo.dynamic_slice %x, %i, %j, sizes = [1, 2] : (tensor<3x4xf32>, tensor<i64>, tensor<i32>) -> tensor<1x2xf32>
  return
}

// -----

func.func @dynamic_update_slice_rank(%x: tensor<3x4xf32>, %u: tensor<2xf32>, %i: tensor<i64>) {
  // expected-error@+1 {{update rank does not match operand rank: 1 vs 2.}}
  %0 = stablehlo.dynamic_update_slice %x, %u, %i, %i : (tensor<3x4xf32>, tensor<2xf32>, tensor<i64>, tensor<i64>) -> tensor<3x4xf32>
  return
}

// -----

func.func @dynamic_update_slice_size(%x: tensor<3x4xf32>, %u: tensor<2x5xf32>, %i: tensor<i64>) {
  // expected-error@+1 {{expects size at dimension 1 of update to be in range [0, 4]. Got: 5.}}
  %0 = stablehlo.dynamic_update_slice %x, %u, %i, %i : (tensor<3x4xf32>, tensor<2x5xf32>, tensor<i64>, tensor<i64>) -> tensor<3x4xf32>
  return
}

// -----

func.func @get_dimension_size_dim(%x: tensor<3x4xf32>) {
  // expected-error@+1 {{requires dimension attribute in range [0, 2); found (2)}}
  %0 = stablehlo.get_dimension_size %x, dim = 2 : (tensor<3x4xf32>) -> tensor<i32>
  return
}

// -----

func.func @dynamic_conv_padding(%x: tensor<1x8x4xf32>, %k: tensor<3x4x4xf32>, %p: tensor<2x2xi64>) {
  // expected-error@+1 {{expects padding to be of shape [1, 2], but got [2, 2]}}
  %0 = "stablehlo.dynamic_conv"(%x, %k, %p) {batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>, feature_group_count = 1 : i64} : (tensor<1x8x4xf32>, tensor<3x4x4xf32>, tensor<2x2xi64>) -> tensor<1x?x4xf32>
  return
}

// -----

// #stablehlo.bounds against its tensor: upstream's messages (upstream reports them at
// the type, qcomp at the first StableHLO op that uses it).

func.func @bounds_rank(%a: tensor<?x4xf32, #stablehlo.bounds<8>>) {
  // expected-error@+1 {{Bounds length is 1, expected to be equal to rank(2) of the tensor 'tensor<?x4xf32>'}}
  %0 = stablehlo.negate %a : tensor<?x4xf32, #stablehlo.bounds<8>>
  return
}

// -----

func.func @bounds_static(%a: tensor<?x4xf32, #stablehlo.bounds<8, 4>>) {
  // expected-error@+1 {{Static dimension 1 cannot have a bound, use ShapedType::kDynamic to indicate a missing bound in tensor 'tensor<?x4xf32>'}}
  %0 = stablehlo.negate %a : tensor<?x4xf32, #stablehlo.bounds<8, 4>>
  return
}
