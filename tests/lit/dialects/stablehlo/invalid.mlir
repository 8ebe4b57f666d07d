// RUN: qcomp-opt %s --split-input-file --verify-diagnostics
// StableHLO shape and type verifiers (non-quantization).
// Messages are upstream stablehlo-opt's.

func.func @add_float_types(%a: tensor<2xf32>, %b: tensor<2xf16>) {
  // expected-error@+1 {{op requires the same element type for all operands and results}}
  %0 = stablehlo.add %a, %b : (tensor<2xf32>, tensor<2xf16>) -> tensor<2xf32>
  return
}

// -----

func.func @add_shape(%a: tensor<2xf32>, %b: tensor<3xf32>) {
  // expected-error@+1 {{requires the same shape for all operands and results}}
  %0 = stablehlo.add %a, %b : (tensor<2xf32>, tensor<3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @negate_shape(%a: tensor<2xf32>) {
  // expected-error@+1 {{requires compatible types for all operands and results}}
  %0 = stablehlo.negate %a : (tensor<2xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @shift_float(%a: tensor<2xf32>) {
  // expected-error@+1 {{operand #0 must be ranked tensor of 2/4/8/16/32/64-bit integer values, but got 'tensor<2xf32>'}}
  %0 = stablehlo.shift_left %a, %a : tensor<2xf32>
  return
}

// -----

func.func @transpose_perm(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{attribute permutation must be a permutation of [0, 1] but got 0, 0}}
  %0 = stablehlo.transpose %a, dims = [0, 0] : (tensor<2x3xf32>) -> tensor<2x2xf32>
  return
}

// -----

func.func @reshape_count(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{number of output elements (7) doesn't match expected number of elements (6)}}
  %0 = stablehlo.reshape %a : (tensor<2x3xf32>) -> tensor<7xf32>
  return
}

// -----

func.func @broadcast_size(%a: tensor<2xf32>) {
  // expected-error@+1 {{size of operand dimension 0 (2) is not equal to 1 or size of result dimension 0 (3)}}
  %0 = stablehlo.broadcast_in_dim %a, dims = [0] : (tensor<2xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @constant_type() {
  // expected-error@+1 {{inferred type(s) 'tensor<2xi16>' are incompatible with return type(s) of operation 'tensor<2xi8>'}}
  %0 = stablehlo.constant() <{value = dense<1> : tensor<2xi16>}> : () -> tensor<2xi8>
  return
}

// -----

func.func @bitcast_rank(%a: tensor<2xf32>) {
  // expected-error@+1 {{rank of smaller element type (1) should be 1 more than rank of larger element type (1), but 1 != 1 + 1.}}
  %0 = stablehlo.bitcast_convert %a : (tensor<2xf32>) -> tensor<2xi8>
  return
}

// -----

func.func @dot_general_shape(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // expected-error@+1 {{inferred shape '[2, 4]' is incompatible with return type of operation 'tensor<2x5xf32>'}}
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x5xf32>
  return
}

// -----

func.func @dot_general_contracting_size(%a: tensor<2x3xf32>, %b: tensor<4x4xf32>) {
  // expected-error@+1 {{contracting dimension sizes must match for lhs/rhs}}
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @conv_shape(%a: tensor<1x4x4x1xf32>, %b: tensor<3x3x1x2xf32>) {
  // expected-error@+1 {{inferred shape '[1, 2, 2, 2]' is incompatible with return type of operation 'tensor<1x2x3x2xf32>'}}
  %0 = stablehlo.convolution(%a, %b) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 1], pad = [[1, 1], [0, 0]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x4x4x1xf32>, tensor<3x3x1x2xf32>) -> tensor<1x2x3x2xf32>
  return
}

// -----

func.func @conv_features(%a: tensor<1x4x4x2xf32>, %b: tensor<3x3x1x2xf32>) {
  // expected-error@+1 {{expects input feature dimension (2) / feature_group_count = kernel input feature dimension (1). Got feature_group_count = 1.}}
  %0 = stablehlo.convolution(%a, %b) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x4x4x2xf32>, tensor<3x3x1x2xf32>) -> tensor<1x2x2x2xf32>
  return
}

// -----

func.func @compare_types(%a: tensor<2xf32>, %b: tensor<2xf16>) {
  // expected-error@+1 {{requires compatible element types for all operands}}
  %0 = stablehlo.compare GT, %a, %b : (tensor<2xf32>, tensor<2xf16>) -> tensor<2xi1>
  return
}

// -----

func.func @compare_result(%a: tensor<2xf32>) {
  // expected-error@+1 {{result #0 must be ranked tensor of bool values, but got 'tensor<2xf32>'}}
  %0 = stablehlo.compare GT, %a, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @select_pred(%p: tensor<2xi8>, %a: tensor<2xf32>) {
  // expected-error@+1 {{operand #0 must be ranked tensor of bool values, but got 'tensor<2xi8>'}}
  %0 = stablehlo.select %p, %a, %a : (tensor<2xi8>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @select_branches(%p: tensor<2xi1>, %a: tensor<2xf32>, %b: tensor<2xf16>) {
  // expected-error@+1 {{requires compatible types for non-predicate operands}}
  %0 = stablehlo.select %p, %a, %b : (tensor<2xi1>, tensor<2xf32>, tensor<2xf16>) -> tensor<2xf32>
  return
}

// -----

func.func @select_pred_shape(%p: tensor<3xi1>, %a: tensor<2xf32>) {
  // expected-error@+1 {{requires the same shape for all operands}}
  %0 = stablehlo.select %p, %a, %a : (tensor<3xi1>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @clamp_shape(%a: tensor<2xf32>, %b: tensor<3xf32>) {
  // expected-error@+1 {{min shape [3] is not scalar and is not compatible to operand shape [2]}}
  %0 = stablehlo.clamp %b, %a, %a : (tensor<3xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @concatenate_dim(%a: tensor<2xf32>) {
  // expected-error@+1 {{dimension 1 is out-of-bounds for input rank 1}}
  %0 = stablehlo.concatenate %a, %a, dim = 1 : (tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @concatenate_shape(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) {
  // expected-error@+1 {{shapes of operand (0) and (1) are not compatible at non-concat index 1: (2, 3) != (2, 4)}}
  %0 = stablehlo.concatenate %a, %b, dim = 0 : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @iota_rank() {
  // expected-error@+1 {{iota dimension cannot go beyond the output rank.}}
  %0 = stablehlo.iota dim = 1 : tensor<4xi32>
  return
}

// -----

func.func @constant_dynamic() {
  // expected-error@+1 {{result #0 must be statically shaped tensor of 4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or complex type with 32/64-bit float elements or per-tensor integer quantized or per-axis integer quantized values, but got 'tensor<?xf32>'}}
  %0 = stablehlo.constant() <{value = dense<1.0> : tensor<2xf32>}> : () -> tensor<?xf32>
  return
}

// -----

func.func @reshape_dynamic(%a: tensor<2xf32>) {
  // expected-error@+1 {{result #0 must be statically shaped or single bounded dimension tensor of 4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or complex type with 32/64-bit float elements or per-tensor integer quantized or per-axis integer quantized values, but got 'tensor<?xf32>'}}
  %0 = stablehlo.reshape %a : (tensor<2xf32>) -> tensor<?xf32>
  return
}

// -----

func.func @gather_indices(%a: tensor<2xf32>, %i: tensor<1xf32>) {
  // expected-error@+1 {{operand #1 must be ranked tensor of 2/4/8/16/32/64-bit integer values, but got 'tensor<1xf32>'}}
  %0 = "stablehlo.gather"(%a, %i) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0]>, slice_sizes = array<i64: 1>}> : (tensor<2xf32>, tensor<1xf32>) -> tensor<f32>
  return
}

// -----

func.func @reduce_precision_int(%a: tensor<2xi8>) {
  // expected-error@+1 {{operand #0 must be ranked tensor of 4/6/8/16/32/64-bit float or per-tensor integer quantized values, but got 'tensor<2xi8>'}}
  %0 = stablehlo.reduce_precision %a, format = e5m10 : tensor<2xi8>
  return
}

// -----

func.func @batch_norm_feature_index(%a: tensor<2x3xf32>, %s: tensor<3xf32>) {
  // expected-error@+1 {{expects featureIndex to be smaller than the rank of multi-dimensional operands; got featureIndex 2, and rank 2.}}
  %0 = "stablehlo.batch_norm_inference"(%a, %s, %s, %s, %s) <{epsilon = 1.000000e-03 : f32, feature_index = 2 : i64}> : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @reduce_result_shape(%x: tensor<4x8xf32>, %z: tensor<f32>) {
  // expected-error@+1 {{inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<8xf32>'}}
  %0 = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<8xf32>
  return
}

// -----

func.func @reduce_init_shape(%x: tensor<4x8xf32>, %z: tensor<f32>) {
  // expected-error@+1 {{The shape of reduction-region's result type at index 0 differs from the op's corresponding init-value type: 'tensor<f32>' vs 'tensor<4x8xf32>'}}
  %0 = stablehlo.reduce(%x init: %x) applies stablehlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @reduce_body_type(%x: tensor<4x8xf32>, %z: tensor<f32>) {
  // expected-error@+1 {{inferred type(s) 'tensor<4xf16>' are incompatible with return type(s) of operation 'tensor<4xf32>'}}
  %0 = stablehlo.reduce(%x init: %z) across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
   reducer(%a: tensor<f16>, %b: tensor<f16>) {
    stablehlo.return %a : tensor<f16>
  }
  return
}

// -----

func.func @reduce_window_shape(%x: tensor<4x8xf32>, %z: tensor<f32>) {
  // expected-error@+1 {{inferred type(s) 'tensor<3x7xf32>' are incompatible with return type(s) of operation 'tensor<4x8xf32>'}}
  %0 = "stablehlo.reduce_window"(%x, %z) <{window_dimensions = array<i64: 2, 2>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    stablehlo.return %a : tensor<f32>
  }) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  return
}

// -----

// feature_index is a non-negative i64 (2^64 - 1 is the signless -1)
func.func @batch_norm_feature_index_negative(%x: tensor<2x3xf32>, %s: tensor<3xf32>) -> tensor<2x3xf32> {
  // expected-error@+1 {{'stablehlo.batch_norm_inference' op attribute 'feature_index' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %0 = "stablehlo.batch_norm_inference"(%x, %s, %s, %s, %s) {epsilon = 1.0e-5 : f32, feature_index = -1 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// feature_index is a non-negative i64 (2^64 - 1 is the signless -1)
func.func @batch_norm_feature_index_negative(%x: tensor<2x3xf32>, %s: tensor<3xf32>) -> tensor<2x3xf32> {
  // expected-error@+1 {{'stablehlo.batch_norm_inference' op attribute 'feature_index' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %0 = "stablehlo.batch_norm_inference"(%x, %s, %s, %s, %s) {epsilon = 1.0e-5 : f32, feature_index = 18446744073709551615 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @gather_offset_dim_out_of_range(%x: tensor<3x4xf32>, %i: tensor<2x1xi64>) -> tensor<2x4xf32> {
  // expected-error@+1 {{Expects each element of offset_dims to be in range [0, implied-result-rank) i.e. [0, 2). got: 2147483648.}}
  %0 = "stablehlo.gather"(%x, %i) <{dimension_numbers = #stablehlo.gather<offset_dims = [2147483648], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 4>}> : (tensor<3x4xf32>, tensor<2x1xi64>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}
